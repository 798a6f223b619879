//go:build !amd64

package processing

// blendConsts returns the constants of blendRowsFast.
func blendConsts(alpha, oma float32, delta uint16) *[6][4]uint32 { return nil }

// blendRowsFast blends the pixels of row it can with SIMD (none here) and
// returns how many it did.
func blendRowsFast(row, other []uint16, k *[6][4]uint32, valid bool) int { return 0 }

// u16FloatsFast converts the values of a row it can with SIMD (none
// here) and returns how many it did.
func u16FloatsFast(src []byte, dst []float32, k float32, divide bool) int { return 0 }

// thresholdRowFast thresholds the values of a row it can with SIMD (none
// here) and returns how many bytes it did.
func thresholdRowFast(dst, src []byte, lo, span uint16) int { return 0 }

// decimate2RowFast decimates the values of a row it can with SIMD (none
// here) and returns how many bytes of dst it did.
func decimate2RowFast(dst, top, bot []byte) int { return 0 }

// temporalFast runs temporal on the Z16 values it can with SIMD (none
// here) and returns how many it did.
func temporalFast(cur, last []uint16, hist []uint8, lut *[256]uint8, mask uint8, alpha float32, delta uint16) int {
	return 0
}

// columnConsts returns the constants of blendColumnsFast.
func columnConsts(alpha, oma, delta float32) *[3][4]uint32 { return nil }

// blendColumnsFast takes blendColumns's step over the columns it can with
// SIMD (none here) and returns how many it did.
func blendColumnsFast(cur, done, orig []float32, k *[3][4]uint32) int { return 0 }

// smoothRowsFast runs smoothRowsInt's passes on the rows from y0 it can
// with SIMD (none here) and returns the first row it left.
func smoothRowsFast(v []uint16, w, y0, y1 int, alpha float32, delta uint16, radius int) int {
	return y0
}

// recursiveRowsFast runs recursiveRow on the rows from y0 it can with
// SIMD (none here) and returns the first row it left.
func recursiveRowsFast(v []float32, w, y0, y1 int, alpha, delta float32) int { return y0 }
