package yuv

import (
	"bytes"
	"math/rand/v2"
	"testing"

	"github.com/rsbag/rsbag/sensor"
)

// TestConvertTable: the values of librealsense's formula, worked out by
// hand for one pair of pixels (Y0 Y1 sharing U and V):
//
//	Y 16, U 128, V 128: C 0 → 0, 0, 0
//	Y 235, U 128, V 128: C 219, (298·219 + 128) >> 8 = 255 → 255, 255, 255
//	Y 128, U 128, V 128: (298·112 + 128) >> 8 = 130 → 130, 130, 130
//	Y 81, U 90, V 240: C 65, D -38, E 112 → R (19370+45808+128)>>8 = 255,
//	  G (19370+3800-23296+128)>>8 = 0, B (19370-19608+128)>>8 = -1 → 0
//	Y 128 with U 90, V 240: R 309 → 255, G 14008>>8 = 54, B 13896>>8 = 54
//	Y 0, U 255, V 0: C -16, D 127, E -128 → R <0 → 0, G 9284>>8 = 36, B 60892>>8 = 237
func TestConvertTable(t *testing.T) {
	type px struct{ r, g, b, y byte }
	for _, tc := range []struct {
		y0, y1, u, v byte
		p0, p1       px
	}{
		{16, 235, 128, 128, px{0, 0, 0, 16}, px{255, 255, 255, 235}},
		{128, 128, 128, 128, px{130, 130, 130, 128}, px{130, 130, 130, 128}},
		{81, 128, 90, 240, px{255, 0, 0, 81}, px{255, 54, 54, 128}},
		{0, 0, 255, 0, px{0, 36, 237, 0}, px{0, 36, 237, 0}},
	} {
		yuyv := []byte{tc.y0, tc.u, tc.y1, tc.v}
		uyvy := []byte{tc.u, tc.y0, tc.v, tc.y1}
		want := map[sensor.Format][]byte{
			sensor.FormatRGB8:  {tc.p0.r, tc.p0.g, tc.p0.b, tc.p1.r, tc.p1.g, tc.p1.b},
			sensor.FormatBGR8:  {tc.p0.b, tc.p0.g, tc.p0.r, tc.p1.b, tc.p1.g, tc.p1.r},
			sensor.FormatRGBA8: {tc.p0.r, tc.p0.g, tc.p0.b, 255, tc.p1.r, tc.p1.g, tc.p1.b, 255},
			sensor.FormatBGRA8: {tc.p0.b, tc.p0.g, tc.p0.r, 255, tc.p1.b, tc.p1.g, tc.p1.r, 255},
			sensor.FormatY8:    {tc.p0.y, tc.p1.y},
		}
		for _, to := range Targets {
			for from, src := range map[sensor.Format][]byte{sensor.FormatYUYV: yuyv, sensor.FormatUYVY: uyvy} {
				dst := make([]byte, 2*OutBytes(to))
				if err := Convert(dst, to, src, from, 2, 1, 4); err != nil {
					t.Fatal(err)
				}
				if !bytes.Equal(dst, want[to]) {
					t.Errorf("%s % d to %s: % d, want % d", from, src, to, dst, want[to])
				}
			}
		}
	}
}

// reference converts one pixel by the formula, for comparing whole
// pictures.
func reference(y, u, v byte) (r, g, b byte) {
	c, d, e := int32(y)-16, int32(u)-128, int32(v)-128
	return clamp((298*c + 409*e + 128) >> 8), clamp((298*c - 100*d - 208*e + 128) >> 8), clamp((298*c + 516*d + 128) >> 8)
}

// TestConvertPicture converts a random 1280x720 picture with padded rows
// (split between the cores) and compares every pixel with the formula; a
// conversion allocates nothing.
func TestConvertPicture(t *testing.T) {
	const w, h, stride = 1280, 720, 2*1280 + 64
	src := make([]byte, stride*h)
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range src {
		src[i] = byte(rng.Uint32())
	}
	dst := make([]byte, w*h*3)
	if err := Convert(dst, sensor.FormatRGB8, src, sensor.FormatYUYV, w, h, stride); err != nil {
		t.Fatal(err)
	}
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			q := src[y*stride+(x&^1)*2:]
			r, g, b := reference(q[(x&1)*2], q[1], q[3])
			if p := dst[(y*w+x)*3:]; p[0] != r || p[1] != g || p[2] != b {
				t.Fatalf("pixel %d,%d: %d %d %d, want %d %d %d", x, y, p[0], p[1], p[2], r, g, b)
			}
		}
	}
	if n := testing.AllocsPerRun(10, func() {
		Convert(dst, sensor.FormatRGB8, src, sensor.FormatYUYV, w, h, stride)
	}); n != 0 {
		t.Errorf("%v allocations per conversion, want 0", n)
	}
}

func TestConvertErrors(t *testing.T) {
	for _, tc := range []struct {
		name     string
		to, from sensor.Format
		w, h     int
		src, dst int
	}{
		{"odd width", sensor.FormatRGB8, sensor.FormatYUYV, 3, 1, 6, 9},
		{"short source", sensor.FormatRGB8, sensor.FormatYUYV, 4, 2, 15, 24},
		{"short output", sensor.FormatRGB8, sensor.FormatYUYV, 4, 2, 16, 23},
		{"from RGB8", sensor.FormatRGB8, sensor.FormatRGB8, 2, 1, 6, 6},
		{"to Z16", sensor.FormatZ16, sensor.FormatYUYV, 2, 1, 4, 4},
	} {
		if err := Convert(make([]byte, tc.dst), tc.to, make([]byte, tc.src), tc.from, tc.w, tc.h, 2*tc.w); err == nil {
			t.Errorf("%s: no error", tc.name)
		}
	}
}

// BenchmarkYUYVToRGB8 converts 1280x720 YUYV pictures to RGB8 (rows split
// between the cores; -cpu 1 for one).
func BenchmarkYUYVToRGB8(b *testing.B) {
	const w, h = 1280, 720
	src := make([]byte, 2*w*h)
	for i := range src {
		src[i] = byte(i * 7)
	}
	dst := make([]byte, 3*w*h)
	b.ReportAllocs()
	for b.Loop() {
		if err := Convert(dst, sensor.FormatRGB8, src, sensor.FormatYUYV, w, h, 2*w); err != nil {
			b.Fatal(err)
		}
	}
	sec := b.Elapsed().Seconds()
	b.ReportMetric(float64(len(src))*float64(b.N)/sec/1e6, "MB/s")
	b.ReportMetric(float64(b.N)/sec, "frames/s")
}
