package processing

import (
	"fmt"
	"math"
	"sync"

	"github.com/rsbag/rsbag/extensions"
	"github.com/rsbag/rsbag/sensor"
)

// spatialBlock is the spatial filter (see NewSpatial).
type spatialBlock struct {
	*options
	out profiles
}

// NewSpatial returns a spatial filter, as librealsense's: it smooths depth
// or disparity frames along rows and columns with an edge-preserving
// recursive filter, blending a pixel with its filtered neighbour when they
// differ by less than the delta; for disparity frames it can also fill
// holes over a radius. Defaults: alpha 0.5, delta 20, 2 iterations, no hole
// filling. One difference from librealsense 2.56.5: there a new delta
// takes effect only when the input stream changes; here it takes effect at
// once.
func NewSpatial() Block {
	return &spatialBlock{options: newFilterOptions("Spatial Filter", map[sensor.Option]option{
		sensor.OptionFilterSmoothAlpha: {extensions.Range{Min: 0.25, Max: 1, Step: 0.01, Default: 0.5}, "Alpha factor of Exp.moving average, 1 = no filter, 0 = infinite filter", nil},
		sensor.OptionFilterSmoothDelta: {extensions.Range{Min: 1, Max: 50, Step: 1, Default: 20}, "Edge-preserving Threshold", nil},
		sensor.OptionFilterMagnitude:   {extensions.Range{Min: 1, Max: 5, Step: 1, Default: 2}, "Filtering iterations", nil},
		sensor.OptionHolesFill: {extensions.Range{Min: 0, Max: spatialHoleFillModes - 1, Step: 1, Default: 0}, "Holes filling mode",
			[]string{"Disabled", "2-pixel radius", "4-pixel radius", "8-pixel radius", "16-pixel radius", "Unlimited"}},
	}, sensor.StreamDepth, sensor.FormatZ16)}
}

// Process returns the smoothed frame of the Z16 or DISPARITY32 frame f.
func (s *spatialBlock) Process(f *sensor.Frame) (*sensor.Frame, error) {
	bpp, alpha, delta, pass, err := s.smoothingInput(f)
	if err != nil {
		return nil, err
	}
	if pass {
		return f, nil
	}
	s.mu.Lock()
	iters, mode := int(s.get(sensor.OptionFilterMagnitude)), int(s.get(sensor.OptionHolesFill))
	s.mu.Unlock()
	radius := 0
	switch {
	case mode == spatialHoleFillModes-1:
		radius = 0xff
	case mode > 0:
		radius = 1 << mode
	}
	p := s.out.get(f.Profile, nil, func(q *sensor.StreamProfile) { q.Stream, q.Index = sensor.StreamDepth, 0 })
	out := deriveFull(f, p, f.Width, f.Height, bpp)
	copy(out.Data, packed(f, bpp))
	w, h := f.Width, f.Height
	if bpp == 2 {
		v, view := viewOf[uint16](out.Data) // the output's own memory where it can be
		if !view {
			v = u16s(out.Data)
		}
		for range iters {
			smoothRowsInt(v, w, h, alpha, uint16(delta), radius)
			smoothColumnsInt(v, w, h, alpha, uint16(delta))
		}
		if !view {
			putU16s(out.Data, v)
		}
	} else {
		v, view := viewOf[float32](out.Data)
		if !view {
			v = f32s(out.Data)
		}
		orig := make([]float32, w)
		for range iters {
			parallelRows(h, w*h, func(y0, y1 int) {
				for y := recursiveRowsFast(v, w, y0, y1, alpha, delta); y < y1; y++ {
					recursiveRow(v[y*w:(y+1)*w], alpha, delta)
				}
			})
			parallelRows(w, w*h, func(x0, x1 int) {
				recursiveColumns(v, w, h, x0, x1, alpha, delta, orig[x0:x1])
			})
		}
		if radius > 0 {
			inertialFill(v, w, h, radius)
		}
		if !view {
			putF32s(out.Data, v)
		}
	}
	return out, nil
}

// positive reports whether the bits of x, read as an int32, are above 0:
// librealsense's test of a valid disparity.
func positive(x float32) bool { return int32(math.Float32bits(x)) > 0 }

// blend returns a·alpha + b·oma in float32, operation by operation, oma
// being 1-alpha in float32.
func blend(a, b, alpha, oma float32) float32 {
	return float32(a*alpha) + float32(b*oma)
}

