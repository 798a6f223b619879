package raycast

import (
	"math"
	"sync"

	"github.com/rsbag/rsbag/sensor"
)

// Camera is a stream's pixel grid: the ray through every pixel center, as
// the stream's intrinsics deproject it (sensor.Intrinsics.Deproject at
// depth 1, undistorting as librealsense does), so that a point rendered at
// a pixel projects back to that pixel.
type Camera struct {
	In   sensor.Intrinsics
	rays []float32 // x, y per pixel (z = 1)
	pad  float64   // extra pixels around projected bounds (distortion)
}

// NewCamera returns the camera of a stream with intrinsics in.
func NewCamera(in sensor.Intrinsics) *Camera {
	c := &Camera{In: in, rays: make([]float32, 2*in.Width*in.Height), pad: 2}
	for _, k := range in.Coeffs {
		if k != 0 {
			c.pad = 2 + 0.03*float64(max(in.Width, in.Height))
			break
		}
	}
	for y := range in.Height {
		for x := range in.Width {
			p := in.Deproject([2]float32{float32(x), float32(y)}, 1)
			i := 2 * (y*in.Width + x)
			c.rays[i], c.rays[i+1] = p[0], p[1]
		}
	}
	return c
}

// rect is an object's bounds on the picture, in pixels (inclusive).
type rect struct{ x0, x1, y0, y1 int }

// View is a scene seen by a camera at a pose: the frame's rendering state.
// Its methods may be called from several goroutines for different rows.
type View struct {
	s     *Scene
	c     *Camera
	pose  Pose
	rects []rect // per object (boxes, then spheres)
	oc    []Vec3 // sphere centers from the camera

	lutOnce  sync.Once
	lutCache *colorLUT
}

// View returns the view of s by camera c at pose.
func (s *Scene) View(c *Camera, pose Pose) *View {
	v := &View{s: s, c: c, pose: pose, rects: make([]rect, s.objects()), oc: make([]Vec3, len(s.Spheres))}
	inv := pose.Inverse()
	w, h := c.In.Width, c.In.Height
	for i := range v.rects {
		lo, hi := s.bounds(i)
		r := rect{x0: math.MaxInt, x1: math.MinInt, y0: math.MaxInt, y1: math.MinInt}
		whole := false
		for k := range 8 {
			corner := lo
			for a := range 3 {
				if k&(1<<a) != 0 {
					corner[a] = hi[a]
				}
			}
			p := inv.Apply(corner)
			if p[2] < 0.02 {
				whole = true
				break
			}
			px := c.In.Project([3]float32{float32(p[0]), float32(p[1]), float32(p[2])})
			r.x0 = min(r.x0, int(math.Floor(float64(px[0])-c.pad)))
			r.x1 = max(r.x1, int(math.Ceil(float64(px[0])+c.pad)))
			r.y0 = min(r.y0, int(math.Floor(float64(px[1])-c.pad)))
			r.y1 = max(r.y1, int(math.Ceil(float64(px[1])+c.pad)))
		}
		if whole {
			r = rect{0, w - 1, 0, h - 1}
		}
		r.x0, r.y0 = max(r.x0, 0), max(r.y0, 0)
		r.x1, r.y1 = min(r.x1, w-1), min(r.y1, h-1)
		v.rects[i] = r
	}
	for i, sp := range s.Spheres {
		v.oc[i] = sub(sp.Center, pose.T)
	}
	return v
}

// Ray returns the world direction of pixel (x, y): the rotation of its
// camera ray (x', y', 1), so that a hit's T is its depth (camera Z).
func (v *View) Ray(x, y int) Vec3 {
	i := 2 * (y*v.c.In.Width + x)
	rx, ry := float64(v.c.rays[i]), float64(v.c.rays[i+1])
	r := &v.pose.R
	return Vec3{r[0]*rx + r[1]*ry + r[2], r[3]*rx + r[4]*ry + r[5], r[6]*rx + r[7]*ry + r[8]}
}

// Pixel returns what pixel (x, y) sees.
func (v *View) Pixel(x, y int) Hit {
	var cand [64]int
	return v.cast(x, y, v.candidates(y, cand[:0]))
}

// candidates appends the objects whose bounds cover row y.
func (v *View) candidates(y int, dst []int) []int {
	for i, r := range v.rects {
		if y >= r.y0 && y <= r.y1 && r.x0 <= r.x1 {
			dst = append(dst, i)
		}
	}
	return dst
}

// cast returns the hit of pixel (x, y) among the room and the objects
// cand, with its point, normal and poster filled in.
func (v *View) cast(x, y int, cand []int) Hit {
	o := v.pose.T
	d := v.Ray(x, y)
	lo, hi := v.span(cand)
	t, face, kind, idx := v.nearest(&o, &d, x, lo, hi, cand)
	h := Hit{T: t, Kind: kind, Index: idx, Face: face}
	v.s.finish(&h, o, d)
	return h
}

