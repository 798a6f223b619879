// Package imaging turns camera frames (not depth) into Go images: the one
// place where the pixel formats of librealsense's video streams are read as
// pictures, for the viewer and for rs-record convert.
package imaging

import (
	"encoding/binary"
	"errors"
	"fmt"
	"image"

	"github.com/rsbag/rsbag/internal/yuv"
	"github.com/rsbag/rsbag/sensor"
)

// ErrFormat is wrapped by the error for a format that is not a picture this
// package draws (depth formats and raw sensor formats among them).
var ErrFormat = errors.New("format not drawn as a picture")

// BytesPerPixel returns the bytes per pixel of the formats Draw reads, or
// an error wrapping ErrFormat.
func BytesPerPixel(f sensor.Format) (int, error) {
	switch f {
	case sensor.FormatRGB8, sensor.FormatBGR8:
		return 3, nil
	case sensor.FormatRGBA8, sensor.FormatBGRA8, sensor.FormatDisparity32:
		return 4, nil
	case sensor.FormatY8:
		return 1, nil
	case sensor.FormatY16, sensor.FormatZ16, sensor.FormatDisparity16, sensor.FormatYUYV, sensor.FormatUYVY:
		return 2, nil
	}
	return 0, fmt.Errorf("%w: %s", ErrFormat, f)
}

// Check returns an error naming the frame when its data is too short for
// its size, stride and format (for MJPEG: when it is empty).
func Check(f *sensor.Frame) error {
	if f.Profile.Format == sensor.FormatMJPEG {
		if f.Width <= 0 || f.Height <= 0 || len(f.Data) == 0 {
			return fmt.Errorf("frame %d: %d bytes of %dx%d MJPEG", f.Number, len(f.Data), f.Width, f.Height)
		}
		return nil
	}
	bpp, err := BytesPerPixel(f.Profile.Format)
	if err != nil {
		return err
	}
	w, h := f.Width, f.Height
	if w <= 0 || h <= 0 || f.Stride < w*bpp || len(f.Data) < f.Stride*(h-1)+w*bpp {
		return fmt.Errorf("frame %d: %d bytes, stride %d: too short for %dx%d %s", f.Number, len(f.Data), f.Stride, w, h, f.Profile.Format)
	}
	return nil
}

// Draw draws a camera frame (RGB8, BGR8, RGBA8, BGRA8, Y8, Y16, YUYV,
// UYVY or MJPEG) into dst, which must be f's size: colors as they are, gray
// levels as gray (the high byte of Y16), YUYV and UYVY converted and MJPEG
// decoded as librealsense does (package internal/yuv).
func Draw(dst *image.RGBA, f *sensor.Frame) error {
	if err := Check(f); err != nil {
		return err
	}
	w, h := f.Width, f.Height
	if dst.Rect.Dx() != w || dst.Rect.Dy() != h {
		return fmt.Errorf("imaging: %dx%d destination for a %dx%d frame", dst.Rect.Dx(), dst.Rect.Dy(), w, h)
	}
	format := f.Profile.Format
	if format == sensor.FormatMJPEG {
		return drawMJPEG(dst, f)
	}
	bpp, _ := BytesPerPixel(format)
	for y := 0; y < h; y++ {
		src := f.Data[y*f.Stride : y*f.Stride+w*bpp]
		row := dst.Pix[y*dst.Stride : y*dst.Stride+4*w]
		switch format {
		case sensor.FormatRGB8:
			for x := 0; x < w; x++ {
				row[4*x], row[4*x+1], row[4*x+2], row[4*x+3] = src[3*x], src[3*x+1], src[3*x+2], 255
			}
		case sensor.FormatBGR8:
			for x := 0; x < w; x++ {
				row[4*x], row[4*x+1], row[4*x+2], row[4*x+3] = src[3*x+2], src[3*x+1], src[3*x], 255
			}
		case sensor.FormatRGBA8:
			copy(row, src)
		case sensor.FormatBGRA8:
			for x := 0; x < w; x++ {
				row[4*x], row[4*x+1], row[4*x+2], row[4*x+3] = src[4*x+2], src[4*x+1], src[4*x], src[4*x+3]
			}
		case sensor.FormatY8:
			for x := 0; x < w; x++ {
				v := src[x]
				row[4*x], row[4*x+1], row[4*x+2], row[4*x+3] = v, v, v, 255
			}
		case sensor.FormatY16:
			for x := 0; x < w; x++ {
				v := src[2*x+1] // high byte of the little-endian sample
				row[4*x], row[4*x+1], row[4*x+2], row[4*x+3] = v, v, v, 255
			}
		case sensor.FormatYUYV, sensor.FormatUYVY:
			if err := yuv.Convert(row, sensor.FormatRGBA8, src, format, w&^1, 1, len(src)); err != nil {
				return fmt.Errorf("imaging: frame %d: %w", f.Number, err)
			}
		default:
			return fmt.Errorf("%w: %s", ErrFormat, format)
		}
	}
	return nil
}

// Image returns f as an image without converting it where Go has the same
// pixel layout — Y8 as *image.Gray and RGBA8 as *image.NRGBA sharing f's
// bytes — Y16 as a *image.Gray16 with all 16 bits, and other camera
// formats drawn into an *image.RGBA (from buf when it is f's size).
func Image(f *sensor.Frame, buf *image.RGBA) (image.Image, error) {
	if err := Check(f); err != nil {
		return nil, err
	}
	r := image.Rect(0, 0, f.Width, f.Height)
	switch f.Profile.Format {
	case sensor.FormatY8:
		return &image.Gray{Pix: f.Data, Stride: f.Stride, Rect: r}, nil
	case sensor.FormatRGBA8:
		return &image.NRGBA{Pix: f.Data, Stride: f.Stride, Rect: r}, nil
	case sensor.FormatY16:
		g := image.NewGray16(r)
		for y := 0; y < f.Height; y++ {
			src, dst := f.Data[y*f.Stride:], g.Pix[y*g.Stride:]
			for x := 0; x < f.Width; x++ {
				binary.BigEndian.PutUint16(dst[2*x:], binary.LittleEndian.Uint16(src[2*x:]))
			}
		}
		return g, nil
	case sensor.FormatZ16, sensor.FormatDisparity16, sensor.FormatDisparity32:
		return nil, fmt.Errorf("%w: %s is depth (colorize it)", ErrFormat, f.Profile.Format)
	}
	if buf == nil || buf.Rect != r {
		buf = image.NewRGBA(r)
	}
	if err := Draw(buf, f); err != nil {
		return nil, err
	}
	return buf, nil
}

// drawMJPEG decodes an MJPEG frame into dst (through a packed copy when
// dst's rows are not).
func drawMJPEG(dst *image.RGBA, f *sensor.Frame) error {
	w, h := f.Width, f.Height
	pix := dst.Pix
	if dst.Stride != 4*w {
		pix = make([]byte, 4*w*h)
	}
	if err := yuv.DecodeMJPEG(pix, sensor.FormatRGBA8, f.Data, w, h); err != nil {
		return fmt.Errorf("imaging: frame %d: %w", f.Number, err)
	}
	if dst.Stride != 4*w {
		for y := range h {
			copy(dst.Pix[y*dst.Stride:y*dst.Stride+4*w], pix[4*w*y:])
		}
	}
	return nil
}

// JPEG returns the bytes of an MJPEG frame as a JPEG file every reader
// decodes: the frame itself, or a copy with the standard Huffman tables
// where the camera left them out.
func JPEG(f *sensor.Frame) []byte { return yuv.WithTables(f.Data) }
