package software

import (
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"sync"

	"github.com/rsbag/rsbag/sensor"
	"github.com/rsbag/rsbag/software/internal/motion"
	"github.com/rsbag/rsbag/software/internal/raycast"
	"github.com/rsbag/rsbag/software/scene"
)

// SceneConfig makes the synthetic camera film a 3D scene (package
// software/scene) instead of drawing the reference pattern: every video
// stream is ray cast from the camera's pose on its trajectory, through its
// own intrinsics and extrinsics, and the accelerometer and gyroscope sample
// the trajectory. Everything is a function of the configuration: one seed
// gives the same frames on every run.
type SceneConfig struct {
	// Name is a built-in scene of scene.Names ("" for the first, "room");
	// Seed lays it out and seeds the noise.
	Name string
	Seed uint64
	// Motion is a trajectory of scene.Motions ("" for "still").
	Motion string
	// Projector adds the emitter's dot pattern to the infrared pictures.
	Projector bool
	// DepthNoise is the RMS error of the stereo match in pixels (0: none):
	// depth gets Gaussian noise of σ = z²·DepthNoise/(fx·baseline), growing
	// with the square of the distance as a stereo camera's.
	DepthNoise float64
	// EdgeHoles leaves no depth at the pixels beside a depth edge (a jump
	// of more than edgeJump of the depth to a neighbour), where a stereo
	// match fails.
	EdgeHoles bool
	// MotionBlur averages color and infrared over the exposure (a third of
	// the frame period, blurSteps instants).
	MotionBlur bool
	// IMUNoise adds to every motion sample Gaussian noise and a constant
	// bias drawn once per stream, of the variances of the stream's motion
	// intrinsics (sensor.MotionIntrinsics NoiseVariances and
	// BiasVariances).
	IMUNoise bool
	// GroundTruth keeps what GroundTruth returns for depth frames: the
	// exact depth of the last groundTruthKeep frames (a new buffer per
	// frame). Poses are known without it.
	GroundTruth bool
	// MinZ and MaxZ (meters) bound the depth a stereo module reports;
	// outside, a pixel has no depth (0). Zero: the D430 depth module's
	// range of the D400 datasheet, 0.11 m to 10 m.
	MinZ, MaxZ float64
}

// D430 depth module range (Intel RealSense D400 series datasheet).
const (
	defaultMinZ = 0.11
	defaultMaxZ = 10
)

const (
	edgeJump  = 0.05 // EdgeHoles: relative depth jump to a neighbour
	blurSteps = 4    // MotionBlur: instants averaged
	// groundTruthKeep is the number of depth frames whose exact depth
	// GroundTruth finds: a stream's delivery goroutine holds at most one
	// frame while the timeline renders the next.
	groundTruthKeep = 4
)

// filming is the scene mode of a synthetic camera.
type filming struct {
	cfg      SceneConfig
	sc       *raycast.Scene
	tr       *motion.Trajectory
	baseline float64 // meters, the depth sensor's Stereo Baseline
	stereo   *Sensor // the sensor with Depth Units
	// still: the camera does not move and nothing is random in the
	// pictures, so every frame of a stream is the same picture, rendered
	// once (per depth units for depth) and handed out again.
	still bool
}

// streamFilm is the per-stream state of the scene mode.
type streamFilm struct {
	cam     *raycast.Camera
	fromRef scene.Pose // the stream's coordinates to the reference stream's
	z       []float32  // depth: exact depth of the last frame (meters)
	rgb     []byte     // color: the RGB picture before conversion
	acc     []uint32   // motion blur: sums
	bias    scene.Vec3 // motion: bias of the stream
	// still camera: the picture and the depth units it was made with
	picture []byte
	units   float32
	// GroundTruth: the exact depth of the last frames, by frame number
	mu    sync.Mutex
	truth [groundTruthKeep]struct {
		n uint64
		z []float32
	}
	next int
}

