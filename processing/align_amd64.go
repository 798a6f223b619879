package processing

// alignRowSep4 is alignProj.row for rays of one y (sep), four pixels at a time with SSE2 (align_amd64.s), as librealsense's SSE
// path computes them: the same float32 operations in the same order, and
// cvtps2dq's rounding. It writes the first len(z)&^3 pixels of out.
//
//go:noescape
func alignRowSep4(z []uint16, xs []float32, y, units float32, k *[24][4]float32, out [][2]int32, distort bool)

// alignRowFast projects the pixels it can with SSE2 and returns how many
// it did (the first ones of the row).
func (m *alignProj) alignRowFast(z []uint16, units float32, rx []float32, ry0 float32, out [][2]int32) int {
	n := len(z) &^ 3
	if n == 0 || len(rx) < n || len(out) < n {
		return 0
	}
	alignRowSep4(z[:n], rx[:n], ry0, units, &m.k, out[:n], m.distort)
	return n
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
