package processing

import (
	"fmt"
	"math"
	"sync"

	"github.com/rsbag/rsbag/sensor"
)

// ExtrinsicsSource gives the extrinsics between two stream profiles: a
// playback or live device (playback.Device.Extrinsics has this signature).
type ExtrinsicsSource interface {
	Extrinsics(from, to *sensor.StreamProfile) (sensor.Extrinsics, error)
}

// Align maps frames between the depth camera and another camera, as
// librealsense's rs2::align (its SSE path, the one x86-64 builds use):
// aligned to a stream other than depth, it turns a depth frame into a Z16
// frame of the other stream's size and intrinsics, each depth pixel moved
// to where the other camera sees it (the nearest depth where several land);
// aligned to depth, it turns another stream's frame into a frame of the
// depth frame's size, each pixel taken from where the other camera sees the
// depth pixel. It is safe for concurrent use.
type Align struct {
	*options
	to   sensor.Stream
	extr ExtrinsicsSource
	out  profiles
}

// alignMaps are the rays through the top-left and bottom-right corners of
// every depth pixel.
type alignMaps struct{ tl, br *rayMap }

// NewAlign returns an Align towards stream to (sensor.StreamDepth to align
// other streams to depth), with the extrinsics taken from src.
func NewAlign(to sensor.Stream, src ExtrinsicsSource) *Align {
	return &Align{options: newOptions("Align", map[sensor.Option]option{sensor.OptionFramesQueueSize: optFramesQueueSize}),
		to: to, extr: src}
}

// maps returns the corner rays of the depth intrinsics in.
func (a *Align) maps(in sensor.Intrinsics) *alignMaps {
	return &alignMaps{cachedRays(in, -0.5), cachedRays(in, 0.5)}
}

