package processing

import (
	"math"
	"sync"
)

// blendRows8 blends each pixel a of row with the pixel b of other under
// it, as smoothColumnsInt does, eight pixels at a time with SSE2
// (smooth_amd64.s): where |a-b| < delta (and, with valid, a and b are
// both at least 1), a becomes uint16(float32(a*alpha) + float32(b*(1-alpha)) + 0.5).
// len(row) is a multiple of 8, other is as long.
//
//go:noescape
func blendRows8(row, other []uint16, k *[6][4]uint32, valid bool)

// blendConsts returns the constants of blendRows8 (delta is at least 1),
// or nil for an alpha outside [0, 1], whose blends may leave uint16's range.
func blendConsts(alpha, oma float32, delta uint16) *[6][4]uint32 {
	if !(alpha >= 0 && alpha <= 1) {
		return nil
	}
	var k [6][4]uint32
	d := uint32(delta-1) | uint32(delta-1)<<16
	for i := range 4 {
		k[0][i], k[1][i], k[2][i] = math.Float32bits(alpha), math.Float32bits(oma), math.Float32bits(0.5)
		k[3][i], k[4][i], k[5][i] = 32768, 0x80008000, d
	}
	return &k
}

// blendRowsFast blends the pixels of row it can with SSE2 and returns how
// many it did (the first ones).
func blendRowsFast(row, other []uint16, k *[6][4]uint32, valid bool) int {
	n := len(row) &^ 7
	if n == 0 || k == nil || len(other) < n {
		return 0
	}
	blendRows8(row[:n], other[:n], k, valid)
	return n
}

// u16Floats4 writes, for each Z16 value v of src, k / v (0 for 0) with
// divide, else k * v, into dst, four values at a time with SSE2
// (smooth_amd64.s): the same float32 operation. len(dst) is a multiple of
// 4, src holds 2*len(dst) bytes.
//
//go:noescape
func u16Floats4(src []byte, dst []float32, k float32, divide bool)

// u16FloatsFast converts the values of a row it can with SSE2 (see
// u16Floats4) and returns how many it did (the first ones).
func u16FloatsFast(src []byte, dst []float32, k float32, divide bool) int {
	n := len(dst) &^ 3
	if n == 0 || len(src) < 2*n {
		return 0
	}
	u16Floats4(src[:2*n], dst[:n], k, divide)
	return n
}

// thresholdRow8 writes to dst the little-endian Z16 values of src in
// [lo, lo+span] and 0 for the others, eight at a time with SSE2
// (smooth_amd64.s). len(dst) is a multiple of 16, src holds as many bytes.
//
//go:noescape
func thresholdRow8(dst, src []byte, lo, span uint16)

// thresholdRowFast thresholds the values of a row it can with SSE2 (see
// thresholdRow8) and returns how many bytes it did (the first ones).
func thresholdRowFast(dst, src []byte, lo, span uint16) int {
	n := min(len(dst), len(src)) &^ 15
	if n == 0 {
		return 0
	}
	thresholdRow8(dst[:n], src[:n], lo, span)
	return n
}

// decimate2Row8 writes to dst the lower median of the non-zero Z16 values
// of each 2×2 square of the rows top and bot (0 for none), eight at a
// time with SSE2 (smooth_amd64.s). len(dst) is a multiple of 16, top and
// bot hold twice as many bytes.
//
//go:noescape
func decimate2Row8(dst, top, bot []byte)

// decimate2RowFast decimates the values of a row it can with SSE2 (see
// decimate2Row8) and returns how many bytes of dst it did (the first ones).
func decimate2RowFast(dst, top, bot []byte) int {
	n := min(len(dst), len(top)/2, len(bot)/2) &^ 15
	if n == 0 {
		return 0
	}
	decimate2Row8(dst[:n], top[:2*n], bot[:2*n])
	return n
}

// temporal8 runs temporal on Z16 values eight at a time with SSE2
// (smooth_amd64.s), with the constants of temporalConsts. len(cur) is a
// multiple of 8, last and hist hold as many.
//
//go:noescape
func temporal8(cur, last []uint16, hist []uint8, lut *[256]uint8, k *[5][4]uint32)

// temporalFast runs temporal on the Z16 values it can with SSE2 (see
// temporal8) and returns how many it did (the first ones). delta is the
// integer the differences must stay below.
func temporalFast(cur, last []uint16, hist []uint8, lut *[256]uint8, mask uint8, alpha float32, delta uint16) int {
	n := len(cur) &^ 7
	if n == 0 || len(last) < n || len(hist) < n || delta == 0 || !(alpha >= 0 && alpha <= 1) {
		return 0
	}
	var k [5][4]uint32
	d := uint32(delta - 1)
	for i := range 4 {
		k[0][i], k[1][i] = math.Float32bits(alpha), math.Float32bits(1-alpha)
		k[2][i], k[3][i], k[4][i] = d|d<<16, uint32(mask)*0x01010101, 32768
	}
	temporal8(cur[:n], last[:n], hist[:n], lut, &k)
	return n
}

