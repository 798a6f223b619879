package sensor

import (
	"encoding/binary"
	"fmt"
	"math"
)

// Units returns the meters per depth unit of a depth frame (librealsense's
// depth_frame::get_units, the depth sensor's Depth Units option when the
// frame was made), and 0 for any other frame.
func (f *Frame) Units() float32 { return f.DepthUnits }

// Distance returns the distance in meters of the depth pixel at column x,
// row y, as librealsense's depth_frame::get_distance: the raw Z16 value
// times Units. A pixel with no depth is 0. It is an error to ask a frame that
// is not Z16 depth with known units, or a pixel outside the image.
func (f *Frame) Distance(x, y int) (float32, error) {
	switch {
	case f.Profile == nil || f.Profile.Format != FormatZ16:
		return 0, fmt.Errorf("sensor: distance of a %s frame: want a Z16 depth frame", f.describe())
	case f.DepthUnits <= 0 || math.IsNaN(float64(f.DepthUnits)) || math.IsInf(float64(f.DepthUnits), 0):
		return 0, fmt.Errorf("sensor: distance of a %s frame: depth units %v are not a positive number", f.describe(), f.DepthUnits)
	case x < 0 || y < 0 || x >= f.Width || y >= f.Height:
		return 0, fmt.Errorf("sensor: distance of pixel (%d, %d) of a %dx%d %s frame: outside the image", x, y, f.Width, f.Height, f.describe())
	}
	off := y*f.Stride + 2*x
	if off+2 > len(f.Data) {
		return 0, fmt.Errorf("sensor: distance of pixel (%d, %d) of a %s frame: data holds %d bytes, pixel needs offset %d", x, y, f.describe(), len(f.Data), off+2)
	}
	return float32(binary.LittleEndian.Uint16(f.Data[off:])) * f.DepthUnits, nil
}

// bytesPerPixel returns BPP/8, the bytes of one pixel of a video frame.
func (f *Frame) bytesPerPixel() int { return f.BPP / 8 }

// IsVideo reports whether f is an image (depth, color, infrared, ...).
func (f *Frame) IsVideo() bool { return f.Width > 0 && f.Height > 0 }

// IsMotion reports whether f is an accelerometer or gyroscope sample, held
// in Motion.
func (f *Frame) IsMotion() bool {
	return f.Profile != nil && (f.Profile.Stream == StreamAccel || f.Profile.Stream == StreamGyro)
}

// IsPose reports whether f is a 6-DoF pose sample, held in Pose.
func (f *Frame) IsPose() bool { return f.Profile != nil && f.Profile.Stream == StreamPose }

func (f *Frame) describe() string {
	if f.Profile == nil {
		return "profile-less"
	}
	return f.Profile.Stream.String() + " " + f.Profile.Format.String()
}
