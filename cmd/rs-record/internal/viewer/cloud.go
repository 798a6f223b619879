package viewer

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"image"
	"math"

	"github.com/rsbag/rsbag/internal/imaging"
	"github.com/rsbag/rsbag/processing"
	"github.com/rsbag/rsbag/sensor"
)

// reducedColumns bounds the columns of the cloud sent by default: the depth
// frame decimated (processing.NewDecimation, the smallest factor that leaves at
// most this many columns: 4 for 640x480, 8 for 1280x720). Drawing points
// costs a software GL (Chromium without a GPU) about 0.4 µs each on a
// loaded 2-core machine (BenchmarkBrowserCloud), so about 20 000 points keep
// a page at the camera's rate. A page asks for every vertex with the "full"
// toggle.
const reducedColumns = 160

// cloudHeader is the JSON header of a point cloud message. The message is
// laid out as a picture message (a 4-byte little-endian header length, the
// JSON header), the header padded with spaces to a multiple of 4 bytes;
// then Count points as 3 little-endian int16 (x, y, z in the depth
// camera's coordinates, meters = value × Scale), padding to a multiple of
// 4 bytes at ColorOffset, Count RGB8 colors, padding to a multiple of 4
// bytes at MaskOffset, and a bit per pixel of the (decimated) Width×Height
// depth frame, row by row, least significant bit first: set for the pixels
// that have a point, in the order of the points (the page finds the depth
// pixel of a point picked in 3D from it).
type cloudHeader struct {
	Kind        string  `json:"kind"` // "cloud"
	ID          int     `json:"id"`   // the depth stream
	Seq         uint64  `json:"seq"`
	Number      uint64  `json:"number"`
	Width       int     `json:"width"` // the size of the depth frame the cloud is made of
	Height      int     `json:"height"`
	Step        int     `json:"step"` // the decimation factor of the depth frame (1: every vertex)
	Count       int     `json:"count"`
	Scale       float32 `json:"scale"`
	Texture     string  `json:"texture"`                 // the stream that colors the points, or "depth" (colorized)
	TextureNum  uint64  `json:"textureNumber,omitempty"` // the number of the texture's frame
	ColorOffset int     `json:"colorOffset"`
	MaskOffset  int     `json:"maskOffset"`
}

// cloudBuilder makes the cloud messages of one depth stream, reusing its
// memory from frame to frame.
type cloudBuilder struct {
	plain    *processing.PointCloud // without texture
	mapped   *processing.PointCloud // mapped to texProf
	texProf  *sensor.StreamProfile
	texErr   bool // the texture cannot be mapped: color by depth
	pts      *processing.Points
	texImg   *image.RGBA
	texFrame *sensor.Frame // the frame drawn into texImg
	dec      processing.Block
	depth    renderer // the depth colorized, when no texture colors the points
}

// cloudKey is what a cloud message is made of.
type cloudKey struct {
	f    *sensor.Frame // the depth frame on view (after the filters)
	ver  uint64
	full bool
	tex  *sensor.Frame
	// scheme colors the points when no texture does
	scheme int32
}

// cloudLoop makes the cloud of the primary depth stream's frame on view
// each time it changes (or the filters, the resolution or, while paused,
// the texture), while a page shows the 3D view.
func (s *Server) cloudLoop(st *stream) {
	var (
		cb   cloudBuilder
		last cloudKey
	)
	cb.depth.col = s.col
	for {
		select {
		case <-s.done:
			return
		case <-s.cloudWake:
		}
		if s.cloudUsers.Load() == 0 {
			continue
		}
		k := cloudKey{f: st.shown.Load(), ver: s.procVer.Load(), full: s.cloudFull.Load(), scheme: s.scheme.Load()}
		if k.f == nil {
			continue
		}
		if s.texture != nil {
			k.tex = s.texture.latest.Load()
		}
		if k == last || k.f == last.f && k.ver == last.ver && k.full == last.full && k.scheme == last.scheme && !s.paused() {
			continue // a new texture alone makes a new cloud only while paused
		}
		msg, err := s.buildCloud(&cb, st, k.f, k.tex, st.shownSeq.Load(), k.full, k.scheme)
		if err != nil {
			s.setErr(fmt.Errorf("point cloud of %s: %w", st.name, err))
			last = k
			continue
		}
		last = k
		st.cloud.Store(&picture{seq: st.shownSeq.Load(), msg: msg})
		s.wakeClients()
	}
}

// pokeCloud wakes the cloud loop.
func (s *Server) pokeCloud() {
	select {
	case s.cloudWake <- struct{}{}:
	default:
	}
}

