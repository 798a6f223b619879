package sensor

import (
	"encoding/binary"
	"math"
	"strings"
	"testing"
)

func TestFrameDistance(t *testing.T) {
	depth := &StreamProfile{Stream: StreamDepth, Format: FormatZ16, Width: 3, Height: 2}
	// Two rows of 3 pixels, with 2 bytes of row padding.
	data := make([]byte, 2*8)
	for i, v := range []uint16{0, 1000, 65535, 7, 1, 2500} {
		binary.LittleEndian.PutUint16(data[(i/3)*8+2*(i%3):], v)
	}
	f := &Frame{Profile: depth, Data: data, Width: 3, Height: 2, Stride: 8, BPP: 16, DepthUnits: 0.001}
	for _, c := range []struct {
		x, y int
		want float32
	}{
		{0, 0, 0}, {1, 0, 1}, {2, 0, float32(65535) * 0.001}, {0, 1, float32(7) * 0.001}, {2, 1, 2.5},
	} {
		got, err := f.Distance(c.x, c.y)
		if err != nil || got != c.want {
			t.Errorf("Distance(%d, %d) = %v, %v; want %v", c.x, c.y, got, err, c.want)
		}
	}
	if f.Units() != 0.001 || f.bytesPerPixel() != 2 || !f.IsVideo() || f.IsMotion() || f.IsPose() {
		t.Errorf("accessors of a depth frame: units %v bpp %d video %v motion %v pose %v",
			f.Units(), f.bytesPerPixel(), f.IsVideo(), f.IsMotion(), f.IsPose())
	}

	bad := []struct {
		name string
		f    *Frame
		x, y int
		want string
	}{
		{"left", f, -1, 0, "outside the image"},
		{"below", f, 0, 2, "outside the image"},
		{"right", f, 3, 0, "outside the image"},
		{"color", &Frame{Profile: &StreamProfile{Stream: StreamColor, Format: FormatRGB8}, Width: 3, Height: 2}, 0, 0, "want a Z16 depth frame"},
		{"no profile", &Frame{Width: 3, Height: 2}, 0, 0, "want a Z16 depth frame"},
		{"no units", &Frame{Profile: depth, Data: data, Width: 3, Height: 2, Stride: 8}, 0, 0, "not a positive number"},
		{"NaN units", &Frame{Profile: depth, Data: data, Width: 3, Height: 2, Stride: 8, DepthUnits: float32(math.NaN())}, 0, 0, "not a positive number"},
		{"short data", &Frame{Profile: depth, Data: data[:10], Width: 3, Height: 2, Stride: 8, DepthUnits: 0.001}, 2, 1, "data holds 10 bytes"},
	}
	for _, c := range bad {
		if _, err := c.f.Distance(c.x, c.y); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: Distance(%d, %d) error %v, want one containing %q", c.name, c.x, c.y, err, c.want)
		}
	}

	gyro := &Frame{Profile: &StreamProfile{Stream: StreamGyro}}
	pose := &Frame{Profile: &StreamProfile{Stream: StreamPose}}
	if !gyro.IsMotion() || gyro.IsVideo() || !pose.IsPose() || pose.IsMotion() {
		t.Error("motion and pose frames misclassified")
	}
}
