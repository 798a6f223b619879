package processing

import (
	"fmt"
	"math"
	"sync"

	"github.com/rsbag/rsbag/extensions"
	"github.com/rsbag/rsbag/sensor"
)

// Occlusion removal modes of the PointCloud (OptionFilterMagnitude).
const (
	OcclusionOff = 1 // keep every point
	OcclusionOn  = 2 // monotonic scan: drop the points the texture camera cannot see
)

// occlusionZ is the depth step (meters) above which a point seen at the
// same texture column as a nearer one is occluded (src/proc/occlusion-filter.cpp).
const occlusionZ = 0.1

// Points is a point cloud: one vertex per depth pixel, in meters in the
// depth camera's coordinates ((0,0,0) where depth is zero), and, when the
// cloud was mapped to a texture, the texture coordinates of each vertex
// (0..1 across the texture's width and height).
type Points struct {
	// Frame is the XYZ32F frame of the vertices: Width×Height×3 float32,
	// little-endian, with the depth frame's number, times and metadata.
	Frame *sensor.Frame
	// Vertices are the points, row by row (on little-endian machines the
	// same memory as Frame.Data).
	Vertices [][3]float32
	// TexCoords are the texture coordinates, nil when not mapped.
	TexCoords [][2]float32
	// Texture is the profile of the stream the coordinates refer to.
	Texture *sensor.StreamProfile
}

// VertexBytes returns the vertices as librealsense's get_vertices() holds
// them: 3 little-endian float32 per point.
func (p *Points) VertexBytes() []byte { return p.Frame.Data }

// TexCoordBytes returns the texture coordinates as librealsense's
// get_texture_coordinates() holds them: 2 little-endian float32 per point,
// or nil when the cloud is not mapped. On little-endian machines they are
// the memory of TexCoords itself, not a copy.
func (p *Points) TexCoordBytes() []byte {
	if p.TexCoords == nil {
		return nil
	}
	if littleEndian {
		return asBytes(p.TexCoords)
	}
	b := make([]byte, 8*len(p.TexCoords))
	for i, t := range p.TexCoords {
		putF32s(b[8*i:], t[:])
	}
	return b
}

// PointCloud computes point clouds of depth frames, as librealsense's
// rs2::pointcloud (its SSE path, the one x86-64 builds use): vertices from
// the depth intrinsics (the inverse Brown-Conrady model undistorted, other
// models taken as pinhole), and after MapTo, texture coordinates in another
// stream with occlusion removal. It is safe for concurrent use.
type PointCloud struct {
	*options
	out profiles

	mu      sync.Mutex
	texture *sensor.StreamProfile
	extr    sensor.Extrinsics
}

// rayMap holds the normalized ray (x, y at z = 1) of every depth pixel:
// row by row; or, where the x of a ray depends on its column only and its
// y on its row only (every model but inverse Brown-Conrady), one x per
// column and one y per row (sep).
type rayMap struct {
	x, y []float32
	w    int
	sep  bool
}

// NewPointCloud returns a PointCloud with occlusion removal on, as in
// librealsense.
func NewPointCloud() *PointCloud {
	return &PointCloud{options: newOptions("Pointcloud", streamFilterOptions(map[sensor.Option]option{
		sensor.OptionFilterMagnitude: {extensions.Range{Min: OcclusionOff, Max: OcclusionOn, Step: 1, Default: OcclusionOn}, "Occlusion removal", []string{"Off", "On"}},
	}))}
}

// MapTo makes the next clouds carry texture coordinates in the stream of
// profile texture, whose pose relative to the depth camera is depthToTexture
// (the extrinsics from depth to that stream).
func (pc *PointCloud) MapTo(texture *sensor.StreamProfile, depthToTexture sensor.Extrinsics) error {
	if texture == nil || texture.Kind != sensor.KindVideo || texture.Intrinsics.Width <= 0 || texture.Intrinsics.Height <= 0 {
		return fmt.Errorf("pointcloud: map to %v: want a video profile with intrinsics: %w", texture, ErrFrame)
	}
	pc.mu.Lock()
	defer pc.mu.Unlock()
	pc.texture, pc.extr = texture, depthToTexture
	return nil
}

// rayKey identifies a ray map: the intrinsics and the offset from the
// pixel centres.
type rayKey struct {
	in  sensor.Intrinsics
	off float32
}

// rayCache holds the ray maps in use, shared by every PointCloud and Align:
// a map depends on its key only, and is not modified once made.
var rayCache struct {
	mu sync.Mutex
	m  map[rayKey]*rayMap
}