// newFilming builds the scene, trajectory and per-stream cameras of y.
func (y *Synthetic) newFilming(c SceneConfig) error {
	if c.Name == "" {
		c.Name = scene.Names[0]
	}
	if c.Motion == "" {
		c.Motion = scene.Motions[0]
	}
	if c.MinZ == 0 {
		c.MinZ = defaultMinZ
	}
	if c.MaxZ == 0 {
		c.MaxZ = defaultMaxZ
	}
	if c.DepthNoise < 0 || math.IsNaN(c.DepthNoise) || math.IsInf(c.DepthNoise, 0) {
		return fmt.Errorf("software: synthetic scene depth noise %g: want a finite value ≥ 0", c.DepthNoise)
	}
	if !(c.MinZ > 0 && c.MinZ < c.MaxZ) || math.IsInf(c.MaxZ, 0) {
		return fmt.Errorf("software: synthetic scene depth range %g..%g m: want 0 < min < max", c.MinZ, c.MaxZ)
	}
	sc, err := raycast.Builtin(c.Name, c.Seed)
	if err != nil {
		return fmt.Errorf("software: synthetic %w", err)
	}
	tr, err := motion.NewTrajectory(c.Motion)
	if err != nil {
		return fmt.Errorf("software: synthetic %w", err)
	}
	f := &filming{cfg: c, sc: sc, tr: tr, still: c.Motion == "still" && c.DepthNoise == 0}
	y.film = f
	for _, s := range y.softwareSensors() {
		if s.String() == StereoModuleName {
			f.stereo = s
			f.baseline = float64(s.StereoBaselineMM()) / 1000
		}
	}
	var ref *sensor.StreamProfile
	for _, st := range y.streams {
		if st.p.Kind == sensor.KindVideo {
			ref = st.p
			break
		}
	}
	for _, st := range y.streams {
		sf := &streamFilm{}
		st.film = sf
		switch st.p.Kind {
		case sensor.KindVideo:
			sf.cam = raycast.NewCamera(st.p.Intrinsics)
			sf.fromRef = scene.Identity()
			if st.p != ref {
				e, err := y.Extrinsics(ref, st.p)
				if err != nil {
					return err
				}
				sf.fromRef = scene.FromExtrinsics(e).Inverse()
			}
		case sensor.KindMotion:
			if c.IMUNoise {
				r := y.rng(st, math.MaxUint32)
				for i := range 3 {
					sf.bias[i] = r.NormFloat64() * math.Sqrt(float64(st.p.MotionIntrinsics.BiasVariances[i]))
				}
			}
		}
	}
	return nil
}

// rng returns the random source of stream st at tick k: one per frame, so
// that noise does not depend on the order frames are rendered in.
func (y *Synthetic) rng(st *synthStream, k uint64) *rand.Rand {
	return rand.New(rand.NewPCG(y.film.cfg.Seed, uint64(st.seed)<<40^k))
}

// filmVideo returns the picture of tick k (stream time tMs) of a video
// stream: rendered, or for a still camera the one picture of the stream.
func (y *Synthetic) filmVideo(st *synthStream, k int, tMs float64) []byte {
	p := st.p
	sf := st.film
	f := y.film
	if f.still && sf.picture != nil && (p.Format != sensor.FormatZ16 || sf.units == f.stereo.DepthUnits()) {
		if f.cfg.GroundTruth && p.Format == sensor.FormatZ16 {
			sf.mu.Lock()
			last := sf.truth[(sf.next+groundTruthKeep-1)%groundTruthKeep].z
			sf.truth[sf.next].n, sf.truth[sf.next].z = y.frameNumber(k), last
			sf.next = (sf.next + 1) % groundTruthKeep
			sf.mu.Unlock()
		}
		return sf.picture
	}
	if f.still {
		sf.picture = y.renderVideo(st, k, tMs)
		if p.Format == sensor.FormatZ16 {
			sf.units = f.stereo.DepthUnits()
		}
		return sf.picture
	}
	return y.renderVideo(st, k, tMs)
}

