package ros2

import (
	"math"

	"github.com/rsbag/rsbag/sensor"
)

// quat is a rotation quaternion (x, y, z, w).
type quat struct{ x, y, z, w float64 }

func (a quat) mul(b quat) quat {
	return quat{
		x: a.w*b.x + a.x*b.w + a.y*b.z - a.z*b.y,
		y: a.w*b.y - a.x*b.z + a.y*b.w + a.z*b.x,
		z: a.w*b.z + a.x*b.y - a.y*b.x + a.z*b.w,
		w: a.w*b.w - a.x*b.x - a.y*b.y - a.z*b.z,
	}
}

func (a quat) inverse() quat {
	n := a.x*a.x + a.y*a.y + a.z*a.z + a.w*a.w
	return quat{-a.x / n, -a.y / n, -a.z / n, a.w / n}
}

// rpy returns the quaternion of fixed-axis rotations about x (roll), y
// (pitch) and z (yaw), applied in that order, as tf2's setRPY.
func rpy(roll, pitch, yaw float64) quat {
	sr, cr := math.Sincos(roll / 2)
	sp, cp := math.Sincos(pitch / 2)
	sy, cy := math.Sincos(yaw / 2)
	return quat{
		x: sr*cp*cy - cr*sp*sy,
		y: cr*sp*cy + sr*cp*sy,
		z: cr*cp*sy - sr*sp*cy,
		w: cr*cp*cy + sr*sp*sy,
	}
}

// opticalRotation turns the ROS body frame of a stream (x forward, y left,
// z up) into its optical frame (z forward, x right, y down): the wrapper's
// setRPY(-π/2, 0, -π/2).
var opticalRotation = rpy(-math.Pi/2, 0, -math.Pi/2)

// matrixQuat returns the quaternion of the rotation matrix m, given column
// major as librealsense stores extrinsics rotations.
func matrixQuat(rot [9]float32) quat {
	m := func(r, c int) float64 { return float64(rot[c*3+r]) }
	t := m(0, 0) + m(1, 1) + m(2, 2)
	if t > 0 {
		s := math.Sqrt(t+1) * 2
		return quat{(m(2, 1) - m(1, 2)) / s, (m(0, 2) - m(2, 0)) / s, (m(1, 0) - m(0, 1)) / s, s / 4}
	}
	// The largest diagonal element gives the best conditioned component.
	i := 0
	if m(1, 1) > m(0, 0) {
		i = 1
	}
	if m(2, 2) > m(i, i) {
		i = 2
	}
	j, k := (i+1)%3, (i+2)%3
	s := math.Sqrt(m(i, i)-m(j, j)-m(k, k)+1) * 2
	var v [3]float64
	v[i] = s / 4
	v[j] = (m(j, i) + m(i, j)) / s
	v[k] = (m(k, i) + m(i, k)) / s
	return quat{v[0], v[1], v[2], (m(k, j) - m(j, k)) / s}
}

// transform is one geometry_msgs/TransformStamped of /tf_static.
type transform struct {
	parent, child string
	translation   [3]float64
	rotation      quat
}

// bodyTransform returns the transform from the base frame to a stream's
// body frame for the librealsense extrinsics from the stream to the base
// stream: the rotation carried from optical to ROS axes, the translation
// (x, y, z optical) as (z, −x, −y).
func bodyTransform(parent, child string, ex sensor.Extrinsics) transform {
	q := opticalRotation.mul(matrixQuat(ex.Rotation)).mul(opticalRotation.inverse())
	t := ex.Translation
	return transform{parent, child, [3]float64{float64(t[2]), -float64(t[0]), -float64(t[1])}, q}
}
