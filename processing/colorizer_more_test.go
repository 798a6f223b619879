package processing

import (
	"bytes"
	"errors"
	"fmt"
	"image"
	"math"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"sync"
	"testing"

	"github.com/rsbag/rsbag/extensions"
	"github.com/rsbag/rsbag/sensor"
)

// TestColorizerOptions pins the options to librealsense 2.56.5's: ranges,
// defaults, descriptions and value names.
func TestColorizerOptions(t *testing.T) {
	c := NewColorizer()
	tests := []struct {
		opt    sensor.Option
		rng    extensions.Range
		desc   string
		values []string
	}{
		{sensor.OptionVisualPreset, extensions.Range{Min: 0, Max: 3, Step: 1, Default: 0}, "Preset depth colorization", []string{"Dynamic", "Fixed", "Near", "Far"}},
		{sensor.OptionColorScheme, extensions.Range{Min: 0, Max: 9, Step: 1, Default: 0}, "Color map",
			[]string{"Jet", "Classic", "White to Black", "Black to White", "Bio", "Cold", "Warm", "Quantized", "Pattern", "Hue"}},
		{sensor.OptionHistogramEqualizationEnabled, extensions.Range{Min: 0, Max: 1, Step: 1, Default: 1}, "Perform histogram equalization", nil},
		{sensor.OptionMinDistance, extensions.Range{Min: 0, Max: 16, Step: 0.1, Default: 0}, "Min range in meters", nil},
		{sensor.OptionMaxDistance, extensions.Range{Min: 0, Max: 16, Step: 0.1, Default: 6}, "Max range in meters", nil},
	}
	// The stream filter options every block has are pinned by
	// TestBlockOptionsMatchLibrealsense.
	for _, tt := range tests {
		if !slices.Contains(c.SupportedOptions(), tt.opt) {
			t.Errorf("%s not supported", tt.opt)
		}
		rng, err := c.OptionRange(tt.opt)
		if err != nil || rng != tt.rng {
			t.Errorf("%s range %+v (%v), want %+v", tt.opt, rng, err, tt.rng)
		}
		if v, err := c.Option(tt.opt); err != nil || v != tt.rng.Default {
			t.Errorf("%s = %v (%v), want the default %v", tt.opt, v, err, tt.rng.Default)
		}
		if d := c.OptionDescription(tt.opt); d != tt.desc {
			t.Errorf("%s description %q, want %q", tt.opt, d, tt.desc)
		}
		for k, name := range tt.values {
			if got := c.OptionValueDescription(tt.opt, float32(k)); got != name {
				t.Errorf("%s value %d is %q, want %q", tt.opt, k, got, name)
			}
		}
		for _, bad := range []float32{tt.rng.Min - 1, tt.rng.Max + 1, float32(math.NaN()), float32(math.Inf(1))} {
			if err := c.SetOption(tt.opt, bad); !errors.Is(err, extensions.ErrOutOfRange) {
				t.Errorf("%s = %v: %v, want extensions.ErrOutOfRange", tt.opt, bad, err)
			}
		}
	}
	if _, err := c.Option(sensor.OptionExposure); !errors.Is(err, extensions.ErrUnsupportedOption) {
		t.Errorf("Exposure: %v", err)
	}
	if got := ColorSchemes(); len(got) != 10 || got[9] != "Hue" {
		t.Errorf("schemes %q", got)
	}
}

