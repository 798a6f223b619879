package software

import (
	"encoding/binary"
	"math"
	"testing"

	"github.com/rsbag/rsbag/sensor"
	"github.com/rsbag/rsbag/software/scene"
)

// collect streams cam (every sensor, every profile) to the end and returns
// its frames per stream.
func collect(t testing.TB, cam *Synthetic) map[sensor.Stream][]*sensor.Frame {
	t.Helper()
	got := map[sensor.Stream][]*sensor.Frame{}
	ch := make(chan *sensor.Frame, 1024)
	done := make(chan struct{})
	go func() {
		defer close(done)
		for f := range ch {
			got[f.Profile.Stream] = append(got[f.Profile.Stream], f)
		}
	}()
	for _, s := range cam.Sensors() {
		if err := s.Open(s.Profiles()...); err != nil {
			t.Fatal(err)
		}
	}
	for _, s := range cam.Sensors() {
		if err := s.Start(sensor.HandlerFunc(func(f *sensor.Frame) { ch <- f })); err != nil {
			t.Fatal(err)
		}
	}
	<-cam.Done()
	for _, s := range cam.Sensors() {
		if err := s.Stop(); err != nil {
			t.Fatal(err)
		}
	}
	close(ch)
	<-done
	return got
}

func filmCamera(t testing.TB, cfg SyntheticConfig) (*Synthetic, map[sensor.Stream][]*sensor.Frame) {
	t.Helper()
	cam, err := NewSynthetic(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cam.Close() })
	return cam, collect(t, cam)
}

func z16(f *sensor.Frame, x, y int) uint16 {
	return binary.LittleEndian.Uint16(f.Data[2*(y*f.Width+x):])
}

// TestScenePlaneDepth: every depth pixel of the empty room, seen from a
// moving camera, is the analytic distance (camera Z) to the nearest wall
// plane along its ray, within one depth unit; none is invalid (no object
// hides a wall from the other imager).
func TestScenePlaneDepth(t *testing.T) {
	cam, frames := filmCamera(t, SyntheticConfig{
		Depth:  &Video{Width: 212, Height: 120, FPS: 30},
		Frames: 40,
		Scene:  &SceneConfig{Name: "plane", Motion: "walk"},
	})
	room := cam.Scene().Room
	depth := frames[sensor.StreamDepth]
	if len(depth) != 40 {
		t.Fatalf("%d depth frames, want 40", len(depth))
	}
	for _, f := range []*sensor.Frame{depth[0], depth[17], depth[39]} {
		pose, _ := cam.Pose(f.TimestampMs - hwBaseMs)
		in := f.Profile.Intrinsics
		units := float64(f.DepthUnits)
		bad := 0
		for y := range f.Height {
			for x := range f.Width {
				// The ray of the pixel (no distortion), in the world.
				d := pose.Rotate(scene.Vec3{(float64(x) - float64(in.PPX)) / float64(in.FX), (float64(y) - float64(in.PPY)) / float64(in.FY), 1})
				want := math.Inf(1)
				for a := range 3 {
					for _, plane := range []float64{room.Min[a], room.Max[a]} {
						if tt := (plane - pose.T[a]) / d[a]; tt > 0 && tt < want {
							want = tt
						}
					}
				}
				got := float64(z16(f, x, y)) * units
				if math.Abs(got-want) > units {
					if bad++; bad <= 5 {
						t.Errorf("frame %d pixel (%d,%d): depth %.4f m, want %.4f m", f.Number, x, y, got, want)
					}
				}
			}
		}
		if bad > 0 {
			t.Errorf("frame %d: %d of %d pixels off by more than one unit", f.Number, bad, f.Width*f.Height)
		}
	}
}

// TestSceneDepthToColor: a point deprojected from a depth pixel and
// projected into color (through the extrinsics and the color intrinsics
// with their distortion, as processing.Align and the point cloud do) lands
// on the same patch of the scene (texture id) as the depth pixel sees — the
// color camera's ray through the projected point meets it — in at least 99%
// of the valid depth pixels (the rest: depth quantization at patch edges,
// and points color does not see). Rounded to the nearest color pixel, as
// Align does, the share is logged.
func TestSceneDepthToColor(t *testing.T) {
	cam, frames := filmCamera(t, SyntheticConfig{
		Depth:  &Video{Width: 424, Height: 240, FPS: 30},
		Color:  &Video{Width: 640, Height: 360, FPS: 30},
		Frames: 12,
		Scene:  &SceneConfig{Name: "room", Seed: 7, Motion: "walk"},
	})
	var dst, cst *synthStream
	for _, st := range cam.streams {
		switch st.p.Stream {
		case sensor.StreamDepth:
			dst = st
		case sensor.StreamColor:
			cst = st
		}
	}
	toColor, err := cam.Extrinsics(dst.p, cst.p)
	if err != nil {
		t.Fatal(err)
	}
	sc := cam.Scene()
	f := frames[sensor.StreamDepth][11]
	tMs := f.TimestampMs - hwBaseMs
	pose, _ := cam.Pose(tMs)
	dv := sc.View(dst.film.cam, pose)
	cpose := pose.Compose(cst.film.fromRef)
	cv := sc.View(cst.film.cam, cpose)
	cin := cst.p.Intrinsics
	valid, same, nearest, invalid := 0, 0, 0, 0
	kinds := map[int]int{}
	for y := range f.Height {
		for x := range f.Width {
			z := z16(f, x, y)
			if z == 0 {
				invalid++
				continue
			}
			p := f.Profile.Intrinsics.Deproject([2]float32{float32(x), float32(y)}, float32(z)*f.DepthUnits)
			q := toColor.Transform(p)
			px := cin.Project(q)
			cx, cy := int(math.Round(float64(px[0]))), int(math.Round(float64(px[1])))
			if cx < 0 || cy < 0 || cx >= cin.Width || cy >= cin.Height {
				continue
			}
			valid++
			h := dv.Pixel(x, y)
			kinds[h.Kind]++
			// The color camera's ray through the projected point.
			r := cin.Deproject(px, 1)
			hc := sc.Cast(cpose.T, cpose.Rotate(scene.Vec3{float64(r[0]), float64(r[1]), 1}))
			if sc.TextureID(h) == sc.TextureID(hc) {
				same++
			}
			if sc.TextureID(h) == sc.TextureID(cv.Pixel(cx, cy)) {
				nearest++
			}
		}
	}
	if valid < f.Width*f.Height/2 {
		t.Fatalf("only %d of %d depth pixels land in the color picture", valid, f.Width*f.Height)
	}
	if kinds[scene.KindBox] == 0 || kinds[scene.KindSphere] == 0 || kinds[scene.KindPoster] == 0 {
		t.Errorf("the depth picture sees %v (kind: pixels): want boxes, spheres and the poster", kinds)
	}
	if invalid == 0 {
		t.Errorf("no invalid depth pixel: want the stereo shadows of the objects")
	}
	if share := float64(same) / float64(valid); share < 0.99 {
		t.Errorf("%d of %d valid depth pixels (%.2f%%) land on their texture patch in color, want ≥ 99%%", same, valid, 100*share)
	} else {
		t.Logf("%d of %d valid depth pixels (%.3f%%) land on their texture patch in color (%.3f%% at the nearest color pixel); %d invalid",
			same, valid, 100*share, 100*float64(nearest)/float64(valid), invalid)
	}
}