// buildCloud returns the cloud message of depth frame f (Z16, after the
// filters), decimated unless full, colored by tf (the texture stream's
// frame) when there is one and its extrinsics are known, else by f
// colorized.
func (s *Server) buildCloud(cb *cloudBuilder, st *stream, f, tf *sensor.Frame, seq uint64, full bool, scheme int32) ([]byte, error) {
	if cb.plain == nil {
		cb.plain, cb.dec = processing.NewPointCloud(), processing.NewDecimation()
	}
	step := 1
	if !full {
		step = (f.Width + reducedColumns - 1) / reducedColumns
		if r, err := cb.dec.OptionRange(sensor.OptionFilterMagnitude); err == nil {
			step = min(step, int(r.Max))
		}
	}
	if step > 1 {
		if err := cb.dec.SetOption(sensor.OptionFilterMagnitude, float32(step)); err != nil {
			return nil, err
		}
		d, err := cb.dec.Process(f)
		if err != nil {
			return nil, err
		}
		f = d
	}
	pc, texture := cb.plain, "depth"
	if tf != nil && tf.Profile != cb.texProf {
		cb.texProf, cb.texErr, cb.mapped = tf.Profile, false, processing.NewPointCloud()
		e, err := s.dev.Extrinsics(st.profile(), tf.Profile)
		if err == nil {
			err = cb.mapped.MapTo(tf.Profile, e)
		}
		cb.texErr = err != nil
	}
	if tf != nil && !cb.texErr {
		if tf != cb.texFrame {
			if cb.texImg == nil || cb.texImg.Rect.Dx() != tf.Width || cb.texImg.Rect.Dy() != tf.Height {
				cb.texImg = image.NewRGBA(image.Rect(0, 0, tf.Width, tf.Height))
			}
			if err := imaging.Draw(cb.texImg, tf); err == nil {
				cb.texFrame = tf
			}
		}
		if cb.texFrame == tf {
			pc, texture = cb.mapped, s.texture.name
		}
	}
	pts, err := pc.CalculateInto(cb.pts, f)
	if err != nil && pc == cb.mapped {
		cb.texErr = true
		pc, texture = cb.plain, "depth"
		pts, err = pc.CalculateInto(cb.pts, f)
	}
	if err != nil {
		return nil, err
	}
	cb.pts = pts
	var depthImg *image.RGBA
	if texture == "depth" {
		if depthImg, _, err = cb.depth.render(f, scheme); err != nil {
			return nil, err
		}
	}
	// First pass: the points kept and their extent.
	n, extent := 0, float32(0)
	for _, v := range pts.Vertices {
		if v[2] > 0 {
			n++
			extent = max(extent, abs32(v[0]), abs32(v[1]), v[2])
		}
	}
	scale := extent / math.MaxInt16
	if !(scale > 0) || math.IsInf(float64(scale), 0) {
		scale = 1
	}
	h := cloudHeader{Kind: "cloud", ID: st.id, Seq: seq, Number: f.Number, Width: f.Width, Height: f.Height,
		Step: step, Count: n, Scale: scale, Texture: texture}
	if texture != "depth" {
		h.TextureNum = cb.texFrame.Number
	}
	hj, _ := json.Marshal(h) // plain fields: cannot fail
	hlen := (4+len(hj)+3)&^3 - 4
	h.ColorOffset = (6*n + 3) &^ 3
	h.MaskOffset = (h.ColorOffset + 3*n + 3) &^ 3
	// The offsets change the header's length: marshal again and pad both
	// to a length that holds either.
	hj, _ = json.Marshal(h)
	hlen = max(hlen, (4+len(hj)+3)&^3-4)
	body := 4 + hlen
	msg := make([]byte, body+h.MaskOffset+(f.Width*f.Height+7)/8)
	binary.LittleEndian.PutUint32(msg, uint32(hlen))
	copy(msg[4:], hj)
	for i := 4 + len(hj); i < body; i++ {
		msg[i] = ' '
	}
	pos, col, mask := msg[body:], msg[body+h.ColorOffset:], msg[body+h.MaskOffset:]
	inv := 1 / scale
	var tw, th int
	if texture != "depth" {
		tw, th = cb.texImg.Rect.Dx(), cb.texImg.Rect.Dy()
	}
	k := 0
	for y := range f.Height {
		for x := range f.Width {
			i := y*f.Width + x
			v := pts.Vertices[i]
			if !(v[2] > 0) {
				continue
			}
			mask[i>>3] |= 1 << (i & 7)
			for c := range 3 {
				binary.LittleEndian.PutUint16(pos[6*k+2*c:], uint16(int16(math.Round(float64(v[c]*inv)))))
			}
			var px []byte
			if texture == "depth" {
				o := y*depthImg.Stride + 4*x
				px = depthImg.Pix[o : o+3]
			} else {
				tc := pts.TexCoords[i]
				u, w := int(tc[0]*float32(tw)), int(tc[1]*float32(th))
				if u >= 0 && w >= 0 && u < tw && w < th {
					o := w*cb.texImg.Stride + 4*u
					px = cb.texImg.Pix[o : o+3]
				} else {
					px = outsideTexture[:]
				}
			}
			copy(col[3*k:], px)
			k++
		}
	}
	return msg, nil
}

// outsideTexture is the color of a point the texture camera does not see.
var outsideTexture = [3]byte{80, 80, 80}

func abs32(v float32) float32 { return float32(math.Abs(float64(v))) }
