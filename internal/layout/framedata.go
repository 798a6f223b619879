// The payloads of motion and pose frames (sensor.Frame.Data), the layouts
// librealsense gives them.

package layout

import (
	"encoding/binary"
	"fmt"
	"math"

	"github.com/rsbag/rsbag/sensor"
)

// PoseSize is the size of the rs2_pose layout in bytes: six float32 vectors
// (rotation has four components, the others three) and two uint32
// confidences.
const PoseSize = (3+3+3+4+3+3)*4 + 2*4

// AppendPose appends the little-endian rs2_pose layout of p to b: translation,
// velocity, acceleration, rotation (x, y, z, w), angular velocity, angular
// acceleration, tracker confidence, mapper confidence.
func AppendPose(b []byte, p *sensor.Pose) []byte {
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
func DecodePose(b []byte) (sensor.Pose, error) {
	var p sensor.Pose
	if len(b) != PoseSize {
		return p, fmt.Errorf("layout: pose data is %d bytes, want %d", len(b), PoseSize)
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
