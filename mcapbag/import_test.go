package mcapbag

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/foxglove/mcap/go/mcap"

	"github.com/rsbag/rsbag/internal/testsupport/testbags"
	"github.com/rsbag/rsbag/msgs"
	"github.com/rsbag/rsbag/rosbag"
)

// seekerOnly hides the ReadAt of a file: Import then reads through the
// MCAP library's ordered iterator, one chunk at a time.
type seekerOnly struct{ io.ReadSeeker }

// handMCAP writes a ros1 MCAP file whose messages have the given log
// times, three per chunk, in that order.
func handMCAP(t *testing.T, times []uint64) []byte {
	t.Helper()
	var buf bytes.Buffer
	w, err := mcap.NewWriter(&buf, &mcap.WriterOptions{Chunked: true, ChunkSize: 100, Compression: mcap.CompressionNone})
	if err != nil {
		t.Fatal(err)
	}
	typ := *new(msgs.UInt32).Type()
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(w.WriteHeader(&mcap.Header{Profile: "ros1"}))
	must(w.WriteSchema(&mcap.Schema{ID: 1, Name: typ.Name, Encoding: "ros1msg", Data: []byte(typ.Definition)}))
	must(w.WriteChannel(&mcap.Channel{ID: 0, SchemaID: 1, Topic: "/n", MessageEncoding: "ros1", Metadata: map[string]string{MD5Key: typ.MD5}}))
	for i, lt := range times {
		must(w.WriteMessage(&mcap.Message{ChannelID: 0, Sequence: uint32(i), LogTime: lt, PublishTime: lt, Data: []byte{byte(i), 0, 0, 0, 0, 0, 0, 0, 0, 0}}))
	}
	must(w.Close())
	return buf.Bytes()
}

// importBytes imports an MCAP file from data, with or without ReadAt.
func importBytes(t *testing.T, data []byte, readAt bool) ([]testbags.Message, error) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "in.mcap")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	out := filepath.Join(t.TempDir(), "out.bag")
	w, err := rosbag.Create(out, nil)
	if err != nil {
		t.Fatal(err)
	}
	var src io.ReadSeeker = f
	if !readAt {
		src = seekerOnly{f}
	}
	if _, err := Import(w, src); err != nil {
		w.Close()
		return nil, err
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return testbags.Read(t, out), nil
}

// TestImportOrder: the chunks are decompressed ahead in parallel when they
// follow each other in time, messages out of order inside a chunk are put
// in order, overlapping chunks go through the ordered iterator; both ways
// give the messages in log time order (equal times in file order).
func TestImportOrder(t *testing.T) {
	for _, c := range []struct {
		name  string
		times []uint64
	}{
		{"in order", []uint64{1, 2, 3, 4, 5, 6, 7}},
		{"out of order inside chunks", []uint64{5, 3, 4, 10, 9, 11, 12}},
		{"equal times", []uint64{3, 3, 3, 3, 4, 4, 5}},
		{"overlapping chunks", []uint64{5, 3, 12, 10, 9, 11, 1}},
	} {
		data := handMCAP(t, c.times)
		for _, readAt := range []bool{true, false} {
			got, err := importBytes(t, data, readAt)
			if err != nil {
				t.Fatalf("%s (ReadAt %v): %v", c.name, readAt, err)
			}
			if len(got) != len(c.times) {
				t.Fatalf("%s: %d messages, want %d", c.name, len(got), len(c.times))
			}
			for i := 1; i < len(got); i++ {
				a, b := got[i-1], got[i]
				ta, tb := uint64(a.Sec)*1e9+uint64(a.Nsec), uint64(b.Sec)*1e9+uint64(b.Nsec)
				if ta > tb || ta == tb && a.Data[0] > b.Data[0] {
					t.Errorf("%s (ReadAt %v): message %d at %d (written #%d) after one at %d (#%d)", c.name, readAt, i, tb, b.Data[0], ta, a.Data[0])
				}
			}
		}
	}
}

// TestImportCorrupt: a chunk whose bytes were changed is an error naming
// its offset, also when its CRC is the only check.
func TestImportCorrupt(t *testing.T) {
	bag := filepath.Join("..", "testdata", "librealsense", "depth_color.bag")
	for _, comp := range []Compression{LZ4, Zstd, None} {
		out := exportFile(t, bag, t.TempDir(), &ExportOptions{Compression: comp, ChunkSize: 1 << 20})
		data, err := os.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		r, err := mcap.NewReader(bytes.NewReader(data))
		if err != nil {
			t.Fatal(err)
		}
		info, err := r.Info()
		if err != nil {
			t.Fatal(err)
		}
		ci := info.ChunkIndexes[len(info.ChunkIndexes)/2]
		data[ci.ChunkStartOffset+ci.ChunkLength-ci.CompressedSize/2] ^= 0x55
		_, err = importBytes(t, data, true)
		if err == nil || !strings.Contains(err.Error(), "chunk at offset") {
			t.Errorf("%s: a changed chunk imports: %v", comp, err)
		}
	}
}
