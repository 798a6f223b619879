package viewer

import (
	"bytes"
	"fmt"
	"math"
	"net/http"
	"strings"

	"github.com/rsbag/rsbag/processing"
	"github.com/rsbag/rsbag/sensor"
)

// depthOnView returns the Z16 frame of stream id on view: the primary
// stream's after the filters.
func (s *Server) depthOnView(id int) (*sensor.Frame, error) {
	if id < 0 || id >= len(s.streams) {
		return nil, fmt.Errorf("no stream %d", id)
	}
	st := s.streams[id]
	if p := st.profile(); p.Format != sensor.FormatZ16 {
		return nil, fmt.Errorf("stream %s is %s, not Z16 depth", p.Name(), p.Format)
	}
	f := st.latest.Load()
	if sf := st.shown.Load(); sf != nil {
		f = sf
	}
	if f == nil {
		return nil, fmt.Errorf("stream %s has no frame yet", st.name)
	}
	return f, nil
}

// ruler returns the points (meters, in the depth camera's coordinates) of
// depth pixels a and b of the frame of stream id on view, deprojected by
// processing.PointCloud with the stream's intrinsics, and the frame's
// number.
func (s *Server) ruler(id int, a, b [2]int) (pa, pb [3]float32, number uint64, err error) {
	f, err := s.depthOnView(id)
	if err != nil {
		return pa, pb, 0, err
	}
	for _, p := range [][2]int{a, b} {
		if p[0] < 0 || p[1] < 0 || p[0] >= f.Width || p[1] >= f.Height {
			return pa, pb, 0, fmt.Errorf("pixel (%d, %d) outside the %dx%d frame", p[0], p[1], f.Width, f.Height)
		}
	}
	pts, err := processing.NewPointCloud().Calculate(f)
	if err != nil {
		return pa, pb, 0, err
	}
	pa, pb = pts.Vertices[a[1]*f.Width+a[0]], pts.Vertices[b[1]*f.Width+b[0]]
	for i, p := range [][3]float32{pa, pb} {
		if !(p[2] > 0) {
			q := [][2]int{a, b}[i]
			return pa, pb, 0, fmt.Errorf("no depth at pixel (%d, %d) of frame %d: pick another", q[0], q[1], f.Number)
		}
	}
	return pa, pb, f.Number, nil
}

// distance3 is the distance between two points.
func distance3(a, b [3]float32) float64 {
	dx, dy, dz := float64(a[0]-b[0]), float64(a[1]-b[1]), float64(a[2]-b[2])
	return math.Sqrt(dx*dx + dy*dy + dz*dz)
}

// servePLY sends the point cloud of the primary depth frame on view (after
// the filters, every vertex) as a binary PLY with colors from the texture
// stream's frame on view and librealsense's mesh, as Points.WritePLY
// writes it.
func (s *Server) servePLY(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
		return
	}
	var buf bytes.Buffer
	f, number, tex, err := s.writePLY(&buf)
	if err != nil {
		http.Error(w, err.Error(), http.StatusConflict)
		return
	}
	name := strings.NewReplacer("/", "_", " ", "_").Replace(f) + fmt.Sprintf("-%d.ply", number)
	// Which frames the cloud is of: the page's pictures may have moved on.
	w.Header().Set("X-Depth-Frame", fmt.Sprint(number))
	if tex != nil {
		w.Header().Set("X-Texture-Frame", fmt.Sprint(tex.Number))
	}
	w.Header().Set("Content-Type", "application/octet-stream")
	w.Header().Set("Content-Disposition", fmt.Sprintf("attachment; filename=%q", name))
	w.Write(buf.Bytes())
}

// writePLY writes the PLY of the primary depth frame on view and returns
// the stream's name, the frame's number and the texture frame (nil when
// the points have no color).
func (s *Server) writePLY(buf *bytes.Buffer) (string, uint64, *sensor.Frame, error) {
	f, err := s.depthOnView(s.primary.id)
	if err != nil {
		return "", 0, nil, fmt.Errorf("no point cloud: %w", err)
	}
	pc := processing.NewPointCloud()
	var tex *sensor.Frame
	if s.texture != nil {
		if tf := s.texture.latest.Load(); tf != nil {
			if e, err := s.dev.Extrinsics(s.primary.profile(), tf.Profile); err == nil && pc.MapTo(tf.Profile, e) == nil {
				tex = tf
			}
		}
	}
	pts, err := pc.Calculate(f)
	if err != nil && tex != nil {
		tex, pc = nil, processing.NewPointCloud()
		pts, err = pc.Calculate(f)
	}
	if err != nil {
		return "", 0, nil, err
	}
	if err := pts.WritePLY(buf, tex, processing.PLYOptions{}); err != nil {
		return "", 0, nil, err
	}
	return s.primary.name, f.Number, tex, nil
}
