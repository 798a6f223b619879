package processing

import (
	"fmt"
	"math"
	"sync"

	"github.com/rsbag/rsbag/extensions"
	"github.com/rsbag/rsbag/sensor"
)

// Options every stream-filtering block of librealsense has
// (src/proc/synthetic-stream.cpp, src/source.cpp): their ranges, defaults,
// descriptions, and the names of the stream and format values ("Process -
// Depth", "Process - Z16"; the values run up to the count, which has none).
var (
	optFramesQueueSize = option{extensions.Range{Min: 0, Max: 32, Step: 1, Default: 16},
		"Max number of frames you can hold at a given time. Increasing this number will reduce frame drops but increase latency, and vice versa", nil}
	optStreamFilter = option{extensions.Range{Min: 0, Max: float32(sensor.Count[sensor.Stream]()), Step: 1, Default: 0}, "Stream type",
		processNames(sensor.Count[sensor.Stream](), func(i int) string { return sensor.Stream(i).String() })}
	optStreamFormatFilter = option{extensions.Range{Min: 0, Max: float32(sensor.Count[sensor.Format]()), Step: 1, Default: 0}, "Stream format",
		processNames(sensor.Count[sensor.Format](), func(i int) string { return sensor.Format(i).String() })}
	optStreamIndexFilter = option{extensions.Range{Min: -1, Max: 16, Step: 1, Default: -1}, "Stream index", nil}
)

// processNames returns librealsense's names of the values 0..n-1 of a
// stream filter option: "Process - " and the value's name.
func processNames(n int, name func(int) string) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = "Process - " + name(i)
	}
	return out
}

// streamFilterOptions returns specs with the options of a librealsense
// stream filter block added: the frames queue size and the stream, format
// and index a frame must have to be processed.
func streamFilterOptions(specs map[sensor.Option]option) map[sensor.Option]option {
	specs[sensor.OptionFramesQueueSize] = optFramesQueueSize
	specs[sensor.OptionStreamFilter] = optStreamFilter
	specs[sensor.OptionStreamFormatFilter] = optStreamFormatFilter
	specs[sensor.OptionStreamIndexFilter] = optStreamIndexFilter
	return specs
}

// newFilterOptions returns the options of a stream filter block that
// processes depth frames in format (Z16 for the depth filters).
func newFilterOptions(name string, specs map[sensor.Option]option, stream sensor.Stream, format sensor.Format) *options {
	o := newOptions(name, streamFilterOptions(specs))
	o.vals[sensor.OptionStreamFilter] = float32(stream)
	o.vals[sensor.OptionStreamFormatFilter] = float32(format)
	return o
}

// filter returns the values of the stream filter options.
func (o *options) filter() (s sensor.Stream, fm sensor.Format, i int) {
	o.mu.Lock()
	defer o.mu.Unlock()
	return sensor.Stream(o.vals[sensor.OptionStreamFilter]), sensor.Format(o.vals[sensor.OptionStreamFormatFilter]), int(o.vals[sensor.OptionStreamIndexFilter])
}

// selects reports whether the stream filter options of o select f, as
// librealsense's stream_filter::match: a frame they do not select passes
// through a block unchanged. The caller does not hold mu.
func (o *options) selects(f *sensor.Frame) bool {
	if f == nil || f.Profile == nil {
		return true // the block's checks report it
	}
	s, fm, i := o.filter()
	p := f.Profile
	return (s == sensor.StreamAny || s == p.Stream) && (fm == sensor.FormatAny || fm == p.Format) && (i == -1 || i == p.Index)
}

// zOrDisparity reports whether f is a depth or disparity format.
func zOrDisparity(f sensor.Format) bool {
	return f == sensor.FormatZ16 || f == sensor.FormatDisparity16 || f == sensor.FormatDisparity32
}

// selectsDepth is selects for the depth filters (spatial, temporal, hole
// filling: librealsense's depth_processing_block::should_process): when
// the format filter is a depth or disparity format, a frame in any of
// those formats is selected.
func (o *options) selectsDepth(f *sensor.Frame) bool {
	if f == nil || f.Profile == nil {
		return true
	}
	s, fm, i := o.filter()
	p := f.Profile
	formatOK := fm == sensor.FormatAny || fm == p.Format || (zOrDisparity(fm) && zOrDisparity(p.Format))
	return (s == sensor.StreamAny || s == p.Stream) && formatOK && (i == -1 || i == p.Index)
}

