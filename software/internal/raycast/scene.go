// Package raycast is the world the synthetic camera films (package
// software): a room (walls, floor, ceiling) with boxes, spheres and a
// textured poster, built deterministically from a seed, ray cast from a
// camera pose (a scene.Pose, in the coordinates of package scene) into
// depth, color and infrared pictures.
package raycast

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/rsbag/rsbag/software/scene"
)

// Vec3 is a point or a direction in meters (scene.Vec3).
type Vec3 = scene.Vec3

// Pose is a camera's pose in the world (scene.Pose).
type Pose = scene.Pose

// Material is how a surface looks: its albedo (0..1 per RGB channel) and,
// when Cell > 0, a checker of Cell meters alternating with Alt.
type Material struct {
	Color, Alt Vec3
	Cell       float64
}

// Box is an axis-aligned box of the world.
type Box struct {
	Min, Max Vec3
	Mat      Material
}

// Sphere is a sphere of the world.
type Sphere struct {
	Center Vec3
	Radius float64
	Mat    Material
}

// Poster is a picture on the front wall (z = Room.Max[2]) between X0..X1
// and Y0..Y1: Cols×Rows cells of colors drawn from its Seed.
type Poster struct {
	X0, X1, Y0, Y1 float64
	Cols, Rows     int
	colors         []Vec3
}

// Scene is a world to film. Room is seen from inside; Walls are the
// materials of its faces in the order −x, +x, −y (ceiling), +y (floor), −z,
// +z (front).
type Scene struct {
	Name    string
	Room    Box
	Walls   [6]Material
	Boxes   []Box
	Spheres []Sphere
	Poster  *Poster
	// Light is the unit direction toward the (directional) light, in the
	// world; Ambient the share of light every surface gets.
	Light   Vec3
	Ambient float64
}

// Builtin returns the built-in scene name, laid out from seed: "room" (a
// room with three boxes, two spheres and a poster), "plane" (the empty room:
// the front wall is a plane 3 m ahead of the camera) or "clutter" (the room
// with seven boxes and five spheres).
func Builtin(name string, seed uint64) (*Scene, error) {
	s := &Scene{
		Name: name,
		// The camera starts 1.3 m above the floor, 1.5 m from the back
		// wall, 3 m from the front wall.
		Room: Box{Min: Vec3{-2.5, -1.4, -1.5}, Max: Vec3{2.5, 1.3, 3}},
		Walls: [6]Material{
			{Color: Vec3{0.75, 0.72, 0.62}, Alt: Vec3{0.70, 0.67, 0.58}, Cell: 0.25},
			{Color: Vec3{0.62, 0.72, 0.78}, Alt: Vec3{0.57, 0.67, 0.73}, Cell: 0.25},
			{Color: Vec3{0.92, 0.92, 0.90}, Alt: Vec3{0.88, 0.88, 0.86}, Cell: 0.5},
			{Color: Vec3{0.55, 0.38, 0.22}, Alt: Vec3{0.42, 0.28, 0.16}, Cell: 0.5},
			{Color: Vec3{0.70, 0.70, 0.70}, Alt: Vec3{0.65, 0.65, 0.65}, Cell: 0.25},
			{Color: Vec3{0.85, 0.80, 0.70}, Alt: Vec3{0.80, 0.75, 0.65}, Cell: 0.25},
		},
		Light:   normalize(Vec3{-0.4, -1, -0.5}),
		Ambient: 0.35,
	}
	r := rand.New(rand.NewPCG(seed, 0x5eed))
	switch name {
	case "plane":
		return s, nil
	case "room":
		s.layout(r, 3, 2)
	case "clutter":
		s.layout(r, 7, 5)
	default:
		return nil, fmt.Errorf("scene: unknown scene %q: want one of %v", name, scene.Names)
	}
	p := &Poster{X0: -0.8, X1: 0.8, Y0: -1.0, Y1: -0.1, Cols: 8, Rows: 5}
	for range p.Cols * p.Rows {
		p.colors = append(p.colors, hue(r.Float64()))
	}
	s.Poster = p
	return s, nil
}

// layout places nb boxes on the floor and ns spheres on the floor or on a
// box, in the front part of the room.
func (s *Scene) layout(r *rand.Rand, nb, ns int) {
	floor := s.Room.Max[1]
	for range nb {
		w, h, d := 0.3+0.4*r.Float64(), 0.25+0.6*r.Float64(), 0.3+0.4*r.Float64()
		x, z := -1.8+3.6*r.Float64(), 1.3+1.3*r.Float64()
		c := hue(r.Float64())
		s.Boxes = append(s.Boxes, Box{
			Min: Vec3{x - w/2, floor - h, z - d/2}, Max: Vec3{x + w/2, floor, z + d/2},
			Mat: Material{Color: c, Alt: scale(c, 0.8), Cell: 0.1},
		})
	}
	for i := range ns {
		rad := 0.12 + 0.2*r.Float64()
		c := hue(r.Float64())
		center := Vec3{-1.8 + 3.6*r.Float64(), floor - rad, 0.9 + 1.8*r.Float64()}
		if i < len(s.Boxes) && r.IntN(2) == 0 { // on top of a box
			b := s.Boxes[i]
			center = Vec3{(b.Min[0] + b.Max[0]) / 2, b.Min[1] - rad, (b.Min[2] + b.Max[2]) / 2}
		}
		s.Spheres = append(s.Spheres, Sphere{Center: center, Radius: rad,
			Mat: Material{Color: c, Alt: Vec3{0.95, 0.95, 0.95}, Cell: 0.3}})
	}
}

