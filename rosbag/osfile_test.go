package rosbag

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"testing"
)

// TestOSFileReadAt: the block cache of a local bag file returns what the
// file holds at any offset and length — inside a cached block, across its
// end, at and past the end of the file (io.EOF with the bytes there are)
// — as (*os.File).ReadAt does.
func TestOSFileReadAt(t *testing.T) {
	data := make([]byte, 3*fileBlock+123)
	for i := range data {
		data[i] = byte(i * 7 / 3)
	}
	p := filepath.Join(t.TempDir(), "f")
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	plain, err := os.Open(p)
	if err != nil {
		t.Fatal(err)
	}
	defer plain.Close()
	of, err := os.Open(p)
	if err != nil {
		t.Fatal(err)
	}
	defer of.Close()
	f := &osFile{File: of, size: int64(len(data))}
	n := int64(len(data))
	for _, c := range []struct{ off, len int64 }{
		{0, 4}, {4, 100}, {50, 8}, {0, 4}, // within one block, backwards
		{fileBlock - 2, 8},                         // across the cached block's end
		{10, fileBlock/2 - 1}, {10, fileBlock / 2}, // the largest cached read, the smallest direct one
		{n - 10, 4}, {n - 4, 4}, {n - 3, 4}, {n, 4}, {n + 5, 4}, // the file's end
		{2 * fileBlock, 0}, {n - 3, 1},
	} {
		want := make([]byte, c.len)
		wn, werr := plain.ReadAt(want, c.off)
		got := make([]byte, c.len)
		gn, gerr := f.ReadAt(got, c.off)
		if gn != wn || (gerr == nil) != (werr == nil) || (werr == io.EOF) != (gerr == io.EOF) || !bytes.Equal(got, want) {
			t.Errorf("ReadAt(%d bytes at %d) = %d, %v; want %d, %v (same bytes %v)", c.len, c.off, gn, gerr, wn, werr, bytes.Equal(got, want))
		}
	}
}