// Process aligns a pair of frames taken together: depth (Z16) and other,
// a frame of the stream the Align was made for, or, for an Align to depth,
// of any video stream in Y8, Y16, Z16, RGB8, BGR8, RGBA8 or BGRA8. It
// returns the aligned frame: depth in other's geometry, or other in
// depth's geometry.
func (a *Align) Process(depth, other *sensor.Frame) (*sensor.Frame, error) {
	if _, err := checkVideo("align", depth, sensor.FormatZ16); err != nil {
		return nil, err
	}
	if depth.Profile.Stream != sensor.StreamDepth {
		return nil, fmt.Errorf("align: %s frame %d is not depth: %w", depth.Profile.Name(), depth.Number, ErrFrame)
	}
	obpp, err := checkVideo("align", other)
	if err != nil {
		return nil, err
	}
	if a.to != sensor.StreamDepth && other.Profile.Stream != a.to {
		return nil, fmt.Errorf("align: to %s: got a %s frame: %w", a.to, other.Profile.Name(), ErrFrame)
	}
	if a.to == sensor.StreamDepth && other.Profile.Stream == sensor.StreamDepth {
		return nil, fmt.Errorf("align: to depth: the other frame %s is depth too: %w", other.Profile.Name(), ErrFrame)
	}
	din, oin := depth.Profile.Intrinsics, other.Profile.Intrinsics
	for _, c := range []struct {
		f  *sensor.Frame
		in sensor.Intrinsics
	}{{depth, din}, {other, oin}} {
		if c.in.Width != c.f.Width || c.in.Height != c.f.Height || !(c.in.FX != 0) || !(c.in.FY != 0) ||
			math.IsInf(float64(c.in.FX), 0) || math.IsInf(float64(c.in.FY), 0) {
			return nil, fmt.Errorf("align: %s frame %d: %dx%d picture with intrinsics %dx%d fx %v fy %v: %w",
				c.f.Profile.Name(), c.f.Number, c.f.Width, c.f.Height, c.in.Width, c.in.Height, c.in.FX, c.in.FY, ErrFrame)
		}
	}
	e, err := a.extr.Extrinsics(depth.Profile, other.Profile)
	if err != nil {
		return nil, fmt.Errorf("align: extrinsics from %s to %s: %w", depth.Profile.Name(), other.Profile.Name(), err)
	}
	m := a.maps(din)
	z := u16View(packed(depth, 2)) // read only
	units := depth.DepthUnits
	w, h := din.Width, din.Height
	if a.to != sensor.StreamDepth {
		// Depth into the other camera's picture.
		p := a.out.get(depth.Profile, other.Profile, func(q *sensor.StreamProfile) {
			q.Width, q.Height, q.Intrinsics = other.Width, other.Height, oin
		})
		fov := din.FOV()
		dppa := [2]float32{float32(din.Width) / fov[0], float32(din.Height) / fov[1]}
		fov = oin.FOV()
		oppa := [2]float32{float32(oin.Width) / fov[0], float32(oin.Height) / fov[1]}
		both := dppa[0] < oppa[0] || dppa[1] < oppa[1] || specialResolution(din, oin)
		// New memory, not internal/framepool's: the C library does not
		// give an align's outputs back to the pool (they go out in a
		// frameset), so taking from it would leave the filters that do
		// give theirs back without memory to reuse.
		dst := make([]uint16, other.Width*other.Height)
		// Row by row, each row's corners projected and its rectangles
		// written at once, while the corners are in the cache: the
		// nearest depth wins whatever the order of the writes.
		pm := newAlignProj(&e, &oin)
		tl, br := getPixels(w), getPixels(w)
		for y := range h {
			pm.project(z, y, units, m.tl, tl)
			if both {
				pm.project(z, y, units, m.br, br)
				scatterNearest(dst, z[y*w:(y+1)*w], tl, br, oin.Width, oin.Height)
			} else {
				scatterNearest(dst, z[y*w:(y+1)*w], tl, tl, oin.Width, oin.Height)
			}
		}
		putPixels(tl, br)
		return deriveData(depth, p, other.Width, other.Height, 2, bytesOf(dst)), nil
	}
	// The other camera's picture into depth's geometry.
	switch other.Profile.Format {
	case sensor.FormatY8, sensor.FormatY16, sensor.FormatZ16, sensor.FormatRGB8, sensor.FormatBGR8, sensor.FormatRGBA8, sensor.FormatBGRA8:
	default:
		return nil, fmt.Errorf("align: to depth: %s frame %d is %s: want Y8, Y16, Z16, RGB8, BGR8, RGBA8 or BGRA8: %w",
			other.Profile.Name(), other.Number, other.Profile.Format, ErrFrame)
	}
	p := a.out.get(other.Profile, depth.Profile, func(q *sensor.StreamProfile) {
		q.Width, q.Height, q.Intrinsics = depth.Width, depth.Height, din
	})
	// Inverse Brown-Conrady is projected as modified Brown-Conrady here.
	oproj := oin
	if oproj.Model == sensor.DistortionInverseBrownConrady {
		oproj.Model = sensor.DistortionModifiedBrownConrady
	}
	both := oin.Height < din.Height && oin.Width < din.Width
	out := derive(other, p, depth.Width, depth.Height, obpp) // new memory, as align to another stream's
	out.DepthUnits = other.DepthUnits
	src := packed(other, obpp)
	pm := newAlignProj(&e, &oproj)
	// Each output pixel is the depth pixel's own: the rows are
	// independent, each projected and gathered at once.
	parallelRows(h, w*h, func(y0, y1 int) {
		q := pm // on this goroutine's stack
		tl, br := getPixels(w), getPixels(w)
		for y := y0; y < y1; y++ {
			zr, o := z[y*w:(y+1)*w], out.Data[y*w*obpp:(y+1)*w*obpp]
			q.project(z, y, units, m.tl, tl)
			if both {
				q.project(z, y, units, m.br, br)
				gatherLast(o, src, zr, tl, br, obpp, oin.Width, oin.Height)
			} else {
				gatherLast(o, src, zr, tl, tl, obpp, oin.Width, oin.Height)
			}
		}
		putPixels(tl, br)
	})
	return out, nil
}