// scale returns the poster's cells per meter across and down.
func (p *Poster) scale() (sx, sy float64) {
	return float64(p.Cols) / (p.X1 - p.X0), float64(p.Rows) / (p.Y1 - p.Y0)
}

// cell returns the cell of the poster (row-major index) at the point
// (x, y) of the front wall, and whether the point lies in the cell's white
// border; ok is false outside the poster. sx, sy are p.scale().
func (p *Poster) cell(x, y, sx, sy float64) (i int, border, ok bool) {
	if x < p.X0 || x >= p.X1 || y < p.Y0 || y >= p.Y1 {
		return 0, false, false
	}
	fx, fy := (x-p.X0)*sx, (y-p.Y0)*sy
	c, r := min(int(fx), p.Cols-1), min(int(fy), p.Rows-1)
	return r*p.Cols + c, fx-float64(c) < posterBorder || fy-float64(r) < posterBorder, true
}

// The poster's cells have a white border of posterBorder of their size.
const posterBorder = 0.08

var posterWhite = Vec3{0.95, 0.95, 0.95}

// hue returns a saturated color of hue h (0..1).
func hue(h float64) Vec3 {
	h = math.Mod(h, 1) * 6
	i := int(h)
	f := h - float64(i)
	lo, hi := 0.15, 0.9
	up, down := lo+(hi-lo)*f, hi-(hi-lo)*f
	return [6]Vec3{{hi, up, lo}, {down, hi, lo}, {lo, hi, up}, {lo, down, hi}, {up, lo, hi}, {hi, lo, down}}[i%6]
}

func normalize(v Vec3) Vec3 { return scale(v, 1/math.Sqrt(dot(v, v))) }
func scale(v Vec3, k float64) Vec3 {
	return Vec3{v[0] * k, v[1] * k, v[2] * k}
}
func dot(a, b Vec3) float64 { return a[0]*b[0] + a[1]*b[1] + a[2]*b[2] }
func sub(a, b Vec3) Vec3    { return Vec3{a[0] - b[0], a[1] - b[1], a[2] - b[2]} }
func add(a, b Vec3) Vec3    { return Vec3{a[0] + b[0], a[1] + b[1], a[2] + b[2]} }

// Surface kinds of a Hit.
const (
	KindNone   = iota // nothing hit
	KindWall          // a face of the room (Index 0..5 as Scene.Walls)
	KindPoster        // the poster
	KindBox           // Scene.Boxes[Index]
	KindSphere        // Scene.Spheres[Index]
)

// Hit is where a ray meets the scene.
type Hit struct {
	T      float64 // ray parameter: the distance in units of the ray's direction
	Kind   int
	Index  int
	Face   int // the box face: 0..5 as Scene.Walls
	Point  Vec3
	Normal Vec3 // unit, toward the ray's origin side of the surface
}

// Cast returns the first surface the ray o + t·d (t > 0) meets. It scans
// every object; renderers use a View instead.
func (s *Scene) Cast(o, d Vec3) Hit {
	h := s.castRoom(o, d)
	for i := range s.Boxes {
		if t, f, ok := boxHit(&s.Boxes[i], o, d, h.T); ok {
			h = Hit{T: t, Kind: KindBox, Index: i, Face: f}
		}
	}
	for i := range s.Spheres {
		if t, ok := sphereHit(&s.Spheres[i], sub(s.Spheres[i].Center, o), d, h.T); ok {
			h = Hit{T: t, Kind: KindSphere, Index: i}
		}
	}
	s.finish(&h, o, d)
	return h
}

// castRoom returns the room face the ray from inside meets.
func (s *Scene) castRoom(o, d Vec3) Hit {
	t, face := s.room(&o, &d)
	return Hit{T: t, Kind: KindWall, Index: face, Face: face}
}

