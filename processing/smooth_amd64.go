package processing

import "math"

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
	if !(delta > 0) {
		return nil
	}
	var k [3][4]uint32
	for i := range 4 {
		k[0][i], k[1][i], k[2][i] = math.Float32bits(alpha), math.Float32bits(oma), math.Float32bits(delta)
	}
	return &k
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