// TestColorizerOptionEffects: presets and distances change the other
// options as librealsense's do.
func TestColorizerOptionEffects(t *testing.T) {
	type state struct{ preset, scheme, eq, min, max float32 }
	get := func(c *Colorizer) state {
		var s state
		for _, p := range []struct {
			o sensor.Option
			v *float32
		}{{sensor.OptionVisualPreset, &s.preset}, {sensor.OptionColorScheme, &s.scheme},
			{sensor.OptionHistogramEqualizationEnabled, &s.eq}, {sensor.OptionMinDistance, &s.min}, {sensor.OptionMaxDistance, &s.max}} {
			*p.v, _ = c.Option(p.o)
		}
		return s
	}
	type set struct {
		o sensor.Option
		v float32
	}
	tests := []struct {
		name string
		sets []set
		want state
	}{
		{"fixed", []set{{sensor.OptionVisualPreset, 1}}, state{1, 0, 0, 0, 6}},
		{"near", []set{{sensor.OptionVisualPreset, 2}}, state{2, 1, 0, 0.3, 1.5}},
		{"far", []set{{sensor.OptionVisualPreset, 3}}, state{3, 0, 0, 1, 16}},
		{"near then dynamic", []set{{sensor.OptionVisualPreset, 2}, {sensor.OptionVisualPreset, 0}}, state{0, 0, 1, 0.3, 1.5}},
		{"min distance turns equalization off", []set{{sensor.OptionMinDistance, 1}}, state{0, 0, 0, 1, 6}},
		{"min above max moves max to its top", []set{{sensor.OptionMinDistance, 7}}, state{0, 0, 0, 7, 16}},
		{"max below min moves min to its bottom", []set{{sensor.OptionMinDistance, 2}, {sensor.OptionMaxDistance, 1}}, state{0, 0, 0, 0, 1}},
		{"equalization back on", []set{{sensor.OptionMaxDistance, 3}, {sensor.OptionHistogramEqualizationEnabled, 1}}, state{0, 0, 1, 0, 3}},
	}
	for _, tt := range tests {
		c := NewColorizer()
		for _, s := range tt.sets {
			if err := c.SetOption(s.o, s.v); err != nil {
				t.Fatal(err)
			}
		}
		if got := get(c); got != tt.want {
			t.Errorf("%s: %+v, want %+v", tt.name, got, tt.want)
		}
	}
}

// TestColorizerOutput: the output frame's profile, size and metadata, Draw
// equal to Process, bad frames refused, and the input left untouched.
func TestColorizerOutput(t *testing.T) {
	frames := depthFrames(t, filepath.Join(refDir, "depth_color.bag"))
	f := frames[1]
	before := bytes.Clone(f.Data)
	c := NewColorizer()
	out, err := c.Process(f)
	if err != nil {
		t.Fatal(err)
	}
	p := out.Profile
	if p.Stream != sensor.StreamDepth || p.Index != f.Profile.Index || p.Format != sensor.FormatRGB8 || p.UID == f.Profile.UID ||
		p.Width != f.Width || p.Intrinsics != f.Profile.Intrinsics || out.Number != f.Number || out.TimestampMs != f.TimestampMs ||
		out.Metadata != f.Metadata || out.BPP != 24 || out.Stride != 3*f.Width {
		t.Errorf("output %+v profile %+v", out, p)
	}
	if out2, _ := c.Process(frames[2]); out2.Profile != p {
		t.Error("a new output profile for each frame of one stream")
	}
	if !bytes.Equal(f.Data, before) {
		t.Error("the input frame changed")
	}
	img := image.NewRGBA(image.Rect(0, 0, f.Width, f.Height))
	if err := c.Draw(img, f); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < f.Width*f.Height; i++ {
		if !bytes.Equal(img.Pix[4*i:4*i+3], out.Data[3*i:3*i+3]) || img.Pix[4*i+3] != 255 {
			t.Fatalf("Draw differs from Process at pixel %d", i)
		}
	}
	bad := []*sensor.Frame{
		nil,
		{Profile: &sensor.StreamProfile{Stream: sensor.StreamColor, Format: sensor.FormatRGB8}, Width: 2, Height: 2, Stride: 6, Data: make([]byte, 12)},
		{Profile: f.Profile, Width: f.Width, Height: f.Height, Stride: f.Stride, Data: f.Data[:len(f.Data)-1]},
		{Profile: f.Profile, Width: f.Width, Height: f.Height, Stride: 2, Data: f.Data},
		{Profile: f.Profile, Width: -1, Height: 5, Stride: f.Stride, Data: f.Data},
	}
	for i, b := range bad {
		if _, err := c.Process(b); err == nil {
			t.Errorf("bad frame %d accepted", i)
		}
	}
	if err := c.Draw(image.NewRGBA(image.Rect(0, 0, 3, 3)), f); err == nil {
		t.Error("Draw into a picture of another size")
	}
}

