package rosbag

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// twoTopicBag writes n messages alternating between two connections at
// strictly increasing times, in small chunks.
func twoTopicBag(t *testing.T, comp string, n int) []byte {
	t.Helper()
	path := filepath.Join(t.TempDir(), comp+".bag")
	w, err := Create(path, &WriterOptions{Compression: comp, ChunkThreshold: 2048, FlushInterval: -1})
	if err != nil {
		t.Fatal(err)
	}
	a, _ := w.AddConnection("/device_0/sensor_0/option/Exposure/description", "std_msgs/String", stringMD5, stringDef, nil)
	b, _ := w.AddConnection("/device_0/sensor_1/option/Gain/description", "std_msgs/String", stringMD5, stringDef, nil)
	for i := range n {
		s := fmt.Sprintf("message %d", i)
		d := binary.LittleEndian.AppendUint32(nil, uint32(len(s)))
		d = append(d, s...)
		if err := w.WriteMessage([]uint32{a, b}[i%2], Time(1_000_000+i*1000), d); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	out, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

type seenMsg struct {
	conn uint32
	t    Time
	data string
}

func drain(it *Iterator) []seenMsg {
	var out []seenMsg
	for it.Next() {
		m := it.Message()
		out = append(out, seenMsg{m.Conn.ID, m.Time, string(m.Data)})
	}
	return out
}

// TestSkipCorrupt corrupts the middle chunk of indexed lz4 and none bags
// (compressed stream, inner record length) and checks that SkipCorrupt yields
// every other message in order and reports the skip once per pass.
func TestSkipCorrupt(t *testing.T) {
	for _, comp := range []string{"lz4", "none"} {
		t.Run(comp, func(t *testing.T) {
			good := twoTopicBag(t, comp, 300)
			gr, err := NewReader(bytes.NewReader(good), int64(len(good)), nil)
			if err != nil {
				t.Fatal(err)
			}
			if len(gr.chunks) < 5 {
				t.Fatalf("%d chunks, want at least 5", len(gr.chunks))
			}
			mid := len(gr.chunks) / 2
			ci := gr.chunks[mid]
			rec, _, err := gr.readRecord(ci.pos, "chunk", nil)
			if err != nil {
				t.Fatal(err)
			}
			var all, want []seenMsg
			lost := map[uint32]int{}
			it := gr.Messages(nil)
			for it.Next() {
				m := it.Message()
				s := seenMsg{m.Conn.ID, m.Time, string(m.Data)}
				all = append(all, s)
				if m.Chunk == mid {
					lost[m.Conn.ID]++
				} else {
					want = append(want, s)
				}
			}
			if it.Err() != nil || len(all) != 300 {
				t.Fatalf("clean bag: %d messages, %v", len(all), it.Err())
			}
			bad := slices.Clone(good)
			if comp == "lz4" {
				for i := rec.dataOff + rec.dataLen/2; i < rec.dataOff+rec.dataLen/2+4; i++ {
					bad[i] ^= 0x5a
				}
			} else {
				// header length of the second message record: past the chunk
				p := bad[rec.dataOff:rec.end()]
				hl := binary.LittleEndian.Uint32(p)
				dl := binary.LittleEndian.Uint32(p[4+hl:])
				binary.LittleEndian.PutUint32(p[8+hl+dl:], 0xfffffff0)
			}
			r, err := NewReader(bytes.NewReader(bad), int64(len(bad)), nil)
			if err != nil {
				t.Fatal(err)
			}
			wantSkip := SkippedChunk{Offset: ci.pos, Bytes: rec.end() - ci.pos, Start: ci.start, End: ci.end,
				Messages: len(all) - len(want), ByConnection: lost}
			checkSkip := func(t *testing.T, got []SkippedChunk, n int) {
				t.Helper()
				if len(got) != n {
					t.Fatalf("%d skips %+v, want %d", len(got), got, n)
				}
				for _, sk := range got {
					var fe *FormatError
					if !errors.As(sk.Err, &fe) || fe.Offset != ci.pos {
						t.Errorf("skip error %v, want a *FormatError at offset %d", sk.Err, ci.pos)
					}
					sk.Err = nil
					if fmt.Sprint(sk) != fmt.Sprint(wantSkip) {
						t.Errorf("skip %+v, want %+v", sk, wantSkip)
					}
				}
			}

			// Default: the *FormatError stops iteration at the chunk.
			it = r.Messages(nil)
			got := drain(it)
			var fe *FormatError
			if !errors.As(it.Err(), &fe) || fe.Offset != ci.pos || it.Skipped() != nil {
				t.Errorf("default mode: error %v, skipped %v; want a *FormatError at %d", it.Err(), it.Skipped(), ci.pos)
			}
			if len(got) >= len(want) || !slices.Equal(got, all[:len(got)]) {
				t.Errorf("default mode: %d messages before the error", len(got))
			}

			for _, keep := range []bool{false, true} {
				t.Run(fmt.Sprintf("keep=%v", keep), func(t *testing.T) {
					it := r.Messages(&Query{SkipCorrupt: true, KeepData: keep})
					defer it.Close()
					got := drain(it)
					if it.Err() != nil {
						t.Fatal(it.Err())
					}
					if !slices.Equal(got, want) {
						t.Fatalf("got %d messages, want %d (all but chunk %d)", len(got), len(want), mid)
					}
					checkSkip(t, it.Skipped(), 1)

					// Seek back before the corrupt chunk: a new pass reports it again.
					before := gr.chunks[mid-1].start
					if err := it.Seek(before); err != nil {
						t.Fatal(err)
					}
					got = drain(it)
					i := slices.IndexFunc(want, func(s seenMsg) bool { return s.t >= before })
					if it.Err() != nil || !slices.Equal(got, want[i:]) {
						t.Fatalf("after seek to %v: %d messages, %v", before, len(got), it.Err())
					}
					checkSkip(t, it.Skipped(), 2)

					// Seek past it: nothing more is skipped.
					after := ci.end + 1
					if err := it.Seek(after); err != nil {
						t.Fatal(err)
					}
					got = drain(it)
					i = slices.IndexFunc(want, func(s seenMsg) bool { return s.t >= after })
					if it.Err() != nil || !slices.Equal(got, want[i:]) {
						t.Fatalf("after seek to %v: %d messages, %v", after, len(got), it.Err())
					}
					checkSkip(t, it.Skipped(), 2)

					// Seek into it: only the messages from there on are lost.
					in := ci.start + (ci.end-ci.start)/2
					it2 := r.Messages(&Query{SkipCorrupt: true, KeepData: keep, Start: in})
					got = drain(it2)
					i = slices.IndexFunc(want, func(s seenMsg) bool { return s.t >= in })
					if it2.Err() != nil || !slices.Equal(got, want[i:]) {
						t.Fatalf("from %v: %d messages, %v", in, len(got), it2.Err())
					}
					n := 0
					for _, s := range all {
						if s.t >= in && s.t <= ci.end {
							n++
						}
					}
					if sk := it2.Skipped(); len(sk) != 1 || sk[0].Messages != n || sk[0].Offset != ci.pos {
						t.Errorf("from %v: skipped %+v, want %d messages lost", in, sk, n)
					}
				})
			}
		})
	}
}
