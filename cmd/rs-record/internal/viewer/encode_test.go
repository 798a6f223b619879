package viewer

import (
	"bytes"
	"image/jpeg"
	"image/png"
	"path/filepath"
	"testing"
)

// BenchmarkEncode measures the ways a picture can travel, on the real D435
// recording's frames (640x480): JPEG (the default), PNG (lossless, on
// request) and raw RGBA (no encoding, the bytes a canvas would take). It
// reports the bytes per picture and the pictures one core encodes per
// second, render included.
func BenchmarkEncode(b *testing.B) {
	refs := refFrames(b, filepath.Join(refDir, "real", "single_depth_color_640x480.bag"))
	for _, stream := range []string{"Depth/0", "Color/0"} {
		f := refs[stream][0].f
		for _, codec := range []string{"jpeg", "png", "raw"} {
			b.Run(stream[:len(stream)-2]+"/"+codec, func(b *testing.B) {
				var (
					r   renderer
					buf bytes.Buffer
					enc = &png.Encoder{CompressionLevel: png.BestSpeed}
				)
				size := 0
				for b.Loop() {
					img, _, err := r.render(f, 0)
					if err != nil {
						b.Fatal(err)
					}
					buf.Reset()
					switch codec {
					case "jpeg":
						err = jpeg.Encode(&buf, img, &jpeg.Options{Quality: jpegQuality})
					case "png":
						err = enc.Encode(&buf, img)
					case "raw":
						buf.Write(img.Pix)
					}
					if err != nil {
						b.Fatal(err)
					}
					size = buf.Len()
				}
				b.ReportMetric(float64(size), "bytes/picture")
				b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "pictures/s")
			})
		}
	}
}
