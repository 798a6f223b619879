// Package yuv converts the pictures of RealSense color sensors that
// librealsense converts on the host — the packed 4:2:2 YUYV and UYVY, and
// MJPEG — to RGB8, BGR8, RGBA8, BGRA8 and Y8.
//
// YUYV and UYVY are converted as librealsense's
// unpack_yuy2 does (src/proc/color-formats-converter.cpp): BT.601 studio
// range in integer arithmetic, each pair of pixels sharing its U and V,
//
//	C = Y - 16, D = U - 128, E = V - 128
//	R = clamp((298 C + 409 E + 128) >> 8)
//	G = clamp((298 C - 100 D - 208 E + 128) >> 8)
//	B = clamp((298 C + 516 D + 128) >> 8)
//
// and Y8 is Y. Large pictures are converted on every core, rows split
// between them; a conversion allocates nothing.
//
// MJPEG frames of UVC color cameras are decoded to the same targets, as
// librealsense's mjpeg_converter does (unpack_mjpeg in
// src/proc/color-formats-converter.cpp).
//
// librealsense decodes a frame with stb_image (stbi_load_from_memory),
// which converts YCbCr to RGB with the JFIF full-range BT.601 equations
//
//	R = Y + 1.402 (Cr - 128)
//	G = Y - 0.34414 (Cb - 128) - 0.71414 (Cr - 128)
//	B = Y + 1.772 (Cb - 128)
//
// in fixed point. Here frames are decoded with Go's image/jpeg and
// converted with image/color's YCbCrToRGB, the same equations in 16-bit
// fixed point: pixels agree within ±1 where the chroma is flat. (stb_image
// interpolates subsampled chroma where Go repeats it, so at sharp color
// edges of 4:2:2 or 4:2:0 frames the two differ more.) Unlike the studio
// range YUYV conversion, no offset of 16 applies.
// librealsense's converter writes RGB8 only; the other formats here hold
// the same colors in another order, and Y8 is the decoded luma.
//
// UVC cameras often send frames without Huffman tables (no DHT segment);
// the standard tables of JPEG Annex K.3 are then supplied before decoding,
// as MJPEG readers do (without copying the frame). Decoding allocates the
// decoded picture (image/jpeg's); a frame that does not decode is an error
// wrapping ErrCorrupt.
package yuv

import (
	"errors"
	"fmt"
	"runtime"
	"sync"

	"github.com/rsbag/rsbag/sensor"
)

// ErrFormat is wrapped by the error for a conversion this package does not
// make.
var ErrFormat = errors.New("yuv: unsupported conversion")

// Sources reports whether f is a format Convert reads (YUYV, UYVY, MJPEG).
func Sources(f sensor.Format) bool {
	return f == sensor.FormatYUYV || f == sensor.FormatUYVY || f == sensor.FormatMJPEG
}

// Targets are the formats Convert writes, in librealsense's order of the
// color sensor's profiles.
var Targets = []sensor.Format{sensor.FormatRGB8, sensor.FormatY8, sensor.FormatBGR8, sensor.FormatRGBA8, sensor.FormatBGRA8}

// OutBytes returns the bytes per pixel of target format f, or 0 when
// Convert does not write it.
func OutBytes(f sensor.Format) int {
	switch f {
	case sensor.FormatRGB8, sensor.FormatBGR8:
		return 3
	case sensor.FormatRGBA8, sensor.FormatBGRA8:
		return 4
	case sensor.FormatY8:
		return 1
	}
	return 0
}

// parallelPixels is the picture size from which Convert splits the rows
// between cores: below it, handing rows over costs more than it saves.
const parallelPixels = 64 * 1024

// Convert converts the w×h picture src (format from, rows srcStride bytes
// apart) into dst (format to, rows packed: w*OutBytes(to) bytes each). w
// must be even. An MJPEG src is one compressed frame (srcStride is not
// used): see DecodeMJPEG.
func Convert(dst []byte, to sensor.Format, src []byte, from sensor.Format, w, h, srcStride int) error {
	ob := OutBytes(to)
	if !Sources(from) || ob == 0 {
		return fmt.Errorf("%w: %s to %s", ErrFormat, from, to)
	}
	if from == sensor.FormatMJPEG {
		return DecodeMJPEG(dst, to, src, w, h)
	}
	if w <= 0 || h <= 0 || w%2 != 0 {
		return fmt.Errorf("yuv: %dx%d %s: want a positive size with an even width", w, h, from)
	}
	if srcStride < 2*w || len(src) < srcStride*(h-1)+2*w {
		return fmt.Errorf("yuv: %dx%d %s: %d bytes with stride %d are too few", w, h, from, len(src), srcStride)
	}
	if len(dst) < w*h*ob {
		return fmt.Errorf("yuv: %dx%d %s: %d bytes of output, want %d", w, h, to, len(dst), w*h*ob)
	}
	j := job{dst: dst, src: src, to: to, uyvy: from == sensor.FormatUYVY, w: w, stride: srcStride, ob: ob}
	n := runtime.GOMAXPROCS(0)
	if n == 1 || w*h < parallelPixels || h < 2 {
		j.rows(0, h)
		return nil
	}
	n = min(n, h)
	startWorkers()
	b := batches.Get().(*batch)
	b.wg.Add(n - 1)
	for i := 1; i < n; i++ {
		k := j
		k.y0, k.y1, k.b = h*i/n, h*(i+1)/n, b
		jobs <- k
	}
	j.rows(0, h/n)
	b.wg.Wait()
	batches.Put(b)
	return nil
}

