package rosbag

import (
	"bytes"
	"encoding/binary"
	"errors"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/rsbag/rsbag/internal/lz4frame"
)

// TestCutChunkSalvaged cuts a bag in the middle of its one big chunk (of
// incompressible messages, so that its LZ4 frame has several blocks): the
// recovery scan reads the complete message records before the cut — up
// to the cut in an uncompressed chunk, those of the complete blocks in an
// LZ4 chunk — with their bytes; Reindex keeps exactly those in a chunk of
// its own, in a bag the checker accepts, of the size ReindexSize said.
func TestCutChunkSalvaged(t *testing.T) {
	for _, comp := range []string{"none", "lz4"} {
		t.Run(comp, func(t *testing.T) {
			dir := t.TempDir()
			good := filepath.Join(dir, "good.bag")
			w, err := Create(good, &WriterOptions{Compression: comp, ChunkThreshold: 64 << 20, FlushInterval: -1})
			if err != nil {
				t.Fatal(err)
			}
			id, _ := w.AddConnection("/device_0/sensor_0/option/Exposure/description", "std_msgs/String", stringMD5, stringDef, nil)
			rng := rand.New(rand.NewPCG(1, 2))
			var want [][]byte
			for i := range 40 {
				d := make([]byte, 4+100_000)
				binary.LittleEndian.PutUint32(d, 100_000)
				for j := 4; j < len(d); j++ {
					d[j] = 'a' + byte(rng.IntN(26))
				}
				want = append(want, d)
				if err := w.WriteMessage(id, Time(1e9+i*1e6), d); err != nil {
					t.Fatal(err)
				}
			}
			if err := w.Close(); err != nil {
				t.Fatal(err)
			}
			b, _ := os.ReadFile(good)
			gr, err := NewReader(bytes.NewReader(b), int64(len(b)), nil)
			if err != nil || len(gr.chunks) != 1 {
				t.Fatalf("good bag: %d chunks, %v", len(gr.chunks), err)
			}
			rec, _, _ := gr.readRecord(gr.chunks[0].pos, "chunk", nil)
			cut := rec.dataOff + rec.dataLen*6/10
			// The payload bytes a reader can have before the cut.
			avail := cut - rec.dataOff
			if comp == "lz4" {
				raw := b[rec.dataOff:cut]
				avail = 0
				for p := 7; p+4 <= len(raw); {
					n := int(binary.LittleEndian.Uint32(raw[p:]) &^ (1 << 31))
					if p+4+n > len(raw) {
						break
					}
					avail += lz4frame.BlockSize
					p += 4 + n
				}
				if avail < 2*lz4frame.BlockSize {
					t.Fatalf("only %d complete LZ4 blocks before the cut", avail/lz4frame.BlockSize)
				}
			}
			var cb chunkBuf
			if _, _, err := gr.loadChunk(gr.chunks[0].pos, &cb); err != nil {
				t.Fatal(err)
			}
			keep := 0
			walkChunk(cb.data, noConn, func(o int, id uint32, _ Time) string {
				hl := int(binary.LittleEndian.Uint32(cb.data[o:]))
				dl := int(binary.LittleEndian.Uint32(cb.data[o+4+hl:]))
				if int64(o+8+hl+dl) <= avail {
					keep++
				}
				return ""
			})
			if keep == 0 || keep == len(want) {
				t.Fatalf("%d of %d messages complete before the cut: the test needs some of them", keep, len(want))
			}
			bag := filepath.Join(dir, "cut.bag")
			os.WriteFile(bag, b[:cut], 0o644)

			check := func(what string, wantSalvaged int) {
				t.Helper()
				r, err := Open(bag, nil)
				if r == nil {
					t.Fatalf("%s: %v", what, err)
				}
				defer r.Close()
				if rc := r.Info().Recovery; wantSalvaged >= 0 && (rc == nil || rc.Salvaged != wantSalvaged) {
					t.Errorf("%s: recovery %+v, want %d salvaged", what, rc, wantSalvaged)
				}
				n := 0
				it := r.Messages(nil)
				for it.Next() {
					m := it.Message()
					if n >= len(want) || !bytes.Equal(m.Data, want[n]) {
						t.Fatalf("%s: message %d differs from the one written", what, n)
					}
					n++
				}
				if err := it.Err(); err != nil {
					t.Errorf("%s: %v", what, err)
				}
				if n != keep {
					t.Errorf("%s: %d messages read, want the %d complete before the cut", what, n, keep)
				}
			}
			check("cut bag", keep)

			r, _ := Open(bag, nil)
			size, err := r.ReindexSize()
			r.Close()
			if err != nil {
				t.Fatal(err)
			}
			if rc, err := Reindex(bag); err != nil || rc == nil || rc.Salvaged != keep {
				t.Fatalf("reindex: %+v %v", rc, err)
			}
			if st, _ := os.Stat(bag); st.Size() != size {
				t.Errorf("reindexed: %d bytes, ReindexSize said %d", st.Size(), size)
			}
			check("reindexed bag", -1)
			if r, err := Open(bag, nil); err != nil || !r.Info().Indexed {
				t.Errorf("reindexed bag: %v", err)
			} else {
				r.Close()
			}
			if rep, ok := runChecker(t, "bagcheck-ros", bag); ok && !rep.OK {
				t.Errorf("bagcheck-ros after reindex: %v", rep.Errors)
			}
		})
	}
}

// TestReindexNothingToRecover: a file with only the version line, or only
// its bag header, holds nothing to index: Reindex says so and leaves it as
// it is.
func TestReindexNothingToRecover(t *testing.T) {
	good := filepath.Join(t.TempDir(), "good.bag")
	smallBag(t, good, nil, 10)
	b, _ := os.ReadFile(good)
	for _, b := range [][]byte{[]byte("#ROSBAG V2.0\n"), b[:firstRecordPos]} {
		path := filepath.Join(t.TempDir(), "x.bag")
		os.WriteFile(path, b, 0o644)
		rc, err := Reindex(path)
		if !errors.Is(err, ErrNothingToRecover) {
			t.Errorf("%d-byte file: reindex %+v %v, want ErrNothingToRecover", len(b), rc, err)
		}
		if after, _ := os.ReadFile(path); !bytes.Equal(after, b) {
			t.Errorf("%d-byte file: reindex changed it to %d bytes", len(b), len(after))
		}
	}
}