// renderVideo renders tick k (stream time tMs) of a video stream.
func (y *Synthetic) renderVideo(st *synthStream, k int, tMs float64) []byte {
	p := st.p
	sf := st.film
	w, h := p.Width, p.Height
	f := y.film
	view := func(dt float64) *raycast.View {
		return f.sc.View(sf.cam, f.tr.Pose((tMs+dt)/1000).Compose(sf.fromRef))
	}
	switch p.Format {
	case sensor.FormatZ16:
		if sf.z == nil || f.cfg.GroundTruth {
			sf.z = make([]float32, w*h)
		}
		v := view(0)
		rows(h, w, func(y0, y1 int) { v.DepthRows(sf.z, y0, y1, f.baseline) })
		if f.cfg.GroundTruth {
			sf.mu.Lock()
			sf.truth[sf.next].n, sf.truth[sf.next].z = y.frameNumber(k), sf.z
			sf.next = (sf.next + 1) % groundTruthKeep
			sf.mu.Unlock()
		}
		return y.depthZ16(st, k)
	case sensor.FormatY8, sensor.FormatY16:
		wide := p.Format == sensor.FormatY16
		var emitter *scene.Pose
		if f.cfg.Projector {
			e := f.tr.Pose(tMs / 1000)
			emitter = &e
		}
		out := make([]byte, w*h*p.Format.BitsPerPixel()/8)
		y.blur(st, tMs, out, func(dt float64, dst []byte) {
			v := view(dt)
			if emitter != nil && dt != 0 {
				e := f.tr.Pose((tMs + dt) / 1000)
				emitter = &e
			}
			rows(h, w, func(y0, y1 int) { v.IRRows(dst, wide, y0, y1, emitter) })
		})
		return out
	}
	// Color: RGB8, then the stream's format.
	rgb := sf.rgb
	if p.Format == sensor.FormatRGB8 {
		rgb = make([]byte, 3*w*h)
	} else if rgb == nil {
		rgb = make([]byte, 3*w*h)
		sf.rgb = rgb
	}
	y.blur(st, tMs, rgb, func(dt float64, dst []byte) {
		v := view(dt)
		rows(h, w, func(y0, y1 int) { v.ColorRows(dst, y0, y1) })
	})
	return convertRGB(rgb, p.Format, w, h)
}

// blur renders into out, once at the frame's time or, with MotionBlur,
// averaged over blurSteps instants of the exposure (per 8-bit or, for
// Y16, 16-bit sample).
func (y *Synthetic) blur(st *synthStream, tMs float64, out []byte, render func(dt float64, dst []byte)) {
	if !y.film.cfg.MotionBlur {
		render(0, out)
		return
	}
	wide := st.p.Format == sensor.FormatY16
	sf := st.film
	if sf.acc == nil {
		sf.acc = make([]uint32, len(out))
	}
	clear(sf.acc)
	tmp := make([]byte, len(out))
	exposure := 1000 / float64(st.p.FPS) / 3
	for i := range blurSteps {
		render(-exposure*float64(i)/(blurSteps-1), tmp)
		if wide {
			for j := 0; j+1 < len(tmp); j += 2 {
				sf.acc[j] += uint32(tmp[j]) | uint32(tmp[j+1])<<8
			}
			continue
		}
		for j, b := range tmp {
			sf.acc[j] += uint32(b)
		}
	}
	for j := range out {
		if wide {
			if j%2 == 0 {
				v := (sf.acc[j] + blurSteps/2) / blurSteps
				out[j], out[j+1] = byte(v), byte(v>>8)
			}
			continue
		}
		out[j] = byte((sf.acc[j] + blurSteps/2) / blurSteps)
	}
}

// depthZ16 turns the exact depth of the stream's last frame into Z16 in
// the current depth units: out of range is 0, then edge holes and noise.
func (y *Synthetic) depthZ16(st *synthStream, k int) []byte {
	f := y.film
	z := st.film.z
	w, h := st.p.Width, st.p.Height
	units := float64(f.stereo.DepthUnits())
	out := make([]byte, 2*w*h)
	noise := 0.0
	if f.cfg.DepthNoise > 0 && f.baseline > 0 {
		noise = f.cfg.DepthNoise / (float64(st.p.Intrinsics.FX) * f.baseline)
	}
	rows(h, w, func(y0, y1 int) {
		for yy := y0; yy < y1; yy++ {
			var r *rand.Rand
			if noise > 0 {
				r = y.rng(st, uint64(k)<<20|uint64(yy))
			}
			for x := range w {
				i := yy*w + x
				d := float64(z[i]) // negative: hidden from the other imager
				if d < f.cfg.MinZ || d > f.cfg.MaxZ || f.cfg.EdgeHoles && edge(z, w, h, x, yy) {
					continue
				}
				if r != nil {
					d += d * d * noise * r.NormFloat64()
				}
				u := math.Round(d / units)
				if u <= 0 || u > math.MaxUint16 {
					continue
				}
				out[2*i], out[2*i+1] = byte(uint16(u)), byte(uint16(u)>>8)
			}
		}
	})
	return out
}