// blendColumns4 takes blendColumns's step four columns at a time with
// SSE2 (smooth_amd64.s), with the constants of columnConsts. len(cur) is
// a multiple of 4, done and orig hold as many.
//
//go:noescape
func blendColumns4(cur, done, orig []float32, k *[3][4]uint32)

// columnConsts returns the constants of blendColumns4, or nil for a delta
// that is not a positive number (blendColumns then does every column).
func columnConsts(alpha, oma, delta float32) *[3][4]uint32 {
	var k [3][4]uint32
	if !setColumnConsts(&k, alpha, oma, delta) {
		return nil
	}
	return &k
}

// setColumnConsts sets k to the constants of blendColumns4 and reports
// whether it can: not for a delta that is not a positive number.
func setColumnConsts(k *[3][4]uint32, alpha, oma, delta float32) bool {
	if !(delta > 0) {
		return false
	}
	for i := range 4 {
		k[0][i], k[1][i], k[2][i] = math.Float32bits(alpha), math.Float32bits(oma), math.Float32bits(delta)
	}
	return true
}

// blendColumnsFast takes blendColumns's step over the columns it can with
// SSE2 and returns how many it did (the first ones).
func blendColumnsFast(cur, done, orig []float32, k *[3][4]uint32) int {
	n := len(cur) &^ 3
	if n == 0 || k == nil || len(done) < n || len(orig) < n {
		return 0
	}
	blendColumns4(cur[:n], done[:n], orig[:n], k)
	return n
}

// transpose8 transposes blocks 8×8 blocks of uint16 with SSE2
// (smooth_amd64.s): block b has its rows r at src[b*srcNext+r*srcRow:][:8],
// and its columns c go to dst[b*dstNext+c*dstRow:][:8].
//
//go:noescape
func transpose8(dst, src []uint16, blocks, srcRow, srcNext, dstRow, dstNext int)

// smoothSteps8 runs smoothPass on lanes rows laid out pixel by pixel
// (pixel x of row r at t[x*lanes+r]) with SSE2 (smooth_amd64.s), eight
// rows at a time: the pixels from, from+1, ... (steps of them; from,
// from-1, ... with back), each against the pixel before it as the pass
// left it. fill holds each row's run of filled pixels; k the constants of
// rowConsts. lanes is a multiple of 8.
//
//go:noescape
func smoothSteps8(t []uint16, lanes, from, steps int, back bool, fill []uint16, k *[9][4]uint32)

// rowStrip is the most rows smoothRowsFast filters together: enough
// independent blends to hide the latency of each, few enough for the
// transposed strip to stay in the first caches.
const rowStrip = 32

// stripScratch is the memory of a smoothRowsFast or recursiveRowsFast
// call: a strip turned pixel by pixel (t), a value for each of its rows
// (aux: the fill counts, or the original values of the pixel before) and
// the constants of its steps.
type stripScratch[T uint16 | float32, K any] struct {
	t, aux []T
	k      K
}

// grow makes sc's memory enough for strips of w pixels.
func (sc *stripScratch[T, K]) grow(w int) {
	if len(sc.t) < w*rowStrip {
		sc.t = make([]T, w*rowStrip)
	}
	if len(sc.aux) < rowStrip {
		sc.aux = make([]T, rowStrip)
	}
}

// The stripScratches of smoothRowsFast and recursiveRowsFast.
var (
	stripPool      = sync.Pool{New: func() any { return new(stripScratch[uint16, [9][4]uint32]) }}
	floatStripPool = sync.Pool{New: func() any { return new(stripScratch[float32, [3][4]uint32]) }}
)

// setRowConsts sets k to the constants of smoothSteps8 for the left pass
// (the right one changes the last two) and reports whether it can: not
// for an alpha outside [0, 1], whose blends may leave uint16's range.
func setRowConsts(k *[9][4]uint32, alpha float32, delta uint16, radius int) bool {
	if !(alpha >= 0 && alpha <= 1) || radius < 0 || radius > math.MaxInt16 {
		return false
	}
	both := func(v uint16) uint32 { return uint32(v) | uint32(v)<<16 }
	for i := range 4 {
		k[0][i], k[1][i], k[2][i] = math.Float32bits(alpha), math.Float32bits(1-alpha), math.Float32bits(0.5)
		k[3][i], k[4][i], k[5][i], k[6][i] = 32768, both(0x8000), both(delta), both(uint16(radius))
		k[7][i], k[8][i] = both(1), both(1)
	}
	return true
}

