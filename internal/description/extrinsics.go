package description

import (
	"github.com/rsbag/rsbag/msgs"
	"github.com/rsbag/rsbag/sensor"
)

// fromTransform converts a recorded tf (translation + quaternion) to a
// rigid transform with the standard quaternion→matrix formula of spec §5.8,
// evaluated in float64 and rounded to float32 (this reproduces librealsense's
// reported extrinsics bit for bit, TestGolden).
func fromTransform(tf *msgs.Transform) sensor.Extrinsics {
	x, y, z, w := tf.Rotation.X, tf.Rotation.Y, tf.Rotation.Z, tf.Rotation.W
	m := [9]float64{
		1 - 2*y*y - 2*z*z, 2*x*y + 2*z*w, 2*x*z - 2*y*w,
		2*x*y - 2*z*w, 1 - 2*x*x - 2*z*z, 2*y*z + 2*x*w,
		2*x*z + 2*y*w, 2*y*z - 2*x*w, 1 - 2*x*x - 2*y*y,
	}
	var r sensor.Extrinsics
	for i := range m {
		r.Rotation[i] = float32(m[i])
	}
	r.Translation = [3]float32{float32(tf.Translation.X), float32(tf.Translation.Y), float32(tf.Translation.Z)}
	return r
}