// edge reports whether pixel (x, y) of the depth z (w×h) is beside a depth
// edge: a 4-neighbour differs by more than edgeJump of its depth.
func edge(z []float32, w, h, x, y int) bool {
	d := z[y*w+x]
	lim := d * edgeJump
	jump := func(n float32) bool { return n-d > lim || d-n > lim }
	return x > 0 && jump(z[y*w+x-1]) || x+1 < w && jump(z[y*w+x+1]) ||
		y > 0 && jump(z[(y-1)*w+x]) || y+1 < h && jump(z[(y+1)*w+x])
}

// filmMotion returns the motion sample of tick k (stream time tMs).
func (y *Synthetic) filmMotion(st *synthStream, k int, tMs float64) [3]float32 {
	f := y.film
	var v scene.Vec3
	if st.p.Stream == sensor.StreamAccel {
		v = f.tr.Accel(tMs / 1000)
	} else {
		v = f.tr.Gyro(tMs / 1000)
	}
	var out [3]float32
	var r *rand.Rand
	if f.cfg.IMUNoise {
		r = y.rng(st, uint64(k))
	}
	for i := range 3 {
		if r != nil {
			v[i] += st.film.bias[i] + r.NormFloat64()*math.Sqrt(float64(st.p.MotionIntrinsics.NoiseVariances[i]))
		}
		out[i] = float32(v[i])
	}
	return out
}

// poseConfidenceHigh is rs2_pose's tracker and mapper confidence "High"
// (librealsense's rs_types.h: 0x0 Failed, 0x1 Low, 0x2 Medium, 0x3 High):
// the trajectory is exact.
const poseConfidenceHigh = 3

// filmPose returns the pose sample at stream time tMs: the trajectory's
// pose of the reference stream in the scene's world, with its exact
// derivatives in the world's axes.
func (y *Synthetic) filmPose(tMs float64) sensor.Pose {
	tr := y.film.tr
	t := tMs / 1000
	p := tr.Pose(t)
	q := p.Quaternion()
	w, dw := tr.Spin(t)
	return sensor.Pose{
		Translation:         f32(p.T),
		Velocity:            f32(tr.Velocity(t)),
		Acceleration:        f32(tr.Acceleration(t)),
		Rotation:            [4]float32{float32(q[0]), float32(q[1]), float32(q[2]), float32(q[3])},
		AngularVelocity:     f32(w),
		AngularAcceleration: f32(dw),
		TrackerConfidence:   poseConfidenceHigh,
		MapperConfidence:    poseConfidenceHigh,
	}
}

func f32(v scene.Vec3) [3]float32 { return [3]float32{float32(v[0]), float32(v[1]), float32(v[2])} }

// GroundTruth is what the synthetic camera knows of a frame it filmed.
type GroundTruth struct {
	// Pose maps the coordinates of the frame's stream to the scene's world
	// at the frame's time (a motion stream's: the IMU's axes, which are
	// the reference stream's).
	Pose scene.Pose
	// Depth is, for a depth frame, the exact depth (camera Z, meters) of
	// every pixel: before noise, range limits and holes, and a pixel
	// hidden from the other imager negative (−Z); nil otherwise, or when
	// SceneConfig.GroundTruth is off.
	Depth []float32
}

