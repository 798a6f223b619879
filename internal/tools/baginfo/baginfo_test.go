package baginfo_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	_ "gocloud.dev/blob/s3blob"

	_ "github.com/rsbag/rsbag/blobfile"
	"github.com/rsbag/rsbag/internal/testsupport/benchbag"
	"github.com/rsbag/rsbag/internal/testsupport/fakes3"
	"github.com/rsbag/rsbag/internal/tools/baginfo"
	"github.com/rsbag/rsbag/playback"
	"github.com/rsbag/rsbag/rosbag"
)

func refBags(t *testing.T) []string {
	t.Helper()
	var bags []string
	for _, p := range []string{"../../../testdata/librealsense/*.bag", "../../../testdata/librealsense/real/*.bag", "../../../testdata/spec/*.bag"} {
		m, err := filepath.Glob(p)
		if err != nil {
			t.Fatal(err)
		}
		bags = append(bags, m...)
	}
	if len(bags) < 8 {
		t.Fatalf("found %d reference bags", len(bags))
	}
	return bags
}

// withoutFullOnly is the JSON of a report without what only a full read
// reports (compression, per-stream first and last times, the quick flag).
func withoutFullOnly(t *testing.T, rep *baginfo.Report) string {
	t.Helper()
	c := *rep
	c.Compression, c.Quick = nil, false
	c.Streams = append([]baginfo.Stream(nil), rep.Streams...)
	for i := range c.Streams {
		c.Streams[i].FirstNs, c.Streams[i].LastNs = 0, 0
	}
	b, err := json.MarshalIndent(&c, "", " ")
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestQuickMatchesFull: on every reference bag, the quick report (index and
// description only) says what the full read says, but the fields only a
// full read can give.
func TestQuickMatchesFull(t *testing.T) {
	for _, bag := range refBags(t) {
		full, err := baginfo.Inspect(bag, nil)
		if err != nil {
			t.Fatal(err)
		}
		quick, err := baginfo.Inspect(bag, &baginfo.Options{Quick: true})
		if err != nil {
			t.Fatal(err)
		}
		if !quick.Quick || quick.Compression != nil || len(full.Compression) == 0 {
			t.Errorf("%s: quick %v compression %v, full compression %v", bag, quick.Quick, quick.Compression, full.Compression)
		}
		if a, b := withoutFullOnly(t, full), withoutFullOnly(t, quick); a != b {
			t.Errorf("%s: quick report differs:\nfull:  %s\nquick: %s", bag, a, b)
		}
		if len(full.Streams) == 0 || full.DurationNs == 0 {
			t.Errorf("%s: %d streams, duration %d", bag, len(full.Streams), full.DurationNs)
		}
	}
}

// TestObjectStorage puts a 1 GB bag behind an S3 server that counts what it
// serves: the quick info reads less than 5% of it, opening it for playback
// too, and a seek to the middle reads the index plus at most two chunks.
func TestObjectStorage(t *testing.T) {
	root := t.TempDir()
	if err := os.Mkdir(filepath.Join(root, "fleet"), 0o755); err != nil {
		t.Fatal(err)
	}
	local := filepath.Join(root, "fleet", "big.bag")
	benchbag.Write(t, local, "none", 1<<30)
	st, err := os.Stat(local)
	if err != nil {
		t.Fatal(err)
	}
	size := st.Size()
	srv := fakes3.New(t, root)
	url := srv.URL("fleet", "big.bag")

	quick, err := baginfo.Inspect(url, &baginfo.Options{Quick: true})
	if err != nil {
		t.Fatal(err)
	}
	s := srv.Stats()
	t.Logf("quick info of a %d-byte bag: %+v (%.2f%%)", size, s, 100*float64(s.Bytes)/float64(size))
	if s.Bytes >= size/20 {
		t.Errorf("quick info read %d of %d bytes, want < 5%%", s.Bytes, size)
	}
	want, err := baginfo.Inspect(local, &baginfo.Options{Quick: true})
	if err != nil {
		t.Fatal(err)
	}
	want.Path = url
	if a, b := withoutFullOnly(t, want), withoutFullOnly(t, quick); a != b {
		t.Errorf("quick info by URL differs from the local file's:\n%s\n%s", a, b)
	}
	if len(quick.Streams) != 2 || quick.Streams[0].Frames < 100 {
		t.Fatalf("streams %+v", quick.Streams)
	}

	// The seek: after opening (the index), a read at the middle.
	srv.Reset()
	r, err := rosbag.Open(url, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	open := srv.Stats()
	srv.Reset()
	in := r.Info()
	it := r.Messages(&rosbag.Query{Start: in.Start + (in.End-in.Start)/2})
	if !it.Next() {
		t.Fatalf("no message after the middle: %v", it.Err())
	}
	m := it.Message()
	it.Close()
	seek := srv.Stats()
	// A chunk of this bag holds one frame (the largest: 1280x720 RGB8) and
	// its record headers; blocks of 64 KiB round the small reads up.
	const chunk = 1280*720*3 + 64<<10
	t.Logf("open: %+v; seek to %v (a %d-byte message): %+v", open, m.Time, len(m.Data), seek)
	if open.Bytes > size/100 {
		t.Errorf("opening read %d bytes", open.Bytes)
	}
	if seek.Bytes > 2*chunk {
		t.Errorf("seek to the middle read %d bytes, more than two chunks (%d)", seek.Bytes, 2*chunk)
	}

	// Opening it as a playback device reads its description, first and
	// last frames.
	srv.Reset()
	dev, err := playback.Open(url, &playback.Options{NonRealTime: true})
	if err != nil {
		t.Fatal(err)
	}
	dev.Close()
	if s := srv.Stats(); s.Bytes >= size/20 {
		t.Errorf("playback.Open read %d of %d bytes", s.Bytes, size)
	}
}