// smoothRowsFast runs smoothRowsInt's passes on the rows y0, y0+1, ... of
// the w-wide picture v it can with SSE2, in strips of up to rowStrip rows
// turned pixel by pixel, and returns the first row it left.
func smoothRowsFast(v []uint16, w, y0, y1 int, alpha float32, delta uint16, radius int) int {
	if w < 8 || y1-y0 < 8 || len(v) < y1*w {
		return y0
	}
	sc := stripPool.Get().(*stripScratch[uint16, [9][4]uint32])
	defer stripPool.Put(sc)
	k := &sc.k
	if !setRowConsts(k, alpha, delta, radius) {
		return y0
	}
	sc.grow(w)
	return inStrips(v, w, y0, y1, 8, sc.t, transpose8, func(t []uint16, lanes int) {
		// The left pass takes pixels and differences of at least 1, the
		// right pass pixels of at least 2 and any difference.
		fill := sc.aux[:lanes]
		clear(fill)
		k[7], k[8] = [4]uint32{0x10001, 0x10001, 0x10001, 0x10001}, [4]uint32{0x10001, 0x10001, 0x10001, 0x10001}
		smoothSteps8(t, lanes, 1, w-2, false, fill, k)
		clear(fill)
		k[7], k[8] = [4]uint32{0x20002, 0x20002, 0x20002, 0x20002}, [4]uint32{}
		smoothSteps8(t, lanes, w-2, w-1, true, fill, k)
	})
}

// inStrips runs pass on the rows y0, y0+1, ... of the w-wide picture v,
// in strips of up to rowStrip rows (a multiple of unit, the rows of a
// block of transpose) turned pixel by pixel into t (of w*rowStrip values
// at least): pixel x of row r of the strip at t[x*lanes+r], lanes the
// strip's rows. It returns the first row it left (fewer than unit).
func inStrips[T uint16 | float32](v []T, w, y0, y1, unit int, t []T,
	transpose func(dst, src []T, blocks, srcRow, srcNext, dstRow, dstNext int), pass func(t []T, lanes int)) int {
	blocks := w / unit
	y := y0
	for y1-y >= unit {
		lanes := min(rowStrip, (y1-y)/unit*unit)
		t := t[:w*lanes]
		strip := v[y*w : (y+lanes)*w]
		for g := 0; g < lanes; g += unit {
			transpose(t[g:], strip[g*w:], blocks, w, unit, lanes, unit*lanes)
		}
		for x := blocks * unit; x < w; x++ {
			for r := range lanes {
				t[x*lanes+r] = strip[r*w+x]
			}
		}
		pass(t, lanes)
		for g := 0; g < lanes; g += unit {
			transpose(strip[g*w:], t[g:], blocks, lanes, unit*lanes, w, unit)
		}
		for x := blocks * unit; x < w; x++ {
			for r := range lanes {
				strip[r*w+x] = t[x*lanes+r]
			}
		}
		y += lanes
	}
	return y
}

// blendSteps4 runs recursiveRow's pass on lanes rows laid out pixel by
// pixel (pixel x of row r at t[x*lanes+r]) with SSE2 (smooth_amd64.s),
// four rows at a time as blendColumns4: the pixels from, from+1, ...
// (steps of them; from, from-1, ... with back), each against the pixel
// before it as the pass left it and orig, the original values of the
// pixel before it. lanes is a multiple of 4.
//
//go:noescape
func blendSteps4(t []float32, lanes, from, steps int, back bool, orig []float32, k *[3][4]uint32)

// transpose4 transposes blocks 4×4 blocks of float32 with SSE2
// (smooth_amd64.s): block b has its rows r at src[b*srcNext+r*srcRow:][:4],
// and its columns c go to dst[b*dstNext+c*dstRow:][:4].
//
//go:noescape
func transpose4(dst, src []float32, blocks, srcRow, srcNext, dstRow, dstNext int)

// recursiveRowsFast runs recursiveRow on the rows y0, y0+1, ... of the
// w-wide picture v it can with SSE2, in strips of up to rowStrip rows
// turned pixel by pixel, and returns the first row it left.
func recursiveRowsFast(v []float32, w, y0, y1 int, alpha, delta float32) int {
	if w < 4 || y1-y0 < 4 || len(v) < y1*w {
		return y0
	}
	sc := floatStripPool.Get().(*stripScratch[float32, [3][4]uint32])
	defer floatStripPool.Put(sc)
	if !setColumnConsts(&sc.k, alpha, 1-alpha, delta) {
		return y0
	}
	sc.grow(w)
	return inStrips(v, w, y0, y1, 4, sc.t, transpose4, func(t []float32, lanes int) {
		orig := sc.aux[:lanes]
		copy(orig, t[:lanes])
		blendSteps4(t, lanes, 1, w-1, false, orig, &sc.k)
		copy(orig, t[(w-1)*lanes:])
		blendSteps4(t, lanes, w-2, w-1, true, orig, &sc.k)
	})
}
