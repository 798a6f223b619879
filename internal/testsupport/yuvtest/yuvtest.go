// Package yuvtest makes the color pictures and MJPEG frames of tests: a
// smooth known picture, and MJPEG frames with or without Huffman tables as
// UVC cameras send them.
package yuvtest

import (
	"bytes"
	"image"
	"image/color"
	"image/jpeg"
)

// Tolerance is how far a pixel of a Picture encoded by MJPEG and decoded
// may be from the source: JPEG at quality 95 with 4:2:0 chroma keeps the
// smooth gradients within a few levels.
const Tolerance = 8

// Picture returns a w×h picture of smooth gradients (red across, green
// down, blue along the diagonal), which JPEG keeps within a few levels.
func Picture(w, h int) *image.RGBA {
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	for y := range h {
		for x := range w {
			img.SetRGBA(x, y, color.RGBA{byte(255 * x / max(w-1, 1)), byte(255 * y / max(h-1, 1)),
				byte(255 * (x + y) / max(w+h-2, 1)), 255})
		}
	}
	return img
}

// MJPEG returns img encoded by Go's image/jpeg at quality 95; without
// tables, with its DHT segment (the Huffman tables) removed, as many UVC
// cameras send their frames.
func MJPEG(img image.Image, tables bool) []byte {
	var b bytes.Buffer
	if err := jpeg.Encode(&b, img, &jpeg.Options{Quality: 95}); err != nil {
		panic(err) // not reached: an in-memory encode
	}
	if tables {
		return b.Bytes()
	}
	return StripTables(b.Bytes())
}

// StripTables returns a copy of a JPEG stream without its DHT segments
// (marker 0xFFC4) before the scan.
func StripTables(j []byte) []byte {
	out := append([]byte(nil), j[:2]...)
	off := 2
	for off+4 <= len(j) && j[off] == 0xFF && j[off+1] != 0xDA {
		n := 2 + (int(j[off+2])<<8 | int(j[off+3]))
		if j[off+1] != 0xC4 {
			out = append(out, j[off:off+n]...)
		}
		off += n
	}
	return append(out, j[off:]...)
}
