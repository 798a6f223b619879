package processing

import (
	"encoding/binary"
	"fmt"
	"image"
	"maps"
	"math"
	"runtime"
	"slices"
	"sync"

	"github.com/rsbag/rsbag/extensions"
	"github.com/rsbag/rsbag/internal/callbacks"
	"github.com/rsbag/rsbag/internal/framepool"
	"github.com/rsbag/rsbag/sensor"
)

// Visual presets of the Colorizer (OptionVisualPreset).
const (
	ColorizerPresetDynamic = 0 // histogram equalization, Jet
	ColorizerPresetFixed   = 1 // 0 to 6 m, Jet
	ColorizerPresetNear    = 2 // 0.3 to 1.5 m, Classic
	ColorizerPresetFar     = 3 // 1 to 16 m, Jet
)

// disparityToDepth is the factor librealsense's colorizer uses to turn its
// min/max distances into disparities for DISPARITY32 frames (a fixed value
// in 2.56.5, src/proc/colorizer.cpp).
const disparityToDepth = 681678.625

// maxDepth is the size of the equalization histogram: one bin per Z16 value.
const maxDepth = 0x10000

// option describes one option of a block.
type option struct {
	rng    extensions.Range
	desc   string
	values []string // descriptions of the values Min, Min+Step, ...
}

var colorizerOptions = map[sensor.Option]option{
	sensor.OptionVisualPreset:                 {extensions.Range{Min: 0, Max: 3, Step: 1, Default: 0}, "Preset depth colorization", []string{"Dynamic", "Fixed", "Near", "Far"}},
	sensor.OptionColorScheme:                  {extensions.Range{Min: 0, Max: float32(len(colorMaps) - 1), Step: 1, Default: 0}, "Color map", ColorSchemes()},
	sensor.OptionHistogramEqualizationEnabled: {extensions.Range{Min: 0, Max: 1, Step: 1, Default: 1}, "Perform histogram equalization", nil},
	sensor.OptionMinDistance:                  {extensions.Range{Min: 0, Max: 16, Step: 0.1, Default: 0}, "Min range in meters", nil},
	sensor.OptionMaxDistance:                  {extensions.Range{Min: 0, Max: 16, Step: 0.1, Default: 6}, "Max range in meters", nil},
}

// colorizerSettings are the values of a Colorizer's options.
type colorizerSettings struct {
	preset   int
	scheme   int
	equalize bool
	min, max float32
}

// Colorizer turns depth frames (Z16 or DISPARITY32) into RGB8 pictures as
// librealsense's rs2::colorizer does: with histogram equalization (the
// default) a pixel's color is its depth's rank among the frame's non-zero
// depths; without, its depth's place between the min and max distances.
// Zero depth is black. It is safe for concurrent use; each frame's
// histogram is its own, so the result of a frame does not depend on the
// frames before it.
type Colorizer struct {
	// filters holds the options every librealsense stream filter block
	// has (frames queue size, stream, format and index filters), which
	// librealsense's colorizer lists but does not consult: it colorizes
	// every depth frame in a format it takes.
	filters *options

	mu       sync.Mutex
	set      colorizerSettings
	profiles map[*sensor.StreamProfile]*sensor.StreamProfile // input → output profile
	lut      *colorTable                                     // colors of Z16 values without equalization, for lutKey
	lutKey   tableKey

	cbs callbacks.Callbacks[extensions.OptionChange]
}

// NewColorizer returns a Colorizer with librealsense's defaults: Jet,
// histogram equalization on, 0 to 6 m.
func NewColorizer() *Colorizer {
	return &Colorizer{set: colorizerSettings{equalize: true, max: 6}, profiles: map[*sensor.StreamProfile]*sensor.StreamProfile{},
		filters: newFilterOptions("Depth Visualization", map[sensor.Option]option{}, sensor.StreamDepth, sensor.FormatZ16)}
}

// Name returns librealsense's name of the block, "Depth Visualization".
func (c *Colorizer) Name() string { return "Depth Visualization" }

// SupportedOptions lists the Colorizer's options in ascending enum order.
func (c *Colorizer) SupportedOptions() []sensor.Option {
	opts := append(c.filters.SupportedOptions(), sensor.OptionVisualPreset, sensor.OptionColorScheme, sensor.OptionHistogramEqualizationEnabled,
		sensor.OptionMinDistance, sensor.OptionMaxDistance)
	slices.Sort(opts)
	return opts
}

