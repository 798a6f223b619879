package processing

// texRowSep4 is texMapper.row for a row of Z16 depth z (units meters per
// unit) whose rays have the x of xs and the one y, four pixels at a time
// with SSE2 (pointcloud_amd64.s): the vertices are computed as
// vertexRowSep does and projected as texMapper.pixel does, the same
// float32 operations in the same order. It writes the len(out) vertices
// into verts and their texture coordinates into out, and as many texture
// columns into px unless px is nil; len(out) is a multiple of 4.
//
//go:noescape
func texRowSep4(z []byte, xs []float32, y, units float32, k *[26][4]float32, out [][2]float32, distort bool, px []float32, undistXY bool, verts [][3]float32)

// rowFast computes the vertices and maps the pixels of a row it can with
// SSE2 (see texRowSep4) and returns how many it did (the first ones of the
// row).
func (tm *texMapper) rowFast(z []byte, xs []float32, y, units float32, tc [][2]float32, px []float32, verts [][3]float32) int {
	n := len(tc) &^ 3
	if n == 0 || len(z) < 2*n || len(xs) < n || len(verts) < n || (px != nil && len(px) < n) {
		return 0
	}
	if px != nil {
		px = px[:n]
	}
	texRowSep4(z[:2*n], xs[:n], y, units, &tm.k, tc[:n], tm.distort, px, tm.undistXY, verts[:n])
	return n
}
