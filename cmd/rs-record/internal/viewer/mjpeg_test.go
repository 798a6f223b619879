package viewer

import (
	"bytes"
	"image/jpeg"
	"testing"

	"github.com/rsbag/rsbag/internal/testsupport/yuvtest"
	"github.com/rsbag/rsbag/sensor"
)

// TestRenderMJPEG: an MJPEG frame is sent as the JPEG it is, with the
// standard Huffman tables inserted where the camera left them out, so the
// browser decodes it; a frame with tables is sent unchanged.
func TestRenderMJPEG(t *testing.T) {
	const w, h = 32, 24
	src := yuvtest.Picture(w, h)
	p := &sensor.StreamProfile{Stream: sensor.StreamColor, Format: sensor.FormatMJPEG, Kind: sensor.KindVideo, Width: w, Height: h}
	var r renderer
	for _, tables := range []bool{true, false} {
		data := yuvtest.MJPEG(src, tables)
		img, j, err := r.render(&sensor.Frame{Profile: p, Width: w, Height: h, Data: data}, 0)
		if err != nil || img != nil {
			t.Fatalf("tables %v: picture %v, error %v", tables, img, err)
		}
		if tables && !bytes.Equal(j, data) {
			t.Error("a frame with tables was changed")
		}
		pic, err := jpeg.Decode(bytes.NewReader(j))
		if err != nil {
			t.Fatalf("tables %v: the JPEG sent does not decode: %v", tables, err)
		}
		if b := pic.Bounds(); b.Dx() != w || b.Dy() != h {
			t.Errorf("tables %v: picture %v", tables, b)
		}
	}
}
