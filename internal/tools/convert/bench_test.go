package convert

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/rsbag/rsbag/internal/testsupport/benchbag"
)

// BenchmarkConvert converts the shared benchmark bag (1280x720 Z16 depth
// and RGB8 color at 30 fps) to each output with both cores and reports
// frames/s and MB/s of files written. That bag has no extrinsics, so PLY
// converts the 424x240 depth and color reference bag.
func BenchmarkConvert(b *testing.B) {
	bag := filepath.Join(b.TempDir(), "bench.bag")
	benchbag.Write(b, bag, "lz4", 200<<20)
	for _, out := range []string{"PNG", "RAW", "CSV", "BIN", "PLY"} {
		b.Run(out, func(b *testing.B) {
			var frames, bytes int64
			for b.Loop() {
				dir := b.TempDir()
				var o Options
				prefix := filepath.Join(dir, "x")
				o.SetOutput(out, prefix)
				src := bag
				if out == "PLY" {
					src = filepath.Join(refDir, "depth_color.bag")
				}
				res, err := Run(context.Background(), src, o)
				if err != nil {
					b.Fatal(err)
				}
				for _, n := range res.Converted[out] {
					frames += int64(n)
				}
				bytes += res.Bytes
				b.StopTimer()
				os.RemoveAll(dir)
				b.StartTimer()
			}
			s := b.Elapsed().Seconds()
			b.ReportMetric(float64(frames)/s, "frames/s")
			b.ReportMetric(float64(bytes)/s/1e6, "MB/s")
		})
	}
}