// librealsense's recursive filter of disparity runs a line as a two-state
// machine (valid or invalid run), counting its steps; it comes to this: a
// value is blended with the filtered value before it, c·alpha + s·(1-alpha)
// in float32, when it and the original value before it are both valid
// (positive) and differ by less than delta; other values stay. Its reference
// form, step by step as librealsense's, is recursiveFloat of the tests.

// recursiveRow filters row left to right and then right to left.
func recursiveRow(row []float32, alpha, delta float32) {
	n := len(row)
	if n < 2 {
		return
	}
	oma := 1 - alpha
	a, s := row[0], row[0] // the value before: original and filtered
	for i := 1; i < n; i++ {
		c, f := row[i], row[i]
		if d := a - c; positive(a) && positive(c) && d < delta && d > -delta {
			f = blend(c, s, alpha, oma)
			row[i] = f
		}
		a, s = c, f
	}
	a, s = row[n-1], row[n-1]
	for i := n - 2; i >= 0; i-- {
		c, f := row[i], row[i]
		if d := a - c; positive(a) && positive(c) && d < delta && d > -delta {
			f = blend(c, s, alpha, oma)
			row[i] = f
		}
		a, s = c, f
	}
}

// recursiveColumns filters the columns x0 to x1-1 of the w×h picture v
// top to bottom and then bottom to top, a row at a time; orig holds
// x1-x0 values, the original values of the row before.
func recursiveColumns(v []float32, w, h, x0, x1 int, alpha, delta float32, orig []float32) {
	if h < 2 || x1 <= x0 {
		return
	}
	row := func(y int) []float32 { return v[y*w+x0 : y*w+x1] }
	oma := 1 - alpha
	k := columnConsts(alpha, oma, delta)
	copy(orig, row(0))
	for y := 1; y < h; y++ {
		blendColumns(row(y), row(y-1), orig, alpha, oma, delta, k)
	}
	copy(orig, row(h-1))
	for y := h - 2; y >= 0; y-- {
		blendColumns(row(y), row(y+1), orig, alpha, oma, delta, k)
	}
}

// blendColumns takes one step down (or up) the columns of a picture: each
// value c of cur becomes blend(c, done[x]) when it and orig[x], the
// original value before it, are positive and differ by less than delta;
// orig[x] becomes c. The first columns go with SIMD where the machine
// has it (k, from columnConsts).
func blendColumns(cur, done, orig []float32, alpha, oma, delta float32, k *[3][4]uint32) {
	done, orig = done[:len(cur)], orig[:len(cur)]
	for x := blendColumnsFast(cur, done, orig, k); x < len(cur); x++ {
		c, a := cur[x], orig[x]
		orig[x] = c
		if d := a - c; positive(a) && positive(c) && d < delta && d > -delta {
			cur[x] = blend(c, done[x], alpha, oma)
		}
	}
}

// smoothRowsInt filters each row of Z16 depth left to right and then
// right to left, with inertial hole filling over radius pixels when radius
// is not 0.
func smoothRowsInt(v []uint16, w, h int, alpha float32, delta uint16, radius int) {
	if w < 2 {
		return
	}
	parallelRows(h, w*h, func(y0, y1 int) {
		for y := smoothRowsFast(v, w, y0, y1, alpha, delta, radius); y < y1; y++ {
			row := v[y*w : (y+1)*w]
			smoothPass(row, 1, w-1, 1, 1, 1, delta, alpha, radius)
			smoothPass(row, w-2, -1, -1, 2, 0, delta, alpha, radius)
		}
	})
}

// smoothPass filters row[from], row[from+step], ... up to but not
// including row[to], each pixel against the value the pass left in the
// pixel before it. Next to a valid pixel, one of at least minValid whose
// difference from it is in [minDiff, delta] is blended with it, and a
// lesser one is filled with it while the run of filled pixels stays under
// radius. librealsense's left pass takes pixels ≥ 1 and differences ≥ 1,
// its right pass pixels > 1 and any difference.
func smoothPass(row []uint16, from, to, step int, minValid, minDiff, delta uint16, alpha float32, radius int) {
	prev, fill := row[from-step], 0
	oma := 1 - alpha
	for x := from; x != to; x += step {
		cur := row[x]
		if prev >= 1 {
			if cur >= minValid {
				fill = 0
				if d := absDiff(cur, prev); d >= minDiff && d <= delta {
					cur = uint16(blend(float32(cur), float32(prev), alpha, oma) + 0.5)
					row[x] = cur
				}
			} else if radius > 0 {
				if fill++; fill < radius {
					cur = prev
					row[x] = cur
				}
			}
		}
		prev = cur
	}
}

