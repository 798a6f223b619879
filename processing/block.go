package processing

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"runtime"
	"slices"
	"sync"
	"unsafe"

	"github.com/rsbag/rsbag/extensions"
	"github.com/rsbag/rsbag/internal/callbacks"
	"github.com/rsbag/rsbag/internal/framepool"
	"github.com/rsbag/rsbag/sensor"
)

// Configurable is what every processing block has: librealsense's name
// ("Decimation Filter", ...) and options, served as a sensor serves its
// options: SetOption takes a value within the option's range (an option
// with an integer step keeps the integer part), no option is read-only,
// and the descriptions are librealsense's. The blocks of this package also
// have OptionValueDescription, the name of an enumerated option's value
// (or "").
type Configurable interface {
	Name() string
	extensions.Options
}

// Block is a processing block that turns one frame into a new frame: every
// block of this package but Align, HDRMerge and PointCloud, which need a
// second frame (the Colorizer is a Block that can also draw). Process
// returns the processed frame; f is not modified.
type Block interface {
	Configurable
	Process(f *sensor.Frame) (*sensor.Frame, error)
}

// ErrFrame is returned for a frame a block cannot process: a format or
// stream it does not take, or a size its data does not hold.
var ErrFrame = errors.New("processing: frame not processable")

// options holds the options of a block: librealsense's ranges, defaults
// and descriptions, and the current values. It is safe for concurrent use.
type options struct {
	block string
	mu    sync.Mutex
	specs map[sensor.Option]option
	vals  map[sensor.Option]float32
	order []sensor.Option
	// set is called with mu held after a value changed, for side effects.
	set func(o sensor.Option, v float32)
	cbs callbacks.Callbacks[extensions.OptionChange]
}

func newOptions(block string, specs map[sensor.Option]option) *options {
	o := &options{block: block, specs: specs, vals: map[sensor.Option]float32{}}
	for k, s := range specs {
		o.vals[k] = s.rng.Default
		o.order = append(o.order, k)
	}
	slices.Sort(o.order)
	return o
}

// Name returns librealsense's name of the block.
func (o *options) Name() string { return o.block }

// SupportedOptions lists the block's options in ascending enum order.
func (o *options) SupportedOptions() []sensor.Option { return slices.Clone(o.order) }

// OptionRange returns the range of opt.
func (o *options) OptionRange(opt sensor.Option) (extensions.Range, error) {
	s, ok := o.specs[opt]
	if !ok {
		return extensions.Range{}, fmt.Errorf("%s: %s: %w", o.block, opt, extensions.ErrUnsupportedOption)
	}
	return s.rng, nil
}

// OptionDescription returns librealsense's description of opt.
func (o *options) OptionDescription(opt sensor.Option) string { return o.specs[opt].desc }

// OptionValueDescription returns the name of value v of opt, or "".
func (o *options) OptionValueDescription(opt sensor.Option, v float32) string {
	s := o.specs[opt]
	i := int(v - s.rng.Min)
	if s.values == nil || float32(i) != v-s.rng.Min || i < 0 || i >= len(s.values) {
		return ""
	}
	return s.values[i]
}

// OptionReadOnly reports false: every option of a block can be set.
func (o *options) OptionReadOnly(sensor.Option) bool { return false }

// Option returns the value of opt.
func (o *options) Option(opt sensor.Option) (float32, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	v, ok := o.vals[opt]
	if !ok {
		return 0, fmt.Errorf("%s: %s: %w", o.block, opt, extensions.ErrUnsupportedOption)
	}
	return v, nil
}

// SetOption sets opt to v, which must lie in its range. Options with an
// integer step keep the integer part, as librealsense's integer options do.
func (o *options) SetOption(opt sensor.Option, v float32) error {
	s, ok := o.specs[opt]
	if !ok {
		return fmt.Errorf("%s: %s: %w", o.block, opt, extensions.ErrUnsupportedOption)
	}
	if math.IsNaN(float64(v)) || v < s.rng.Min || v > s.rng.Max {
		return fmt.Errorf("%s: %s = %v: %w (%v to %v)", o.block, opt, v, extensions.ErrOutOfRange, s.rng.Min, s.rng.Max)
	}
	if s.rng.Step == 1 {
		v = float32(math.Trunc(float64(v)))
	}
	o.mu.Lock()
	o.vals[opt] = v
	if o.set != nil {
		o.set(opt, v)
	}
	o.mu.Unlock()
	o.cbs.Call(extensions.OptionChange{Option: opt, Value: v})
	return nil
}

// OnOptionChange registers f to be called after every value change, on the
// goroutine that made it, with no lock held; cancel unregisters it.
func (o *options) OnOptionChange(f func(extensions.OptionChange)) (cancel func()) {
	return o.cbs.Add(f)
}

// get returns the value of opt; the caller holds mu.
func (o *options) get(opt sensor.Option) float32 { return o.vals[opt] }