// filterOption reports whether o is one of the options of c.filters.
func (c *Colorizer) filterOption(o sensor.Option) bool {
	_, ok := c.filters.specs[o]
	return ok
}

// OptionRange returns the range of o.
func (c *Colorizer) OptionRange(o sensor.Option) (extensions.Range, error) {
	d, ok := colorizerOptions[o]
	if !ok {
		if c.filterOption(o) {
			return c.filters.OptionRange(o)
		}
		return extensions.Range{}, fmt.Errorf("colorizer: %s: %w", o, extensions.ErrUnsupportedOption)
	}
	return d.rng, nil
}

// OptionDescription returns librealsense's description of o.
func (c *Colorizer) OptionDescription(o sensor.Option) string {
	if c.filterOption(o) {
		return c.filters.OptionDescription(o)
	}
	return colorizerOptions[o].desc
}

// OptionValueDescription returns the name of value v of o ("Jet", "Near",
// ...), or "" for an option whose values have no names.
func (c *Colorizer) OptionValueDescription(o sensor.Option, v float32) string {
	if c.filterOption(o) {
		return c.filters.OptionValueDescription(o, v)
	}
	d := colorizerOptions[o]
	i := int(v - d.rng.Min)
	if d.values == nil || float32(i) != v-d.rng.Min || i < 0 || i >= len(d.values) {
		return ""
	}
	return d.values[i]
}

// OptionReadOnly reports false: every option of the Colorizer can be set.
func (c *Colorizer) OptionReadOnly(sensor.Option) bool { return false }

// Option returns the value of o.
func (c *Colorizer) Option(o sensor.Option) (float32, error) {
	if c.filterOption(o) {
		return c.filters.Option(o)
	}
	if v, ok := c.settings().value(o); ok {
		return v, nil
	}
	return 0, fmt.Errorf("colorizer: %s: %w", o, extensions.ErrUnsupportedOption)
}

// SetOption sets o to v, with librealsense's side effects: a visual preset
// sets the scheme, equalization and distances it stands for; setting a
// distance turns histogram equalization off, and a min distance above the
// max (or a max below the min) moves the other to the end of its range.
func (c *Colorizer) SetOption(o sensor.Option, v float32) error {
	d, ok := colorizerOptions[o]
	if !ok {
		if c.filterOption(o) {
			return c.filters.SetOption(o, v)
		}
		return fmt.Errorf("colorizer: %s: %w", o, extensions.ErrUnsupportedOption)
	}
	if math.IsNaN(float64(v)) || v < d.rng.Min || v > d.rng.Max {
		return fmt.Errorf("colorizer: %s = %v: %w (%v to %v)", o, v, extensions.ErrOutOfRange, d.rng.Min, d.rng.Max)
	}
	c.mu.Lock()
	before := c.set
	s := &c.set
	switch o {
	case sensor.OptionVisualPreset:
		s.preset = int(v)
		switch s.preset {
		case ColorizerPresetDynamic:
			s.equalize, s.scheme = true, 0
		case ColorizerPresetFixed:
			s.equalize, s.scheme, s.min, s.max = false, 0, 0, 6
		case ColorizerPresetNear:
			s.equalize, s.scheme, s.min, s.max = false, 1, 0.3, 1.5
		case ColorizerPresetFar:
			s.equalize, s.scheme, s.min, s.max = false, 0, 1, 16
		}
	case sensor.OptionColorScheme:
		s.scheme = int(v)
	case sensor.OptionHistogramEqualizationEnabled:
		s.equalize = v != 0
	case sensor.OptionMinDistance:
		if s.max < v {
			s.max = colorizerOptions[sensor.OptionMaxDistance].rng.Max
		}
		s.min, s.equalize = v, false
	case sensor.OptionMaxDistance:
		if s.min > v {
			s.min = colorizerOptions[sensor.OptionMinDistance].rng.Min
		}
		s.max, s.equalize = v, false
	}
	after := c.set
	c.mu.Unlock()
	now, _ := after.value(o)
	c.cbs.Call(extensions.OptionChange{Option: o, Value: now})
	for _, other := range slices.Sorted(maps.Keys(colorizerOptions)) {
		was, _ := before.value(other)
		if v, _ := after.value(other); other != o && v != was {
			c.cbs.Call(extensions.OptionChange{Option: other, Value: v})
		}
	}
	return nil
}