// maxRayMaps bounds rayCache: past it, the maps are forgotten.
const maxRayMaps = 16

// cachedRays returns the ray map of intrinsics in at offset off from the
// pixel centres, computed once.
func cachedRays(in sensor.Intrinsics, off float32) *rayMap {
	rayCache.mu.Lock()
	defer rayCache.mu.Unlock()
	k := rayKey{in, off}
	if m, ok := rayCache.m[k]; ok {
		return m
	}
	if rayCache.m == nil || len(rayCache.m) >= maxRayMaps {
		rayCache.m = map[rayKey]*rayMap{}
	}
	m := newRayMap(in, off)
	rayCache.m[k] = m
	return m
}

// newRayMap computes the rays of the pixels of in, offset by off pixels.
func newRayMap(in sensor.Intrinsics, off float32) *rayMap {
	ray := func(w, h int) (float32, float32) {
		return (float32(float32(w)+off) - in.PPX) / in.FX, (float32(float32(h)+off) - in.PPY) / in.FY
	}
	if in.Model != sensor.DistortionInverseBrownConrady {
		m := &rayMap{x: make([]float32, in.Width), y: make([]float32, in.Height), w: in.Width, sep: true}
		for w := range m.x {
			m.x[w], _ = ray(w, 0)
		}
		for h := range m.y {
			_, m.y[h] = ray(0, h)
		}
		return m
	}
	n := in.Width * in.Height
	m := &rayMap{x: make([]float32, n), y: make([]float32, n), w: in.Width}
	c := in.Coeffs
	for h := 0; h < in.Height; h++ {
		for w := 0; w < in.Width; w++ {
			x, y := ray(w, h)
			r2 := float32(x*x) + float32(y*y)
			f := float32(float32(1+float32(c[0]*r2))+float32(float32(c[1]*r2)*r2)) + float32(float32(float32(c[4]*r2)*r2)*r2)
			ux := float32(float32(x*f)+float32(float32(2*c[2]*x)*y)) + float32(c[3]*float32(r2+float32(float32(2*x)*x)))
			uy := float32(float32(y*f)+float32(float32(2*c[3]*x)*y)) + float32(c[2]*float32(r2+float32(float32(2*y)*y)))
			m.x[h*in.Width+w], m.y[h*in.Width+w] = ux, uy
		}
	}
	return m
}

// Calculate returns the point cloud of the Z16 depth frame f.
func (pc *PointCloud) Calculate(f *sensor.Frame) (*Points, error) {
	return pc.CalculateInto(nil, f)
}

