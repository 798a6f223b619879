package sensor

import (
	"encoding/binary"
	"fmt"
	"math"
)

// PoseSize is the size of the rs2_pose layout in bytes: six float32 vectors
// (rotation has four components, the others three) and two uint32
// confidences.
const PoseSize = (3+3+3+4+3+3)*4 + 2*4

// AppendPose appends the little-endian rs2_pose layout of p to b: translation,
// velocity, acceleration, rotation (x, y, z, w), angular velocity, angular
// acceleration, tracker confidence, mapper confidence.
func AppendPose(b []byte, p *Pose) []byte {
	put := func(v []float32) {
		for _, f := range v {
			b = binary.LittleEndian.AppendUint32(b, math.Float32bits(f))
		}
	}
	put(p.Translation[:])
	put(p.Velocity[:])
	put(p.Acceleration[:])
	put(p.Rotation[:])
	put(p.AngularVelocity[:])
	put(p.AngularAcceleration[:])
	b = binary.LittleEndian.AppendUint32(b, p.TrackerConfidence)
	return binary.LittleEndian.AppendUint32(b, p.MapperConfidence)
}

// DecodePose decodes the rs2_pose layout written by AppendPose.
func DecodePose(b []byte) (Pose, error) {
	var p Pose
	if len(b) != PoseSize {
		return p, fmt.Errorf("sensor: pose data is %d bytes, want %d", len(b), PoseSize)
	}
	get := func(v []float32) {
		for i := range v {
			v[i] = math.Float32frombits(binary.LittleEndian.Uint32(b))
			b = b[4:]
		}
	}
	get(p.Translation[:])
	get(p.Velocity[:])
	get(p.Acceleration[:])
	get(p.Rotation[:])
	get(p.AngularVelocity[:])
	get(p.AngularAcceleration[:])
	p.TrackerConfidence = binary.LittleEndian.Uint32(b)
	p.MapperConfidence = binary.LittleEndian.Uint32(b[4:])
	return p, nil
}

// AppendMotion appends three little-endian float32, the payload of a
// MOTION_XYZ32F frame.
func AppendMotion(b []byte, v [3]float32) []byte {
	for _, f := range v {
		b = binary.LittleEndian.AppendUint32(b, math.Float32bits(f))
	}
	return b
}

// BitsPerPixel returns the bits per pixel of a video format, or 0 for formats
// without a fixed pixel size (motion, pose, compressed).
func (f Format) BitsPerPixel() int {
	switch f {
	case FormatY8, FormatRAW8:
		return 8
	case FormatZ16, FormatDisparity16, FormatY16, FormatRAW16, FormatYUYV, FormatUYVY, FormatZ16H:
		return 16
	case FormatRGB8, FormatBGR8:
		return 24
	case FormatRGBA8, FormatBGRA8, FormatDisparity32:
		return 32
	case FormatRAW10:
		return 10
	case FormatY8I:
		return 16
	case FormatY12I:
		return 24
	case FormatXYZ32F:
		return 96
	}
	return 0
}
