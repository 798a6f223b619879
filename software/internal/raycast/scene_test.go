package raycast

import (
	"testing"

	"github.com/rsbag/rsbag/sensor"
	"github.com/rsbag/rsbag/software/internal/motion"
	"github.com/rsbag/rsbag/software/scene"
)

// testCamera is a 160x120 camera with the distortion of the synthetic
// color stream.
func testCamera() *Camera {
	return NewCamera(sensor.Intrinsics{Width: 160, Height: 120, PPX: 80.5, PPY: 59.75, FX: 145, FY: 145.5,
		Model: sensor.DistortionInverseBrownConrady, Coeffs: [5]float32{0.125, -0.25, 0.001, -0.002, 0.0625}})
}

// TestColorRowsIsShade: the picture ColorRows draws (its faces' colors
// computed once per view) is Shade of every pixel's hit, for every
// built-in scene, from poses of the walk; and every pixel's hit (objects
// tested only within their bounds on the picture) is the hit of a cast
// against every object.
func TestColorRowsIsShade(t *testing.T) {
	c := testCamera()
	tr, err := motion.NewTrajectory("walk")
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range scene.Names {
		sc, err := Builtin(name, 3)
		if err != nil {
			t.Fatal(err)
		}
		for _, sec := range []float64{0, 2.5, 7} {
			v := sc.View(c, tr.Pose(sec))
			rgb := make([]byte, 3*160*120)
			v.ColorRows(rgb, 0, 120)
			kinds := map[int]int{}
			for y := range 120 {
				for x := range 160 {
					h := v.Pixel(x, y)
					kinds[h.Kind]++
					// The objects' bounds on the picture leave none out.
					if all := sc.Cast(v.pose.T, v.Ray(x, y)); all.Kind != h.Kind || all.Index != h.Index || all.T != h.T {
						t.Fatalf("%s at %g s: pixel (%d,%d) hits %+v, casting against every object %+v", name, sec, x, y, h, all)
					}
					want := sc.Shade(h)
					i := 3 * (y*160 + x)
					for k := range 3 {
						if rgb[i+k] != toByte(want[k]) {
							t.Fatalf("%s at %g s: pixel (%d,%d) %v, want %v (hit %+v)", name, sec, x, y, rgb[i:i+3], want, h)
						}
					}
				}
			}
			if name != "plane" && (kinds[KindBox] == 0 || kinds[KindPoster] == 0) {
				t.Errorf("%s at %g s sees %v (kind: pixels): want boxes and the poster", name, sec, kinds)
			}
		}
	}
}

// TestBuiltinDeterministic: a built-in scene is a function of its name and
// seed; another seed lays it out otherwise; an unknown name is an error
// naming the known ones.
func TestBuiltinDeterministic(t *testing.T) {
	a, _ := Builtin("room", 1)
	b, _ := Builtin("room", 1)
	c, _ := Builtin("room", 2)
	if a.Boxes[0] != b.Boxes[0] || a.Spheres[1] != b.Spheres[1] || a.Poster.colors[3] != b.Poster.colors[3] {
		t.Error("one seed, two layouts")
	}
	if a.Boxes[0] == c.Boxes[0] {
		t.Error("seeds 1 and 2 give the same first box")
	}
	if _, err := Builtin("garden", 1); err == nil {
		t.Error("unknown scene accepted")
	}
	if _, err := motion.NewTrajectory("run"); err == nil {
		t.Error("unknown motion accepted")
	}
}