func absDiff(a, b uint16) uint16 {
	if a > b {
		return a - b
	}
	return b - a
}

// smoothColumnsInt filters the columns of Z16 depth top to bottom (every
// pair of pixels, zeros included, as librealsense does) and then bottom to
// top (valid pairs only).
func smoothColumnsInt(v []uint16, w, h int, alpha float32, delta uint16) {
	oma := 1 - alpha
	if delta == 0 {
		return // no difference is below it
	}
	k := blendConsts(alpha, oma, delta)
	parallelRows(w, w*h, func(x0, x1 int) {
		for y := 1; y < h; y++ {
			up, row := v[(y-1)*w+x0:(y-1)*w+x1], v[y*w+x0:y*w+x1]
			up = up[:len(row)]
			for x := blendRowsFast(row, up, k, false); x < len(row); x++ {
				if a, b := row[x], up[x]; absDiff(b, a) < delta {
					row[x] = uint16(blend(float32(a), float32(b), alpha, oma) + 0.5)
				}
			}
		}
		for y := h - 2; y >= 0; y-- {
			row, down := v[y*w+x0:y*w+x1], v[(y+1)*w+x0:(y+1)*w+x1]
			down = down[:len(row)]
			for x := blendRowsFast(row, down, k, true); x < len(row); x++ {
				if a, b := row[x], down[x]; a >= 1 && b >= 1 && absDiff(a, b) < delta {
					row[x] = uint16(blend(float32(a), float32(b), alpha, oma) + 0.5)
				}
			}
		}
	})
}

// inertialFill fills the zero values of each row of disparity from the
// left and then from the right, up to radius-1 pixels past a valid one.
func inertialFill(v []float32, w, h, radius int) {
	empty := func(x float32) bool { return math.Float32bits(x) == 0 }
	for y := 0; y < h; y++ {
		row := v[y*w : (y+1)*w]
		fill := 0
		for x := 1; x < w; x++ {
			if empty(row[x]) {
				if fill++; fill < radius {
					row[x] = row[x-1]
				}
			} else {
				fill = 0
			}
		}
		fill = 0
		for x := w - 2; x >= 0; x-- {
			if empty(row[x]) {
				if fill++; fill < radius {
					row[x] = row[x+1]
				}
			} else {
				fill = 0
			}
		}
	}
}

// temporalBlock is the temporal filter (see NewTemporal).
type temporalBlock struct {
	*options
	out profiles

	state  sync.Mutex
	in     *sensor.StreamProfile // profile of the frames the state is for
	last16 []uint16              // last values of Z16 frames
	last32 []float32             // last values of DISPARITY32 frames
	hist   []uint8               // validity over the last 8 frames, one bit per frame
	index  int                   // bit of the current frame
	lut    [256]uint8            // credibility by history, rotated for each frame bit
}

// Persistency modes of the Temporal filter (OptionHolesFill).
var temporalPersistency = []string{"Disabled", "Valid in 8/8", "Valid in 2/last 3", "Valid in 2/last 4", "Valid in 2/8",
	"Valid in 1/last 2", "Valid in 1/last 5", "Valid in 1/8", "Always on"}

// NewTemporal returns a temporal filter, as librealsense's: it smooths depth
// or disparity frames over time, blending a pixel that agrees with its last
// value (within the delta) with it and filling a missing pixel with its
// last value when the persistency mode says it was valid often enough
// lately. It keeps state between frames: feed it the frames of one stream
// in order (they are processed one at a time). Defaults: alpha 0.4, delta
// 20, persistency 3 ("Valid in 2/last 4").
func NewTemporal() Block {
	t := &temporalBlock{options: newFilterOptions("Temporal Filter", map[sensor.Option]option{
		sensor.OptionHolesFill:         {extensions.Range{Min: 0, Max: temporalPersistenceMax, Step: 1, Default: 3}, "Persistency mode", temporalPersistency},
		sensor.OptionFilterSmoothAlpha: {extensions.Range{Min: 0, Max: 1, Step: 0.01, Default: 0.4}, "Alpha factor of Exp. moving average, 1=no filter, 0=infinite filter", nil},
		sensor.OptionFilterSmoothDelta: {extensions.Range{Min: 1, Max: 100, Step: 1, Default: 20}, "Edge-preserving (gradient) threshold", nil},
	}, sensor.StreamDepth, sensor.FormatZ16)}
	t.lut = persistenceLUT(3)
	t.set = func(o sensor.Option, v float32) {
		// Any change starts the history over; the frame bit restarts for
		// alpha and delta, as in librealsense.
		t.state.Lock()
		defer t.state.Unlock()
		t.in = nil
		switch o {
		case sensor.OptionHolesFill:
			t.lut = persistenceLUT(int(v))
		case sensor.OptionFilterSmoothAlpha, sensor.OptionFilterSmoothDelta:
			t.index = 0
		}
	}
	return t
}

