package processing

import (
	"io"
	"path/filepath"
	"testing"

	"github.com/rsbag/rsbag/sensor"
)

// realDepth returns a w×h Z16 frame tiled from the real D435 recording's
// depth, with intrinsics of that size (the recording's, scaled).
func realDepth(b *testing.B, w, h int) *sensor.Frame {
	frames := depthFrames(b, filepath.Join(refDir, "real", "single_depth_color_640x480.bag"))
	var src *sensor.Frame
	for _, f := range frames {
		src = f
		break
	}
	in := src.Profile.Intrinsics
	sx, sy := float32(w)/float32(in.Width), float32(h)/float32(in.Height)
	p := *src.Profile
	p.Width, p.Height = w, h
	p.Intrinsics = sensor.Intrinsics{Width: w, Height: h, PPX: in.PPX * sx, PPY: in.PPY * sy, FX: in.FX * sx, FY: in.FY * sy, Model: in.Model, Coeffs: in.Coeffs}
	f := &sensor.Frame{Profile: &p, Width: w, Height: h, Stride: 2 * w, BPP: 16, DepthUnits: src.DepthUnits, Data: make([]byte, 2*w*h)}
	for y := range h {
		for x := range w {
			ty, tx := y%src.Height, x%src.Width
			copy(f.Data[y*f.Stride+2*x:], src.Data[ty*src.Stride+2*tx:ty*src.Stride+2*tx+2])
		}
	}
	return f
}

// colorLike returns a w×h RGB8 color frame with D435-like intrinsics
// (modified Brown-Conrady) and a gradient picture.
func colorLike(w, h int) *sensor.Frame {
	p := &sensor.StreamProfile{Stream: sensor.StreamColor, Format: sensor.FormatRGB8, FPS: 30, Kind: sensor.KindVideo, Width: w, Height: h,
		Intrinsics: sensor.Intrinsics{Width: w, Height: h, PPX: float32(w) / 2, PPY: float32(h) / 2, FX: 0.96 * float32(w), FY: 0.96 * float32(w),
			Model: sensor.DistortionModifiedBrownConrady}}
	f := &sensor.Frame{Profile: p, Width: w, Height: h, Stride: 3 * w, BPP: 24, Data: make([]byte, 3*w*h)}
	for i := range f.Data {
		f.Data[i] = byte(i)
	}
	return f
}

// d435Extrinsics is a depth-to-color pose like a D435's: 15 mm along x.
type d435Extrinsics struct{}

func (d435Extrinsics) Extrinsics(from, to *sensor.StreamProfile) (sensor.Extrinsics, error) {
	return sensor.Extrinsics{Rotation: [9]float32{1, 0, 0, 0, 1, 0, 0, 0, 1}, Translation: [3]float32{0.015, 0, 0}}, nil
}

func reportFrames(b *testing.B, bytes int) {
	b.SetBytes(int64(bytes))
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "frames/s")
}

// BenchmarkAlign aligns 1280x720 depth to 1280x720 color and back.
func BenchmarkAlign(b *testing.B) {
	d, c := realDepth(b, 1280, 720), colorLike(1280, 720)
	for _, to := range []sensor.Stream{sensor.StreamColor, sensor.StreamDepth} {
		b.Run("to="+to.String(), func(b *testing.B) {
			a := NewAlign(to, d435Extrinsics{})
			b.ReportAllocs()
			for b.Loop() {
				if _, err := a.Process(d, c); err != nil {
					b.Fatal(err)
				}
			}
			reportFrames(b, len(d.Data))
		})
	}
}

// BenchmarkPointCloud computes 1280x720 clouds, mapped to color.
func BenchmarkPointCloud(b *testing.B) {
	d, c := realDepth(b, 1280, 720), colorLike(1280, 720)
	pc := NewPointCloud()
	e, _ := d435Extrinsics{}.Extrinsics(nil, nil)
	if err := pc.MapTo(c.Profile, e); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := pc.Calculate(d); err != nil {
			b.Fatal(err)
		}
	}
	reportFrames(b, len(d.Data))
}

// BenchmarkFilterChain runs librealsense's recommended depth chain at
// 848x480: decimation, to disparity, spatial, temporal, to depth, hole
// filling; and the spatial and temporal filters alone on depth.
func BenchmarkFilterChain(b *testing.B) {
	d := realDepth(b, 848, 480)
	chain := []Block{NewDecimation(), NewDisparityTransform(true, 50), NewSpatial(), NewTemporal(), NewDisparityTransform(false, 50), NewHoleFilling()}
	run := func(b *testing.B, blocks []Block) {
		b.ReportAllocs()
		for b.Loop() {
			f := d
			for _, bl := range blocks {
				var err error
				if f, err = bl.Process(f); err != nil {
					b.Fatal(err)
				}
			}
		}
		reportFrames(b, len(d.Data))
	}
	b.Run("chain", func(b *testing.B) { run(b, chain) })
	b.Run("spatial+temporal", func(b *testing.B) { run(b, []Block{NewSpatial(), NewTemporal()}) })
	b.Run("decimation", func(b *testing.B) { run(b, []Block{NewDecimation()}) })
}

// BenchmarkPLY writes a mapped 640x480 cloud with colors and mesh.
func BenchmarkPLY(b *testing.B) {
	d, c := realDepth(b, 640, 480), colorLike(640, 480)
	pc := NewPointCloud()
	e, _ := d435Extrinsics{}.Extrinsics(nil, nil)
	if err := pc.MapTo(c.Profile, e); err != nil {
		b.Fatal(err)
	}
	pts, err := pc.Calculate(d)
	if err != nil {
		b.Fatal(err)
	}
	for _, ascii := range []bool{false, true} {
		name := "binary"
		if ascii {
			name = "ascii"
		}
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if err := pts.WritePLY(io.Discard, c, PLYOptions{ASCII: ascii}); err != nil {
					b.Fatal(err)
				}
			}
			reportFrames(b, len(d.Data))
		})
	}
}
