package software

import (
	"bytes"
	"encoding/binary"
	"image/jpeg"
	"math"
	"testing"

	"github.com/rsbag/rsbag/internal/layout"
	"github.com/rsbag/rsbag/processing"
	"github.com/rsbag/rsbag/sensor"
	"github.com/rsbag/rsbag/software/internal/motion"
	"github.com/rsbag/rsbag/software/internal/raycast"
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
	room := cam.film.sc.Room
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
// Align does, the share is logged. The same holds for the right infrared
// imager, which sees every point left of where the left one (the depth
// stream's) does, by the disparity fx·baseline/z.
func TestSceneDepthToColor(t *testing.T) {
	cam, frames := filmCamera(t, SyntheticConfig{
		Depth:    &Video{Width: 424, Height: 240, FPS: 30},
		Color:    &Video{Width: 640, Height: 360, FPS: 30},
		Infrared: &Video{Width: 424, Height: 240, FPS: 30}, InfraredCount: 2,
		Frames: 12,
		Scene:  &SceneConfig{Name: "room", Seed: 7, Motion: "walk"},
	})
	streams := map[sensor.Stream]*synthStream{}
	for _, st := range cam.streams {
		if st.p.Stream != sensor.StreamInfrared || st.p.Index == 2 {
			streams[st.p.Stream] = st
		}
	}
	dst := streams[sensor.StreamDepth]
	sc := cam.film.sc
	f := frames[sensor.StreamDepth][11]
	pose, _ := cam.Pose(f.TimestampMs - hwBaseMs)
	dv := sc.View(dst.film.cam, pose)
	for _, target := range []sensor.Stream{sensor.StreamColor, sensor.StreamInfrared} {
		tst := streams[target]
		to, err := cam.Extrinsics(dst.p, tst.p)
		if err != nil {
			t.Fatal(err)
		}
		tpose := pose.Compose(tst.film.fromRef)
		tv := sc.View(tst.film.cam, tpose)
		tin := tst.p.Intrinsics
		valid, same, nearest, invalid, disparity := 0, 0, 0, 0, 0
		kinds := map[int]int{}
		for y := range f.Height {
			for x := range f.Width {
				z := z16(f, x, y)
				if z == 0 {
					invalid++
					continue
				}
				p := f.Profile.Intrinsics.Deproject([2]float32{float32(x), float32(y)}, float32(z)*f.DepthUnits)
				px := tin.Project(to.Transform(p))
				cx, cy := int(math.Round(float64(px[0]))), int(math.Round(float64(px[1])))
				if cx < 0 || cy < 0 || cx >= tin.Width || cy >= tin.Height {
					continue
				}
				valid++
				if want := float64(x) - float64(tin.FX)*0.05/float64(p[2]); target == sensor.StreamInfrared && math.Abs(float64(px[0])-want) < 0.01 {
					disparity++
				}
				h := dv.Pixel(x, y)
				kinds[h.Kind]++
				// The target camera's ray through the projected point.
				r := tin.Deproject(px, 1)
				if sc.TextureID(h) == sc.TextureID(sc.Cast(tpose.T, tpose.Rotate(scene.Vec3{float64(r[0]), float64(r[1]), 1}))) {
					same++
				}
				if sc.TextureID(h) == sc.TextureID(tv.Pixel(cx, cy)) {
					nearest++
				}
			}
		}
		if valid < f.Width*f.Height/2 {
			t.Fatalf("%s: only %d of %d depth pixels land in the picture", target, valid, f.Width*f.Height)
		}
		if kinds[raycast.KindBox] == 0 || kinds[raycast.KindSphere] == 0 || kinds[raycast.KindPoster] == 0 {
			t.Errorf("the depth picture sees %v (kind: pixels): want boxes, spheres and the poster", kinds)
		}
		if invalid == 0 {
			t.Errorf("no invalid depth pixel: want the stereo shadows of the objects")
		}
		if target == sensor.StreamInfrared && disparity != valid {
			t.Errorf("%d of %d points at the disparity fx·baseline/z left of their depth pixel in the right imager", disparity, valid)
		}
		if share := float64(same) / float64(valid); share < 0.99 {
			t.Errorf("%s: %d of %d valid depth pixels (%.2f%%) land on their texture patch, want ≥ 99%%", target, same, valid, 100*share)
		} else {
			t.Logf("%s: %d of %d valid depth pixels (%.3f%%) land on their texture patch (%.3f%% at the nearest pixel); %d invalid",
				target, same, valid, 100*share, 100*float64(nearest)/float64(valid), invalid)
		}
	}
}

// TestSceneDepthNoise: with DepthNoise, the depth error is Gaussian of σ =
// z²·DepthNoise/(fx·baseline): the error over σ has mean 0 and deviation 1
// at near and far distances alike (it grows with the distance squared);
// the same seed gives the same noise, another seed other noise.
func TestSceneDepthNoise(t *testing.T) {
	const noise = 0.08
	film := func(seed uint64) (*Synthetic, []*sensor.Frame) {
		cam, frames := filmCamera(t, SyntheticConfig{
			Depth:  &Video{Width: 424, Height: 240, FPS: 30},
			Frames: 3,
			Scene:  &SceneConfig{Name: "clutter", Seed: seed, DepthNoise: noise, GroundTruth: true},
		})
		return cam, frames[sensor.StreamDepth]
	}
	cam, depth := film(1)
	_, again := film(1)
	_, other := film(2)
	if !bytes.Equal(depth[2].Data, again[2].Data) || bytes.Equal(depth[2].Data, other[2].Data) {
		t.Error("noise is not a function of the seed")
	}
	if bytes.Equal(depth[0].Data, depth[1].Data) {
		t.Error("two frames with the same noise")
	}
	in := depth[0].Profile.Intrinsics
	k := noise / (float64(in.FX) * 0.05)
	type bin struct{ n, sum, sq float64 }
	bins := map[string]*bin{"near": {}, "far": {}}
	for _, f := range depth {
		gt, ok := cam.GroundTruth(f)
		if !ok || gt.Depth == nil {
			t.Fatalf("frame %d: no ground truth", f.Number)
		}
		for i, z := range gt.Depth {
			var b *bin
			switch {
			case z > 0.5 && z < 2.2:
				b = bins["near"]
			case z > 2.8:
				b = bins["far"]
			default:
				continue
			}
			d := float64(binary.LittleEndian.Uint16(f.Data[2*i:])) * float64(f.DepthUnits)
			if d == 0 {
				continue
			}
			e := (d - float64(z)) / (float64(z) * float64(z) * k)
			b.n++
			b.sum += e
			b.sq += e * e
		}
	}
	for name, b := range bins {
		mean := b.sum / b.n
		sd := math.Sqrt(b.sq/b.n - mean*mean)
		if b.n < 5000 || math.Abs(mean) > 0.05 || math.Abs(sd-1) > 0.05 {
			t.Errorf("%s: %g pixels, error/σ mean %.3f deviation %.3f: want 0 and 1", name, b.n, mean, sd)
		}
	}
}

// TestSceneEdgeHoles: EdgeHoles leaves no depth beside the depth edges of
// the objects, and only there; off (the default), those pixels have depth.
func TestSceneEdgeHoles(t *testing.T) {
	film := func(holes bool) (*Synthetic, *sensor.Frame) {
		cam, frames := filmCamera(t, SyntheticConfig{
			Depth:  &Video{Width: 424, Height: 240, FPS: 30},
			Frames: 1,
			Scene:  &SceneConfig{Name: "clutter", Seed: 3, EdgeHoles: holes, GroundTruth: true},
		})
		return cam, frames[sensor.StreamDepth][0]
	}
	cam, with := film(true)
	_, without := film(false)
	gt, _ := cam.GroundTruth(with)
	w, h := with.Width, with.Height
	holes := 0
	for y := range h {
		for x := range w {
			a, b := z16(with, x, y), z16(without, x, y)
			switch {
			case a == b:
			case a == 0 && edge(gt.Depth, w, h, x, y):
				holes++
			default:
				t.Fatalf("pixel (%d,%d): %d with edge holes, %d without", x, y, a, b)
			}
		}
	}
	if holes < w {
		t.Errorf("%d edge holes, want at least a row's worth (%d)", holes, w)
	}
}

// TestSceneMotionBlur: motion blur is off by default; on, a still camera's
// picture is unchanged and a panning camera's is the average of the
// exposure, unlike the sharp picture.
func TestSceneMotionBlur(t *testing.T) {
	if (SceneConfig{}).MotionBlur {
		t.Fatal("motion blur on by default")
	}
	color := func(motion string, blur bool) []byte {
		_, frames := filmCamera(t, SyntheticConfig{
			Color:  &Video{Width: 160, Height: 90, FPS: 30},
			Frames: 12,
			Scene:  &SceneConfig{Motion: motion, MotionBlur: blur},
		})
		return frames[sensor.StreamColor][11].Data
	}
	if !bytes.Equal(color("still", true), color("still", false)) {
		t.Error("a still camera's picture changes with motion blur")
	}
	if bytes.Equal(color("pan", true), color("pan", false)) {
		t.Error("a panning camera's picture is as sharp with motion blur as without")
	}
}

// TestSceneColorFormats: every color format holds the RGB8 picture: BGR8,
// RGBA8 and BGRA8 its channels reordered (alpha 255), YUYV its BT.601
// limited-range luma per pixel, MJPEG a JPEG of it.
func TestSceneColorFormats(t *testing.T) {
	film := func(f sensor.Format) []byte {
		_, frames := filmCamera(t, SyntheticConfig{
			Color:  &Video{Width: 64, Height: 36, FPS: 30, Format: f},
			Frames: 1,
			Scene:  &SceneConfig{Seed: 4},
		})
		return frames[sensor.StreamColor][0].Data
	}
	rgb := film(sensor.FormatRGB8)
	n := 64 * 36
	for _, tc := range []struct {
		f        sensor.Format
		bpp      int
		r, g, b  int
		hasAlpha bool
	}{
		{sensor.FormatBGR8, 3, 2, 1, 0, false},
		{sensor.FormatRGBA8, 4, 0, 1, 2, true},
		{sensor.FormatBGRA8, 4, 2, 1, 0, true},
	} {
		got := film(tc.f)
		for i := range n {
			p := got[tc.bpp*i:]
			if p[tc.r] != rgb[3*i] || p[tc.g] != rgb[3*i+1] || p[tc.b] != rgb[3*i+2] || tc.hasAlpha && p[3] != 255 {
				t.Fatalf("%s pixel %d: %v, RGB %v", tc.f, i, p[:tc.bpp], rgb[3*i:3*i+3])
			}
		}
	}
	yuyv := film(sensor.FormatYUYV)
	for i := range n {
		r, g, b := int(rgb[3*i]), int(rgb[3*i+1]), int(rgb[3*i+2])
		if y := byte(16 + (66*r+129*g+25*b+128)>>8); yuyv[2*i] != y {
			t.Fatalf("YUYV pixel %d: Y %d, want %d", i, yuyv[2*i], y)
		}
	}
	img, err := jpeg.Decode(bytes.NewReader(film(sensor.FormatMJPEG)))
	if err != nil || img.Bounds().Dx() != 64 || img.Bounds().Dy() != 36 {
		t.Fatalf("MJPEG: %v %v", err, img)
	}
}

// TestSceneStillAndRange: a still camera hands out one picture per stream
// (rendered once: the frames share their buffer) equal to what a moving
// camera renders at its start; depth outside [MinZ, MaxZ] is 0, and only
// that is.
func TestSceneStillAndRange(t *testing.T) {
	cfg := SyntheticConfig{
		Depth: &Video{Width: 212, Height: 120, FPS: 30}, Color: &Video{Width: 160, Height: 90, FPS: 30},
		Frames: 3, Scene: &SceneConfig{Seed: 9, MinZ: 2, MaxZ: 2.9, GroundTruth: true},
	}
	cam, still := filmCamera(t, cfg)
	sc := *cfg.Scene
	sc.Motion = "pan"
	cfg.Scene = &sc
	_, pan := filmCamera(t, cfg)
	for _, st := range []sensor.Stream{sensor.StreamDepth, sensor.StreamColor} {
		a, b := still[st], pan[st]
		if &a[0].Data[0] != &a[2].Data[0] {
			t.Errorf("%s: a still camera renders every frame", st)
		}
		if !bytes.Equal(a[0].Data, b[0].Data) || bytes.Equal(a[2].Data, b[2].Data) {
			t.Errorf("%s: the still picture is not the pan's first, or the pan does not move", st)
		}
	}
	f := still[sensor.StreamDepth][2]
	gt, ok := cam.GroundTruth(f)
	if !ok || gt.Depth == nil {
		t.Fatal("no ground truth of the still depth")
	}
	out := 0
	for y := range f.Height {
		for x := range f.Width {
			z := gt.Depth[y*f.Width+x]
			inRange := z >= 2 && z <= 2.9
			if got := z16(f, x, y); (got != 0) != inRange {
				t.Fatalf("pixel (%d,%d): depth %d, exact %g m, range [2, 2.9] m", x, y, got, z)
			}
			if !inRange {
				out++
			}
		}
	}
	if out == 0 || out == f.Width*f.Height {
		t.Errorf("%d of %d pixels out of range: want some, not all", out, f.Width*f.Height)
	}
}

// TestSceneAlignColorToDepth: processing.Align puts color on the right
// surfaces: color aligned to depth shows, at a valid depth pixel, the
// shaded color of the patch the depth pixel sees — or, at the edge of a
// patch (librealsense's align splats a color pixel over its depth
// footprint), of a neighbour's — in at least 99% of them; spheres, whose
// shading varies within a patch, left out.
func TestSceneAlignColorToDepth(t *testing.T) {
	cam, frames := filmCamera(t, SyntheticConfig{
		Depth:  &Video{Width: 424, Height: 240, FPS: 30},
		Color:  &Video{Width: 640, Height: 360, FPS: 30},
		Frames: 6,
		Scene:  &SceneConfig{Name: "room", Seed: 7, Motion: "walk"},
	})
	depth, color := frames[sensor.StreamDepth][5], frames[sensor.StreamColor][5]
	aligned, err := processing.NewAlign(sensor.StreamDepth, cam).Process(depth, color)
	if err != nil {
		t.Fatal(err)
	}
	sc := cam.film.sc
	var dst *synthStream
	for _, st := range cam.streams {
		if st.p == depth.Profile {
			dst = st
		}
	}
	pose, _ := cam.Pose(depth.TimestampMs - hwBaseMs)
	dv := sc.View(dst.film.cam, pose)
	w, h := depth.Width, depth.Height
	shade := make([][3]byte, w*h)
	kind := make([]int, w*h)
	for y := range h {
		for x := range w {
			hit := dv.Pixel(x, y)
			c := sc.Shade(hit)
			shade[y*w+x] = [3]byte{raycast.ToByte(c[0]), raycast.ToByte(c[1]), raycast.ToByte(c[2])}
			kind[y*w+x] = hit.Kind
		}
	}
	n, same := 0, 0
	for y := 1; y < h-1; y++ {
		for x := 1; x < w-1; x++ {
			i := y*w + x
			got := [3]byte(aligned.Data[3*i : 3*i+3])
			if z16(depth, x, y) == 0 || kind[i] == raycast.KindSphere || got == [3]byte{} {
				continue // no depth, a sphere, or outside color's view
			}
			n++
		neighbours:
			for dy := -1; dy <= 1; dy++ {
				for dx := -1; dx <= 1; dx++ {
					if shade[i+dy*w+dx] == got {
						same++
						break neighbours
					}
				}
			}
		}
	}
	if n < w*h/2 || float64(same) < 0.99*float64(n) {
		t.Errorf("%d of %d aligned pixels have the color of their depth pixel's patch, want ≥ 99%%", same, n)
	} else {
		t.Logf("%d of %d aligned pixels (%.2f%%) have the color of their depth pixel's patch", same, n, 100*float64(same)/float64(n))
	}
}

// TestScenePoseStream: the pose stream of a camera filming a scene is the
// trajectory: each sample's translation, rotation, velocity, acceleration
// and angular velocity and acceleration are the walk's at the sample's
// stream time (in float32), with high confidence; without a scene it
// stays the reference pattern.
func TestScenePoseStream(t *testing.T) {
	tr, err := motion.NewTrajectory("walk")
	if err != nil {
		t.Fatal(err)
	}
	_, frames := filmCamera(t, SyntheticConfig{Depth: &Video{Width: 64, Height: 48, FPS: 30}, PoseFPS: 200, Frames: 20,
		Scene: &SceneConfig{Motion: "walk"}})
	poses := frames[sensor.StreamPose]
	if len(poses) != 20 {
		t.Fatalf("%d pose frames, want 20", len(poses))
	}
	moved := false
	for _, f := range poses {
		base := hwBaseMs
		if f.Domain != sensor.TimestampDomainHardwareClock {
			base = systemBaseMs
		}
		at := (f.TimestampMs - base) / 1000
		p := tr.Pose(at)
		q := p.Quaternion()
		w, dw := tr.Spin(at)
		want := sensor.Pose{
			Translation: f32(p.T), Velocity: f32(tr.Velocity(at)), Acceleration: f32(tr.Acceleration(at)),
			Rotation:        [4]float32{float32(q[0]), float32(q[1]), float32(q[2]), float32(q[3])},
			AngularVelocity: f32(w), AngularAcceleration: f32(dw), TrackerConfidence: 3, MapperConfidence: 3,
		}
		decoded, err := layout.DecodePose(f.Data)
		if err != nil || f.Pose != want || decoded != want {
			t.Errorf("pose frame %d at %g s: %+v (data %+v, %v), want %+v", f.Number, at, f.Pose, decoded, err, want)
		}
		moved = moved || f.Pose.Translation != poses[0].Pose.Translation
	}
	if !moved {
		t.Error("the pose stream does not move along the walk")
	}
	_, frames = filmCamera(t, SyntheticConfig{PoseFPS: 200, Frames: 3})
	for _, f := range frames[sensor.StreamPose] {
		if f.Pose != synthPose(f.Number) {
			t.Errorf("reference pattern, pose frame %d: %+v, want %+v", f.Number, f.Pose, synthPose(f.Number))
		}
	}
}