// persistenceRules gives, for each persistency mode (the index, named in
// temporalPersistency), how many of the newest frames it looks at and how
// many of those must have had a valid pixel: mode 0 never fills, mode 8
// always does.
var persistenceRules = [...]struct{ newest, valid int }{{0, 1}, {8, 8}, {3, 2}, {4, 2}, {8, 2}, {2, 1}, {5, 1}, {8, 1}, {0, 0}}

// persistenceLUT returns, for each 8-frame validity history, the frame
// bits for which the history makes a missing pixel credible under mode.
func persistenceLUT(mode int) [256]uint8 {
	var lut [256]uint8
	if mode < 0 || mode >= len(persistenceRules) {
		return lut
	}
	rule := persistenceRules[mode]
	var valid [256]bool
	for i := range valid {
		n := 0 // valid frames among the newest, bit 7 the newest
		for k := range rule.newest {
			n += i >> (7 - k) & 1
		}
		valid[i] = n >= rule.valid
	}
	for phase := 0; phase < 8; phase++ {
		for i := 0; i < 256; i++ {
			pos := uint8(i<<(8-phase) | i>>phase)
			if valid[pos] {
				lut[i] |= 1 << phase
			}
		}
	}
	return lut
}

// Process returns the filtered frame of the Z16 or DISPARITY32 frame f and
// keeps its values for the next frame. A frame of another profile than the
// last one starts the history over.
func (t *temporalBlock) Process(f *sensor.Frame) (*sensor.Frame, error) {
	bpp, alpha, delta, pass, err := t.smoothingInput(f)
	if err != nil {
		return nil, err
	}
	if pass {
		return f, nil
	}
	p := t.out.get(f.Profile, nil, func(q *sensor.StreamProfile) { q.Stream, q.Index = sensor.StreamDepth, 0 })

	t.state.Lock()
	defer t.state.Unlock()
	n := f.Width * f.Height
	if t.in != f.Profile || len(t.hist) != n || (bpp == 2) != (t.last16 != nil) {
		t.in = f.Profile
		t.last16, t.last32 = nil, nil
		if bpp == 2 {
			t.last16 = make([]uint16, n)
		} else {
			t.last32 = make([]float32, n)
		}
		t.hist = make([]uint8, n)
	}
	mask := uint8(1) << t.index
	var data []byte
	if bpp == 2 {
		var cur []uint16
		cur, data = pictureValues[uint16](f, bpp)
		// Z16 values agree when their difference is below the delta's
		// integer part.
		done := temporalFast(cur, t.last16, t.hist, &t.lut, mask, alpha, uint16(delta))
		temporal(cur[done:], t.last16[done:], t.hist[done:], &t.lut, mask, alpha, float32(uint16(delta)))
		if data == nil {
			data = bytesOf(cur)
		}
	} else {
		var cur []float32
		cur, data = pictureValues[float32](f, bpp)
		temporal(cur, t.last32, t.hist, &t.lut, mask, alpha, delta)
		if data == nil {
			data = bytesOf(cur)
		}
	}
	out := deriveData(f, p, f.Width, f.Height, bpp, data)
	t.index = (t.index + 1) % 8
	return out, nil
}

// temporal applies one frame to the state: a current and a last value
// agree when their difference is below delta, and then both become their
// blend, alpha × current + (1 − alpha) × last, in float32 (truncated for
// Z16).
func temporal[T uint16 | float32](cur, last []T, hist []uint8, lut *[256]uint8, mask uint8, alpha, delta float32) {
	oma := 1 - alpha
	last, hist = last[:len(cur)], hist[:len(cur)]
	for i, c := range cur {
		p := last[i]
		switch {
		case c != 0 && p == 0:
			last[i], hist[i] = c, mask
		case c != 0:
			cf, pf := float32(c), float32(p)
			if d := cf - pf; d < delta && -d < delta {
				r := T(float32(alpha*cf) + float32(oma*pf))
				hist[i] |= mask
				cur[i], last[i] = r, r
			} else {
				last[i], hist[i] = c, mask
			}
		default:
			if p != 0 && lut[hist[i]]&mask != 0 {
				cur[i] = p
			}
			hist[i] &^= mask
		}
	}
}

