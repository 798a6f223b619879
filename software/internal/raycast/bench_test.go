package raycast

import (
	"testing"

	"github.com/rsbag/rsbag/sensor"
	"github.com/rsbag/rsbag/software/internal/motion"
)

// benchView is the default room seen by a w×h camera with the synthetic
// color stream's distortion, 2.5 s into the walk.
func benchView(b *testing.B, w, h int) *View {
	sc, err := Builtin("room", 0)
	if err != nil {
		b.Fatal(err)
	}
	tr, _ := motion.NewTrajectory("walk")
	fw := float32(w)
	c := NewCamera(sensor.Intrinsics{Width: w, Height: h, PPX: fw / 2, PPY: float32(h) / 2, FX: fw * 0.9, FY: fw * 0.9,
		Model: sensor.DistortionInverseBrownConrady, Coeffs: [5]float32{0.125, -0.25, 0.001, -0.002, 0.0625}})
	return sc.View(c, tr.Pose(2.5))
}

// BenchmarkColorRows draws a 1280x720 color picture on one goroutine.
func BenchmarkColorRows(b *testing.B) {
	v := benchView(b, 1280, 720)
	rgb := make([]byte, 3*1280*720)
	b.ResetTimer()
	for range b.N {
		v.ColorRows(rgb, 0, 720)
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "frames/s")
}

// BenchmarkDepthRows casts an 848x480 depth picture, with the other
// imager's occlusion, on one goroutine.
func BenchmarkDepthRows(b *testing.B) {
	v := benchView(b, 848, 480)
	z := make([]float32, 848*480)
	b.ResetTimer()
	for range b.N {
		v.DepthRows(z, 0, 480, 0.05)
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "frames/s")
}
