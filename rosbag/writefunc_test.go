package rosbag

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestWriteMessageFunc writes the same messages with WriteMessage and with
// WriteMessageFunc: the "none" files are byte-identical, and the lz4 file
// reads back the same messages.
func TestWriteMessageFunc(t *testing.T) {
	for _, comp := range []string{"none", "lz4"} {
		t.Run(comp, func(t *testing.T) {
			var files [2][]byte
			for mode := range files {
				path := filepath.Join(t.TempDir(), "f.bag")
				w, err := Create(path, &WriterOptions{Compression: comp, ChunkThreshold: 4096, FlushInterval: -1})
				if err != nil {
					t.Fatal(err)
				}
				a, _ := w.AddConnection("/a", "std_msgs/String", stringMD5, stringDef, nil)
				b, _ := w.AddConnection("/b", "std_msgs/String", stringMD5, stringDef, nil)
				for i := 0; i < 300; i++ {
					s := fmt.Sprintf("message %d %s", i, strings.Repeat("y", i%500))
					d := binary.LittleEndian.AppendUint32(nil, uint32(len(s)))
					d = append(d, s...)
					conn := []uint32{a, b}[i%2]
					tm := Time(1000 + i*10 - (i%5)*15)
					if mode == 0 {
						err = w.WriteMessage(conn, tm, d)
					} else {
						err = w.WriteMessageFunc(conn, tm, len(d), func(dst []byte) {
							binary.LittleEndian.PutUint32(dst, uint32(len(s)))
							copy(dst[4:], s)
						})
					}
					if err != nil {
						t.Fatal(err)
					}
				}
				if err := w.Close(); err != nil {
					t.Fatal(err)
				}
				files[mode], _ = os.ReadFile(path)
			}
			if comp == "none" && !bytes.Equal(files[0], files[1]) {
				t.Fatal("WriteMessageFunc output differs from WriteMessage output")
			}
			var got [2][]fileMsg
			for i, f := range files {
				r, err := NewReader(bytes.NewReader(f), int64(len(f)), nil)
				if err != nil {
					t.Fatal(err)
				}
				got[i] = fileOrder(t, r)
			}
			if len(got[0]) != 300 || len(got[1]) != 300 {
				t.Fatalf("%d and %d messages, want 300", len(got[0]), len(got[1]))
			}
			for i := range got[0] {
				x, y := got[0][i], got[1][i]
				if x.t != y.t || x.conn.Topic != y.conn.Topic || !bytes.Equal(x.data, y.data) {
					t.Fatalf("message %d differs", i)
				}
			}
		})
	}
}

// TestWriteMessageFuncRefusedOrPanicking: fill is not called for a refused
// message, and a panicking fill leaves no trace in the file.
func TestWriteMessageFuncRefusedOrPanicking(t *testing.T) {
	path := filepath.Join(t.TempDir(), "p.bag")
	w, err := Create(path, &WriterOptions{Compression: "none", FlushInterval: -1})
	if err != nil {
		t.Fatal(err)
	}
	c, _ := w.AddConnection("/a", "std_msgs/UInt32", uint32MD5, uint32Def, nil)
	called := false
	fill := func(dst []byte) { called = true }
	if err := w.WriteMessageFunc(c, 0, 4, fill); err == nil {
		t.Error("time 0 accepted")
	}
	if err := w.WriteMessageFunc(c+1, 1, 4, fill); err == nil {
		t.Error("unknown connection accepted")
	}
	if err := w.WriteMessageFunc(c, 1, -1, fill); err == nil {
		t.Error("negative size accepted")
	}
	if err := w.WriteMessageFunc(c, 1, 4, nil); err == nil {
		t.Error("nil fill accepted")
	}
	if called {
		t.Error("fill called for a refused message")
	}
	// A panic in the first message of a chunk, then in a later one.
	for i, tm := range []Time{5, 7} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("panic %d not propagated", i)
				}
			}()
			w.WriteMessageFunc(c, tm, 4, func([]byte) { panic("fill") })
		}()
		if i == 0 {
			if err := w.WriteMessage(c, 10, []byte{1, 0, 0, 0}); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := w.WriteMessageFunc(c, 20, 4, func(dst []byte) { copy(dst, []byte{2, 0, 0, 0}) }); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	r, err := Open(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if in := r.Info(); in.Messages != 2 || in.Start != 10 || in.End != 20 {
		t.Errorf("info: %d messages in [%v, %v], want 2 in [10, 20]", in.Messages, in.Start, in.End)
	}
	var got []byte
	it := r.Messages(nil)
	for it.Next() {
		got = append(got, it.Message().Data[0])
	}
	if it.Err() != nil || !bytes.Equal(got, []byte{1, 2}) {
		t.Errorf("messages %v, err %v", got, it.Err())
	}
	if err := w.WriteMessageFunc(c, 30, 4, fill); !errors.Is(err, ErrClosed) || called {
		t.Errorf("after Close: %v (fill called %v)", err, called)
	}
}

// BenchmarkWriteRecordPath prices what a record device pays per 1 MiB frame:
// "scratch" marshals the frame into a scratch buffer and WriteMessage copies
// it into the chunk; "func" marshals it straight into the chunk with
// WriteMessageFunc. The marshal step is a header plus a copy of the pixels,
// as msgs.Image.AppendTo does.
func BenchmarkWriteRecordPath(b *testing.B) {
	for _, comp := range []string{"none", "lz4"} {
		for _, mode := range []string{"scratch", "func"} {
			b.Run(comp+"/"+mode, func(b *testing.B) {
				msgs := imageMessages(b)
				path := filepath.Join(b.TempDir(), "bench.bag")
				w, err := Create(path, &WriterOptions{Compression: comp, Workers: 2, FlushInterval: -1})
				if err != nil {
					b.Fatal(err)
				}
				c, _ := w.AddConnection("/device_0/sensor_0/Depth_0/image/data", "sensor_msgs/Image", "060021388200f6f0f447d0fcd9c64743", "", nil)
				var hdr [64]byte
				marshal := func(dst []byte, i int, pix []byte) []byte {
					binary.LittleEndian.PutUint32(hdr[:], uint32(i))
					dst = append(dst, hdr[:]...)
					dst = binary.LittleEndian.AppendUint32(dst, uint32(len(pix)))
					return append(dst, pix...)
				}
				var scratch []byte
				b.SetBytes(1 << 20)
				b.ReportAllocs()
				b.ResetTimer()
				for i := 0; i < b.N; i++ {
					pix := msgs[i%len(msgs)]
					if mode == "scratch" {
						scratch = marshal(scratch[:0], i, pix)
						err = w.WriteMessage(c, Time(i+1), scratch)
					} else {
						err = w.WriteMessageFunc(c, Time(i+1), len(hdr)+4+len(pix), func(dst []byte) { marshal(dst[:0], i, pix) })
					}
					if err != nil {
						b.Fatal(err)
					}
				}
				if err := w.Close(); err != nil {
					b.Fatal(err)
				}
			})
		}
	}
}