// ProcessSet aligns the frames of a frameset as librealsense's align block
// does: towards depth, every video frame of the set other than depth, in
// the set's order, is aligned to the set's first Z16 depth frame; towards
// another stream, that depth frame is aligned to the set's first frame of
// the stream. It returns the aligned frames, or none when the set has no
// Z16 depth frame or no frame of the stream aligned to (librealsense then
// gives the set back as it is).
func (a *Align) ProcessSet(frames []*sensor.Frame) ([]*sensor.Frame, error) {
	var depth, to *sensor.Frame
	for _, f := range frames {
		p := f.Profile
		if p == nil || p.Kind != sensor.KindVideo {
			continue
		}
		if depth == nil && p.Stream == sensor.StreamDepth && p.Format == sensor.FormatZ16 {
			depth = f
		}
		if to == nil && p.Stream == a.to {
			to = f
		}
	}
	if depth == nil || to == nil {
		return nil, nil
	}
	if a.to != sensor.StreamDepth {
		f, err := a.Process(depth, to)
		if err != nil {
			return nil, err
		}
		return []*sensor.Frame{f}, nil
	}
	var out []*sensor.Frame
	for _, f := range frames {
		if p := f.Profile; p == nil || p.Kind != sensor.KindVideo || p.Stream == sensor.StreamDepth {
			continue
		}
		g, err := a.Process(depth, f)
		if err != nil {
			return nil, err
		}
		out = append(out, g)
	}
	return out, nil
}

// specialResolution reports the depth/other size pairs for which
// librealsense always maps both pixel corners.
func specialResolution(d, o sensor.Intrinsics) bool {
	return (d.Width == 640 && d.Height == 240 && o.Width == 320 && o.Height == 180) ||
		(d.Width == 640 && d.Height == 480 && o.Width == 640 && o.Height == 360)
}

// clipRect returns the part inside a w×h picture of the rectangle from tl
// to br (both included); it is empty when x0 > x1 or y0 > y1.
func clipRect(tl, br [2]int32, w, h int) (x0, y0, x1, y1 int) {
	return max(int(tl[0]), 0), max(int(tl[1]), 0), min(int(br[0]), w-1), min(int(br[1]), h-1)
}

// pixelPool holds per-pixel coordinate buffers between frames.
var pixelPool sync.Pool

func getPixels(n int) [][2]int32 {
	if p, ok := pixelPool.Get().(*[][2]int32); ok && cap(*p) >= n {
		return (*p)[:n]
	}
	return make([][2]int32, n)
}

// putPixels returns buffers getPixels gave to the pool.
func putPixels(bufs ...[][2]int32) {
	for _, b := range bufs {
		pixelPool.Put(&b)
	}
}

// scatterNearest writes the depth of each pixel of the depth row z (zero
// for none) into the rectangle of dst (a w×h picture) from its corner tl
// to its corner br, where dst has no depth yet or a farther one. It may
// write values of dst next to a rectangle back as they are: no other
// goroutine may write dst meanwhile.
func scatterNearest(dst, z []uint16, tl, br [][2]int32, w, h int) {
	tl, br = tl[:len(z)], br[:len(z)]
	if len(dst) < w*h {
		panic("processing: scatterNearest: dst smaller than the picture")
	}
	for i := 0; i < len(z); {
		i += scatterNearestFast(dst, z[i:], tl[i:], br[i:], w, h)
		if i < len(z) {
			scatterNearestGo(dst, z[i:i+1], tl[i:i+1], br[i:i+1], w, h)
			i++
		}
	}
}

