//go:build !amd64

package processing

// alignRowFast projects the pixels it can with SIMD (none here) and
// returns how many it did.
func (m *alignProj) alignRowFast(z []uint16, units float32, rx []float32, ry0 float32, out [][2]int32) int {
	return 0
}

// scatterNearestFast places the depths of z it can with SIMD (none here)
// and returns how many it placed.
func scatterNearestFast(dst, z []uint16, tl, br [][2]int32, w, h int) int {
	return 0
}

// useAVX2 is false: no AVX2 here.
var useAVX2 = false

// gatherRGB is gatherRGBGo.
func gatherRGB(dst, src []byte, z []uint16, px [][2]int32, w, h int) {
	gatherRGBGo(dst, src, z, px, w, h)
}

// useAVX512 is false: no AVX-512 here.
var useAVX512 = false