// profiles makes and remembers output profiles: one per input profile and
// key, so that frames of one input stream share one output profile, as
// librealsense's blocks do.
type profiles struct {
	mu sync.Mutex
	m  map[profileKey]*sensor.StreamProfile
}

type profileKey struct {
	in  *sensor.StreamProfile
	key any
}

// get returns the output profile for (in, key), made by mk the first time.
func (p *profiles) get(in *sensor.StreamProfile, key any, mk func(q *sensor.StreamProfile)) *sensor.StreamProfile {
	p.mu.Lock()
	defer p.mu.Unlock()
	if q, ok := p.m[profileKey{in, key}]; ok {
		return q
	}
	if p.m == nil {
		p.m = map[profileKey]*sensor.StreamProfile{}
	}
	q := *in
	q.UID, q.Default = sensor.NextUID(), false
	mk(&q)
	p.m[profileKey{in, key}] = &q
	return &q
}

// bytesPerPixel returns the size of a pixel of the video formats blocks
// take, or 0.
func bytesPerPixel(f sensor.Format) int {
	switch f {
	case sensor.FormatY8, sensor.FormatRAW8:
		return 1
	case sensor.FormatZ16, sensor.FormatY16, sensor.FormatDisparity16, sensor.FormatYUYV, sensor.FormatUYVY, sensor.FormatRAW16:
		return 2
	case sensor.FormatRGB8, sensor.FormatBGR8:
		return 3
	case sensor.FormatRGBA8, sensor.FormatBGRA8, sensor.FormatDisparity32, sensor.FormatDistance:
		return 4
	case sensor.FormatXYZ32F:
		return 12
	}
	return 0
}

// checkVideo checks that f is a video frame in one of formats whose data
// holds its size, and returns its bytes per pixel.
func checkVideo(block string, f *sensor.Frame, formats ...sensor.Format) (int, error) {
	if f == nil || f.Profile == nil {
		return 0, fmt.Errorf("%s: no frame: %w", block, ErrFrame)
	}
	if f.Profile.Kind != sensor.KindVideo {
		return 0, fmt.Errorf("%s: %s frame %d is a %s frame, want a video frame: %w", block, f.Profile.Name(), f.Number, f.Profile.Kind, ErrFrame)
	}
	if len(formats) > 0 && !slices.Contains(formats, f.Profile.Format) {
		return 0, fmt.Errorf("%s: %s frame %d is %s, want %v: %w", block, f.Profile.Name(), f.Number, f.Profile.Format, formats, ErrFrame)
	}
	bpp := bytesPerPixel(f.Profile.Format)
	if bpp == 0 {
		return 0, fmt.Errorf("%s: %s frame %d: format %s not supported: %w", block, f.Profile.Name(), f.Number, f.Profile.Format, ErrFrame)
	}
	const maxSide = 1 << 15
	if f.Width <= 0 || f.Height <= 0 || f.Width > maxSide || f.Height > maxSide || f.Stride < f.Width*bpp ||
		len(f.Data) < f.Stride*(f.Height-1)+f.Width*bpp {
		return 0, fmt.Errorf("%s: %s frame %d: %d bytes, stride %d: not a %dx%d %s picture: %w",
			block, f.Profile.Name(), f.Number, len(f.Data), f.Stride, f.Width, f.Height, f.Profile.Format, ErrFrame)
	}
	return bpp, nil
}

// derive returns a new video frame with f's number, times and metadata, of
// profile p and size w×h with bpp bytes per pixel and tightly packed rows.
func derive(f *sensor.Frame, p *sensor.StreamProfile, w, h, bpp int) *sensor.Frame {
	return deriveData(f, p, w, h, bpp, nil)
}

// deriveData is derive with the frame's bytes data, or new zero bytes when
// data is nil.
func deriveData(f *sensor.Frame, p *sensor.StreamProfile, w, h, bpp int, data []byte) *sensor.Frame {
	if data == nil {
		data = make([]byte, w*h*bpp)
	}
	return &sensor.Frame{
		Profile: p, Number: f.Number, TimestampMs: f.TimestampMs, Domain: f.Domain,
		SystemTimeMs: f.SystemTimeMs, Metadata: f.Metadata,
		Width: w, Height: h, Stride: w * bpp, BPP: 8 * bpp, DepthUnits: f.DepthUnits,
		Data: data,
	}
}

// deriveFull is derive with bytes from framepool: those of a frame no
// longer in use where the C library gave one back, whose old values the
// caller overwrites, every byte of them.
func deriveFull(f *sensor.Frame, p *sensor.StreamProfile, w, h, bpp int) *sensor.Frame {
	return deriveData(f, p, w, h, bpp, framepool.Get(w*h*bpp))
}

// newValues returns n values of T for a frame's data, and the data: on a
// little-endian machine the values' own memory, from framepool (old
// values the caller overwrites, every one of them); else nil, and the
// caller encodes the values with bytesOf.
func newValues[T uint16 | float32](n int) ([]T, []byte) {
	if littleEndian {
		var zero T
		b := framepool.Get(n * int(unsafe.Sizeof(zero)))
		if v, ok := viewOf[T](b); ok {
			return v, b
		}
	}
	return make([]T, n), nil
}