// scatterNearestGo is scatterNearest in Go, pixel by pixel.
func scatterNearestGo(dst, z []uint16, tl, br [][2]int32, w, h int) {
	tl, br = tl[:len(z)], br[:len(z)]
	for i, d := range z {
		if d == 0 {
			continue
		}
		x0, y0, x1, y1 := clipRect(tl[i], br[i], w, h)
		if x0 > x1 {
			continue
		}
		for y := y0; y <= y1; y++ {
			row := dst[y*w+x0 : y*w+x1+1]
			for x, v := range row {
				if v-1 >= d { // v is 0 (no depth yet: v-1 wraps to the top) or farther than d
					row[x] = d
				}
			}
		}
	}
}

// gatherLast writes into dst, for each pixel of the depth row z that has a
// depth, the last pixel inside src (a w×h picture of bpp bytes per pixel)
// of the rectangle from its corner tl to its corner br.
func gatherLast(dst, src []byte, z []uint16, tl, br [][2]int32, bpp, w, h int) {
	tl, br = tl[:len(z)], br[:len(z)]
	if bpp == 3 && &tl[0] == &br[0] {
		// One corner: the pixel where the depth pixel lands, when it
		// is inside the picture (and 0 else: every byte of dst is
		// written).
		gatherRGB(dst[:3*len(z)], src[:3*w*h], z, tl, w, h)
		return
	}
	for i, d := range z {
		if d == 0 {
			continue
		}
		x0, y0, x1, y1 := clipRect(tl[i], br[i], w, h)
		if x0 > x1 || y0 > y1 {
			continue
		}
		j := y1*w + x1
		if bpp == 3 { // RGB8, BGR8: no call of copy per pixel
			o, s := dst[3*i:3*i+3:3*i+3], src[3*j:3*j+3:3*j+3]
			o[0], o[1], o[2] = s[0], s[1], s[2]
		} else {
			copy(dst[i*bpp:(i+1)*bpp], src[j*bpp:(j+1)*bpp])
		}
	}
}

// gatherRGBGo is gatherRGBFast in Go: for each pixel i of the depth row
// z, the three bytes of dst at 3i become those of src (a w×h picture) at
// px[i] where z[i] is not 0 and px[i] is inside the picture, and 0 else.
func gatherRGBGo(dst, src []byte, z []uint16, px [][2]int32, w, h int) {
	dst, px = dst[:3*len(z)], px[:len(z)]
	for i, d := range z {
		o := dst[3*i : 3*i+3 : 3*i+3]
		if p := px[i]; d != 0 && uint32(p[0]) < uint32(w) && uint32(p[1]) < uint32(h) {
			j := 3 * (int(p[1])*w + int(p[0]))
			s := src[j : j+3 : j+3]
			o[0], o[1], o[2] = s[0], s[1], s[2]
		} else {
			o[0], o[1], o[2] = 0, 0, 0
		}
	}
}

// newAlignProj returns the projection of depth pixels into the camera of
// intrinsics in, whose pose relative to the depth camera is e. Only the
// modified Brown-Conrady model is distorted, with its y tangential term as
// librealsense computes it; other models are taken as pinhole.
func newAlignProj(e *sensor.Extrinsics, in *sensor.Intrinsics) alignProj {
	p := alignProj{r: e.Rotation, t: e.Translation, c: in.Coeffs, fx: in.FX, fy: in.FY, ppx: in.PPX, ppy: in.PPY,
		distort: in.Model == sensor.DistortionModifiedBrownConrady}
	p.fill()
	return p
}

// project computes, for every pixel of row y of the depth picture z, the
// other camera's pixel its ray (of rays) at its depth lands on, rounded as
// librealsense's SSE code does (x + 0.5 rounded half to even; (0, 0) for
// zero depth), into out.
func (m *alignProj) project(z []uint16, y int, units float32, rays *rayMap, out [][2]int32) {
	w := rays.w
	row, out := z[y*w:(y+1)*w], out[:w]
	if rays.sep {
		m.row(row, units, rays.x, nil, rays.y[y], true, out)
	} else {
		m.row(row, units, rays.x[y*w:(y+1)*w], rays.y[y*w:(y+1)*w], 0, false, out)
	}
}

