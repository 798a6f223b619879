package viewer

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"image"
	"image/jpeg"
	"image/png"

	"github.com/rsbag/rsbag/internal/imaging"
	"github.com/rsbag/rsbag/processing"
	"github.com/rsbag/rsbag/sensor"
)

// jpegQuality is the quality of the pictures sent by default: depth
// colorized with a smooth color map and camera pictures stay free of
// visible blocks at a third of PNG's size.
const jpegQuality = 85

// picture is an encoded frame, ready to send: the whole binary WebSocket
// message (header length, JSON header, encoded image). It is shared by every
// client and never modified.
type picture struct {
	seq    uint64 // server-wide sequence number of the frame
	scheme int32  // color scheme it was made with (depth)
	msg    []byte
}

// frameHeader describes the picture of a binary message.
type frameHeader struct {
	ID           int              `json:"id"`
	Seq          uint64           `json:"seq"`
	Number       uint64           `json:"number"`
	TimestampMs  float64          `json:"timestampMs"`
	Domain       string           `json:"domain"`
	SystemTimeMs float64          `json:"systemTimeMs"`
	Width        int              `json:"width"`
	Height       int              `json:"height"`
	Format       string           `json:"format"`
	Codec        string           `json:"codec"`
	Scheme       int32            `json:"scheme"` // depth: the color scheme of the picture
	Metadata     map[string]int64 `json:"metadata"`
	Truth        *truthHeader     `json:"truth,omitempty"` // a bag with ground truth: the frame's pose
}

// encodeLoop renders and encodes the newest frame of a video stream each
// time one arrives (or the color scheme or the wanted codecs change), while
// a client is connected.
func (s *Server) encodeLoop(st *stream) {
	var (
		r             renderer
		lastSeq       uint64
		lastScheme    int32 = -1
		lastPNG       bool
		jbuf, pbuf    bytes.Buffer
		jpegOpts      = &jpeg.Options{Quality: jpegQuality}
		pngEnc        = &png.Encoder{CompressionLevel: png.BestSpeed}
		haveWarnedFmt bool
		lastGen       uint64
	)
	r.col = s.col
	primary := st == s.primary
	wake := st.wake
	if primary {
		wake = st.encWake // the filter loop's frame
	}
	for {
		select {
		case <-s.done:
			return
		case <-wake:
		}
		if s.clientCount() == 0 {
			continue
		}
		f, seq := st.latest.Load(), st.lastSeq.Load()
		var gen uint64
		if primary {
			gen = st.shownGen.Load()
			f, seq = st.shown.Load(), st.shownSeq.Load()
		}
		if f == nil {
			continue
		}
		scheme, wantPNG := s.scheme.Load(), s.pngUsers.Load() > 0
		isDepth := isDepthFormat(f.Profile.Format)
		if seq == lastSeq && (!isDepth || scheme == lastScheme) && (wantPNG == lastPNG || !wantPNG) && gen == lastGen {
			continue
		}
		img, raw, err := r.render(f, scheme)
		if err != nil {
			if !haveWarnedFmt {
				haveWarnedFmt = true
				s.setErr(fmt.Errorf("stream %s: %w", st.name, err))
			}
			continue
		}
		h := frameHeaderOf(st, f, seq)
		h.Scheme = scheme
		h.Truth = s.groundTruth(st, f)
		if raw != nil { // already JPEG (MJPEG stream)
			h.Codec = "jpeg"
			st.jpeg.Store(&picture{seq: seq, scheme: scheme, msg: message(&h, raw)})
		} else {
			jbuf.Reset()
			if err := jpeg.Encode(&jbuf, img, jpegOpts); err == nil {
				h.Codec = "jpeg"
				st.jpeg.Store(&picture{seq: seq, scheme: scheme, msg: message(&h, jbuf.Bytes())})
			}
			if wantPNG {
				pbuf.Reset()
				if err := pngEnc.Encode(&pbuf, img); err == nil {
					h.Codec = "png"
					st.png.Store(&picture{seq: seq, scheme: scheme, msg: message(&h, pbuf.Bytes())})
				}
			}
		}
		lastSeq, lastScheme, lastPNG, lastGen = seq, scheme, wantPNG, gen
		s.wakeClients()
	}
}