// CalculateInto is Calculate into the memory of dst, a cloud Calculate or
// CalculateInto returned that is no longer in use: its points, texture
// coordinates and frame are overwritten where they are large enough, so
// that a loop over frames allocates them once. With dst nil it allocates,
// as Calculate.
func (pc *PointCloud) CalculateInto(dst *Points, f *sensor.Frame) (*Points, error) {
	if _, err := checkVideo("pointcloud", f, sensor.FormatZ16); err != nil {
		return nil, err
	}
	in := f.Profile.Intrinsics
	if in.Width != f.Width || in.Height != f.Height || !(in.FX != 0) || !(in.FY != 0) {
		return nil, fmt.Errorf("pointcloud: %s frame %d: %dx%d picture with intrinsics %dx%d fx %v fy %v: %w",
			f.Profile.Name(), f.Number, f.Width, f.Height, in.Width, in.Height, in.FX, in.FY, ErrFrame)
	}
	pc.mu.Lock()
	texture, extr := pc.texture, pc.extr
	pc.mu.Unlock()
	pc.options.mu.Lock()
	occlusion := pc.get(sensor.OptionFilterMagnitude) == OcclusionOn
	pc.options.mu.Unlock()

	m := cachedRays(in, 0)
	p := pc.out.get(f.Profile, nil, func(q *sensor.StreamProfile) { q.Stream, q.Format = sensor.StreamDepth, sensor.FormatXYZ32F })
	n := f.Width * f.Height
	var old Points
	if dst != nil {
		old = *dst
	} else {
		dst = new(Points)
	}
	// Every element of these is written below.
	*dst = Points{Vertices: reuse(old.Vertices, n)}
	var data []byte
	if littleEndian {
		data = asBytes(dst.Vertices) // the vertices are the frame's bytes
	} else if old.Frame != nil {
		data = reuse(old.Frame.Data, 12*n)
	}
	out := deriveData(f, p, f.Width, f.Height, 12, data)
	pts := dst
	pts.Frame = out
	units := f.DepthUnits
	if texture != nil {
		pts.TexCoords = reuse(old.TexCoords, n)
		pts.Texture = texture
	}
	occlude := texture != nil && occlusion && !sameSensor(extr)
	if occlude && extr.Translation[0] < 0.001 && extr.Translation[1] > 0.01 {
		return nil, fmt.Errorf("pointcloud: %s frame %d: the texture camera is above the depth camera; vertical occlusion scanning is not supported: %w",
			f.Profile.Name(), f.Number, ErrFrame)
	}
	var tm texMapper
	if texture != nil {
		tm = newTexMapper(&extr, &texture.Intrinsics)
	}
	parallelRows(f.Height, n, func(y0, y1 int) {
		var px []float32 // the row's texture columns, for occlusion
		if occlude {
			px = make([]float32, f.Width)
		}
		for y := y0; y < y1; y++ {
			row := f.Data[y*f.Stride : y*f.Stride+2*f.Width]
			i0 := y * f.Width
			verts := pts.Vertices[i0 : i0+f.Width]
			var tc [][2]float32
			from := 0  // the vertices and coordinates done with SIMD
			clean := 0 // the first pixels occlusion removal leaves alone
			if texture != nil {
				tc = pts.TexCoords[i0 : i0+f.Width]
				if m.sep {
					from, clean = tm.rowFast(row, m.x, m.y[y], units, tc, px, verts)
				}
			}
			if m.sep {
				vertexRowSep(verts[from:], row[2*from:], m.x[from:], m.y[y], units)
			} else {
				vertexRow(verts, row, m.x[i0:i0+f.Width], m.y[i0:i0+f.Width], units)
			}
			if !littleEndian {
				for x, v := range verts {
					putF32s(out.Data[12*(i0+x):], v[:])
				}
			}
			if texture != nil {
				tm.row(verts, tc, px, from)
			}
			if occlude {
				removeOccluded(verts, out.Data[12*i0:12*(i0+f.Width)], px, clean)
			}
		}
	})
	return pts, nil
}

// vertexRowSep writes the vertices of one row of Z16 depth row (units
// meters per unit) whose rays have the x of xs and the one y of the row.
func vertexRowSep(verts [][3]float32, row []byte, xs []float32, y, units float32) {
	xs = xs[:len(verts)]
	row = row[:2*len(verts)]
	for x := range verts {
		d := float32(float32(uint16(row[2*x])|uint16(row[2*x+1])<<8) * units)
		verts[x] = [3]float32{d * xs[x], d * y, d}
	}
}

// vertexRow is vertexRowSep for rays with an x and a y of their own.
func vertexRow(verts [][3]float32, row []byte, xs, ys []float32, units float32) {
	xs, ys = xs[:len(verts)], ys[:len(verts)]
	row = row[:2*len(verts)]
	for x := range verts {
		d := float32(float32(uint16(row[2*x])|uint16(row[2*x+1])<<8) * units)
		verts[x] = [3]float32{d * xs[x], d * ys[x], d}
	}
}

// sameSensor reports whether e is the identity, as librealsense compares:
// the translation exactly, the rotation within float32 epsilon.
func sameSensor(e sensor.Extrinsics) bool {
	if e.Translation != [3]float32{} {
		return false
	}
	const eps = 1.1920929e-07
	for i, r := range e.Rotation {
		want := float32(0)
		if i%4 == 0 {
			want = 1
		}
		if math.Abs(float64(r-want)) > eps {
			return false
		}
	}
	return true
}

// texMapper projects vertices into a texture camera, as librealsense's SSE
// texture mapping does: a Brown-Conrady-style distortion for every model
// but none (with the undistorted point in the tangential terms for
// Brown-Conrady itself), and pixel (0, 0) for zero depth. It holds the
// extrinsics and intrinsics by value, so that a row's loop reads them from
// one place.
type texMapper struct {
	r                 [9]float32
	t                 [3]float32
	c                 [5]float32
	fx, fy, ppx, ppy  float32
	tw, th            float32        // the texture's size, for the coordinates
	distort, undistXY bool           // a model other than none; Brown-Conrady
	k                 [26][4]float32 // r, t, fx, fy, ppx, ppy, 0.5, c, 1, 2, tw and th, four times each, for rowFast
	k8                [26][8]float32 // the same, eight times each
}

