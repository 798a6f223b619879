package playback

import (
	"testing"

	"github.com/rsbag/rsbag/internal/testsupport/testbags"
)

// BenchmarkOpen measures opening the librealsense reference bags: reading
// their description and their first and last frame times (opens per
// second, over all the bags).
func BenchmarkOpen(b *testing.B) {
	paths := testbags.Librealsense(b, "..")
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		for _, p := range paths {
			d, err := Open(p, &Options{NonRealTime: true})
			if err != nil {
				continue // the damaged reference bags are refused: that is timed too
			}
			d.Close()
		}
	}
	b.ReportMetric(float64(b.N*len(paths))/b.Elapsed().Seconds(), "opens/s")
}