// value returns the value of the colorizer option o in s.
func (s colorizerSettings) value(o sensor.Option) (float32, bool) {
	switch o {
	case sensor.OptionVisualPreset:
		return float32(s.preset), true
	case sensor.OptionColorScheme:
		return float32(s.scheme), true
	case sensor.OptionHistogramEqualizationEnabled:
		if s.equalize {
			return 1, true
		}
		return 0, true
	case sensor.OptionMinDistance:
		return s.min, true
	case sensor.OptionMaxDistance:
		return s.max, true
	}
	return 0, false
}

// OnOptionChange registers f to be called after every value change, on the
// goroutine that made it, with no lock held: first the option set, then
// each other option the change moved (a visual preset sets the scheme,
// equalization and distances; a distance turns equalization off). cancel
// unregisters it.
func (c *Colorizer) OnOptionChange(f func(extensions.OptionChange)) (cancel func()) {
	c1, c2 := c.filters.OnOptionChange(f), c.cbs.Add(f)
	return func() { c1(); c2() }
}

func (c *Colorizer) settings() colorizerSettings {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.set
}

// outputProfile returns the RGB8 profile of the colorized frames of p: the
// same stream, index, size and intrinsics, one per input profile.
func (c *Colorizer) outputProfile(p *sensor.StreamProfile) *sensor.StreamProfile {
	c.mu.Lock()
	defer c.mu.Unlock()
	if q, ok := c.profiles[p]; ok {
		return q
	}
	q := *p
	q.Format, q.UID, q.Default = sensor.FormatRGB8, sensor.NextUID(), false
	c.profiles[p] = &q
	return &q
}

func checkDepth(f *sensor.Frame) error {
	if f == nil || f.Profile == nil {
		return fmt.Errorf("colorizer: no frame: %w", ErrFrame)
	}
	bpp := 0
	switch f.Profile.Format {
	case sensor.FormatZ16:
		bpp = 2
	case sensor.FormatDisparity32:
		bpp = 4
	default:
		return fmt.Errorf("colorizer: %s frame %d is %s: want Z16 or DISPARITY32 depth: %w", f.Profile.Name(), f.Number, f.Profile.Format, ErrFrame)
	}
	if f.Width <= 0 || f.Height <= 0 || f.Stride < f.Width*bpp || len(f.Data) < f.Stride*(f.Height-1)+f.Width*bpp {
		return fmt.Errorf("colorizer: %s frame %d: %d bytes, stride %d: too short for %dx%d %s: %w",
			f.Profile.Name(), f.Number, len(f.Data), f.Stride, f.Width, f.Height, f.Profile.Format, ErrFrame)
	}
	return nil
}

// Process returns the colorized RGB8 frame of the depth frame f (Z16 or
// DISPARITY32), with f's number, timestamps and metadata.
func (c *Colorizer) Process(f *sensor.Frame) (*sensor.Frame, error) {
	if err := checkDepth(f); err != nil {
		return nil, err
	}
	out := &sensor.Frame{
		Profile: c.outputProfile(f.Profile), Number: f.Number, TimestampMs: f.TimestampMs, Domain: f.Domain,
		SystemTimeMs: f.SystemTimeMs, Metadata: f.Metadata,
		Width: f.Width, Height: f.Height, Stride: 3 * f.Width, BPP: 24,
		Data: framepool.Get(3 * f.Width * f.Height),
	}
	c.colorize(f, out.Data, out.Stride, 3)
	return out, nil
}

// Draw colorizes the depth frame f into dst, which must be f's size: RGB
// as Process makes them, alpha 255. It allocates nothing per frame once
// warm.
func (c *Colorizer) Draw(dst *image.RGBA, f *sensor.Frame) error {
	if err := checkDepth(f); err != nil {
		return err
	}
	if dst.Rect.Dx() != f.Width || dst.Rect.Dy() != f.Height {
		return fmt.Errorf("colorizer: picture %v for a %dx%d frame", dst.Rect, f.Width, f.Height)
	}
	c.colorize(f, dst.Pix[dst.PixOffset(dst.Rect.Min.X, dst.Rect.Min.Y):], dst.Stride, 4)
	return nil
}

// histPool holds equalization histograms.
var histPool = sync.Pool{New: func() any { return new([maxDepth]uint32) }}