func newTexMapper(e *sensor.Extrinsics, in *sensor.Intrinsics) texMapper {
	tm := texMapper{r: e.Rotation, t: e.Translation, c: in.Coeffs,
		fx: in.FX, fy: in.FY, ppx: in.PPX, ppy: in.PPY,
		tw: float32(in.Width), th: float32(in.Height),
		distort: in.Model != sensor.DistortionNone, undistXY: in.Model == sensor.DistortionBrownConrady}
	tm.fill()
	return tm
}

// fill sets k from the other fields.
func (tm *texMapper) fill() {
	vs := append(append(append(tm.r[:0:0], tm.r[:]...), tm.t[:]...), tm.fx, tm.fy, tm.ppx, tm.ppy, 0.5)
	for i, v := range append(append(vs, tm.c[:]...), 1, 2, tm.tw, tm.th) {
		tm.k[i] = [4]float32{v, v, v, v}
		tm.k8[i] = [8]float32{v, v, v, v, v, v, v, v}
	}
}

// row writes the texture coordinates of the vertices verts into tc, and
// each vertex's texture column into px when px is not nil, from vertex
// from on.
func (tm *texMapper) row(verts [][3]float32, tc [][2]float32, px []float32, from int) {
	m := *tm // on this goroutine's stack
	tc = tc[:len(verts)]
	for i := from; i < len(verts); i++ {
		v := verts[i]
		var u float32
		if v[2] == 0 {
			tc[i] = [2]float32{} // pixel (0, 0)
		} else {
			var w float32
			u, w = m.pixel(v[0], v[1], v[2])
			tc[i] = [2]float32{u / m.tw, w / m.th}
		}
		if px != nil {
			px[i] = u
		}
	}
}

// pixel projects the vertex (vx, vy, vz), vz not 0, into the texture.
func (m *texMapper) pixel(vx, vy, vz float32) (float32, float32) {
	r, t, c := &m.r, &m.t, &m.c
	px := float32(r[0]*vx) + float32(float32(r[3]*vy)+float32(float32(r[6]*vz)+t[0]))
	py := float32(r[1]*vx) + float32(float32(r[4]*vy)+float32(float32(r[7]*vz)+t[1]))
	pz := float32(r[2]*vx) + float32(float32(r[5]*vy)+float32(float32(r[8]*vz)+t[2]))
	x, y := px/pz, py/pz
	if m.distort {
		r2 := float32(x*x) + float32(y*y)
		r3 := float32(c[1]*float32(r2*r2)) + float32(c[4]*float32(r2*float32(r2*r2)))
		f := 1 + float32(float32(c[0]*r2)+r3)
		xf, yf := float32(x*f), float32(y*f)
		xd, yd := xf, yf
		if m.undistXY {
			xd, yd = x, y
		}
		r4 := c[3] * float32(r2+float32(2*float32(xd*xd)))
		dx := xf + float32(float32(2*float32(c[2]*float32(xd*yd)))+r4)
		r5 := c[2] * float32(r2+float32(2*float32(yd*yd)))
		dy := yf + float32(float32(2*float32(c[3]*float32(xd*yd)))+r5)
		x, y = dx, dy
	}
	return float32(x*m.fx) + m.ppx, float32(y*m.fy) + m.ppy
}

// removeOccluded zeroes, in one row, the vertices whose texture column
// falls left of a column already reached (or at it, more than occlusionZ
// farther), and the vertex after each such one, in v and in its bytes b.
// It starts at vertex from, the ones before it being known to be left
// alone: each of nonzero depth with a column above the ones before it.
func removeOccluded(v [][3]float32, b []byte, pix []float32, from int) {
	maxX, maxZ := float32(-1), float32(0)
	for i := from - 1; i >= 0; i-- {
		if v[i][2] != 0 {
			maxX, maxZ = pix[i], v[i][2]
			break
		}
	}
	dilate := 0
	for i := from; i < len(v); i++ {
		if v[i][2] == 0 {
			continue
		}
		if px := pix[i]; px < maxX || (px == maxX && v[i][2]-maxZ > occlusionZ) {
			v[i] = [3]float32{}
			clear(b[12*i : 12*i+12])
			dilate = 1
		} else {
			maxX, maxZ = px, v[i][2]
			if dilate > 0 {
				v[i] = [3]float32{}
				clear(b[12*i : 12*i+12])
				dilate--
			}
		}
	}
}