// alignProj projects depth pixels into the other camera: the extrinsics
// and intrinsics by value, so that a row's loop reads them from one place.
type alignProj struct {
	r                [9]float32
	t                [3]float32
	c                [5]float32
	fx, fy, ppx, ppy float32
	distort          bool
	k                [24][4]float32 // r, t, fx, fy, ppx, ppy, 0.5, c, 1 and 2, four times each, for alignRowFast
	k8               [24][8]float32 // k's values eight times each
}

// fill sets k from the other fields.
func (m *alignProj) fill() {
	vs := append(append(append(append(m.r[:0:0], m.r[:]...), m.t[:]...), m.fx, m.fy, m.ppx, m.ppy, 0.5), m.c[:]...)
	for i, v := range append(vs, 1, 2) {
		m.k[i] = [4]float32{v, v, v, v}
		m.k8[i] = [8]float32{v, v, v, v, v, v, v, v}
	}
}

// row writes, for each pixel of the depth row z, the other camera's pixel
// it lands on into out. The rays of the row have the x of rx and the y of
// ry, or, with sep, the one y ry0.
func (m *alignProj) row(z []uint16, units float32, rx, ry []float32, ry0 float32, sep bool, out [][2]int32) {
	rx, out = rx[:len(z)], out[:len(z)]
	if !sep {
		ry = ry[:len(z)]
	}
	from := 0
	if sep {
		from = m.alignRowFast(z, units, rx, ry0, out)
	}
	r, t, c := &m.r, &m.t, &m.c
	for i := from; i < len(z); i++ {
		d := float32(float32(z[i]) * units)
		if d == 0 {
			out[i] = [2]int32{}
			continue
		}
		yr := ry0
		if !sep {
			yr = ry[i]
		}
		vx, vy := float32(d*rx[i]), float32(d*yr)
		px := float32(r[0]*vx) + float32(float32(r[3]*vy)+float32(float32(r[6]*d)+t[0]))
		py := float32(r[1]*vx) + float32(float32(r[4]*vy)+float32(float32(r[7]*d)+t[1]))
		pz := float32(r[2]*vx) + float32(float32(r[5]*vy)+float32(float32(r[8]*d)+t[2]))
		x, y := px/pz, py/pz
		if m.distort {
			r2 := float32(x*x) + float32(y*y)
			r3 := float32(c[1]*float32(r2*r2)) + float32(c[4]*float32(r2*float32(r2*r2)))
			f := 1 + float32(float32(c[0]*r2)+r3)
			xf, yf := float32(x*f), float32(y*f)
			r4 := c[3] * float32(r2+float32(2*float32(xf*xf)))
			x = xf + float32(float32(2*float32(c[2]*float32(xf*yf)))+r4)
			y = yf + float32(float32(2*float32(c[3]*float32(xf*yf)))+r4)
		}
		u := float32(float32(x*m.fx)+m.ppx) + 0.5
		v := float32(float32(y*m.fy)+m.ppy) + 0.5
		out[i] = [2]int32{roundInt32(u), roundInt32(v)}
	}
}

// roundMagic is 1.5·2²³, for roundInt32.
const roundMagic = 12582912

// roundInt32 converts x to int32 as x86's cvtps2dq does by default: to
// nearest, ties to even, and the integer indefinite value for NaN and
// out-of-range values.
func roundInt32(x float32) int32 {
	if x > -(1<<22) && x < 1<<22 {
		// Adding 1.5·2²³ lands in [2²³, 2²⁴), where float32 holds the
		// integers only: the sum is rounded to nearest, ties to even
		// (1.5·2²³ is even), and taking it off again is exact.
		return int32(float32(x+roundMagic) - roundMagic)
	}
	r := math.RoundToEven(float64(x))
	if !(r >= math.MinInt32 && r <= math.MaxInt32) {
		return math.MinInt32
	}
	return int32(r)
}