// colorize writes the colors of f into dst rows of stride bytes, px bytes
// per pixel (3: RGB, 4: RGBA with alpha 255). Large frames are split by
// rows over the CPUs.
func (c *Colorizer) colorize(f *sensor.Frame, dst []byte, stride, px int) {
	s := c.settings()
	cm := colorMaps[s.scheme]
	parts := 1
	if f.Width*f.Height >= 1<<16 {
		parts = min(runtime.GOMAXPROCS(0), f.Height)
	}
	rows := func(part int) (int, int) { return f.Height * part / parts, f.Height * (part + 1) / parts }
	disparity := f.Profile.Format == sensor.FormatDisparity32
	var value func(i int, row []byte) (float32, bool) // the depth at column i of a row, and whether it is not zero
	if disparity {
		value = func(i int, row []byte) (float32, bool) {
			v := math.Float32frombits(uint32(row[4*i]) | uint32(row[4*i+1])<<8 | uint32(row[4*i+2])<<16 | uint32(row[4*i+3])<<24)
			return v, v != 0
		}
	} else {
		value = func(i int, row []byte) (float32, bool) {
			v := uint16(row[2*i]) | uint16(row[2*i+1])<<8
			return float32(v), v != 0
		}
	}
	bpp := 2
	if disparity {
		bpp = 4
	}
	run := func(work func(part int)) {
		if parts == 1 {
			work(0)
			return
		}
		var wg sync.WaitGroup
		for p := 1; p < parts; p++ {
			wg.Add(1)
			go func() { defer wg.Done(); work(p) }()
		}
		work(0)
		wg.Wait()
	}

	var toUnit func(float32) float32 // depth value → place in the color map
	var hist *[maxDepth]uint32       // with equalization, the cumulative histogram
	if s.equalize {
		// Cumulative histogram of the depth values; bin 0 (no depth) is
		// left out of the sums.
		hists := make([]*[maxDepth]uint32, parts)
		for p := range hists {
			hists[p] = histPool.Get().(*[maxDepth]uint32)
			clear(hists[p][:])
		}
		run(func(part int) {
			h := hists[part]
			y0, y1 := rows(part)
			for y := y0; y < y1; y++ {
				row := f.Data[y*f.Stride : y*f.Stride+f.Width*bpp]
				if !disparity {
					// A Z16 value is its own bin (histIndex).
					for i := range f.Width {
						h[uint16(row[2*i])|uint16(row[2*i+1])<<8]++
					}
					continue
				}
				for i := 0; i < f.Width; i++ {
					v, _ := value(i, row)
					h[histIndex(v)]++
				}
			}
		})
		hist = hists[0]
		for _, h := range hists[1:] {
			for i := range hist {
				hist[i] += h[i]
			}
			histPool.Put(h)
		}
		for i := 2; i < maxDepth; i++ {
			hist[i] += hist[i-1]
		}
		defer histPool.Put(hist)
		total := float32(hist[maxDepth-1])
		toUnit = func(d float32) float32 { return float32(hist[histIndex(d)]) / total }
	} else if disparity {
		lo := s.min
		if lo < 1e-6 {
			lo = 1e-6 // no division by zero
		}
		units := f.DepthUnits
		maxD := float32(float32(disparityToDepth/lo)*units) + 0.5
		minD := float32(float32(disparityToDepth/s.max)*units) + 0.5
		toUnit = func(d float32) float32 { return (d - minD) / (maxD - minD) }
	} else {
		units, lo, hi := f.DepthUnits, s.min, s.max
		toUnit = func(d float32) float32 {
			if lo >= hi {
				return 0
			}
			return (float32(d*units) - lo) / (hi - lo)
		}
	}
	if !disparity {
		// A Z16 pixel's color depends on its value only: a table of the
		// 65536 values' colors, kept while the settings and depth units
		// stay when it does not depend on the frame's histogram.
		var lut *colorTable
		if s.equalize {
			lut = tablePool.Get().(*colorTable)
			defer tablePool.Put(lut)
			lut.fillPresent(cm, toUnit, hist)
		} else {
			lut = c.table(s, f.DepthUnits, cm, toUnit)
		}
		run(func(part int) {
			y0, y1 := rows(part)
			for y := y0; y < y1; y++ {
				row := f.Data[y*f.Stride : y*f.Stride+f.Width*2]
				out := dst[y*stride : y*stride+f.Width*px]
				if px == 3 {
					lut.row3(out, row)
					continue
				}
				for i := 0; i < f.Width; i++ {
					binary.LittleEndian.PutUint32(out[4*i:], lut.rgb[uint16(row[2*i])|uint16(row[2*i+1])<<8]|0xff<<24)
				}
			}
		})
		return
	}
	run(func(part int) {
		y0, y1 := rows(part)
		for y := y0; y < y1; y++ {
			row := f.Data[y*f.Stride : y*f.Stride+f.Width*bpp]
			out := dst[y*stride : y*stride+f.Width*px]
			for i := 0; i < f.Width; i++ {
				o := out[i*px : i*px+px]
				if v, ok := value(i, row); ok {
					col := cm.at(toUnit(v))
					o[0], o[1], o[2] = uint8(col[0]), uint8(col[1]), uint8(col[2])
				} else {
					o[0], o[1], o[2] = 0, 0, 0
				}
				if px == 4 {
					o[3] = 255
				}
			}
		}
	})
}

