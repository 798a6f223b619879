//go:build cloud

package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/rsbag/rsbag/blobfile"
	"github.com/rsbag/rsbag/internal/testsupport/fakes3"
	"github.com/rsbag/rsbag/internal/testsupport/synthrig"
	"github.com/rsbag/rsbag/sensor"
	"github.com/rsbag/rsbag/software"
)

// TestURLReadOnce: a whole pass over a bag in S3 — info, dump, play and
// export — reads each byte of it once (at most 1.05 times its size, no
// 64 KiB block served twice), on a synthetic recording of a D435i set
// (LZ4, and uncompressed: 15 MB, larger than the cache) and on the real
// D435 recording. The playback device reads the first and last chunks
// when it opens a bag, before the pass comes to them. It also logs what
// `info --quick` and a seek to one frame read, for comparison.
func TestURLReadOnce(t *testing.T) {
	root := t.TempDir()
	dir := filepath.Join(root, "b")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	synctest.Test(t, func(t *testing.T) {
		synthrig.Bag(t, filepath.Join(dir, "lz4.bag"), software.SyntheticConfig{
			Depth:    &software.Video{Width: 424, Height: 240, FPS: 30, Format: sensor.FormatZ16},
			Color:    &software.Video{Width: 424, Height: 240, FPS: 30, Format: sensor.FormatRGB8},
			AccelFPS: 250, GyroFPS: 200,
			Duration: time.Second, Speed: 1, // bag times as on a camera
		})
	})
	if r := rsRecord(t, "edit", "decompress", "-o", filepath.Join(dir, "none.bag"), filepath.Join(dir, "lz4.bag")); r.code != 0 {
		t.Fatalf("decompress: exit %d\n%s", r.code, r.stderr)
	}
	real, err := os.ReadFile("../../testdata/librealsense/real/single_depth_color_640x480.bag")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "real.bag"), real, 0o644); err != nil {
		t.Fatal(err)
	}
	srv := fakes3.New(t, root)
	out := t.TempDir()
	for _, bag := range []string{"lz4.bag", "none.bag", "real.bag"} {
		st, err := os.Stat(filepath.Join(dir, bag))
		if err != nil {
			t.Fatal(err)
		}
		size := st.Size()
		if bag == "none.bag" && size < 8<<20 {
			t.Fatalf("%s: %d bytes, want a bag larger than the cache", bag, size)
		}
		for _, cmd := range [][]string{
			{"info"}, {"dump"}, {"play", "--realtime=false"}, {"export", "--mcap", filepath.Join(out, "x.mcap")},
			{"info", "--quick"}, {"dump", "--seek", "0.1", "--limit", "1"}, // partial: figures only
		} {
			partial := len(cmd) > 1 && cmd[0] != "play" && cmd[0] != "export"
			what := strings.Join(cmd[:min(len(cmd), 3)], " ")
			srv.Reset()
			if r := rsRecord(t, append(cmd, srv.URL("b", bag))...); r.code != 0 {
				t.Fatalf("%s %v: exit %d\n%s", bag, cmd, r.code, r.stderr)
			}
			got := srv.Stats().Bytes
			t.Logf("%s %s: %d bytes read of %d (%.3fx)", bag, what, got, size, float64(got)/float64(size))
			if !partial && float64(got) > 1.05*float64(size) {
				t.Errorf("%s %v: read %d bytes of %d (%.2fx), want at most 1.05x", bag, cmd[0], got, size, float64(got)/float64(size))
			}
			// Every 64 KiB block is fetched once, whatever the order in
			// which the player's read-ahead loaders finish (the test
			// runs the passes -count times; blobfile's
			// TestReadAheadPassFetchesOnce replays such an order).
			blocks := map[int64]int{}
			for _, r := range srv.Ranges() {
				for b := r.Start / blobfile.DefaultBlockSize; b <= (r.End-1)/blobfile.DefaultBlockSize; b++ {
					if blocks[b]++; blocks[b] == 2 {
						t.Errorf("%s %v: block %d (64 KiB) served twice", bag, cmd[0], b)
					}
				}
			}
		}
	}
}
