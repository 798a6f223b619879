package yuv

import (
	"bytes"
	"errors"
	"image/jpeg"
	"testing"

	"github.com/rsbag/rsbag/internal/testsupport/yuvtest"
	"github.com/rsbag/rsbag/sensor"
)

func absDiff(a, b byte) int {
	if a > b {
		return int(a - b)
	}
	return int(b - a)
}

// TestDecodeMJPEG: a frame made by Go's JPEG encoder from a known picture,
// with and without its Huffman tables, decodes to every target format
// within a small tolerance of the source, in the target's byte order; the
// frame without tables decodes to exactly the same pixels.
func TestDecodeMJPEG(t *testing.T) {
	const w, h = 64, 48
	src := yuvtest.Picture(w, h)
	full := yuvtest.MJPEG(src, true)
	bare := yuvtest.MJPEG(src, false)
	if !HasTables(full) || HasTables(bare) || len(bare) >= len(full) {
		t.Fatalf("tables: full %v (%d bytes), stripped %v (%d bytes)", HasTables(full), len(full), HasTables(bare), len(bare))
	}
	if _, err := jpeg.Decode(bytes.NewReader(bare)); err == nil {
		t.Fatal("image/jpeg decodes a frame without tables by itself: the test frame is not what cameras send")
	}
	var rgbFull []byte
	for _, frame := range [][]byte{full, bare} {
		for _, to := range Targets {
			ob := OutBytes(to)
			dst := make([]byte, w*h*ob)
			if err := Convert(dst, to, frame, sensor.FormatMJPEG, w, h, 0); err != nil {
				t.Fatalf("%s: %v", to, err)
			}
			if to == sensor.FormatRGB8 {
				if rgbFull == nil {
					rgbFull = dst
				} else if !bytes.Equal(dst, rgbFull) {
					t.Errorf("RGB8 of the frame without tables differs from that of the whole frame")
				}
			}
			worst := 0
			for i := range w * h {
				s := src.Pix[4*i : 4*i+4]
				p := dst[i*ob : (i+1)*ob]
				var d []int
				switch to {
				case sensor.FormatRGB8, sensor.FormatRGBA8:
					d = []int{absDiff(p[0], s[0]), absDiff(p[1], s[1]), absDiff(p[2], s[2])}
				case sensor.FormatBGR8, sensor.FormatBGRA8:
					d = []int{absDiff(p[2], s[0]), absDiff(p[1], s[1]), absDiff(p[0], s[2])}
				case sensor.FormatY8: // JFIF luma
					y := (19595*int(s[0]) + 38470*int(s[1]) + 7471*int(s[2]) + 1<<15) >> 16
					d = []int{absDiff(p[0], byte(y))}
				}
				if ob == 4 && p[3] != 255 {
					t.Fatalf("%s pixel %d: alpha %d", to, i, p[3])
				}
				for _, v := range d {
					worst = max(worst, v)
				}
			}
			if worst > yuvtest.Tolerance {
				t.Errorf("%s: a pixel is %d levels from the source, want at most %d", to, worst, yuvtest.Tolerance)
			}
		}
	}
}

// TestDecodeMJPEGCorrupt: a truncated, damaged or wrongly sized frame is an
// error wrapping ErrCorrupt, never a panic.
func TestDecodeMJPEGCorrupt(t *testing.T) {
	const w, h = 32, 16
	full := yuvtest.MJPEG(yuvtest.Picture(w, h), true)
	bare := yuvtest.MJPEG(yuvtest.Picture(w, h), false)
	flipped := append([]byte(nil), full...)
	for i := len(flipped) / 2; i < len(flipped)-2; i += 7 {
		flipped[i] = 0xFF
	}
	cases := map[string][]byte{
		"empty":     nil,
		"SOI only":  {0xFF, 0xD8},
		"not JPEG":  bytes.Repeat([]byte{0x55}, 500),
		"half":      full[:len(full)/2],
		"bare half": bare[:len(bare)/2],
		"damaged":   flipped,
	}
	for n := 3; n < len(bare); n += 37 {
		cases["bare cut"+string(rune('a'+n%26))] = bare[:n]
	}
	dst := make([]byte, w*h*3)
	for name, frame := range cases {
		err := DecodeMJPEG(dst, sensor.FormatRGB8, frame, w, h)
		if !errors.Is(err, ErrCorrupt) {
			t.Errorf("%s (%d bytes): %v, want ErrCorrupt", name, len(frame), err)
		}
	}
	if err := DecodeMJPEG(make([]byte, 64*64*3), sensor.FormatRGB8, full, 64, 64); !errors.Is(err, ErrCorrupt) {
		t.Errorf("32x16 frame for a 64x64 mode: %v, want ErrCorrupt", err)
	}
	if err := DecodeMJPEG(dst, sensor.FormatZ16, full, w, h); !errors.Is(err, ErrFormat) {
		t.Errorf("MJPEG to Z16: %v, want ErrFormat", err)
	}
}

// TestWithTables: a frame without tables gets the standard ones (and then
// decodes alone); a frame with tables is returned as it is.
func TestWithTables(t *testing.T) {
	src := yuvtest.Picture(16, 16)
	full, bare := yuvtest.MJPEG(src, true), yuvtest.MJPEG(src, false)
	if got := WithTables(full); &got[0] != &full[0] {
		t.Error("a frame with tables was copied")
	}
	fixed := WithTables(bare)
	if !HasTables(fixed) {
		t.Fatal("no tables inserted")
	}
	if _, err := jpeg.Decode(bytes.NewReader(fixed)); err != nil {
		t.Errorf("the completed frame does not decode: %v", err)
	}
}

// TestMJPEGFrame: Frame decodes an MJPEG frame (as bags of old recordings
// hold) to an RGB8 frame with the same number and times.
func TestMJPEGFrame(t *testing.T) {
	const w, h = 32, 16
	f := &sensor.Frame{Profile: &sensor.StreamProfile{Stream: sensor.StreamColor, Format: sensor.FormatMJPEG, Width: w, Height: h},
		Number: 7, TimestampMs: 12.5, Width: w, Height: h, Data: yuvtest.MJPEG(yuvtest.Picture(w, h), false)}
	g, err := Frame(f, sensor.FormatRGB8)
	if err != nil {
		t.Fatal(err)
	}
	if g.Profile.Format != sensor.FormatRGB8 || g.Number != 7 || g.TimestampMs != 12.5 || g.Stride != 3*w || g.BPP != 24 || len(g.Data) != w*h*3 {
		t.Errorf("frame %+v", g)
	}
	f.Data = f.Data[:len(f.Data)/3]
	if _, err := Frame(f, sensor.FormatRGB8); !errors.Is(err, ErrCorrupt) {
		t.Errorf("truncated frame: %v, want ErrCorrupt", err)
	}
}

// BenchmarkMJPEGToRGB8 decodes and converts a 1280x720 MJPEG frame (without
// Huffman tables, as cameras send them) to RGB8.
func BenchmarkMJPEGToRGB8(b *testing.B) {
	const w, h = 1280, 720
	frame := yuvtest.MJPEG(yuvtest.Picture(w, h), false)
	dst := make([]byte, w*h*3)
	b.SetBytes(int64(len(dst)))
	b.ReportAllocs()
	for b.Loop() {
		if err := DecodeMJPEG(dst, sensor.FormatRGB8, frame, w, h); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "frames/s")
}