// colorTable holds the RGB color of every Z16 value, red in the low
// byte, then green and blue (the fourth byte 0): the bytes of the color
// in little-endian order.
type colorTable struct{ rgb [maxDepth]uint32 }

// setColor sets the color of the value v to col.
func (t *colorTable) setColor(v int, col rgb) {
	t.rgb[v] = uint32(uint8(col[0])) | uint32(uint8(col[1]))<<8 | uint32(uint8(col[2]))<<16
}

// row3 writes the RGB8 colors of the Z16 pixels of row into out, four
// pixels (12 bytes) with two stores while there are four.
func (t *colorTable) row3(out, row []byte) {
	for len(row) >= 8 && len(out) >= 12 {
		x := binary.LittleEndian.Uint64(row)
		c0, c1, c2 := uint64(t.rgb[uint16(x)]), uint64(t.rgb[uint16(x>>16)]), uint64(t.rgb[uint16(x>>32)])
		c3 := t.rgb[uint16(x>>48)]
		binary.LittleEndian.PutUint64(out, c0|c1<<24|c2<<48)
		binary.LittleEndian.PutUint32(out[8:], uint32(c2>>16)|c3<<8)
		row, out = row[8:], out[12:]
	}
	for len(row) >= 2 && len(out) >= 3 {
		c := t.rgb[uint16(row[0])|uint16(row[1])<<8]
		out[0], out[1], out[2] = uint8(c), uint8(c>>8), uint8(c>>16)
		row, out = row[2:], out[3:]
	}
}

// fillPresent sets the colors of t as fill does, of the values the frame
// of the cumulative histogram hist (bin 0 left out of the sums) has only:
// the others keep what they were.
func (t *colorTable) fillPresent(cm *colorMap, toUnit func(float32) float32, hist *[maxDepth]uint32) {
	t.rgb[0] = 0
	below := uint32(0)
	for v := 1; v < maxDepth; v++ {
		if hist[v] == below {
			continue // no pixel of value v
		}
		below = hist[v]
		t.setColor(v, cm.at(toUnit(float32(v))))
	}
}

// tablePool holds the color tables of equalized frames.
var tablePool = sync.Pool{New: func() any { return new(colorTable) }}

// fill sets the colors of t: black for 0, else the color of the value's
// place in the color map.
func (t *colorTable) fill(cm *colorMap, toUnit func(float32) float32) {
	t.rgb[0] = 0
	for v := 1; v < maxDepth; v++ {
		t.setColor(v, cm.at(toUnit(float32(v))))
	}
}

// tableKey is what the color table of frames without equalization
// depends on.
type tableKey struct {
	set   colorizerSettings
	units float32
}

// table returns the color table of Z16 frames without equalization, made
// once for the settings s and depth units.
func (c *Colorizer) table(s colorizerSettings, units float32, cm *colorMap, toUnit func(float32) float32) *colorTable {
	k := tableKey{s, units}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.lut == nil || c.lutKey != k {
		t := new(colorTable)
		t.fill(cm, toUnit)
		c.lut, c.lutKey = t, k
	}
	return c.lut
}

// histIndex is the histogram bin of a depth value: its integer part, kept
// inside the histogram (a disparity can exceed it).
func histIndex(v float32) int {
	if !(v > 0) {
		return 0
	}
	if v >= maxDepth-1 {
		return maxDepth - 1
	}
	return int(v)
}