// Blocked reports whether an object lies between the hit p (world) of
// pixel column x of a row with candidates cand and the point e (world) of
// the camera's coordinates: whether p is hidden from a viewpoint at e
// (right of the camera, +x), whose line of sight to p crosses the picture
// only right of x.
func (v *View) blocked(x int, cand []int, p, e Vec3) bool {
	s := v.s
	d := sub(e, p)
	nb := len(s.Boxes)
	const eps = 1e-7
	for _, i := range cand {
		if v.rects[i].x1 < x {
			continue
		}
		if i < nb {
			if segBox(&s.Boxes[i], p, d, eps) {
				return true
			}
		} else if segSphere(&s.Spheres[i-nb], p, d, eps) {
			return true
		}
	}
	return false
}

// segBox reports whether the segment p + t·d, t in (eps, 1), passes through
// the inside of b.
func segBox(b *Box, p, d Vec3, eps float64) bool {
	t0, t1 := eps, 1.0
	for a := range 3 {
		if d[a] == 0 {
			if p[a] <= b.Min[a] || p[a] >= b.Max[a] {
				return false
			}
			continue
		}
		near, far := (b.Min[a]-p[a])/d[a], (b.Max[a]-p[a])/d[a]
		if near > far {
			near, far = far, near
		}
		t0, t1 = max(t0, near), min(t1, far)
		if t1-t0 <= eps {
			return false
		}
	}
	return true
}

// segSphere reports whether the segment p + t·d, t in (eps, 1), passes
// through the inside of sp.
func segSphere(sp *Sphere, p, d Vec3, eps float64) bool {
	oc := sub(sp.Center, p)
	dd := dot(d, d)
	b := dot(oc, d)
	c := dot(oc, oc) - sp.Radius*sp.Radius
	disc := b*b - dd*c
	if disc <= 0 {
		return false
	}
	q := math.Sqrt(disc)
	t0, t1 := max((b-q)/dd, eps), min((b+q)/dd, 1)
	return t1-t0 > eps
}

// DepthRows writes the exact depth (camera Z, meters) of rows y0..y1-1
// into z (the whole picture, row-major). With baseline > 0, a pixel whose
// surface is hidden from the point baseline meters right of the camera
// (the other imager of a stereo pair), where a stereo camera finds no
// match, gets its depth negated.
func (v *View) DepthRows(z []float32, y0, y1 int, baseline float64) {
	w := v.c.In.Width
	e := v.pose.Apply(Vec3{baseline, 0, 0})
	o := v.pose.T
	r := &v.pose.R
	var buf [64]int
	for y := y0; y < y1; y++ {
		cand := v.candidates(y, buf[:0])
		row := z[y*w : (y+1)*w]
		rays := v.c.rays[2*y*w : 2*(y+1)*w]
		// Objects can hide a pixel from the other imager only up to the
		// right edge of the rightmost one.
		lo, right := v.span(cand)
		for x := range row {
			d := dir(r, rays, x)
			t, _, _, _ := v.nearest(&o, &d, x, lo, right, cand)
			if baseline > 0 && x <= right && v.blocked(x, cand, Vec3{o[0] + t*d[0], o[1] + t*d[1], o[2] + t*d[2]}, e) {
				t = -t
			}
			row[x] = float32(t)
		}
	}
}

// room returns the face of the room the ray o + t·d from inside meets
// first, and its t.
func (s *Scene) room(o, d *Vec3) (t float64, face int) {
	// Per axis, the face ahead is n = its distance along the axis over |d|
	// of the axis; the least ratio is found by cross-multiplying, with one
	// division at the end ((Min−o)/d for a face behind the axis' origin
	// side equals (o−Min)/−d exactly).
	bn, bd := 1.0, 0.0 // +Inf
	for a := range 3 {
		var n, dd float64
		f := 2 * a
		switch {
		case d[a] > 0:
			n, dd, f = s.Room.Max[a]-o[a], d[a], 2*a+1
		case d[a] < 0:
			n, dd = o[a]-s.Room.Min[a], -d[a]
		default:
			continue
		}
		if n*bd < bn*dd {
			bn, bd, face = n, dd, f
		}
	}
	return bn / bd, face
}

// dir returns the world direction of the ray of column x of a row of
// camera rays (x', y' per pixel, z = 1) under the rotation r.
func dir(r *[9]float64, rays []float32, x int) Vec3 {
	rx, ry := float64(rays[2*x]), float64(rays[2*x+1])
	return Vec3{r[0]*rx + r[1]*ry + r[2], r[3]*rx + r[4]*ry + r[5], r[6]*rx + r[7]*ry + r[8]}
}