// filterLoop runs the depth filters on each new frame of the primary
// stream (or again when they change) into the frame on view, and hands it
// to the point cloud and to the encoder: the cloud does not wait for the
// 2D picture's encoding.
func (s *Server) filterLoop(st *stream) {
	var lastSeq, lastVer uint64
	for {
		select {
		case <-s.done:
			return
		case <-st.wake:
		}
		if s.clientCount() == 0 {
			continue
		}
		f, seq, ver := st.latest.Load(), st.lastSeq.Load(), s.procVer.Load()
		if f == nil {
			continue
		}
		if seq != lastSeq || ver != lastVer || st.shown.Load() == nil {
			st.shown.Store(s.filter(f))
			st.shownSeq.Store(seq)
			st.shownGen.Add(1)
			lastSeq, lastVer = seq, ver
		}
		s.pokeCloud() // also for a page that turned the 3D view on
		select {
		case st.encWake <- struct{}{}:
		default:
		}
	}
}

func frameHeaderOf(st *stream, f *sensor.Frame, seq uint64) frameHeader {
	h := frameHeader{
		ID: st.id, Seq: seq, Number: f.Number, TimestampMs: f.TimestampMs, Domain: f.Domain.String(),
		SystemTimeMs: f.SystemTimeMs, Width: f.Width, Height: f.Height, Format: f.Profile.Format.String(),
		Metadata: map[string]int64{},
	}
	f.Metadata.Range(func(k sensor.MetadataKey, v int64) bool {
		h.Metadata[k.String()] = v
		return true
	})
	return h
}

// message builds a binary message: the header's length (4 bytes, little
// endian), the JSON header and the encoded image, in one new buffer.
func message(h *frameHeader, img []byte) []byte {
	hj, _ := json.Marshal(h) // plain fields: cannot fail
	msg := make([]byte, 4+len(hj)+len(img))
	binary.LittleEndian.PutUint32(msg, uint32(len(hj)))
	copy(msg[4:], hj)
	copy(msg[4+len(hj):], img)
	return msg
}

func isDepthFormat(f sensor.Format) bool {
	return f == sensor.FormatZ16 || f == sensor.FormatDisparity16 || f == sensor.FormatDisparity32
}

// renderer turns frames into RGBA pictures, reusing its buffer.
type renderer struct {
	img    *image.RGBA
	col    *processing.Colorizer // depth: the server's, or with the defaults but the scheme
	scheme int32
}

// render returns the picture of f, or, for an MJPEG frame, its JPEG bytes.
func (r *renderer) render(f *sensor.Frame, scheme int32) (*image.RGBA, []byte, error) {
	p := f.Profile
	if p.Format == sensor.FormatMJPEG {
		return nil, imaging.JPEG(f), nil
	}
	if err := imaging.Check(f); err != nil {
		return nil, nil, err
	}
	w, h := f.Width, f.Height
	if r.img == nil || r.img.Rect.Dx() != w || r.img.Rect.Dy() != h {
		r.img = image.NewRGBA(image.Rect(0, 0, w, h))
	}
	if isDepthFormat(p.Format) {
		if r.col == nil {
			r.col, r.scheme = processing.NewColorizer(), 0
		}
		if scheme != r.scheme {
			if err := r.col.SetOption(sensor.OptionColorScheme, float32(scheme)); err != nil {
				return nil, nil, err
			}
			r.scheme = scheme
		}
		if err := r.col.Draw(r.img, f); err != nil {
			return nil, nil, err
		}
		return r.img, nil, nil
	}
	if err := imaging.Draw(r.img, f); err != nil {
		return nil, nil, err
	}
	return r.img, nil, nil
}

// distance returns the distance in meters at pixel (x, y) of a Z16 frame.
func distance(f *sensor.Frame, x, y int) (float64, error) {
	if f.Profile.Format != sensor.FormatZ16 {
		return 0, fmt.Errorf("stream %s is %s, not Z16 depth", f.Profile.Name(), f.Profile.Format)
	}
	if x < 0 || y < 0 || x >= f.Width || y >= f.Height {
		return 0, fmt.Errorf("pixel (%d, %d) outside the %dx%d frame", x, y, f.Width, f.Height)
	}
	i := y*f.Stride + 2*x
	if i+2 > len(f.Data) {
		return 0, fmt.Errorf("pixel (%d, %d) beyond the frame's %d bytes", x, y, len(f.Data))
	}
	return float64(binary.LittleEndian.Uint16(f.Data[i:])) * float64(f.DepthUnits), nil
}
