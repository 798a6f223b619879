package rosbag

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"weak"

	"github.com/rsbag/rsbag/internal/bagref"
	"github.com/rsbag/rsbag/internal/lz4frame"
)

// refPixels returns n bytes of compressible content that differs with
// seed: runs of a few values, with noise.
func refPixels(n int, seed uint64) []byte {
	r := rand.New(rand.NewPCG(seed, 7))
	b := make([]byte, n)
	for i := 0; i < n; {
		v, k := byte(r.Uint32()), 1+r.IntN(40)
		for ; k > 0 && i < n; k-- {
			b[i] = v
			i++
		}
	}
	return b
}

// readBack returns the messages of the bag f in file order.
func readBack(t *testing.T, f []byte) []fileMsg {
	t.Helper()
	r, err := NewReader(bytes.NewReader(f), int64(len(f)), nil)
	if err != nil {
		t.Fatal(err)
	}
	return fileOrder(t, r)
}

// TestWriteMessageRef writes the same messages with WriteMessage and with
// bagref.WriteMessageRef (head, data held by reference, tail): the files
// are byte-identical, whether a message's data covers whole LZ4 blocks,
// straddles the blocks of a chunk holding several messages, is larger
// than a block, or is too short to be held.
func TestWriteMessageRef(t *testing.T) {
	const bs = lz4frame.BlockSize
	for _, tc := range []struct {
		name   string
		comp   string
		thresh int
		sizes  []int // data lengths, in order
	}{
		{"frames larger than a block", "lz4", 0, []int{bs*2 + 7, 3, bs + bs/2, 100, bs*3 - 5}},
		{"blocks straddle frames", "lz4", 8 << 20, []int{50, bs + 3, 17, bs + bs/2, bs, 999, bs - 1, bs + 1, 5}},
		{"one block exactly", "lz4", 0, []int{bs, bs, 1}},
		{"short data copied", "lz4", 0, []int{bs - 1, 10, bs / 2}},
		{"uncompressed", "none", 0, []int{bs + 9, 20, bs * 2}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var files [2][]byte
			for mode := range files {
				path := filepath.Join(t.TempDir(), "f.bag")
				w, err := Create(path, &WriterOptions{Compression: tc.comp, ChunkThreshold: tc.thresh, FlushInterval: -1})
				if err != nil {
					t.Fatal(err)
				}
				a, _ := w.AddConnection("/a", "sensor_msgs/Image", "060021388200f6f0f447d0fcd9c64743", "", nil)
				b, _ := w.AddConnection("/b", "sensor_msgs/Image", "060021388200f6f0f447d0fcd9c64743", "", nil)
				// Twice over, so that later chunks reuse buffers holding the
				// stale bytes of earlier ones.
				for round := range 2 {
					for i, n := range tc.sizes {
						head := []byte(fmt.Sprintf("head %d %d:", round, i))
						data := refPixels(n, uint64(round*100+i))
						tail := []byte{byte(i), 0xEE}
						conn := []uint32{a, b}[i%2]
						tm := Time(1000 + round*100 + i)
						if mode == 0 {
							err = w.WriteMessage(conn, tm, bytes.Join([][]byte{head, data, tail}, nil))
						} else {
							err = bagref.WriteMessageRef(w, conn, uint64(tm), head, data, tail)
						}
						if err != nil {
							t.Fatal(err)
						}
					}
				}
				if err := w.Close(); err != nil {
					t.Fatal(err)
				}
				files[mode], _ = os.ReadFile(path)
			}
			if !bytes.Equal(files[0], files[1]) {
				t.Fatal("the file written with data held by reference differs from the file of copied messages")
			}
			if got := readBack(t, files[1]); len(got) != 2*len(tc.sizes) {
				t.Fatalf("%d messages read back, want %d", len(got), 2*len(tc.sizes))
			}
		})
	}
}

// TestWriteMessageRefHoldsData: the Writer holds the data of a message
// given by reference while its chunk is open, even once the caller let it
// go and the memory was collected and reused, and lets it go once the
// chunk is compressed.
func TestWriteMessageRefHoldsData(t *testing.T) {
	const n = lz4frame.BlockSize*2 + 33
	path := filepath.Join(t.TempDir(), "f.bag")
	w, err := Create(path, &WriterOptions{ChunkThreshold: 64 << 20, FlushInterval: -1})
	if err != nil {
		t.Fatal(err)
	}
	c, _ := w.AddConnection("/a", "sensor_msgs/Image", "060021388200f6f0f447d0fcd9c64743", "", nil)
	want := refPixels(n, 1)
	wp := func() weak.Pointer[byte] {
		data := bytes.Clone(want)
		if err := bagref.WriteMessageRef(w, c, 5, []byte("h"), data, nil); err != nil {
			t.Fatal(err)
		}
		return weak.Make(&data[0])
	}()
	// The caller's copy is gone; memory freed now would be reused by these.
	runtime.GC()
	var junk [][]byte
	for range 8 {
		junk = append(junk, bytes.Repeat([]byte{0xFF}, n))
	}
	runtime.KeepAlive(junk)
	if wp.Value() == nil {
		t.Fatal("the data of the open chunk was collected")
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	runtime.GC()
	if wp.Value() != nil {
		t.Fatal("the Writer still holds the data of a compressed chunk")
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	f, _ := os.ReadFile(path)
	got := readBack(t, f)
	if len(got) != 1 || !bytes.Equal(got[0].data, append([]byte("h"), want...)) {
		t.Fatalf("read back %d messages, or the data differs", len(got))
	}
}
