package imaging

import (
	"errors"
	"image"
	"testing"

	"github.com/rsbag/rsbag/internal/testsupport/yuvtest"
	"github.com/rsbag/rsbag/internal/yuv"
	"github.com/rsbag/rsbag/sensor"
)

// TestDrawMJPEG: an MJPEG frame (with or without Huffman tables) is drawn
// decoded, within a small tolerance of the source picture, into a packed
// destination and into a sub-image whose rows are not packed; Image
// returns the decoded picture; a truncated frame is an error wrapping
// yuv.ErrCorrupt.
func TestDrawMJPEG(t *testing.T) {
	const w, h = 48, 32
	src := yuvtest.Picture(w, h)
	p := &sensor.StreamProfile{Stream: sensor.StreamColor, Format: sensor.FormatMJPEG, Kind: sensor.KindVideo, Width: w, Height: h}
	for _, tables := range []bool{true, false} {
		f := &sensor.Frame{Profile: p, Number: 4, Width: w, Height: h, Data: yuvtest.MJPEG(src, tables)}
		big := image.NewRGBA(image.Rect(0, 0, w+8, h))
		for name, dst := range map[string]*image.RGBA{
			"packed":  image.NewRGBA(image.Rect(0, 0, w, h)),
			"strided": big.SubImage(image.Rect(0, 0, w, h)).(*image.RGBA),
		} {
			if err := Draw(dst, f); err != nil {
				t.Fatalf("tables %v, %s: %v", tables, name, err)
			}
			worst := 0
			for y := range h {
				for x := range w {
					a, b := dst.RGBAAt(x, y), src.RGBAAt(x, y)
					for _, d := range []int{int(a.R) - int(b.R), int(a.G) - int(b.G), int(a.B) - int(b.B)} {
						worst = max(worst, d, -d)
					}
					if a.A != 255 {
						t.Fatalf("alpha %d", a.A)
					}
				}
			}
			if worst > yuvtest.Tolerance {
				t.Errorf("tables %v, %s: a pixel is %d levels from the source, want at most %d", tables, name, worst, yuvtest.Tolerance)
			}
		}
		img, err := Image(f, nil)
		if err != nil || img.Bounds() != image.Rect(0, 0, w, h) {
			t.Errorf("Image: %v, %v", img.Bounds(), err)
		}
	}
	f := &sensor.Frame{Profile: p, Number: 5, Width: w, Height: h, Data: yuvtest.MJPEG(src, false)[:100]}
	if err := Draw(image.NewRGBA(image.Rect(0, 0, w, h)), f); !errors.Is(err, yuv.ErrCorrupt) {
		t.Errorf("truncated frame: %v, want ErrCorrupt", err)
	}
	f.Data = nil
	if err := Check(f); err == nil {
		t.Error("Check accepts an empty MJPEG frame")
	}
}
