package rosbag

import (
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/rsbag/rsbag/internal/testsupport/conformance"
)

var genBroken = flag.Bool("gen-broken", false, "regenerate testdata/broken with make-broken-bags")

// TestGenBroken regenerates testdata/broken (run once with -gen-broken):
// make-broken-bags over a small lz4 reference bag and a small "none" bag of
// our own.
func TestGenBroken(t *testing.T) {
	if !*genBroken {
		t.Skip("use -gen-broken")
	}
	mk := conformance.Shared("make-broken-bags")
	if mk == "" {
		t.Fatal("make-broken-bags missing")
	}
	none := filepath.Join(t.TempDir(), "none.bag")
	smallBag(t, none, &WriterOptions{Compression: "none", ChunkThreshold: 8192, FlushInterval: -1}, 300)
	for dir, good := range map[string]string{"lz4": "../testdata/librealsense/pose.bag", "none": none} {
		out := filepath.Join("testdata", "broken", dir)
		os.RemoveAll(out)
		if b, err := exec.Command(mk, good, out).CombinedOutput(); err != nil {
			t.Fatalf("%v\n%s", err, b)
		} else {
			t.Logf("%s", b)
		}
	}
}

// TestGenFuzzSeed regenerates testdata/fuzzseed (run once with -gen-broken).
func TestGenFuzzSeed(t *testing.T) {
	if !*genBroken {
		t.Skip("use -gen-broken")
	}
	for _, comp := range []string{"lz4", "none"} {
		smallBag(t, filepath.Join("testdata", "fuzzseed", comp+".bag"), &WriterOptions{Compression: comp, ChunkThreshold: 300, FlushInterval: -1}, 12)
	}
}
