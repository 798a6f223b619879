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

// texRowSep8 is texRowSep4 eight pixels at a time with AVX2, from the
// table k8 of texMapper; len(out) is a multiple of 8. It returns clean as
// texRowSep16 does, in groups of eight.
//
//go:noescape
func texRowSep8(z []byte, xs []float32, y, units float32, k *[26][8]float32, out [][2]float32, distort bool, px []float32, undistXY bool, verts [][3]float32) (clean int)

// texRowSep16 is texRowSep4 sixteen pixels at a time with AVX-512 (F),
// from the same table; len(out) is a multiple of 16. With px, it returns
// how many of the first pixels, a multiple of 16, removeOccluded would
// leave as they are (each pixel of nonzero depth there has a texture
// column above -1 and above those of the pixels before it); else 0.
//
//go:noescape
func texRowSep16(z []byte, xs []float32, y, units float32, k *[26][4]float32, out [][2]float32, distort bool, px []float32, undistXY bool, verts [][3]float32) (clean int)

// rowFast computes the vertices and maps the pixels of a row it can with
// AVX-512, AVX2 or SSE2 (see texRowSep4; useAVX512 and useAVX2 choose)
// and returns how many it did (the first ones of the row), and, with px,
// how many of the first pixels removeOccluded would leave as they are
// (see texRowSep16; 0 with SSE2 only).
func (tm *texMapper) rowFast(z []byte, xs []float32, y, units float32, tc [][2]float32, px []float32, verts [][3]float32) (n, clean int) {
	n = len(tc) &^ 3
	if n == 0 || len(z) < 2*n || len(xs) < n || len(verts) < n || (px != nil && len(px) < n) {
		return 0, 0
	}
	var pxs []float32 // px from done on, or nil
	done := 0
	if n16 := n &^ 15; useAVX512 && n16 > 0 {
		if px != nil {
			pxs = px[:n16]
		}
		clean = texRowSep16(z[:2*n16], xs[:n16], y, units, &tm.k, tc[:n16], tm.distort, pxs, tm.undistXY, verts[:n16])
		done = n16
	}
	if n8 := n &^ 7; useAVX2 && n8 > done {
		if px != nil {
			pxs = px[done:n8]
		}
		c := texRowSep8(z[2*done:2*n8], xs[done:n8], y, units, &tm.k8, tc[done:n8], tm.distort, pxs, tm.undistXY, verts[done:n8])
		if done == 0 { // else the routine did not start from the row's first pixel
			clean = c
		}
		done = n8
	}
	if n > done {
		if px != nil {
			pxs = px[done:n]
		}
		texRowSep4(z[2*done:2*n], xs[done:n], y, units, &tm.k, tc[done:n], tm.distort, pxs, tm.undistXY, verts[done:n])
	}
	if px == nil {
		clean = 0
	}
	return n, clean
}