// TestColorizerDisparity: a DISPARITY32 frame is colorized like its depth
// (nearer is the other end of the map) and zero stays black.
func TestColorizerDisparity(t *testing.T) {
	p := &sensor.StreamProfile{Stream: sensor.StreamDepth, Format: sensor.FormatDisparity32, Kind: sensor.KindVideo, Width: 4, Height: 1}
	f := &sensor.Frame{Profile: p, Width: 4, Height: 1, Stride: 16, DepthUnits: 0.001, Data: make([]byte, 16)}
	for i, v := range []float32{0, 100, 400, 1e9} {
		b := math.Float32bits(v)
		f.Data[4*i], f.Data[4*i+1], f.Data[4*i+2], f.Data[4*i+3] = byte(b), byte(b>>8), byte(b>>16), byte(b>>24)
	}
	for _, eq := range []float32{0, 1} {
		c := NewColorizer()
		c.SetOption(sensor.OptionColorScheme, 3) // black to white
		c.SetOption(sensor.OptionMinDistance, 0.3)
		c.SetOption(sensor.OptionMaxDistance, 4)
		c.SetOption(sensor.OptionHistogramEqualizationEnabled, eq)
		out, err := c.Process(f)
		if err != nil {
			t.Fatal(err)
		}
		if out.Data[0] != 0 || out.Data[3] >= out.Data[6] || out.Data[6] > out.Data[9] {
			t.Errorf("equalize %v: %v", eq, out.Data)
		}
	}
}

// TestColorizerConcurrent: one Colorizer used from several goroutines while
// its options change gives each frame a whole picture of one setting.
func TestColorizerConcurrent(t *testing.T) {
	frames := depthFrames(t, filepath.Join(refDir, "depth_color.bag"))
	f := frames[3]
	want := map[string]bool{}
	for _, eq := range []float32{0, 1} {
		c := NewColorizer()
		c.SetOption(sensor.OptionHistogramEqualizationEnabled, eq)
		out, _ := c.Process(f)
		want[hashOf(out.Data)] = true
	}
	c := NewColorizer()
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for g := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 20 {
				if g == 0 {
					c.SetOption(sensor.OptionHistogramEqualizationEnabled, float32(i%2))
				}
				out, err := c.Process(f)
				if err != nil || !want[hashOf(out.Data)] {
					errs <- fmt.Errorf("goroutine %d: a picture of no single setting (%v)", g, err)
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

// BenchmarkColorizer measures colorizing a 1280x720 Z16 frame (the real
// D435 recording's depth tiled), with and without equalization.
func BenchmarkColorizer(b *testing.B) {
	frames := depthFrames(b, filepath.Join(refDir, "real", "single_depth_color_640x480.bag"))
	var src *sensor.Frame
	for _, f := range frames {
		src = f
		break
	}
	const w, h = 1280, 720
	f := &sensor.Frame{Profile: &sensor.StreamProfile{Stream: sensor.StreamDepth, Format: sensor.FormatZ16, Kind: sensor.KindVideo, Width: w, Height: h},
		Width: w, Height: h, Stride: 2 * w, BPP: 16, DepthUnits: src.DepthUnits, Data: make([]byte, 2*w*h)}
	for y := range h {
		for x := range w {
			sy, sx := y%src.Height, x%src.Width
			copy(f.Data[y*f.Stride+2*x:], src.Data[sy*src.Stride+2*sx:sy*src.Stride+2*sx+2])
		}
	}
	for _, eq := range []float32{1, 0} {
		b.Run(fmt.Sprintf("equalize=%v", eq), func(b *testing.B) {
			c := NewColorizer()
			c.SetOption(sensor.OptionHistogramEqualizationEnabled, eq)
			img := image.NewRGBA(image.Rect(0, 0, w, h))
			b.SetBytes(int64(len(f.Data)))
			b.ReportAllocs()
			for b.Loop() {
				if err := c.Draw(img, f); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "frames/s")
		})
	}
}

// TestColorTableRow3 compares row3's colors, written four pixels at a
// time, with the table's colors pixel by pixel, on random rows of every
// length up to 20 pixels: every byte of the output written, none past it.
func TestColorTableRow3(t *testing.T) {
	r := rand.New(rand.NewPCG(13, 14))
	tab := new(colorTable)
	for v := range tab.rgb {
		tab.rgb[v] = r.Uint32() & 0xffffff
	}
	for n := range 21 {
		row := make([]byte, 2*n)
		for i := range row {
			row[i] = byte(r.Uint32())
		}
		want := make([]byte, 3*n, 3*n+4)
		for i := range n {
			c := tab.rgb[uint16(row[2*i])|uint16(row[2*i+1])<<8]
			want[3*i], want[3*i+1], want[3*i+2] = uint8(c), uint8(c>>8), uint8(c>>16)
		}
		got := bytes.Repeat([]byte{0xee}, 3*n+4)
		tab.row3(got[:3*n], row)
		if !bytes.Equal(got[:3*n], want) || !bytes.Equal(got[3*n:], []byte{0xee, 0xee, 0xee, 0xee}) {
			t.Errorf("%d pixels: %x, want %x then ee ee ee ee", n, got, want)
		}
	}
}