// nearest returns the first hit of the ray o + t·d of column x: the room
// or, between columns lo and hi, one of the objects cand (View.objects).
func (v *View) nearest(o, d *Vec3, x, lo, hi int, cand []int) (t float64, face, kind, idx int) {
	t, face = v.s.room(o, d)
	kind, idx = KindWall, face
	if x >= lo && x <= hi {
		if to, f, k, i, ok := v.objects(o, d, x, cand, t); ok {
			return to, f, k, i
		}
	}
	return t, face, kind, idx
}

// span returns the columns lo..hi (inclusive) the objects cand of a row
// cover; hi < lo when they cover none.
func (v *View) span(cand []int) (lo, hi int) {
	lo, hi = math.MaxInt, -1
	for _, i := range cand {
		lo, hi = min(lo, v.rects[i].x0), max(hi, v.rects[i].x1)
	}
	return lo, hi
}

// objects returns the first hit before t of the ray o + t·d of column x
// among the objects cand, if any: its t, face (of a box), kind and index.
func (v *View) objects(o, d *Vec3, x int, cand []int, t float64) (float64, int, int, int, bool) {
	s := v.s
	face, kind, idx, hit := 0, 0, 0, false
	nb := len(s.Boxes)
	for _, i := range cand {
		rc := &v.rects[i]
		if x < rc.x0 || x > rc.x1 {
			continue
		}
		if i < nb {
			if tb, f, ok := boxHit(&s.Boxes[i], *o, *d, t); ok {
				t, face, kind, idx, hit = tb, f, KindBox, i, true
			}
		} else if ts, ok := sphereHit(&s.Spheres[i-nb], v.oc[i-nb], *d, t); ok {
			t, kind, idx, hit = ts, KindSphere, i-nb, true
		}
	}
	return t, face, kind, idx, hit
}

// ColorRows writes the shaded color (RGB8) of rows y0..y1-1 into rgb (the
// whole picture, row-major, 3 bytes a pixel): Shade of every pixel's hit,
// with the flat faces' colors computed once per view.
func (v *View) ColorRows(rgb []byte, y0, y1 int) {
	w := v.c.In.Width
	s := v.s
	lut := v.lut()
	o := v.pose.T
	r := &v.pose.R
	var buf [64]int
	for y := y0; y < y1; y++ {
		cand := v.candidates(y, buf[:0])
		row := rgb[3*y*w : 3*(y+1)*w]
		rays := v.c.rays[2*y*w : 2*(y+1)*w]
		lo, hi := v.span(cand)
		for x := range w {
			d := dir(r, rays, x)
			best, face, kind, idx := v.nearest(&o, &d, x, lo, hi, cand)
			var c *[3]byte
			switch kind {
			case KindSphere:
				h := Hit{T: best, Kind: kind, Index: idx}
				s.finish(&h, o, d)
				sh := s.Shade(h)
				row[3*x], row[3*x+1], row[3*x+2] = toByte(sh[0]), toByte(sh[1]), toByte(sh[2])
				continue
			case KindWall:
				a := face >> 1
				pu := o[lut.u[a]] + best*d[lut.u[a]]
				pv := o[lut.v[a]] + best*d[lut.v[a]]
				if face == 5 && lut.poster != nil {
					if c = lut.posterAt(pu, pv); c != nil {
						break
					}
				}
				c = &lut.walls[face][checker(pu, pv, lut.wallCell[face])]
			default: // box
				a := face >> 1
				pu := o[lut.u[a]] + best*d[lut.u[a]]
				pv := o[lut.v[a]] + best*d[lut.v[a]]
				c = &lut.boxes[idx][face][checker(pu, pv, lut.boxCell[idx])]
			}
			row[3*x], row[3*x+1], row[3*x+2] = c[0], c[1], c[2]
		}
	}
}

// checker returns 0 or 1: the parity of the checker square of (u, v),
// of size 1/inv (0 for a plain material, inv = 0).
func checker(u, v, inv float64) int {
	if inv == 0 {
		return 0
	}
	return int(int64(math.Floor(u*inv))+int64(math.Floor(v*inv))) & 1
}

// invCell returns 1/cell, 0 for a plain material.
func invCell(cell float64) float64 {
	if cell <= 0 {
		return 0
	}
	return 1 / cell
}

// colorLUT holds the shaded colors of a view's flat faces: they depend on
// the face and the checker parity only (texel, Shade).
type colorLUT struct {
	u, v  [3]int // the texture axes of a face of axis a
	walls [6][2][3]byte
	boxes [][6][2][3]byte
	// 1/Cell of the walls' and boxes' materials (0: plain)
	wallCell [6]float64
	boxCell  []float64
	poster   []([2][3]byte) // per cell: color, border
	p        *Poster
	sx, sy   float64 // p.scale()
}

