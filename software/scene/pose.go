// Package scene is the small 3D world the synthetic camera (package
// software) films: the names of the built-in scenes and of the camera
// trajectories (still, pan, walk), and the poses the camera takes on them
// (software.Synthetic.Pose gives the pose at any time; a recording's ground
// truth holds it for each frame).
//
// Coordinates follow librealsense's cameras: x right, y down, z forward,
// meters. The world frame is the camera's frame at the start of a
// trajectory (its pose at t = 0 is the identity), so gravity points along
// +y. A Pose maps camera coordinates to world coordinates.
package scene

import (
	"math"

	"github.com/rsbag/rsbag/sensor"
)

// Vec3 is a point or a direction in meters.
type Vec3 = [3]float64

// Names lists the built-in scenes the synthetic camera films ("room": a
// room with three boxes, two spheres and a poster; "plane": the empty room,
// whose front wall is a plane 3 m ahead of the camera; "clutter": the room
// with seven boxes and five spheres); the first is the default.
var Names = []string{"room", "plane", "clutter"}

// Pose is a rigid transform p ↦ R·p + T (R row-major); a camera's pose maps
// its coordinates to the world's.
type Pose struct {
	R [9]float64
	T Vec3
}

// Identity returns the identity pose.
func Identity() Pose { return Pose{R: [9]float64{1, 0, 0, 0, 1, 0, 0, 0, 1}} }

// Rotate returns R·v.
func (p Pose) Rotate(v Vec3) Vec3 {
	r := &p.R
	return Vec3{r[0]*v[0] + r[1]*v[1] + r[2]*v[2], r[3]*v[0] + r[4]*v[1] + r[5]*v[2], r[6]*v[0] + r[7]*v[1] + r[8]*v[2]}
}

// Apply returns R·v + T.
func (p Pose) Apply(v Vec3) Vec3 { return add(p.Rotate(v), p.T) }

// Compose returns p∘q, the pose that applies q first, then p.
func (p Pose) Compose(q Pose) Pose {
	var out Pose
	for i := range 3 {
		for j := range 3 {
			out.R[3*i+j] = p.R[3*i]*q.R[j] + p.R[3*i+1]*q.R[3+j] + p.R[3*i+2]*q.R[6+j]
		}
	}
	out.T = p.Apply(q.T)
	return out
}

// Inverse returns p⁻¹.
func (p Pose) Inverse() Pose {
	var out Pose
	for i := range 3 {
		for j := range 3 {
			out.R[3*i+j] = p.R[3*j+i]
		}
	}
	t := out.Rotate(p.T)
	out.T = Vec3{-t[0], -t[1], -t[2]}
	return out
}

// FromExtrinsics returns the pose of librealsense extrinsics (column-major
// rotation): the map from the "from" stream's coordinates to the "to"
// stream's.
func FromExtrinsics(e sensor.Extrinsics) Pose {
	var p Pose
	for i := range 3 {
		for j := range 3 {
			p.R[3*i+j] = float64(e.Rotation[3*j+i])
		}
		p.T[i] = float64(e.Translation[i])
	}
	return p
}

// Quaternion returns the rotation of p as a unit quaternion (x, y, z, w)
// with w ≥ 0.
func (p Pose) Quaternion() [4]float64 {
	r := &p.R
	var q [4]float64
	tr := r[0] + r[4] + r[8]
	switch {
	case tr > 0:
		s := 2 * math.Sqrt(tr+1)
		q = [4]float64{(r[7] - r[5]) / s, (r[2] - r[6]) / s, (r[3] - r[1]) / s, s / 4}
	case r[0] > r[4] && r[0] > r[8]:
		s := 2 * math.Sqrt(1+r[0]-r[4]-r[8])
		q = [4]float64{s / 4, (r[1] + r[3]) / s, (r[2] + r[6]) / s, (r[7] - r[5]) / s}
	case r[4] > r[8]:
		s := 2 * math.Sqrt(1+r[4]-r[0]-r[8])
		q = [4]float64{(r[1] + r[3]) / s, s / 4, (r[5] + r[7]) / s, (r[2] - r[6]) / s}
	default:
		s := 2 * math.Sqrt(1+r[8]-r[0]-r[4])
		q = [4]float64{(r[2] + r[6]) / s, (r[5] + r[7]) / s, s / 4, (r[3] - r[1]) / s}
	}
	if q[3] < 0 {
		q = [4]float64{-q[0], -q[1], -q[2], -q[3]}
	}
	return q
}

func add(a, b Vec3) Vec3 { return Vec3{a[0] + b[0], a[1] + b[1], a[2] + b[2]} }