// smoothingInput checks the input of the spatial and temporal filters: a
// frame the stream filters do not select (selectsDepth) passes through
// unchanged (pass). For a Z16 or DISPARITY32 frame it
// returns the bytes per pixel and the smoothing alpha and delta.
func (o *options) smoothingInput(f *sensor.Frame) (bpp int, alpha, delta float32, pass bool, err error) {
	if !o.selectsDepth(f) {
		return 0, 0, 0, true, nil
	}
	if bpp, err = checkVideo(o.block, f, sensor.FormatZ16, sensor.FormatDisparity32); err != nil {
		return 0, 0, 0, false, err
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	return bpp, o.get(sensor.OptionFilterSmoothAlpha), o.get(sensor.OptionFilterSmoothDelta), false, nil
}

// thresholdBlock is the threshold filter (see NewThreshold).
type thresholdBlock struct {
	*options
	out  profiles
	kept keptValues // guarded by mu
}

// NewThreshold returns a threshold filter, as librealsense's: it keeps the
// depth pixels between a min and a max distance and zeroes the others; by
// default 0.1 to 4 m.
func NewThreshold() Block {
	t := &thresholdBlock{options: newFilterOptions("Threshold Filter", map[sensor.Option]option{
		sensor.OptionMinDistance: {extensions.Range{Min: 0, Max: 16, Step: 0.1, Default: 0.1}, "Min range in meters", nil},
		sensor.OptionMaxDistance: {extensions.Range{Min: 0, Max: 16, Step: 0.1, Default: 4}, "Max range in meters", nil},
	}, sensor.StreamDepth, sensor.FormatZ16)}
	t.set = func(o sensor.Option, v float32) {
		// A min above the max moves the max to the top of its range, a max
		// below the min moves the min to the bottom of its range.
		switch o {
		case sensor.OptionMinDistance:
			if t.vals[sensor.OptionMaxDistance] < v {
				t.vals[sensor.OptionMaxDistance] = t.specs[sensor.OptionMaxDistance].rng.Max
			}
		case sensor.OptionMaxDistance:
			if t.vals[sensor.OptionMinDistance] > v {
				t.vals[sensor.OptionMinDistance] = t.specs[sensor.OptionMinDistance].rng.Min
			}
		}
	}
	return t
}

// Process returns a Z16 depth frame holding the pixels of f whose distance
// (value × depth units, in float32) lies between the min and max distance,
// both included, and 0 elsewhere.
func (t *thresholdBlock) Process(f *sensor.Frame) (*sensor.Frame, error) {
	if !t.selects(f) {
		return f, nil
	}
	if _, err := checkVideo(t.block, f, sensor.FormatZ16); err != nil {
		return nil, err
	}
	units := f.DepthUnits
	t.mu.Lock()
	lo, hi := t.get(sensor.OptionMinDistance), t.get(sensor.OptionMaxDistance)
	k := t.kept.of(units, lo, hi)
	t.mu.Unlock()
	p := t.out.get(f.Profile, nil, func(q *sensor.StreamProfile) { q.Stream, q.Index, q.Format = sensor.StreamDepth, 0, sensor.FormatZ16 })
	out := deriveFull(f, p, f.Width, f.Height, 2)
	// One thread: the rows go at the speed of memory, which a second
	// thread would not raise but would cost the time of waking it.
	n := 2 * f.Width
	for y := range f.Height {
		thresholdLine(out.Data[y*n:(y+1)*n], f.Data[y*f.Stride:y*f.Stride+n], k, units, lo, hi)
	}
	return out, nil
}

// thresholdLine thresholds a row of Z16 values: with the kept values k,
// or, when they are not an interval, value by value.
func thresholdLine(dst, src []byte, k keptValues, units, lo, hi float32) {
	if k.interval {
		thresholdRow(dst, src, k.lo, k.span, k.none)
		return
	}
	for i := 0; i < len(src); i += 2 {
		v := uint16(src[i]) | uint16(src[i+1])<<8
		if d := units * float32(v); !(d >= lo && d <= hi) {
			v = 0
		}
		dst[i], dst[i+1] = byte(v), byte(v>>8)
	}
}

// keptValues are the Z16 values a Threshold keeps for one depth unit and
// distance range: those whose distance, units × value in float32, lies in
// the range. The product rounds monotonically, so that they run from lo to
// lo+span, or are none; interval is false when they were not found to.
type keptValues struct {
	units, min, max float32 // what they were found for
	lo, span        uint16
	none, interval  bool
	found           bool
}

// of returns the values kept for units and the range [min, max], found
// again only when one of them changed.
func (k *keptValues) of(units, min, max float32) keptValues {
	bits := math.Float32bits
	if k.found && bits(k.units) == bits(units) && bits(k.min) == bits(min) && bits(k.max) == bits(max) {
		return *k
	}
	*k = keptValues{units: units, min: min, max: max, found: true, none: true, interval: true}
	first, last := -1, -1
	kept := func(v int) bool { d := units * float32(v); return d >= min && d <= max }
	for v := range 1 << 16 {
		if kept(v) {
			if first < 0 {
				first = v
			}
			if last >= 0 && last != v-1 {
				k.interval = false // a gap: never for a monotonic product
			}
			last = v
		}
	}
	if first >= 0 {
		k.none, k.lo, k.span = false, uint16(first), uint16(last-first)
	}
	return *k
}

// thresholdRow writes to dst the little-endian Z16 values of src that lie
// in [lo, lo+span], and 0 for the others (all of them with none).
func thresholdRow(dst, src []byte, lo, span uint16, none bool) {
	if none {
		clear(dst)
		return
	}
	done := thresholdRowFast(dst, src, lo, span)
	dst, src = dst[done:], src[done:len(dst)]
	for i := 0; i+1 < len(src); i += 2 {
		v := uint16(src[i]) | uint16(src[i+1])<<8
		if v-lo > span {
			v = 0
		}
		dst[i], dst[i+1] = byte(v), byte(v>>8)
	}
}

// unitsTransformBlock is the units transform (see NewUnitsTransform).
type unitsTransformBlock struct {
	*options
	out profiles
}

// NewUnitsTransform returns a units transform, as librealsense's: it turns
// Z16 depth into DISTANCE frames of float32 meters.
func NewUnitsTransform() Block {
	return &unitsTransformBlock{options: newFilterOptions("Units Transform", map[sensor.Option]option{}, sensor.StreamDepth, sensor.FormatDistance)}
}

// Process returns the DISTANCE frame of the Z16 depth frame f: each pixel
// its value × the depth units.
func (u *unitsTransformBlock) Process(f *sensor.Frame) (*sensor.Frame, error) {
	if f != nil && f.Profile != nil && f.Profile.Stream != sensor.StreamDepth {
		return f, nil
	}
	if _, err := checkVideo(u.block, f, sensor.FormatZ16); err != nil {
		return nil, err
	}
	p := u.out.get(f.Profile, nil, func(q *sensor.StreamProfile) {
		q.Stream, q.Index, q.Format = sensor.StreamDepth, 0, sensor.FormatDistance
	})
	w := f.Width
	dist, data := newValues[float32](w * f.Height)
	out := deriveData(f, p, w, f.Height, 4, data)
	units := f.DepthUnits
	for y := range f.Height { // one thread, as Threshold
		src, dst := f.Data[y*f.Stride:y*f.Stride+2*w], dist[y*w:(y+1)*w]
		toMeters(dst, src, units)
	}
	if data == nil {
		putF32s(out.Data, dist)
	}
	return out, nil
}

// toMeters sets dst to the little-endian uint16 values of src times units,
// four at a time from fixed-size arrays (one bounds check for four).
func toMeters(dst []float32, src []byte, units float32) {
	src = src[:2*len(dst)]
	done := u16FloatsFast(src, dst, units, false)
	dst, src = dst[done:], src[2*done:]
	n := len(dst) &^ 3
	for i := 0; i < n; i += 4 {
		s, d := (*[8]byte)(src[2*i:2*i+8]), (*[4]float32)(dst[i:i+4])
		d[0] = units * float32(uint16(s[0])|uint16(s[1])<<8)
		d[1] = units * float32(uint16(s[2])|uint16(s[3])<<8)
		d[2] = units * float32(uint16(s[4])|uint16(s[5])<<8)
		d[3] = units * float32(uint16(s[6])|uint16(s[7])<<8)
	}
	for i := n; i < len(dst); i++ {
		dst[i] = units * float32(uint16(src[2*i])|uint16(src[2*i+1])<<8)
	}
}

// Modes of the HoleFilling filter (OptionHolesFill).
const (
	HoleFillFromLeft       = 0 // the pixel to the left
	HoleFillFarestAround   = 1 // the farthest of the four neighbours above, left and below
	HoleFillNearestAround  = 2 // the nearest of those neighbours
	holeFillModes          = 3
	spatialHoleFillModes   = 6
	temporalPersistenceMax = 8
)

// holeFillingBlock is the hole filling filter (see NewHoleFilling).
type holeFillingBlock struct {
	*options
	out profiles
}

// NewHoleFilling returns a hole filling filter, as librealsense's: it fills
// the zero pixels of depth or disparity frames from their neighbours; the
// default mode is HoleFillFarestAround.
func NewHoleFilling() Block {
	return &holeFillingBlock{options: newFilterOptions("Hole Filling Filter", map[sensor.Option]option{
		sensor.OptionHolesFill: {extensions.Range{Min: 0, Max: holeFillModes - 1, Step: 1, Default: HoleFillFarestAround}, "Hole Filling mode",
			[]string{"Fill from Left", "Farest from around", "Nearest from around"}},
	}, sensor.StreamDepth, sensor.FormatZ16)}
}

// Process returns f with its holes filled. Z16 and DISPARITY32 frames are
// taken; the first and last rows and the first column are left as they are
// in the around modes, as in librealsense.
func (h *holeFillingBlock) Process(f *sensor.Frame) (*sensor.Frame, error) {
	if !h.selectsDepth(f) {
		return f, nil
	}
	bpp, err := checkVideo(h.block, f, sensor.FormatZ16, sensor.FormatDisparity32)
	if err != nil {
		return nil, err
	}
	h.mu.Lock()
	mode := int(h.get(sensor.OptionHolesFill))
	h.mu.Unlock()
	p := h.out.get(f.Profile, nil, func(q *sensor.StreamProfile) { q.Stream, q.Index = sensor.StreamDepth, 0 })
	var data []byte
	if bpp == 2 {
		var v []uint16
		v, data = pictureValues[uint16](f, bpp)
		fillHoles(v, f.Width, f.Height, mode)
		if data == nil {
			data = bytesOf(v)
		}
	} else {
		var v []float32
		v, data = pictureValues[float32](f, bpp)
		fillHoles(v, f.Width, f.Height, mode)
		if data == nil {
			data = bytesOf(v)
		}
	}
	return deriveData(f, p, f.Width, f.Height, bpp, data), nil
}

// empty reports whether x is a hole: 0 for Z16, the bits of +0 for
// DISPARITY32 (a -0 is not a hole, as in librealsense).
func empty[T uint16 | float32](x T) bool {
	if f, ok := any(x).(float32); ok {
		return math.Float32bits(f) == 0
	}
	return x == 0
}

// fillHoles fills the empty pixels of the w×h picture v in place.
func fillHoles[T uint16 | float32](v []T, w, h, mode int) {
	switch mode {
	case HoleFillFromLeft:
		for y := 0; y < h; y++ {
			row := v[y*w : (y+1)*w]
			for x := 1; x < w; x++ {
				if empty(row[x]) {
					row[x] = row[x-1]
				}
			}
		}
	case HoleFillFarestAround, HoleFillNearestAround:
		// Rows 1..h-2, columns 1..w-1; the neighbours are read after the
		// pixels before them were filled, as librealsense does in place.
		for y := 1; y < h-1; y++ {
			for x := 1; x < w; x++ {
				i := y*w + x
				if !empty(v[i]) {
					continue
				}
				best := v[i-w]
				for _, q := range [...]int{i - w - 1, i - 1, i + w - 1, i + w} {
					if mode == HoleFillFarestAround {
						if v[q] > best {
							best = v[q]
						}
					} else if !empty(v[q]) && v[q] < best {
						best = v[q]
					}
				}
				v[i] = best
			}
		}
	}
}

// decimationBlock is the decimation filter (see NewDecimation).
type decimationBlock struct {
	*options
	out profiles
}

// NewDecimation returns a decimation filter, as librealsense's: it reduces
// the size of frames by a factor (OptionFilterMagnitude, 1 to 8, default
// 2): depth by the median of the non-zero pixels of each square for factors
// 2 and 3 and by their mean above, other formats by the mean. Output sizes
// are rounded up to a multiple of 4 and padded with zeros; the intrinsics
// are scaled.
func NewDecimation() Block {
	return &decimationBlock{options: newFilterOptions("Decimation Filter", map[sensor.Option]option{
		sensor.OptionFilterMagnitude: {extensions.Range{Min: 1, Max: 8, Step: 1, Default: 2}, "Decimation scale", nil},
	}, sensor.StreamDepth, sensor.FormatZ16)}
}

// decimationFormats are the formats Decimation takes.
var decimationFormats = []sensor.Format{sensor.FormatZ16, sensor.FormatY8, sensor.FormatY16, sensor.FormatRGB8, sensor.FormatBGR8,
	sensor.FormatRGBA8, sensor.FormatBGRA8, sensor.FormatYUYV, sensor.FormatUYVY}

// Process returns the decimated frame of f.
func (d *decimationBlock) Process(f *sensor.Frame) (*sensor.Frame, error) {
	if !d.selects(f) {
		return f, nil
	}
	bpp, err := checkVideo(d.block, f, decimationFormats...)
	if err != nil {
		return nil, err
	}
	d.mu.Lock()
	scale := int(d.get(sensor.OptionFilterMagnitude))
	d.mu.Unlock()
	rw, rh := f.Width/scale, f.Height/scale
	pw, ph := (rw+3)/4*4, (rh+3)/4*4
	if rw == 0 || rh == 0 {
		return nil, fmt.Errorf("%s: %s frame %d: %dx%d is smaller than the factor %d: %w", d.block, f.Profile.Name(), f.Number, f.Width, f.Height, scale, ErrFrame)
	}
	p := d.out.get(f.Profile, scale, func(q *sensor.StreamProfile) {
		in := &q.Intrinsics
		s := float32(scale)
		q.Width, q.Height = pw, ph
		in.Width, in.Height = pw, ph
		in.FX, in.FY, in.PPX, in.PPY = in.FX/s, in.FY/s, in.PPX/s, in.PPY/s
	})
	out := deriveFull(f, p, pw, ph, bpp)
	// The padding is zero; the picture's pixels are written below (the
	// YUV ones two at a time).
	done := rw
	if f.Profile.Format == sensor.FormatYUYV || f.Profile.Format == sensor.FormatUYVY {
		done = rw &^ 1
	}
	for j := range rh {
		clear(out.Data[(j*pw+done)*bpp : (j+1)*pw*bpp])
	}
	clear(out.Data[rh*pw*bpp:])
	src := packed(f, bpp)
	switch f.Profile.Format {
	case sensor.FormatZ16:
		decimateDepth(src, out.Data, f.Width, rw, rh, pw, scale)
	case sensor.FormatY16:
		decimateMean(src, out.Data, f.Width, rw, rh, pw, scale, 1, 2)
	case sensor.FormatYUYV, sensor.FormatUYVY:
		decimateYUV(src, out.Data, f.Width, rw, rh, pw, scale, f.Profile.Format == sensor.FormatYUYV)
	default:
		decimateMean(src, out.Data, f.Width, rw, rh, pw, scale, bpp, 1)
	}
	return out, nil
}

var kernelPool = sync.Pool{New: func() any { return new([64]uint16) }}

// decimateDepth decimates Z16 depth: the lower median of each square's
// non-zero values for scales 2 and 3, their integer mean for larger ones.
func decimateDepth(src, dst []byte, w, rw, rh, pw, scale int) {
	if scale == 2 {
		decimateDepth2(src, dst, w, rw, rh, pw)
		return
	}
	decimateDepthSorted(src, dst, w, rw, rh, pw, scale)
}

// decimateDepthSorted is decimateDepth for any scale, the medians by
// sorting.
func decimateDepthSorted(src, dst []byte, w, rw, rh, pw, scale int) {
	parallelRows(rh, rw*rh*scale*scale, func(y0, y1 int) {
		k := kernelPool.Get().(*[64]uint16)
		defer kernelPool.Put(k)
		for j := y0; j < y1; j++ {
			row := dst[j*pw*2:]
			for i := 0; i < rw; i++ {
				n, sum := 0, 0
				for dy := 0; dy < scale; dy++ {
					base := 2 * ((j*scale+dy)*w + i*scale)
					sq := src[base : base+2*scale]
					for x := 0; x < len(sq); x += 2 {
						if v := uint16(sq[x]) | uint16(sq[x+1])<<8; v != 0 {
							k[n] = v
							n++
							sum += int(v)
						}
					}
				}
				var out uint16
				switch {
				case n == 0:
				case scale <= 3:
					out = lowerMedian(k[:n])
				default:
					out = uint16(sum / n)
				}
				row[2*i], row[2*i+1] = byte(out), byte(out>>8)
			}
		}
	})
}

// decimateDepth2 is decimateDepth for scale 2 (librealsense's default):
// the lower median of the non-zero values of each 2×2 square, found with
// min and max instead of a sort.
func decimateDepth2(src, dst []byte, w, rw, rh, pw int) {
	parallelRows(rh, 4*rw*rh, func(y0, y1 int) {
		for j := y0; j < y1; j++ {
			top, bot := src[4*j*w:4*j*w+4*rw], src[(4*j+2)*w:(4*j+2)*w+4*rw]
			row := dst[2*j*pw : 2*j*pw+2*rw]
			for i := decimate2RowFast(row, top, bot); i < len(row); i += 2 {
				var k [4]uint16
				n := 0
				for _, v := range [4]uint16{
					uint16(top[2*i]) | uint16(top[2*i+1])<<8, uint16(top[2*i+2]) | uint16(top[2*i+3])<<8,
					uint16(bot[2*i]) | uint16(bot[2*i+1])<<8, uint16(bot[2*i+2]) | uint16(bot[2*i+3])<<8,
				} {
					if v != 0 {
						k[n] = v
						n++
					}
				}
				var out uint16
				switch n {
				case 1:
					out = k[0]
				case 2:
					out = min(k[0], k[1])
				case 3:
					out = max(min(k[0], k[1]), min(max(k[0], k[1]), k[2]))
				case 4:
					out = min(max(min(k[0], k[1]), min(k[2], k[3])), min(max(k[0], k[1]), max(k[2], k[3])))
				}
				row[i], row[i+1] = byte(out), byte(out>>8)
			}
		}
	})
}

// lowerMedian returns the lower median of the up to 9 values of k,
// sorting k by insertion (faster than a general sort for so few).
func lowerMedian(k []uint16) uint16 {
	for i := 1; i < len(k); i++ {
		v, j := k[i], i
		for ; j > 0 && k[j-1] > v; j-- {
			k[j] = k[j-1]
		}
		k[j] = v
	}
	return k[(len(k)-1)/2]
}

// decimateMean decimates pictures of interleaved channels of size bytes
// each: every channel of an output pixel is the integer mean of its square.
func decimateMean(src, dst []byte, w, rw, rh, pw, scale, channels, size int) {
	px := channels * size
	patch := scale * scale
	parallelRows(rh, rw*rh*patch, func(y0, y1 int) {
		for j := y0; j < y1; j++ {
			for i := 0; i < rw; i++ {
				for c := 0; c < channels; c++ {
					sum := 0
					for dy := 0; dy < scale; dy++ {
						base := ((j*scale+dy)*w+i*scale)*px + c*size
						for m := 0; m < scale; m++ {
							if size == 2 {
								sum += int(src[base+m*px]) | int(src[base+m*px+1])<<8
							} else {
								sum += int(src[base+m*px])
							}
						}
					}
					o := (j*pw+i)*px + c*size
					v := sum / patch
					dst[o] = byte(v)
					if size == 2 {
						dst[o+1] = byte(v >> 8)
					}
				}
			}
		}
	})
}

// decimateYUV decimates YUYV or UYVY pictures, two pixels (four bytes) at
// a time: luma as the mean of the square, chroma as the mean of the square
// of chroma samples they cover, as librealsense does.
func decimateYUV(src, dst []byte, w, rw, rh, pw, scale int, yuyv bool) {
	w2, rw2 := w/2, rw/2
	s2, odd := scale/2, scale&1 == 1
	patch := scale * scale
	// luma sums scale samples two bytes apart; chroma sums s2 samples four
	// bytes apart, doubled, plus the middle one for odd scales.
	luma := func(p int) int {
		sum := 0
		for n := 0; n < scale; n++ {
			for m := 0; m < scale; m++ {
				sum += int(src[p+m*2])
			}
			p += w2 * 4
		}
		return sum / patch
	}
	chroma := func(p int) int {
		sum := 0
		for n := 0; n < scale; n++ {
			for m := 0; m < s2; m++ {
				sum += 2 * int(src[p+m*4])
			}
			if odd {
				sum += int(src[p+s2*4])
			}
			p += w2 * 4
		}
		return sum / patch
	}
	for j := 0; j < rh; j++ {
		q := j * pw * 2
		for i := 0; i < rw2; i++ {
			base := scale * (j*w2 + i) * 4
			second := base + s2*4
			if yuyv {
				if odd {
					second += 2
				}
				dst[q], dst[q+1], dst[q+2], dst[q+3] = byte(luma(base)), byte(chroma(base+1)), byte(luma(second)), byte(chroma(base+3))
			} else {
				if odd {
					second += 3
				} else {
					second++
				}
				dst[q], dst[q+1], dst[q+2], dst[q+3] = byte(chroma(base)), byte(luma(base+1)), byte(chroma(base+2)), byte(luma(second))
			}
			q += 4
		}
	}
}
