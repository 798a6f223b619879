package processing

import (
	"errors"
	"math"
	"testing"

	"github.com/rsbag/rsbag/extensions"
	"github.com/rsbag/rsbag/sensor"
)

// synthDepth returns a w×h depth frame of format f with intrinsics of its
// size and a ramp of values (every 7th pixel a hole).
func synthDepth(w, h int, f sensor.Format) *sensor.Frame {
	bpp := bytesPerPixel(f)
	p := &sensor.StreamProfile{Stream: sensor.StreamDepth, Format: f, FPS: 30, Kind: sensor.KindVideo, Width: w, Height: h,
		Intrinsics: sensor.Intrinsics{Width: w, Height: h, PPX: float32(w) / 2, PPY: float32(h) / 2, FX: float32(w), FY: float32(w)}}
	fr := &sensor.Frame{Profile: p, Number: 1, Width: w, Height: h, Stride: w * bpp, BPP: 8 * bpp, DepthUnits: 0.001, Data: make([]byte, w*h*bpp)}
	for i := 0; i < w*h; i++ {
		v := uint16(300 + i%2000)
		if i%7 == 0 {
			v = 0
		}
		switch bpp {
		case 2:
			fr.Data[2*i], fr.Data[2*i+1] = byte(v), byte(v>>8)
		case 4:
			putF32s(fr.Data[4*i:], []float32{float32(v)})
		default:
			for k := 0; k < bpp; k++ {
				fr.Data[bpp*i+k] = byte(v)
			}
		}
	}
	return fr
}

// TestBlocksBadInput: every block on nil, short, odd-sized, 1x1 and
// absurd frames returns a frame or an error wrapping ErrFrame, never
// panics; a frame its stream filter does not select passes unchanged.
func TestBlocksBadInput(t *testing.T) {
	rot := NewRotation()
	if err := rot.SetOption(sensor.OptionRotation, 90); err != nil {
		t.Fatal(err)
	}
	blocks := []Block{NewThreshold(), NewUnitsTransform(), NewHoleFilling(), NewDecimation(), NewSpatial(), NewTemporal(),
		NewDisparityTransform(true, 50), rot, NewColorizer()}
	short := synthDepth(64, 48, sensor.FormatZ16)
	short.Data = short.Data[:100]
	giant := synthDepth(4, 4, sensor.FormatZ16)
	giant.Width, giant.Height, giant.Stride = 1<<20, 1<<20, 2<<20
	negative := synthDepth(4, 4, sensor.FormatZ16)
	negative.Stride = -8
	color := synthDepth(8, 8, sensor.FormatRGB8)
	color.Profile.Stream = sensor.StreamColor
	cases := []struct {
		name string
		f    *sensor.Frame
		ok   bool // a frame comes back (else an error)
	}{
		{"nil", nil, false},
		{"short data", short, false},
		{"giant size", giant, false},
		{"negative stride", negative, false},
		{"odd 7x5", synthDepth(7, 5, sensor.FormatZ16), true},
		{"3x3", synthDepth(3, 3, sensor.FormatZ16), true},
		{"848x480", synthDepth(848, 480, sensor.FormatZ16), true},
	}
	for _, b := range blocks {
		for _, c := range cases {
			t.Run(b.Name()+"/"+c.name, func(t *testing.T) {
				out, err := b.Process(c.f)
				if c.ok {
					if err != nil || out == nil {
						t.Fatalf("got %v, %v", out, err)
					}
					if out.Stride*(out.Height-1)+out.Width*bytesPerPixel(out.Profile.Format) > len(out.Data) {
						t.Errorf("output %dx%d stride %d in %d bytes", out.Width, out.Height, out.Stride, len(out.Data))
					}
					return
				}
				if err == nil {
					t.Fatalf("no error (output %v)", out)
				}
				if !errors.Is(err, ErrFrame) {
					t.Errorf("error %v does not wrap ErrFrame", err)
				}
			})
		}
		if _, ok := b.(*Colorizer); ok {
			continue
		}
		t.Run(b.Name()+"/not selected", func(t *testing.T) {
			out, err := b.Process(color)
			if err != nil || out != color {
				t.Errorf("a color frame: %v, %v; want it back unchanged", out, err)
			}
		})
	}
}

// TestDecimationTooSmall: a frame smaller than the factor is an error.
func TestDecimationTooSmall(t *testing.T) {
	d := NewDecimation()
	if _, err := d.Process(synthDepth(1, 1, sensor.FormatZ16)); !errors.Is(err, ErrFrame) {
		t.Errorf("1x1 with factor 2: %v, want ErrFrame", err)
	}
	out, err := d.Process(synthDepth(9, 7, sensor.FormatZ16))
	if err != nil || out.Width != 4 || out.Height != 4 || out.Profile.Intrinsics.FX != 4.5 {
		t.Errorf("9x7 by 2: %+v %v, want 4x4 (padded from 4x3), fx 4.5", out, err)
	}
}