// GroundTruth returns the ground truth of a video or motion frame the
// camera delivered. ok is false when it films no scene, for a frame of
// another device or stream, and for a depth frame older than the last few
// (SceneConfig.GroundTruth keeps groundTruthKeep per stream).
func (y *Synthetic) GroundTruth(f *sensor.Frame) (gt GroundTruth, ok bool) {
	if y.film == nil {
		return gt, false
	}
	for _, st := range y.streams {
		if st.p != f.Profile || st.p.Kind == sensor.KindPose {
			continue
		}
		base := hwBaseMs
		if st.domain != sensor.TimestampDomainHardwareClock {
			base = systemBaseMs
		}
		gt.Pose = y.film.tr.Pose((f.TimestampMs - base) / 1000)
		if st.p.Kind != sensor.KindVideo {
			return gt, true
		}
		sf := st.film
		gt.Pose = gt.Pose.Compose(sf.fromRef)
		if st.p.Format != sensor.FormatZ16 || !y.film.cfg.GroundTruth {
			return gt, true
		}
		sf.mu.Lock()
		defer sf.mu.Unlock()
		for _, t := range sf.truth {
			if t.z != nil && t.n == f.Number {
				gt.Depth = t.z
				return gt, true
			}
		}
		return gt, false
	}
	return gt, false
}

// Pose returns the ground-truth pose of the camera's reference stream
// (depth, else its first video stream) at stream time tMs, in the world of
// its scene: the identity at t = 0. ok is false when the camera films no
// scene.
func (y *Synthetic) Pose(tMs float64) (p scene.Pose, ok bool) {
	if y.film == nil {
		return scene.Pose{}, false
	}
	return y.film.tr.Pose(tMs / 1000), true
}

// convertRGB returns the w×h RGB8 picture rgb in format f: rgb itself for
// RGB8, else a new buffer (YUYV with BT.601's integer limited-range
// coefficients, the inverse of what librealsense converts YUYV with).
func convertRGB(rgb []byte, f sensor.Format, w, h int) []byte {
	n := w * h
	switch f {
	case sensor.FormatRGB8:
		return rgb
	case sensor.FormatMJPEG:
		return encodeJPEG(rgb, w, h)
	case sensor.FormatBGR8:
		out := make([]byte, 3*n)
		for i := range n {
			out[3*i], out[3*i+1], out[3*i+2] = rgb[3*i+2], rgb[3*i+1], rgb[3*i]
		}
		return out
	case sensor.FormatRGBA8, sensor.FormatBGRA8:
		out := make([]byte, 4*n)
		r, b := 0, 2
		if f == sensor.FormatBGRA8 {
			r, b = 2, 0
		}
		for i := range n {
			out[4*i+r], out[4*i+1], out[4*i+b], out[4*i+3] = rgb[3*i], rgb[3*i+1], rgb[3*i+2], 255
		}
		return out
	}
	// YUYV: two pixels share U and V (their average).
	out := make([]byte, 2*n)
	for i := 0; i+1 < n; i += 2 {
		r0, g0, b0 := int(rgb[3*i]), int(rgb[3*i+1]), int(rgb[3*i+2])
		r1, g1, b1 := int(rgb[3*i+3]), int(rgb[3*i+4]), int(rgb[3*i+5])
		r, g, b := (r0+r1+1)/2, (g0+g1+1)/2, (b0+b1+1)/2
		out[2*i] = byte(16 + (66*r0+129*g0+25*b0+128)>>8)
		out[2*i+1] = byte(128 + (-38*r-74*g+112*b+128)>>8)
		out[2*i+2] = byte(16 + (66*r1+129*g1+25*b1+128)>>8)
		out[2*i+3] = byte(128 + (112*r-94*g-18*b+128)>>8)
	}
	return out
}

// minParallelPixels is the picture size from which rows are rendered on
// several goroutines.
const minParallelPixels = 1 << 16

// rows calls render over bands of the h rows of a picture w wide: on one
// goroutine per available CPU for a large picture, else at once.
func rows(h, w int, render func(y0, y1 int)) {
	n := runtime.GOMAXPROCS(0)
	if n == 1 || w*h < minParallelPixels {
		render(0, h)
		return
	}
	var wg sync.WaitGroup
	band := (h + n - 1) / n
	for y0 := 0; y0 < h; y0 += band {
		wg.Go(func() { render(y0, min(y0+band, h)) })
	}
	wg.Wait()
}
