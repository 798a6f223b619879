package convert

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/rsbag/rsbag/internal/testsupport/synthrig"
	"github.com/rsbag/rsbag/sensor"
	"github.com/rsbag/rsbag/software"
)

// TestPLYOfYUYVBag: -l writes colored point clouds of a bag whose color
// stream is YUYV (as live recordings made before color was converted on
// the host) or MJPEG (a camera's compressed mode, decoded), and -p its
// color frames as pictures.
func TestPLYOfYUYVBag(t *testing.T) {
	for _, format := range []sensor.Format{sensor.FormatYUYV, sensor.FormatMJPEG} {
		t.Run(format.String(), func(t *testing.T) {
			dir := t.TempDir()
			bag := filepath.Join(dir, "color.bag")
			synctest.Test(t, func(t *testing.T) {
				synthrig.Bag(t, bag, software.SyntheticConfig{
					Depth:  &software.Video{Width: 64, Height: 48, FPS: 30, Format: sensor.FormatZ16},
					Color:  &software.Video{Width: 64, Height: 48, FPS: 30, Format: format},
					Frames: 3, Speed: 1, Duration: time.Second,
				})
			})
			o := Options{PLY: filepath.Join(dir, "x"), PLYText: true, PNG: filepath.Join(dir, "p"), Workers: 2}
			res, err := Run(context.Background(), bag, o)
			if err != nil {
				t.Fatalf("convert -l -p of a %s bag: %v", format, err)
			}
			if n := res.Converted["PLY"]["Depth"]; n != 3 {
				t.Errorf("%d clouds written (%v, skipped %v), want 3", n, res.Converted, res.Skipped)
			}
			if n := res.Converted["PNG"]["Color"]; n != 3 {
				t.Errorf("%d color pictures written (%v, skipped %v), want 3", n, res.Converted, res.Skipped)
			}
			plys, _ := filepath.Glob(filepath.Join(dir, "x_*.ply"))
			if len(plys) != 3 {
				t.Fatalf("PLY files %v, want 3", plys)
			}
			b, err := os.ReadFile(plys[0])
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(string(b), "property uchar red") {
				t.Errorf("%s has no colors:\n%.300s", plys[0], b)
			}
		})
	}
}
