package baginfo_test

import (
	"testing"

	"github.com/rsbag/rsbag/internal/testsupport/testbags"
	"github.com/rsbag/rsbag/internal/tools/baginfo"
)

// BenchmarkInspect measures info's reading of the librealsense reference
// bags, every message (full) or the index and the description (quick), in
// bags described per second.
func BenchmarkInspect(b *testing.B) {
	for _, c := range []struct {
		name  string
		quick bool
	}{{"full", false}, {"quick", true}} {
		b.Run(c.name, func(b *testing.B) {
			paths := testbags.Librealsense(b, "../../..")
			b.ReportAllocs()
			for b.Loop() {
				for _, p := range paths {
					if _, err := baginfo.Inspect(p, &baginfo.Options{Quick: c.quick}); err != nil {
						b.Fatal(err)
					}
				}
			}
			b.ReportMetric(float64(b.N*len(paths))/b.Elapsed().Seconds(), "bags/s")
		})
	}
}
