package processing

import (
	"bytes"
	"testing"

	"github.com/rsbag/rsbag/internal/yuv"
	"github.com/rsbag/rsbag/sensor"
)

// TestPLYYUYVTexture: a cloud textured with a YUYV frame (the color of
// older live recordings) is written with the colors of that frame
// converted to RGB8 as librealsense converts it, the same file as with the
// converted frame.
func TestPLYYUYVTexture(t *testing.T) {
	const w, h = 4, 2
	pts := &Points{Frame: &sensor.Frame{Width: w, Height: h}}
	for i := range w * h {
		pts.Vertices = append(pts.Vertices, [3]float32{float32(i%w) * 0.1, float32(i/w) * 0.1, 1})
		pts.TexCoords = append(pts.TexCoords, [2]float32{(float32(i%w) + 0.25) / w, (float32(i/w) + 0.25) / h})
	}
	data := []byte{81, 90, 128, 240, 16, 128, 235, 128, 0, 255, 0, 0, 128, 128, 128, 128}
	tex := &sensor.Frame{Profile: &sensor.StreamProfile{Stream: sensor.StreamColor, Format: sensor.FormatYUYV, Kind: sensor.KindVideo},
		Number: 5, Width: w, Height: h, Stride: 2 * w, BPP: 16, Data: data}
	rgb, err := yuv.Frame(tex, sensor.FormatRGB8)
	if err != nil {
		t.Fatal(err)
	}
	var got, want bytes.Buffer
	if err := pts.WritePLY(&got, tex, PLYOptions{ASCII: true, NoMesh: true}); err != nil {
		t.Fatalf("YUYV texture: %v", err)
	}
	if err := pts.WritePLY(&want, rgb, PLYOptions{ASCII: true, NoMesh: true}); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got.Bytes(), want.Bytes()) {
		t.Errorf("with the YUYV texture:\n%s\nwith it converted to RGB8:\n%s", got.String(), want.String())
	}
	if !bytes.Contains(got.Bytes(), []byte(" 255 0 0\n")) {
		t.Errorf("the first pixel (Y 81, U 90, V 240) is not red:\n%s", got.String())
	}
}