// TestPointCloudAndAlignBadIntrinsics: zero, infinite or mismatched
// intrinsics are errors naming the frame, not NaN clouds or panics.
func TestPointCloudAndAlignBadIntrinsics(t *testing.T) {
	bad := map[string]func(in *sensor.Intrinsics){
		"zero fx":      func(in *sensor.Intrinsics) { in.FX = 0 },
		"infinite fy":  func(in *sensor.Intrinsics) { in.FY = float32(math.Inf(1)) },
		"size differs": func(in *sensor.Intrinsics) { in.Width = 10 },
	}
	for name, mod := range bad {
		t.Run(name, func(t *testing.T) {
			d := synthDepth(16, 8, sensor.FormatZ16)
			p := *d.Profile
			mod(&p.Intrinsics)
			d.Profile = &p
			if _, err := NewPointCloud().Calculate(d); name != "infinite fy" && !errors.Is(err, ErrFrame) {
				t.Errorf("pointcloud: %v, want ErrFrame", err)
			}
			o := synthDepth(16, 8, sensor.FormatRGB8)
			o.Profile.Stream = sensor.StreamColor
			a := NewAlign(sensor.StreamColor, identityExtrinsics{})
			if _, err := a.Process(d, o); !errors.Is(err, ErrFrame) {
				t.Errorf("align: %v, want ErrFrame", err)
			}
		})
	}
	d := synthDepth(16, 8, sensor.FormatZ16)
	o := synthDepth(16, 8, sensor.FormatRGB8)
	o.Profile.Stream = sensor.StreamInfrared
	if _, err := NewAlign(sensor.StreamColor, identityExtrinsics{}).Process(d, o); !errors.Is(err, ErrFrame) {
		t.Errorf("align to color given infrared: %v, want ErrFrame", err)
	}
	o.Profile.Format = sensor.FormatYUYV
	if _, err := NewAlign(sensor.StreamDepth, identityExtrinsics{}).Process(d, o); !errors.Is(err, ErrFrame) {
		t.Errorf("align YUYV to depth: %v, want ErrFrame", err)
	}
	if err := NewPointCloud().MapTo(nil, sensor.Extrinsics{}); !errors.Is(err, ErrFrame) {
		t.Errorf("map to nil: %v", err)
	}
}

type identityExtrinsics struct{}

func (identityExtrinsics) Extrinsics(from, to *sensor.StreamProfile) (sensor.Extrinsics, error) {
	return sensor.Extrinsics{Rotation: [9]float32{1, 0, 0, 0, 1, 0, 0, 0, 1}}, nil
}

// TestBlockOptions pins option ranges and defaults to librealsense's and
// checks that out-of-range values are refused.
func TestBlockOptions(t *testing.T) {
	type opt struct {
		b        Configurable
		o        sensor.Option
		min, max float32
		def      float32
	}
	for _, c := range []opt{
		{NewDecimation(), sensor.OptionFilterMagnitude, 1, 8, 2},
		{NewThreshold(), sensor.OptionMinDistance, 0, 16, 0.1},
		{NewThreshold(), sensor.OptionMaxDistance, 0, 16, 4},
		{NewSpatial(), sensor.OptionFilterSmoothAlpha, 0.25, 1, 0.5},
		{NewSpatial(), sensor.OptionFilterSmoothDelta, 1, 50, 20},
		{NewSpatial(), sensor.OptionFilterMagnitude, 1, 5, 2},
		{NewSpatial(), sensor.OptionHolesFill, 0, 5, 0},
		{NewTemporal(), sensor.OptionFilterSmoothAlpha, 0, 1, 0.4},
		{NewTemporal(), sensor.OptionFilterSmoothDelta, 1, 100, 20},
		{NewTemporal(), sensor.OptionHolesFill, 0, 8, 3},
		{NewHoleFilling(), sensor.OptionHolesFill, 0, 2, 1},
		{NewPointCloud(), sensor.OptionFilterMagnitude, 1, 2, 2},
		{NewRotation(), sensor.OptionRotation, -90, 180, 0},
		{NewSequenceIDFilter(), sensor.OptionSequenceId, 0, 2, 1},
		{NewDecimation(), sensor.OptionFramesQueueSize, 0, 32, 16},
		{NewDecimation(), sensor.OptionStreamIndexFilter, -1, 16, -1},
	} {
		r, err := c.b.OptionRange(c.o)
		if err != nil || r.Min != c.min || r.Max != c.max || r.Default != c.def {
			t.Errorf("%s %s: %+v %v, want %v..%v default %v", c.b.Name(), c.o, r, err, c.min, c.max, c.def)
		}
		if v, err := c.b.Option(c.o); err != nil || v != c.def {
			t.Errorf("%s %s = %v %v, want %v", c.b.Name(), c.o, v, err, c.def)
		}
		for _, v := range []float32{c.min - 1, c.max + 1, float32(math.NaN())} {
			if err := c.b.SetOption(c.o, v); !errors.Is(err, extensions.ErrOutOfRange) {
				t.Errorf("%s %s = %v: %v, want extensions.ErrOutOfRange", c.b.Name(), c.o, v, err)
			}
		}
	}
	if err := NewThreshold().SetOption(sensor.OptionVisualPreset, 1); !errors.Is(err, extensions.ErrUnsupportedOption) {
		t.Errorf("threshold visual preset: %v", err)
	}
	if err := NewRotation().SetOption(sensor.OptionRotation, 45); !errors.Is(err, extensions.ErrOutOfRange) {
		t.Errorf("rotation 45: %v", err)
	}
	th := NewThreshold()
	if err := th.SetOption(sensor.OptionMinDistance, 5); err != nil {
		t.Fatal(err)
	}
	if v, _ := th.Option(sensor.OptionMaxDistance); v != 16 {
		t.Errorf("min above max moved max to %v, want 16", v)
	}
}