// disparityTransformBlock is the disparity transform (see NewDisparityTransform).
type disparityTransformBlock struct {
	*options
	toDisparity bool
	baselineMM  float32
	out         profiles
}

// NewDisparityTransform returns a disparity transform, as librealsense's:
// Z16 depth to DISPARITY32 frames (toDisparity) or back, with disparity =
// factor / depth and factor = baseline (m) × fx × 32 / depth units, for a
// depth sensor whose stereo baseline is baselineMM millimeters
// (OptionStereoBaseline).
func NewDisparityTransform(toDisparity bool, baselineMM float32) Block {
	name := "Disparity to Depth"
	if toDisparity {
		name = "Depth to Disparity"
	}
	return &disparityTransformBlock{options: newOptions(name, map[sensor.Option]option{}), toDisparity: toDisparity, baselineMM: baselineMM}
}

// Process transforms f: Z16 depth to DISPARITY32, or DISPARITY32 to Z16
// (rounded to nearest). Other frames pass through unchanged.
func (d *disparityTransformBlock) Process(f *sensor.Frame) (*sensor.Frame, error) {
	if f == nil || f.Profile == nil {
		return nil, fmt.Errorf("%s: no frame: %w", d.block, ErrFrame)
	}
	if f.Profile.Stream != sensor.StreamDepth {
		return f, nil
	}
	in, outFmt, outBpp := sensor.FormatZ16, sensor.FormatDisparity32, 4
	if !d.toDisparity {
		in, outFmt, outBpp = sensor.FormatDisparity32, sensor.FormatZ16, 2
	}
	if f.Profile.Format != in {
		return f, nil
	}
	if _, err := checkVideo(d.block, f, in); err != nil {
		return nil, err
	}
	if !(d.baselineMM > 0) || math.IsInf(float64(d.baselineMM), 0) || !(f.DepthUnits > 0) || !(f.Profile.Intrinsics.FX > 0) {
		return nil, fmt.Errorf("%s: %s frame %d: stereo baseline %v mm, depth units %v, fx %v: need positive values: %w",
			d.block, f.Profile.Name(), f.Number, d.baselineMM, f.DepthUnits, f.Profile.Intrinsics.FX, ErrFrame)
	}
	const fractions = 1 << 5 // disparity has 5 fractional bits
	factor := float32(float32(float32(d.baselineMM*0.001)*f.Profile.Intrinsics.FX)*fractions) / f.DepthUnits
	p := d.out.get(f.Profile, nil, func(q *sensor.StreamProfile) { q.Stream, q.Index, q.Format = sensor.StreamDepth, 0, outFmt })
	w, h := f.Width, f.Height
	var data []byte
	if d.toDisparity {
		var disp []float32
		disp, data = newValues[float32](w * h)
		for y := range h { // one thread, as Threshold
			src, dst := f.Data[y*f.Stride:y*f.Stride+2*w], disp[y*w:(y+1)*w]
			for x := u16FloatsFast(src, dst, factor, true); x < len(dst); x++ {
				dst[x] = 0
				if v := uint16(src[2*x]) | uint16(src[2*x+1])<<8; v != 0 {
					dst[x] = factor / float32(v)
				}
			}
		}
		if data == nil {
			data = bytesOf(disp)
		}
	} else {
		var depth []uint16
		depth, data = newValues[uint16](w * h)
		parallelRows(h, w*h, func(y0, y1 int) {
			for y := y0; y < y1; y++ {
				src, dst := f.Data[y*f.Stride:y*f.Stride+4*w], depth[y*w:(y+1)*w]
				for x := range dst {
					v := math.Float32frombits(uint32(src[4*x]) | uint32(src[4*x+1])<<8 | uint32(src[4*x+2])<<16 | uint32(src[4*x+3])<<24)
					dst[x] = 0
					if isNormal(v) {
						dst[x] = uint16(truncInt32(factor/v + 0.5))
					}
				}
			}
		})
		if data == nil {
			data = bytesOf(depth)
		}
	}
	out := deriveData(f, p, w, h, outBpp, data)
	return out, nil
}

// isNormal reports whether x is a normal float: not zero, subnormal,
// infinite or NaN (C's isnormal).
func isNormal(x float32) bool {
	e := math.Float32bits(x) >> 23 & 0xff
	return e != 0 && e != 0xff
}

// truncInt32 converts x to int32 as x86's cvttss2si does: toward zero, and
// the integer indefinite value for NaN and out-of-range values.
func truncInt32(x float32) int32 {
	if !(x > -2147483904 && x < 2147483648) {
		return math.MinInt32
	}
	return int32(x)
}
