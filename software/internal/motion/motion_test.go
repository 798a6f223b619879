package motion

import (
	"math"
	"testing"

	"github.com/rsbag/rsbag/software/scene"
)

// integrate returns the rotation that the angular velocities w (camera
// axes, rad/s) sampled every dt seconds make, as a pose (midpoint rule on
// each interval, exact rotation per step).
func integrate(w []scene.Vec3, dt float64) scene.Pose {
	p := scene.Identity()
	for i := 1; i < len(w); i++ {
		m := scale(add(w[i-1], w[i]), dt/2)
		p = p.Compose(scene.Pose{R: expSO3(m)})
	}
	return p
}

// expSO3 is the rotation matrix of the rotation vector v (Rodrigues).
func expSO3(v scene.Vec3) [9]float64 {
	th := math.Sqrt(dot(v, v))
	if th == 0 {
		return scene.Identity().R
	}
	k := scale(v, 1/th)
	s, c := math.Sincos(th)
	x, y, z := k[0], k[1], k[2]
	C := 1 - c
	return [9]float64{
		c + x*x*C, x*y*C - z*s, x*z*C + y*s,
		y*x*C + z*s, c + y*y*C, y*z*C - x*s,
		z*x*C - y*s, z*y*C + x*s, c + z*z*C,
	}
}

// angle returns the rotation angle of R.
func angle(r [9]float64) float64 {
	return math.Acos(max(-1, min(1, (r[0]+r[4]+r[8]-1)/2)))
}

// TestGyroIntegratesToTrajectory: the gyroscope sampled at 200 Hz,
// integrated over 2 s of the pan (and of the walk), gives the trajectory's
// rotation over that time within 1%; at rest the accelerometer reads
// (0, −g, 0), the D400 IMU's axes being the camera's (y down).
func TestGyroIntegratesToTrajectory(t *testing.T) {
	const hz, sec = 200, 2.0
	for _, name := range []string{"pan", "walk"} {
		tr, _ := NewTrajectory(name)
		var w []scene.Vec3
		for i := 0; i <= hz*sec; i++ {
			w = append(w, tr.Gyro(float64(i)/hz))
		}
		got := integrate(w, 1.0/hz)
		want := tr.Pose(0).Inverse().Compose(tr.Pose(sec))
		ang := angle(want.R)
		diff := angle(got.Inverse().Compose(want).R)
		if ang < 0.1 || diff > 0.01*ang {
			t.Errorf("%s: integrated gyro differs from the trajectory's rotation (%.4f rad) by %.5f rad", name, ang, diff)
		}
		if name == "pan" {
			sum := 0.0
			for i := 1; i < len(w); i++ {
				sum += (w[i-1][1] + w[i][1]) / 2 / hz
			}
			if yaw := 0.5 * math.Sin(2*math.Pi*sec/12); math.Abs(sum-yaw) > 0.01*yaw {
				t.Errorf("pan: ∫gyro y = %.5f rad, want the yaw %.5f rad within 1%%", sum, yaw)
			}
		}
	}
	still, _ := NewTrajectory("still")
	if a, g := still.Accel(1), still.Gyro(1); a != (scene.Vec3{0, -scene.Gravity, 0}) || g != (scene.Vec3{}) {
		t.Errorf("still: accel %v, gyro %v: want (0, -g, 0) and 0", a, g)
	}
}

// TestAccelIntegratesToTrajectory: the accelerometer of the walk, rotated
// into the world by the trajectory's orientation and with gravity added
// back, integrated twice, gives the trajectory's displacement over 2 s
// within 1 mm.
func TestAccelIntegratesToTrajectory(t *testing.T) {
	tr, _ := NewTrajectory("walk")
	const hz, sec = 1000, 2.0
	pos, vel := tr.Pose(0).T, tr.Velocity(0)
	prev := scene.Vec3{}
	for i := 0; i <= hz*sec; i++ {
		ts := float64(i) / hz
		a := tr.Pose(ts).Rotate(tr.Accel(ts))
		a[1] += scene.Gravity
		if i > 0 {
			for k := range 3 {
				am := (a[k] + prev[k]) / 2
				pos[k] += vel[k]/hz + am/(2*hz*hz)
				vel[k] += am / hz
			}
		}
		prev = a
	}
	want := tr.Pose(sec).T
	if d := math.Sqrt(dot(sub(pos, want), sub(pos, want))); d > 1e-3 {
		t.Errorf("double-integrated accel ends at %v, the trajectory at %v (%.4f m apart)", pos, want, d)
	}
}

// TestTrajectoryDerivatives: for every motion, the world angular velocity
// of Spin is the pose's rotation of Gyro, and Spin's angular acceleration
// and Acceleration are the derivatives of the angular velocity and of
// Velocity (central differences).
func TestTrajectoryDerivatives(t *testing.T) {
	const h = 1e-5
	for _, name := range scene.Motions {
		tr, err := NewTrajectory(name)
		if err != nil {
			t.Fatal(err)
		}
		for _, at := range []float64{0, 0.37, 1.9, 4.2} {
			w, dw := tr.Spin(at)
			w0, _ := tr.Spin(at - h)
			w1, _ := tr.Spin(at + h)
			v0, v1 := tr.Velocity(at-h), tr.Velocity(at+h)
			for i, c := range []struct {
				what      string
				got, want scene.Vec3
			}{
				{"angular velocity", w, tr.Pose(at).Rotate(tr.Gyro(at))},
				{"angular acceleration", dw, scale(sub(w1, w0), 1/(2*h))},
				{"acceleration", tr.Acceleration(at), scale(sub(v1, v0), 1/(2*h))},
			} {
				if d := sub(c.got, c.want); math.Sqrt(dot(d, d)) > 1e-6*(1+math.Sqrt(dot(c.want, c.want))) || i == 0 && math.Sqrt(dot(d, d)) > 1e-12 {
					t.Errorf("%s at %g s: %s %v, want %v", name, at, c.what, c.got, c.want)
				}
			}
		}
	}
}

func dot(a, b scene.Vec3) float64    { return a[0]*b[0] + a[1]*b[1] + a[2]*b[2] }
func sub(a, b scene.Vec3) scene.Vec3 { return scene.Vec3{a[0] - b[0], a[1] - b[1], a[2] - b[2]} }
