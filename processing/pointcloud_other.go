//go:build !amd64

package processing

// rowFast computes the vertices and maps the pixels of a row it can with
// SIMD (none here) and returns how many it did, and how many of the first
// pixels removeOccluded would leave as they are.
func (tm *texMapper) rowFast(z []byte, xs []float32, y, units float32, tc [][2]float32, px []float32, verts [][3]float32) (n, clean int) {
	return 0, 0
}