// job converts rows [y0, y1) of a picture.
type job struct {
	dst, src  []byte
	to        sensor.Format
	uyvy      bool
	w, stride int
	ob        int
	y0, y1    int
	b         *batch
}

type batch struct{ wg sync.WaitGroup }

var (
	batches     = sync.Pool{New: func() any { return new(batch) }}
	jobs        = make(chan job, 64)
	workersOnce sync.Once
)

// startWorkers starts the conversion goroutines (one per core beside the
// caller's) once.
func startWorkers() {
	workersOnce.Do(func() {
		for range max(runtime.NumCPU()-1, 1) {
			go func() {
				for j := range jobs {
					j.rows(j.y0, j.y1)
					j.b.wg.Done()
				}
			}()
		}
	})
}

func clamp(x int32) byte {
	if x < 0 {
		return 0
	}
	if x > 255 {
		return 255
	}
	return byte(x)
}

// rows converts rows [y0, y1).
func (j *job) rows(y0, y1 int) {
	yo, uo, vo := 0, 1, 3 // YUYV: Y0 U Y1 V
	if j.uyvy {
		yo, uo, vo = 1, 0, 2 // UYVY: U Y0 V Y1
	}
	w, ob := j.w, j.ob
	ri, bi := 0, 2 // RGB8, RGBA8
	if j.to == sensor.FormatBGR8 || j.to == sensor.FormatBGRA8 {
		ri, bi = 2, 0
	}
	for y := y0; y < y1; y++ {
		src := j.src[y*j.stride : y*j.stride+2*w]
		dst := j.dst[y*w*ob : (y+1)*w*ob]
		if j.to == sensor.FormatY8 {
			for x := 0; x < w; x++ {
				dst[x] = src[2*x+yo]
			}
			continue
		}
		for x := 0; x+1 < w; x += 2 {
			q := src[2*x : 2*x+4 : 2*x+4]
			d, e := int32(q[uo])-128, int32(q[vo])-128
			rv, gv, bv := 409*e+128, -100*d-208*e+128, 516*d+128
			c0, c1 := 298*(int32(q[yo])-16), 298*(int32(q[yo+2])-16)
			p := dst[x*ob : (x+2)*ob : (x+2)*ob]
			p[ri], p[1], p[bi] = clamp((c0+rv)>>8), clamp((c0+gv)>>8), clamp((c0+bv)>>8)
			p[ob+ri], p[ob+1], p[ob+bi] = clamp((c1+rv)>>8), clamp((c1+gv)>>8), clamp((c1+bv)>>8)
			if ob == 4 {
				p[3], p[7] = 255, 255
			}
		}
	}
}

// Frame returns f (a YUYV, UYVY or MJPEG video frame) converted to format to: a
// new frame with the same number, times and metadata, a profile like f's
// in format to, and its own pixels (rows packed).
func Frame(f *sensor.Frame, to sensor.Format) (*sensor.Frame, error) {
	if f == nil || f.Profile == nil {
		return nil, errors.New("yuv: nil frame")
	}
	ob := OutBytes(to)
	if ob == 0 || !Sources(f.Profile.Format) {
		return nil, fmt.Errorf("frame %d: %w: %s to %s", f.Number, ErrFormat, f.Profile.Format, to)
	}
	out := *f
	p := *f.Profile
	p.Format = to
	out.Profile = &p
	out.Data = make([]byte, f.Width*f.Height*ob)
	out.Stride, out.BPP = f.Width*ob, 8*ob
	if err := Convert(out.Data, to, f.Data, f.Profile.Format, f.Width, f.Height, f.Stride); err != nil {
		return nil, fmt.Errorf("frame %d: %w", f.Number, err)
	}
	return &out, nil
}