// finish fills the point and normal of h, and turns a hit of the front wall
// inside the poster into a poster hit.
func (s *Scene) finish(h *Hit, o, d Vec3) {
	h.Point = add(o, scale(d, h.T))
	switch h.Kind {
	case KindWall, KindBox:
		a := h.Face / 2
		var n Vec3
		n[a] = 1
		if h.Face%2 == 1 {
			n[a] = -1
		}
		if h.Kind == KindBox { // outward
			n[a] = -n[a]
		}
		h.Normal = n
		if h.Kind == KindWall && h.Face == 5 && s.Poster != nil {
			p := s.Poster
			if x, y := h.Point[0], h.Point[1]; x >= p.X0 && x < p.X1 && y >= p.Y0 && y < p.Y1 {
				h.Kind = KindPoster
			}
		}
	case KindSphere:
		sp := &s.Spheres[h.Index]
		h.Normal = scale(sub(h.Point, sp.Center), 1/sp.Radius)
	}
}

// boxHit returns the entry of the ray into b before tmax (the ray starts
// outside b) and the face entered.
func boxHit(b *Box, o, d Vec3, tmax float64) (float64, int, bool) {
	t0, t1, face := 0.0, tmax, -1
	for a := range 3 {
		if d[a] == 0 {
			if o[a] < b.Min[a] || o[a] > b.Max[a] {
				return 0, 0, false
			}
			continue
		}
		inv := 1 / d[a]
		near, far := (b.Min[a]-o[a])*inv, (b.Max[a]-o[a])*inv
		f := 2 * a
		if inv < 0 {
			near, far = far, near
			f++
		}
		if near > t0 {
			t0, face = near, f
		}
		if far < t1 {
			t1 = far
		}
		if t0 > t1 {
			return 0, 0, false
		}
	}
	return t0, face, face >= 0
}

// sphereHit returns the first t in (0, tmax) where the ray from the origin
// along d meets the sphere whose center is at oc from the origin.
func sphereHit(sp *Sphere, oc, d Vec3, tmax float64) (float64, bool) {
	dd := dot(d, d)
	b := dot(oc, d)
	c := dot(oc, oc) - sp.Radius*sp.Radius
	disc := b*b - dd*c
	if disc < 0 {
		return 0, false
	}
	t := (b - math.Sqrt(disc)) / dd
	if t <= 0 || t >= tmax {
		return 0, false
	}
	return t, true
}

// material returns the material of a hit.
func (s *Scene) material(h *Hit) *Material {
	switch h.Kind {
	case KindBox:
		return &s.Boxes[h.Index].Mat
	case KindSphere:
		return &s.Spheres[h.Index].Mat
	}
	return &s.Walls[h.Index]
}

// texel returns the albedo at a hit and its texture id: the surface and
// the checker cell (or poster cell) the point lies in.
func (s *Scene) texel(h *Hit) (Vec3, uint32) {
	surface := uint32(h.Kind)<<24 | uint32(h.Index)<<16
	if h.Kind == KindPoster {
		p := s.Poster
		sx, sy := p.scale()
		i, border, _ := p.cell(h.Point[0], h.Point[1], sx, sy)
		if border {
			return posterWhite, surface | uint32(i)
		}
		return p.colors[i], surface | uint32(i)
	}
	m := s.material(h)
	if m.Cell <= 0 {
		return m.Color, surface
	}
	var u, v float64
	switch h.Kind {
	case KindSphere:
		n := h.Normal
		u = math.Atan2(n[0], n[2]) * s.Spheres[h.Index].Radius
		v = math.Asin(max(-1, min(1, n[1]))) * s.Spheres[h.Index].Radius
	default:
		a := h.Face / 2
		u, v = h.Point[(a+1)%3], h.Point[(a+2)%3]
	}
	inv := invCell(m.Cell)
	cu, cv := int64(math.Floor(u*inv)), int64(math.Floor(v*inv))
	id := surface | uint32(uint64(cu*31+cv)&0xffff)
	if (cu+cv)&1 == 0 {
		return m.Color, id
	}
	return m.Alt, id
}

// TextureID returns the texture id of a hit: its surface and the texture
// cell the point lies in. Two hits with one id are one patch of the scene.
func (s *Scene) TextureID(h Hit) uint32 {
	_, id := s.texel(&h)
	return id
}

// Shade returns the color (0..1 per channel) of a hit under the scene's
// light: albedo × (ambient + diffuse).
func (s *Scene) Shade(h Hit) Vec3 {
	alb, _ := s.texel(&h)
	return scale(alb, s.Ambient+(1-s.Ambient)*max(0, dot(h.Normal, s.Light)))
}

// objects returns the number of objects (boxes, then spheres).
func (s *Scene) objects() int { return len(s.Boxes) + len(s.Spheres) }

// bounds returns the corners of the bounding box of object i.
func (s *Scene) bounds(i int) (Vec3, Vec3) {
	if i < len(s.Boxes) {
		return s.Boxes[i].Min, s.Boxes[i].Max
	}
	sp := s.Spheres[i-len(s.Boxes)]
	r := Vec3{sp.Radius, sp.Radius, sp.Radius}
	return sub(sp.Center, r), add(sp.Center, r)
}