// pictureValues returns the values of f's picture, bpp bytes each, in
// the memory of a new frame's data (newValues), and that data, or nil for
// values the caller encodes with bytesOf.
func pictureValues[T uint16 | float32](f *sensor.Frame, bpp int) ([]T, []byte) {
	v, data := newValues[T](f.Width * f.Height)
	if data == nil {
		switch v := any(v).(type) {
		case []uint16:
			copy(v, u16s(packed(f, bpp)))
		case []float32:
			copy(v, f32s(packed(f, bpp)))
		}
		return v, nil
	}
	n := f.Width * bpp
	for y := range f.Height {
		copy(data[y*n:(y+1)*n], f.Data[y*f.Stride:])
	}
	return v, data
}

// reuse returns s resliced to n elements when it holds them, else a new
// slice of n.
func reuse[T any](s []T, n int) []T {
	if cap(s) < n {
		return make([]T, n)
	}
	return s[:n]
}

// littleEndian reports whether this machine stores numbers in the byte
// order of frames, little-endian: then arrays of numbers are their own
// bytes, viewed by asBytes.
var littleEndian = binary.NativeEndian.Uint16([]byte{1, 0}) == 1

// bytesOf returns the little-endian bytes of v: its own memory on a
// little-endian machine, else an encoded copy.
func bytesOf[T uint16 | float32](v []T) []byte {
	if littleEndian {
		return asBytes(v)
	}
	switch v := any(v).(type) {
	case []uint16:
		b := make([]byte, 2*len(v))
		putU16s(b, v)
		return b
	case []float32:
		b := make([]byte, 4*len(v))
		putF32s(b, v)
		return b
	}
	panic("unreachable")
}

// asBytes returns the memory of s as bytes, without a copy.
func asBytes[T any](s []T) []byte {
	if len(s) == 0 {
		return nil
	}
	var zero T
	return unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(s))), len(s)*int(unsafe.Sizeof(zero)))
}

// packed returns the w*h*bpp bytes of f's picture without row padding: its
// data itself when its rows are packed, else a copy.
func packed(f *sensor.Frame, bpp int) []byte {
	n := f.Width * bpp
	if f.Stride == n {
		return f.Data[:n*f.Height]
	}
	out := make([]byte, n*f.Height)
	for y := 0; y < f.Height; y++ {
		copy(out[y*n:], f.Data[y*f.Stride:y*f.Stride+n])
	}
	return out
}

// u16View returns the little-endian uint16 values of b: b's own memory on a
// little-endian machine when b is aligned for them (writes to one are
// writes to the other), else a decoded copy (see u16s).
func u16View(b []byte) []uint16 {
	if v, ok := viewOf[uint16](b); ok {
		return v
	}
	return u16s(b)
}

// viewOf returns the memory of b as a slice of T, without a copy, when this
// machine is little-endian and b is aligned for T.
func viewOf[T uint16 | float32](b []byte) ([]T, bool) {
	var zero T
	size := int(unsafe.Sizeof(zero))
	if !littleEndian || len(b) < size || uintptr(unsafe.Pointer(unsafe.SliceData(b)))%uintptr(size) != 0 {
		return nil, false
	}
	return unsafe.Slice((*T)(unsafe.Pointer(unsafe.SliceData(b))), len(b)/size), true
}

// u16s decodes little-endian uint16 values: on a little-endian machine a
// copy of the bytes.
func u16s(b []byte) []uint16 {
	out := make([]uint16, len(b)/2)
	if littleEndian {
		copy(asBytes(out), b)
		return out
	}
	for i := range out {
		out[i] = binary.LittleEndian.Uint16(b[2*i:])
	}
	return out
}

// putU16s encodes v little-endian into b.
func putU16s(b []byte, v []uint16) {
	for i, x := range v {
		binary.LittleEndian.PutUint16(b[2*i:], x)
	}
}

// f32s decodes little-endian float32 values: on a little-endian machine a
// copy of the bytes.
func f32s(b []byte) []float32 {
	out := make([]float32, len(b)/4)
	if littleEndian {
		copy(asBytes(out), b)
		return out
	}
	for i := range out {
		out[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
	}
	return out
}

// putF32s encodes v little-endian into b.
func putF32s(b []byte, v []float32) {
	for i, x := range v {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(x))
	}
}

// parallelRows runs work over [0, n) split in contiguous parts, one per
// CPU, when n is large enough to be worth it.
func parallelRows(n, cost int, work func(lo, hi int)) {
	parts := 1
	if cost >= 1<<16 {
		parts = min(runtime.GOMAXPROCS(0), n)
	}
	if parts <= 1 {
		work(0, n)
		return
	}
	var wg sync.WaitGroup
	for p := 1; p < parts; p++ {
		wg.Add(1)
		go func() { defer wg.Done(); work(n*p/parts, n*(p+1)/parts) }()
	}
	work(0, n/parts)
	wg.Wait()
}