// posterAt returns the shaded color of the poster at the point (x, y) of
// the front wall, nil outside it.

func (l *colorLUT) posterAt(x, y float64) *[3]byte {
	i, border, ok := l.p.cell(x, y, l.sx, l.sy)
	switch {
	case !ok:
		return nil
	case border:
		return &l.poster[i][1]
	}
	return &l.poster[i][0]
}

// lut returns the view's shaded face colors, computed on first use.
func (v *View) lut() *colorLUT {
	v.lutOnce.Do(func() {
		s := v.s
		l := &colorLUT{u: [3]int{1, 2, 0}, v: [3]int{2, 0, 1}}
		shade := func(kind, index, face int, alb Vec3) [3]byte {
			h := Hit{Kind: kind, Index: index, Face: face}
			s.finish(&h, Vec3{}, Vec3{})
			c := scale(alb, s.Ambient+(1-s.Ambient)*max(0, dot(h.Normal, s.Light)))
			return [3]byte{toByte(c[0]), toByte(c[1]), toByte(c[2])}
		}
		for f := range 6 {
			m := &s.Walls[f]
			l.walls[f] = [2][3]byte{shade(KindWall, f, f, m.Color), shade(KindWall, f, f, m.Alt)}
			l.wallCell[f] = invCell(m.Cell)
		}
		l.boxes = make([][6][2][3]byte, len(s.Boxes))
		for i := range s.Boxes {
			m := &s.Boxes[i].Mat
			l.boxCell = append(l.boxCell, invCell(m.Cell))
			for f := range 6 {
				l.boxes[i][f] = [2][3]byte{shade(KindBox, i, f, m.Color), shade(KindBox, i, f, m.Alt)}
			}
		}
		if p := s.Poster; p != nil {
			l.p = p
			l.sx, l.sy = p.scale()
			for _, c := range p.colors {
				l.poster = append(l.poster, [2][3]byte{shade(KindWall, 5, 5, c), shade(KindWall, 5, 5, posterWhite)})
			}
		}
		v.lutCache = l
	})
	return v.lutCache
}

// ToByte maps a color channel of 0..1 (Shade) to 0..255, rounded and
// clamped, as the pictures store it.
func ToByte(c float64) byte { return toByte(c) }

// toByte maps 0..1 to 0..255, rounded and clamped.
func toByte(c float64) byte {
	switch {
	case c <= 0:
		return 0
	case c >= 1:
		return 255
	}
	return byte(c*255 + 0.5)
}

// IRRows writes the infrared picture of rows y0..y1-1 into out (the whole
// picture, row-major): the surfaces' brightness under the scene's light
// (Y8: 1 byte a pixel; wide: Y16, 2 bytes little-endian). With emitter
// non-nil, the projector at that pose adds its pattern of dots: the cells
// of a fine grid of directions from it, a pseudo-random eighth of them lit,
// fading with the square of the distance.
func (v *View) IRRows(out []byte, wide bool, y0, y1 int, emitter *Pose) {
	w := v.c.In.Width
	var inv Pose
	if emitter != nil {
		inv = emitter.Inverse()
	}
	var buf [64]int
	for y := y0; y < y1; y++ {
		cand := v.candidates(y, buf[:0])
		for x := range w {
			h := v.cast(x, y, cand)
			c := v.s.Shade(h)
			l := 0.299*c[0] + 0.587*c[1] + 0.114*c[2]
			if emitter != nil {
				if q := inv.Apply(h.Point); q[2] > 0 {
					cu, cv := int64(math.Floor(q[0]/q[2]/dotCell)), int64(math.Floor(q[1]/q[2]/dotCell))
					if mix(uint64(cu)*0x9E3779B97F4A7C15^uint64(cv))&7 == 0 {
						l += 0.6 / (1 + q[2]*q[2])
					}
				}
			}
			i := y*w + x
			if wide {
				u := uint16(math.Round(min(max(l, 0), 1) * 65535))
				out[2*i], out[2*i+1] = byte(u), byte(u>>8)
			} else {
				out[i] = toByte(l)
			}
		}
	}
}

// dotCell is the angular size (tangent) of a projector pattern cell.
const dotCell = 0.004

// mix is a 64-bit finalizer (SplitMix64's): a well-spread hash of x.
func mix(x uint64) uint64 {
	x ^= x >> 30
	x *= 0xBF58476D1CE4E5B9
	x ^= x >> 27
	x *= 0x94D049BB133111EB
	return x ^ x>>31
}
