package yuv

import (
	"bytes"
	"errors"
	"fmt"
	"image"
	"image/color"
	"image/jpeg"
	"io"
	"sync"

	"github.com/rsbag/rsbag/sensor"
)

// ErrCorrupt is wrapped by the error for an MJPEG frame that is not a whole
// JPEG picture of the expected size.
var ErrCorrupt = errors.New("yuv: corrupt MJPEG frame")

// JPEG markers (ITU T.81 Table B.1).
const (
	markerSOI = 0xD8
	markerDHT = 0xC4
	markerSOS = 0xDA
)

var (
	stdOnce sync.Once
	stdDHT  []byte
)

// standardDHT returns the DHT segment (marker included) of the Annex K.3
// tables: the one Go's image/jpeg encoder writes, whose tables are those of
// Annex K (theHuffmanSpec in image/jpeg/writer.go).
func standardDHT() []byte {
	stdOnce.Do(func() {
		var b bytes.Buffer
		// An in-memory encode does not fail; if it did, frames without
		// tables would fail to decode (ErrCorrupt).
		if jpeg.Encode(&b, image.NewRGBA(image.Rect(0, 0, 8, 8)), nil) == nil {
			stdDHT = findSegment(b.Bytes(), markerDHT)
		}
	})
	return stdDHT
}

// findSegment returns the first marker segment (0xFF, marker, length,
// body) of type m before the scan, or nil when there is none or the
// headers are malformed.
func findSegment(data []byte, m byte) []byte {
	if len(data) < 2 || data[0] != 0xFF || data[1] != markerSOI {
		return nil
	}
	for off := 2; off+4 <= len(data); {
		if data[off] != 0xFF {
			return nil
		}
		if data[off+1] == 0xFF { // fill byte
			off++
			continue
		}
		n := int(data[off+2])<<8 | int(data[off+3])
		if n < 2 || off+2+n > len(data) {
			return nil
		}
		switch data[off+1] {
		case m:
			return data[off : off+2+n]
		case markerSOS:
			return nil
		}
		off += 2 + n
	}
	return nil
}

// HasTables reports whether frame carries its own Huffman tables (a DHT
// segment before the scan).
func HasTables(frame []byte) bool { return findSegment(frame, markerDHT) != nil }

// reader returns frame as a complete JPEG stream: as it is when it has
// Huffman tables, else with the standard tables after its SOI marker
// (without copying it).
func reader(frame []byte) io.Reader {
	if len(frame) < 2 || HasTables(frame) {
		return bytes.NewReader(frame)
	}
	return io.MultiReader(bytes.NewReader(frame[:2]), bytes.NewReader(standardDHT()), bytes.NewReader(frame[2:]))
}

// WithTables returns frame as a complete JPEG file: frame itself when it
// has Huffman tables, else a copy with the standard tables inserted (for
// readers, like browsers, that may not supply them).
func WithTables(frame []byte) []byte {
	if len(frame) < 2 || HasTables(frame) {
		return frame
	}
	out := make([]byte, 0, len(frame)+len(standardDHT()))
	out = append(out, frame[:2]...)
	out = append(out, standardDHT()...)
	return append(out, frame[2:]...)
}

// DecodeMJPEG decodes the MJPEG frame src, which must be a w×h picture, into
// dst in format to (rows packed: w*OutBytes(to) bytes each). A frame that
// does not decode, or decodes to another size, is an error wrapping
// ErrCorrupt; dst is then partly written or not at all.
func DecodeMJPEG(dst []byte, to sensor.Format, src []byte, w, h int) error {
	ob := OutBytes(to)
	if ob == 0 {
		return fmt.Errorf("%w: MJPEG to %s", ErrFormat, to)
	}
	if len(dst) < w*h*ob {
		return fmt.Errorf("yuv: MJPEG %dx%d %s: %d bytes of output, want %d", w, h, to, len(dst), w*h*ob)
	}
	img, err := jpeg.Decode(reader(src))
	if err != nil {
		return fmt.Errorf("%w: %d bytes: %w", ErrCorrupt, len(src), err)
	}
	if b := img.Bounds(); b.Dx() != w || b.Dy() != h {
		return fmt.Errorf("%w: a %dx%d picture, want %dx%d", ErrCorrupt, b.Dx(), b.Dy(), w, h)
	}
	ri, bi := 0, 2
	if to == sensor.FormatBGR8 || to == sensor.FormatBGRA8 {
		ri, bi = 2, 0
	}
	switch m := img.(type) {
	case *image.YCbCr:
		hs, vs, ok := shifts(m.SubsampleRatio)
		if !ok {
			return fmt.Errorf("%w: chroma subsampling %v", ErrCorrupt, m.SubsampleRatio)
		}
		for y := range h {
			ys := m.Y[y*m.YStride : y*m.YStride+w]
			row := dst[y*w*ob : (y+1)*w*ob]
			if to == sensor.FormatY8 {
				copy(row, ys)
				continue
			}
			co := (y >> vs) * m.CStride
			cb, cr := m.Cb[co:], m.Cr[co:]
			for x := range w {
				r, g, b := color.YCbCrToRGB(ys[x], cb[x>>hs], cr[x>>hs])
				p := row[x*ob : x*ob+ob]
				p[ri], p[1], p[bi] = r, g, b
				if ob == 4 {
					p[3] = 255
				}
			}
		}
	case *image.Gray:
		for y := range h {
			gs := m.Pix[y*m.Stride : y*m.Stride+w]
			row := dst[y*w*ob : (y+1)*w*ob]
			if ob == 1 {
				copy(row, gs)
				continue
			}
			for x, v := range gs {
				p := row[x*ob : x*ob+ob]
				p[0], p[1], p[2] = v, v, v
				if ob == 4 {
					p[3] = 255
				}
			}
		}
	default:
		return fmt.Errorf("%w: a %T picture, not YCbCr or gray", ErrCorrupt, img)
	}
	return nil
}

// shifts returns the horizontal and vertical chroma subsampling of r as
// shifts.
func shifts(r image.YCbCrSubsampleRatio) (hs, vs int, ok bool) {
	switch r {
	case image.YCbCrSubsampleRatio444:
		return 0, 0, true
	case image.YCbCrSubsampleRatio422:
		return 1, 0, true
	case image.YCbCrSubsampleRatio420:
		return 1, 1, true
	case image.YCbCrSubsampleRatio440:
		return 0, 1, true
	case image.YCbCrSubsampleRatio411:
		return 2, 0, true
	case image.YCbCrSubsampleRatio410:
		return 2, 1, true
	}
	return 0, 0, false
}
