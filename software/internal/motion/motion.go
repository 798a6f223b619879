// Package motion holds the camera trajectories of package scene's
// Motions: the synthetic camera's pose at any time and the accelerometer
// and gyroscope samples the motion gives, with exact derivatives.
package motion

import (
	"fmt"
	"math"

	"github.com/rsbag/rsbag/software/scene"
)

// wave is a·sin(2π·f·t + phase).
type wave struct{ a, f, phase float64 }

// waves is a sum of waves: a coordinate of a trajectory.
type waves []wave

func (w waves) at(t float64) (v, d1, d2 float64) {
	for _, x := range w {
		o := 2 * math.Pi * x.f
		s, c := math.Sincos(o*t + x.phase)
		v += x.a * s
		d1 += x.a * o * c
		d2 -= x.a * o * o * s
	}
	return v, d1, d2
}

// Trajectory is a camera motion: position and yaw, pitch and roll as sums
// of sine waves (the rotation is R = Ry(yaw)·Rx(pitch)·Rz(roll), about the
// camera's y, x and z axes), so that every derivative is exact.
type Trajectory struct {
	Name             string
	pos              [3]waves
	yaw, pitch, roll waves
}

// NewTrajectory returns the trajectory name, one of scene.Motions (whose
// doc describes them).
func NewTrajectory(name string) (*Trajectory, error) {
	tr := &Trajectory{Name: name}
	switch name {
	case "still":
	case "pan":
		tr.yaw = waves{{0.5, 1.0 / 12, 0}}
	case "walk":
		const step = 0.9 // Hz
		tr.pos = [3]waves{
			{{0.03, step / 2, 0}},
			{{0.02, step, math.Pi / 2}, {-0.02, 0, math.Pi / 2}}, // starts at 0
			{{0.2, 1.0 / 16, -math.Pi / 2}, {0.2, 0, math.Pi / 2}},
		}
		tr.yaw = waves{{0.25, 1.0 / 16, 0}}
		tr.pitch = waves{{0.03, step, 0}}
		tr.roll = waves{{0.02, step / 2, 1}, {-0.02 * math.Sin(1), 0, math.Pi / 2}}
	default:
		return nil, fmt.Errorf("scene: unknown motion %q: want one of %v", name, scene.Motions)
	}
	return tr, nil
}

// rotY, rotX and rotZ are the rotations by a about the y, x and z axes.
func rotY(a float64) [9]float64 {
	s, c := math.Sincos(a)
	return [9]float64{c, 0, s, 0, 1, 0, -s, 0, c}
}
func rotX(a float64) [9]float64 {
	s, c := math.Sincos(a)
	return [9]float64{1, 0, 0, 0, c, -s, 0, s, c}
}
func rotZ(a float64) [9]float64 {
	s, c := math.Sincos(a)
	return [9]float64{c, -s, 0, s, c, 0, 0, 0, 1}
}

// scene.Pose returns the camera's pose at t seconds.
func (tr *Trajectory) Pose(t float64) scene.Pose {
	y, _, _ := tr.yaw.at(t)
	p, _, _ := tr.pitch.at(t)
	r, _, _ := tr.roll.at(t)
	rot := scene.Pose{R: rotY(y)}.Compose(scene.Pose{R: rotX(p)}).Compose(scene.Pose{R: rotZ(r)})
	for a := range 3 {
		rot.T[a], _, _ = tr.pos[a].at(t)
	}
	return rot
}

// Gyro returns the angular velocity (rad/s) at t seconds in the camera's
// axes, what a gyroscope aligned with the camera measures.
func (tr *Trajectory) Gyro(t float64) scene.Vec3 {
	_, dy, _ := tr.yaw.at(t)
	p, dp, _ := tr.pitch.at(t)
	r, dr, _ := tr.roll.at(t)
	// ω = Rzᵀ·Rxᵀ·(0, yaw', 0) + Rzᵀ·(pitch', 0, 0) + (0, 0, roll').
	rz := scene.Pose{R: rotZ(r)}.Inverse()
	rx := scene.Pose{R: rotX(p)}.Inverse()
	w := rz.Rotate(rx.Rotate(scene.Vec3{0, dy, 0}))
	w = add(w, rz.Rotate(scene.Vec3{dp, 0, 0}))
	return add(w, scene.Vec3{0, 0, dr})
}

// Accel returns the specific force (m/s²) at t seconds in the camera's
// axes, what an accelerometer aligned with the camera measures: the
// acceleration less gravity, so that a camera at rest reads (0, −g, 0).
func (tr *Trajectory) Accel(t float64) scene.Vec3 {
	a := tr.Acceleration(t)
	a[1] -= scene.Gravity
	return tr.Pose(t).Inverse().Rotate(a)
}

// Velocity returns the camera's velocity (m/s, world) at t seconds.
func (tr *Trajectory) Velocity(t float64) scene.Vec3 {
	var v scene.Vec3
	for i := range 3 {
		_, v[i], _ = tr.pos[i].at(t)
	}
	return v
}

// Acceleration returns the camera's acceleration (m/s², world) at t
// seconds, gravity not included.
func (tr *Trajectory) Acceleration(t float64) scene.Vec3 {
	var a scene.Vec3
	for i := range 3 {
		_, _, a[i] = tr.pos[i].at(t)
	}
	return a
}

// Spin returns the camera's angular velocity (rad/s) and angular
// acceleration (rad/s²) at t seconds, in the world's axes (the angular
// velocity is the pose's rotation of Gyro).
func (tr *Trajectory) Spin(t float64) (w, dw scene.Vec3) {
	y, dy, ddy := tr.yaw.at(t)
	p, dp, ddp := tr.pitch.at(t)
	_, dr, ddr := tr.roll.at(t)
	ry := scene.Pose{R: rotY(y)}
	ey := scene.Vec3{0, 1, 0}
	ex := ry.Rotate(scene.Vec3{1, 0, 0})                                 // the pitch axis
	ez := ry.Compose(scene.Pose{R: rotX(p)}).Rotate(scene.Vec3{0, 0, 1}) // the roll axis
	// R = Ry·Rx·Rz turns at ω = yaw'·ey + pitch'·ex + roll'·ez; ex turns
	// with Ry (at yaw'·ey), ez with Ry·Rx (at w1).
	w1 := add(scale(ey, dy), scale(ex, dp))
	w = add(w1, scale(ez, dr))
	dw = add(scale(ey, ddy), scale(ex, ddp))
	dw = add(dw, scale(cross(scale(ey, dy), ex), dp))
	dw = add(dw, scale(ez, ddr))
	dw = add(dw, scale(cross(w1, ez), dr))
	return w, dw
}

func cross(a, b scene.Vec3) scene.Vec3 {
	return scene.Vec3{a[1]*b[2] - a[2]*b[1], a[2]*b[0] - a[0]*b[2], a[0]*b[1] - a[1]*b[0]}
}

func add(a, b scene.Vec3) scene.Vec3 { return scene.Vec3{a[0] + b[0], a[1] + b[1], a[2] + b[2]} }

func scale(v scene.Vec3, k float64) scene.Vec3 { return scene.Vec3{v[0] * k, v[1] * k, v[2] * k} }
