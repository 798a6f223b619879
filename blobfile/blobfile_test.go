package blobfile_test

import (
	"bytes"
	"context"
	"errors"
	"github.com/rsbag/rsbag/internal/bagname"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gocloud.dev/blob"
	_ "gocloud.dev/blob/fileblob"
	"gocloud.dev/blob/memblob"
	_ "gocloud.dev/blob/s3blob"

	"github.com/rsbag/rsbag/blobfile"
	"github.com/rsbag/rsbag/internal/testsupport/fakes3"
	"github.com/rsbag/rsbag/internal/tools/rsdump"
	"github.com/rsbag/rsbag/rosbag"
)

const refDir = "../testdata/librealsense"

func memObject(t *testing.T, data []byte) *blob.Bucket {
	t.Helper()
	b := memblob.OpenBucket(nil)
	t.Cleanup(func() { b.Close() })
	if err := b.WriteAll(context.Background(), "obj", data, nil); err != nil {
		t.Fatal(err)
	}
	return b
}

func TestReadAt(t *testing.T) {
	data := make([]byte, 100_000)
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range data {
		data[i] = byte(rng.Uint32())
	}
	b := memObject(t, data)
	f, err := blobfile.NewFile(context.Background(), b, "obj", &blobfile.Options{BlockSize: 4096, CacheSize: 4 * 4096})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if f.Size() != int64(len(data)) {
		t.Fatalf("size %d, want %d", f.Size(), len(data))
	}
	for _, c := range []struct {
		name     string
		off, n   int64
		wantN    int
		wantEOF  bool
		requests int64 // made by this read
		bytes    int64 // fetched by this read
	}{
		{"small in block 0", 10, 100, 100, false, 1, 4096},
		{"again, cached", 20, 50, 50, false, 0, 0},
		{"spans blocks 1 and 2, one request", 4096 + 4000, 200, 200, false, 1, 8192},
		{"long read fetches its blocks 12-14", 50_000, 10_000, 10_000, false, 1, 3 * 4096},
		{"again: only the edge blocks were kept", 50_000, 10_000, 10_000, false, 1, 4096},
		{"ends at the end", 99_000, 1000, 1000, false, 1, 100_000 - 24*4096},
		{"past the end", 99_500, 1000, 500, true, 0, 0},
		{"at the end", 100_000, 10, 0, true, 0, 0},
		{"evicted block 0 fetched again", 0, 10, 10, false, 1, 4096},
	} {
		before := f.Stats()
		p := make([]byte, c.n)
		n, err := f.ReadAt(p, c.off)
		if n != c.wantN || (err == io.EOF) != c.wantEOF || (err != nil && err != io.EOF) {
			t.Fatalf("%s: ReadAt(%d, %d) = %d, %v; want %d, EOF %v", c.name, c.n, c.off, n, err, c.wantN, c.wantEOF)
		}
		if !bytes.Equal(p[:n], data[c.off:c.off+int64(n)]) {
			t.Fatalf("%s: wrong bytes", c.name)
		}
		after := f.Stats()
		if r, by := after.Requests-before.Requests, after.Bytes-before.Bytes; r != c.requests || by != c.bytes {
			t.Errorf("%s: %d requests, %d bytes; want %d, %d", c.name, r, by, c.requests, c.bytes)
		}
		if c.name == "at the end" {
			// fill the cache with 4 other blocks so that block 0 goes
			for _, off := range []int64{5 * 4096, 6 * 4096, 7 * 4096, 8 * 4096} {
				if _, err := f.ReadAt(make([]byte, 1), off); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
	if _, err := f.ReadAt(make([]byte, 1), -1); err == nil {
		t.Error("negative offset: no error")
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := f.ReadAt(make([]byte, 10), 90_000); err == nil || !strings.Contains(err.Error(), "after Close") {
		t.Errorf("read after Close: %v", err)
	}
}

func TestOptions(t *testing.T) {
	b := memObject(t, []byte("x"))
	if _, err := blobfile.NewFile(context.Background(), b, "obj", &blobfile.Options{BlockSize: -1}); err == nil {
		t.Error("negative block size accepted")
	}
	_, err := blobfile.NewFile(context.Background(), b, "missing.bag", nil)
	if !errors.Is(err, blobfile.ErrNotFound) || !strings.Contains(err.Error(), "missing.bag") {
		t.Errorf("missing object: %v", err)
	}
}

func TestSplitURL(t *testing.T) {
	for _, c := range []struct{ in, bucket, key, err string }{
		{"s3://b/dir/x.bag", "s3://b", "dir/x.bag", ""},
		{"s3://b/x.bag?region=eu-west-1&endpoint=http%3A%2F%2Fh%3A9000", "s3://b?region=eu-west-1&endpoint=http%3A%2F%2Fh%3A9000", "x.bag", ""},
		{"gs://bucket/a%20b.bag", "gs://bucket", "a b.bag", ""},
		{"azblob://container/x.bag", "azblob://container", "x.bag", ""},
		{"file:///data/bags/x.bag", "file:///data/bags", "x.bag", ""},
		{"file:///x.bag", "file:///", "x.bag", ""},
		{"file:///data/", "", "", "directory"},
		{"s3://b", "", "", "no object key"},
		{"s3://b/dir/", "", "", "no object key"},
		{"x.bag", "", "", "not a URL"},
		{"s3://b/%zz", "", "", "invalid URL escape"},
	} {
		b, k, err := blobfile.SplitURL(c.in)
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("SplitURL(%q) error %v, want one saying %q", c.in, err, c.err)
			}
			continue
		}
		if err != nil || b != c.bucket || k != c.key {
			t.Errorf("SplitURL(%q) = %q, %q, %v; want %q, %q", c.in, b, k, err, c.bucket, c.key)
		}
	}
}

// TestOpenByURL plays a reference bag from a fake S3 server and from a
// file:// URL: the dump is the one of the local file.
func TestOpenByURL(t *testing.T) {
	root := t.TempDir()
	src := filepath.Join(refDir, "depth_color.bag")
	data, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(root, "bags"), 0o755); err != nil {
		t.Fatal(err)
	}
	local := filepath.Join(root, "bags", "depth_color.bag")
	if err := os.WriteFile(local, data, 0o644); err != nil {
		t.Fatal(err)
	}
	srv := fakes3.New(t, root)
	dump := func(name string) string {
		var b bytes.Buffer
		if err := rsdump.Run(&b, name, rsdump.Options{}); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		return b.String()
	}
	want := dump(local)
	for _, name := range []string{srv.URL("bags", "depth_color.bag"), "file://" + filepath.ToSlash(local)} {
		if !bagname.IsURL(name) {
			t.Fatalf("%s is not a URL", name)
		}
		if got := dump(name); got != want {
			t.Errorf("%s: dump differs from the local file's", name)
		}
	}
	if s := srv.Stats(); s.Ranged == 0 || s.Bytes > 2*int64(len(data)) {
		t.Errorf("served %+v for a %d-byte bag", s, len(data))
	}
	_, err = rosbag.Open(srv.URL("bags", "nothere.bag"), nil)
	if !errors.Is(err, blobfile.ErrNotFound) || !strings.Contains(err.Error(), "nothere.bag") {
		t.Errorf("missing object: %v", err)
	}
}
