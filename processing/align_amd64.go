package processing

import "golang.org/x/sys/cpu"

// alignRowSep4 is alignProj.row for rays of one y (sep), four pixels at a time with SSE2 (align_amd64.s), as librealsense's SSE
// path computes them: the same float32 operations in the same order, and
// cvtps2dq's rounding. It writes the first len(z)&^3 pixels of out.
//
//go:noescape
func alignRowSep4(z []uint16, xs []float32, y, units float32, k *[24][4]float32, out [][2]int32, distort bool)

// alignRowSep8 is alignRowSep4 eight pixels at a time with AVX2, from the
// table k8 of alignProj. It writes the first len(z)&^7 pixels of out.
//
//go:noescape
func alignRowSep8(z []uint16, xs []float32, y, units float32, k *[24][8]float32, out [][2]int32, distort bool)

// alignRowSep16 is alignRowSep4 sixteen pixels at a time with AVX-512
// (F), from the same table. It writes the first len(z)&^15 pixels of out.
//
//go:noescape
func alignRowSep16(z []uint16, xs []float32, y, units float32, k *[24][4]float32, out [][2]int32, distort bool)

// useAVX2 and useAVX512 tell whether alignRowFast projects with AVX2 and
// AVX-512 (set where the processor and the system have them; tests turn
// them off to check the narrower ones).
var (
	useAVX2   = cpu.X86.HasAVX2
	useAVX512 = cpu.X86.HasAVX512F
)

// alignRowFast projects the pixels it can with AVX2 or SSE2 and returns
// how many it did (the first ones of the row).
func (m *alignProj) alignRowFast(z []uint16, units float32, rx []float32, ry0 float32, out [][2]int32) int {
	n := min(len(z), len(rx), len(out))
	done := 0
	if n16 := n &^ 15; useAVX512 && n16 > 0 {
		alignRowSep16(z[:n16], rx[:n16], ry0, units, &m.k, out[:n16], m.distort)
		done = n16
	}
	if n8 := n &^ 7; useAVX2 && n8 > done {
		alignRowSep8(z[done:n8], rx[done:n8], ry0, units, &m.k8, out[done:n8], m.distort)
		done = n8
	}
	if n4 := n &^ 3; n4 > done {
		alignRowSep4(z[done:n4], rx[done:n4], ry0, units, &m.k, out[done:n4], m.distort)
		done = n4
	}
	return done
}

// scatterNearestFast places the depths of z as scatterNearest does, with
// SSE2 (scatter_amd64.s), from the first pixel on, and returns how many
// pixels it placed: all, or up to the first it leaves to the caller (one
// whose rectangle is more than four columns wide or ends within four
// columns of the picture's right edge). dst must hold w×h values; z, tl and
// br are as long.
//
//go:noescape
func scatterNearestFast(dst, z []uint16, tl, br [][2]int32, w, h int) int

// gatherRGBFast is gatherRGBGo in assembly (gather_amd64.s), for len(z)
// pixels; dst, src and px must be long enough (gatherRGB checks).
//
//go:noescape
func gatherRGBFast(dst, src []byte, z []uint16, px [][2]int32, w, h int)

// gatherRGB is gatherRGBGo, with gatherRGBFast.
func gatherRGB(dst, src []byte, z []uint16, px [][2]int32, w, h int) {
	_, _, _ = dst[:3*len(z)], src[:3*w*h], px[:len(z)]
	gatherRGBFast(dst, src, z, px, w, h)
}
