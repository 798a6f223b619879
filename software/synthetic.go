package software

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/rsbag/rsbag/extensions"
	"github.com/rsbag/rsbag/internal/optionset"
	"github.com/rsbag/rsbag/internal/sensorrt"
	"github.com/rsbag/rsbag/internal/synthscript"
	"github.com/rsbag/rsbag/sensor"
)

// MetadataMode selects the frame metadata of the synthetic camera.
type MetadataMode int

// Metadata modes.
const (
	MetadataNone  MetadataMode = iota // no metadata
	MetadataBasic                     // Frame Counter, Frame Timestamp, Sensor Timestamp
	MetadataRich                      // basic plus the rich set of the reference bags
)

// String returns "none", "basic" or "rich".
func (m MetadataMode) String() string {
	switch m {
	case MetadataBasic:
		return "basic"
	case MetadataRich:
		return "rich"
	}
	return "none"
}

// Sensor names of the synthetic camera.
const (
	StereoModuleName   = "Stereo Module"
	RGBCameraName      = "RGB Camera"
	MotionModuleName   = "Motion Module"
	TrackingModuleName = "Tracking Module"
)

// Video is the configuration of a synthetic video stream.
type Video struct {
	Width, Height, FPS int
	// Format: Z16 for depth; RGB8 (default), BGR8, RGBA8, BGRA8, YUYV or
	// MJPEG (the RGB8 picture JPEG-encoded, as an old recording of a camera's
	// compressed mode holds) for color; Y8 (default) or Y16 for infrared.
	Format sensor.Format
}

// sleep waits for d or until done is closed; it reports whether d
// elapsed.
func sleep(d time.Duration, done <-chan struct{}) bool {
	if d <= 0 {
		return true
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-done:
		return false
	}
}

// SyntheticConfig configures NewSynthetic. Its fields mirror rsgen's flags;
// the zero value of a field means rsgen's default.
type SyntheticConfig struct {
	Depth    *Video // --depth WxH@FPS (Z16)
	Color    *Video // --color WxH@FPS
	Infrared *Video // --ir WxH@FPS
	// InfraredCount is the number of infrared streams (indices 1..2;
	// --ir-count), 1 when zero.
	InfraredCount int
	AccelFPS      int // --accel FPS
	GyroFPS       int // --gyro FPS
	PoseFPS       int // --pose FPS

	// Frames is the number of ticks per stream (--frames); Duration limits
	// the ticks to stream times t < Duration (--duration-ms). With neither,
	// streams run until stopped.
	Frames   int
	Duration time.Duration

	Metadata MetadataMode // --metadata
	// Info overrides device info entries; an empty value removes the entry
	// (--info NAME=VALUE).
	Info map[sensor.CameraInfo]string
	// SensorStart delays a sensor's frames: its frames begin at the first
	// tick at or after the given stream time (--sensor-start SENSOR:MS);
	// earlier ticks are numbered but produce nothing.
	SensorStart map[string]time.Duration
	// Domains sets the timestamp domain of a stream type (--stream-domain);
	// default Hardware Clock.
	Domains map[sensor.Stream]sensor.TimestampDomain
	// FirstFrameNumber is the number of tick 0 (--first-frame-number), 1
	// when zero. GapEvery G > 0 skips one number after every G frames.
	FirstFrameNumber uint64
	GapEvery         int
	// ColorDistortion replaces the color model (--color-distortion);
	// nil: Inverse Brown Conrady.
	ColorDistortion *sensor.Distortion

	// Speed paces the frames: stream time t is delivered at start + t/Speed
	// on the wall clock (which also times notifications). 0 delivers as
	// fast as the handlers take them.
	Speed float64
	// HostSystemTime makes every frame carry its arrival time in
	// Frame.SystemTimeMs, as a live camera does. By default SystemTimeMs is
	// 0: librealsense's software device leaves the system time of injected
	// frames at 0, so the reference bags hold system_time 0.000000 in every
	// frame's metadata, and a recording of the synthetic camera reproduces
	// them only with 0.
	HostSystemTime bool
	// PreparedFrames > 0 renders that many frames per video stream in
	// advance (the contents of its first ticks) and then hands the same
	// immutable buffers out cyclically: no per-frame pixel buffer, but
	// contents are exact only for the first PreparedFrames ticks. 0 renders
	// the exact contents of every frame into a new buffer.
	PreparedFrames int

	// Scene, when not nil, makes the camera film a 3D scene (SceneConfig)
	// instead of drawing the reference pattern. Nil keeps the pattern, the
	// motion samples and the content of the reference bags of
	// testdata/librealsense exactly.
	Scene *SceneConfig

	// script is what happens at stream times (internal/synthscript).
	script synthscript.Script
}

func init() {
	synthscript.Register(func(cfg any) *synthscript.Script { return &cfg.(*SyntheticConfig).script })
}

// Synthetic is the synthetic camera: a software device whose frames are
// generated on a timeline goroutine. The timeline starts when every sensor
// with opened profiles has been started, and generates each stream's ticks in
// stream-time order (at equal times: sensor starts, option changes,
// notifications, hooks, pause/resume, then frames in device order). A stream
// whose sensor is not started at a tick skips it. Frames are injected into
// the sensors (one delivery goroutine per started sensor), so a slow handler
// slows the whole timeline down and nothing is dropped. Restarting after
// every sensor stopped begins a new timeline at t = 0.
type Synthetic struct {
	*Device
	cfg     SyntheticConfig
	streams []*synthStream
	film    *filming // the scene mode, nil for the reference pattern

	mu      sync.Mutex
	running sensorrt.Goroutines // the timeline goroutine
	gen     *timeline           // current or last timeline
	doneCh  chan struct{}
	closing bool
}

type synthStream struct {
	s       *Sensor
	p       *sensor.StreamProfile
	seed    int
	startMs float64
	domain  sensor.TimestampDomain
	bytesPP int
	base    []byte   // contents for n = 0 (video)
	pattern []uint64 // per-word additions for n = 1 (video)
	period  int      // pattern length in words
	wide    bool     // 16-bit lanes
	ready   [][]byte // prepared buffers
	film    *streamFilm
}

type timeline struct {
	quit chan struct{}
	done chan struct{}
	once sync.Once
}

// optionDefault is an option and its value at the start.
type optionDefault struct {
	Option sensor.Option
	Value  float32
}

// syntheticOptions are the writable options of each synthetic sensor and
// their values at the start (testdata/librealsense/README.md, "Options"),
// added in this order with AddOption. The Stereo Module's read-only options
// and Depth Units are added by NewSynthetic.
var syntheticOptions = map[string][]optionDefault{
	StereoModuleName: {{sensor.OptionExposure, 8500}, {sensor.OptionGain, 16}, {sensor.OptionEnableAutoExposure, 1},
		{sensor.OptionLaserPower, 150}, {sensor.OptionEmitterEnabled, 1}},
	RGBCameraName: {{sensor.OptionBrightness, 0}, {sensor.OptionContrast, 50}, {sensor.OptionExposure, 156},
		{sensor.OptionGain, 64}, {sensor.OptionWhiteBalance, 4600}, {sensor.OptionEnableAutoExposure, 1},
		{sensor.OptionPowerLineFrequency, 3}},
	MotionModuleName:   {{sensor.OptionEnableMotionCorrection, 1}},
	TrackingModuleName: {{sensor.OptionEnableMapping, 1}, {sensor.OptionEnablePoseJumping, 1}},
}

// Synthetic content constants from testdata/librealsense/README.md.
const (
	hwBaseMs     = 12345.678
	systemBaseMs = 1700000000000.125
)

// defaultInfo returns the synthetic camera's default device info.
func defaultInfo() sensor.Info {
	return sensor.Info{
		sensor.CameraInfoName:                       "Intel RealSense D435I",
		sensor.CameraInfoSerialNumber:               "912345678901",
		sensor.CameraInfoFirmwareVersion:            "5.16.0.1",
		sensor.CameraInfoRecommendedFirmwareVersion: "5.16.0.1",
		sensor.CameraInfoPhysicalPort:               "rsgen://software-device/0",
		sensor.CameraInfoDebugOpCode:                "15",
		sensor.CameraInfoAdvancedMode:               "YES",
		sensor.CameraInfoProductId:                  "0B3A",
		sensor.CameraInfoCameraLocked:               "YES",
		sensor.CameraInfoUsbTypeDescriptor:          "3.2",
		sensor.CameraInfoProductLine:                "D400",
		sensor.CameraInfoAsicSerialNumber:           "012345678901",
		sensor.CameraInfoFirmwareUpdateId:           "012345678901",
	}
}

// videoIntrinsics returns the synthetic intrinsics of a w×h stream with
// variant v (0 depth/infrared, 1 color), computed in float32 as the reference
// bags were.
func videoIntrinsics(w, h, v int, model sensor.Distortion) sensor.Intrinsics {
	fw, fh, fv := float32(w), float32(h), float32(v)
	fv1 := float32(v + 1)
	in := sensor.Intrinsics{
		Width: w, Height: h,
		PPX:   float32(float32(fw/2) + float32(0.25*fv1)),
		PPY:   float32(float32(fh/2) - float32(0.125*fv1)),
		FX:    float32(float32(fw*0.9) + fv),
		FY:    float32(float32(float32(fw*0.9)+fv) + 0.5),
		Model: model,
	}
	if v == 1 {
		in.Coeffs = [5]float32{0.125, -0.25, 0.001, -0.002, 0.0625}
	}
	return in
}

// motionIntrinsics returns the motion intrinsics of variant v (1
// accel, 2 gyro), computed in float32.
func motionIntrinsics(v int) sensor.MotionIntrinsics {
	var m sensor.MotionIntrinsics
	fv := float32(v)
	for r := 0; r < 3; r++ {
		for c := 0; c < 4; c++ {
			var a, b float32
			if r == c {
				a = float32(1 + float32(0.001*fv))
			}
			if c == 3 {
				b = float32(float32(0.01*float32(r+1)) * fv)
			}
			m.Data[r][c] = float32(a + b)
		}
		m.NoiseVariances[r] = float32(float32(0.00015*float32(r+1)) * fv)
		m.BiasVariances[r] = float32(float32(0.0025*float32(r+1)) * fv)
	}
	return m
}

// rotationY returns the extrinsics of a rotation by a radians about Y with
// translation t, column-major (cosf a, 0, -sinf a, 0, 1, 0, sinf a, 0,
// cosf a) in float32. Every synthetic extrinsics is one: color a = 0.01f,
// infrared a = 0 (identity rotation, but with -sinf 0 = -0 in its third
// element). That -0 is what the reference bags store: their infrared tf
// rotations are (0, -0, 0, -1) as the recorder's quaternion of exactly this
// matrix, where the plain identity gives (0, 0, 0, -1) (TestReferenceTF).
func rotationY(a float32, t [3]float32) sensor.Extrinsics {
	c := float32(math.Cos(float64(a)))
	s := float32(math.Sin(float64(a)))
	return sensor.Extrinsics{
		Rotation:    [9]float32{c, 0, -s, 0, 1, 0, s, 0, c},
		Translation: t,
	}
}

func (c *SyntheticConfig) sensorFor(name string) string {
	switch strings.ToLower(name) {
	case "depth", "ir", "infrared", "stereo":
		return StereoModuleName
	case "color", "rgb":
		return RGBCameraName
	case "motion", "accel", "gyro":
		return MotionModuleName
	case "pose", "tracking":
		return TrackingModuleName
	}
	return name
}

// NewSynthetic builds a synthetic camera. It fails if the configuration has
// no stream or names an unknown sensor or unsupported format.
func NewSynthetic(cfg SyntheticConfig) (*Synthetic, error) {
	for _, v := range []struct {
		name string
		v    *Video
	}{{"depth", cfg.Depth}, {"color", cfg.Color}, {"infrared", cfg.Infrared}} {
		if v.v != nil {
			if err := synthscript.CheckVideo(v.v.Width, v.v.Height, v.v.FPS); err != nil {
				return nil, fmt.Errorf("software: synthetic %s: %w", v.name, err)
			}
		}
	}
	for _, m := range []struct {
		name string
		fps  int
	}{{"accel", cfg.AccelFPS}, {"gyro", cfg.GyroFPS}, {"pose", cfg.PoseFPS}} {
		if err := synthscript.CheckMotion(m.fps); err != nil {
			return nil, fmt.Errorf("software: synthetic %s: %w", m.name, err)
		}
	}
	if cfg.FirstFrameNumber == 0 {
		cfg.FirstFrameNumber = 1
	}
	info := defaultInfo()
	for k, v := range cfg.Info {
		info.Set(k, v)
	}
	y := &Synthetic{Device: New(info), cfg: cfg}
	d := y.Device
	byName := map[string]*Sensor{}
	addSensor := func(name string) *Sensor {
		s := d.AddSensor(name)
		byName[name] = s
		for _, o := range syntheticOptions[name] {
			s.AddOption(o.Option, o.Value, DefaultRange(o.Value), true)
		}
		return s
	}
	var depthP, colorP *sensor.StreamProfile
	var irP []*sensor.StreamProfile
	if cfg.Depth != nil || cfg.Infrared != nil {
		s := addSensor(StereoModuleName)
		s.AddReadOnlyOption(sensor.OptionAsicTemperature, 36.5)
		s.AddOption(sensor.OptionDepthUnits, 0.001, extensions.Range{Min: 0.000001, Max: 0.01, Step: 0.000001, Default: 0.001}, true)
		s.opts.Add(extensions.OptionSpec{Option: sensor.OptionStereoBaseline, Value: 50,
			Range: extensions.Range{Min: 50, Max: 50, Default: 50}, Description: optionset.DescriptionBypassReadOnly, ReadOnly: true})
		if v := cfg.Depth; v != nil {
			if v.Format != sensor.FormatAny && v.Format != sensor.FormatZ16 {
				return nil, fmt.Errorf("software: synthetic depth format %s: want Z16", v.Format)
			}
			depthP = s.AddVideoStream(VideoStream{Stream: sensor.StreamDepth, Format: sensor.FormatZ16,
				Width: v.Width, Height: v.Height, FPS: v.FPS, Default: true,
				Intrinsics: videoIntrinsics(v.Width, v.Height, 0, sensor.DistortionBrownConrady)})
		}
		if v := cfg.Infrared; v != nil {
			f := v.Format
			if f == sensor.FormatAny {
				f = sensor.FormatY8
			}
			if f != sensor.FormatY8 && f != sensor.FormatY16 {
				return nil, fmt.Errorf("software: synthetic infrared format %s: want Y8 or Y16", f)
			}
			n := cfg.InfraredCount
			if n == 0 {
				n = 1
			}
			if n < 1 || n > 2 {
				return nil, fmt.Errorf("software: synthetic infrared count %d: want 1 or 2", n)
			}
			for i := 1; i <= n; i++ {
				irP = append(irP, s.AddVideoStream(VideoStream{Stream: sensor.StreamInfrared, Index: i, Format: f,
					Width: v.Width, Height: v.Height, FPS: v.FPS, Default: true,
					Intrinsics: videoIntrinsics(v.Width, v.Height, 0, sensor.DistortionBrownConrady)}))
			}
		}
	}
	if v := cfg.Color; v != nil {
		s := addSensor(RGBCameraName)
		f := v.Format
		switch f {
		case sensor.FormatAny:
			f = sensor.FormatRGB8
		case sensor.FormatRGB8, sensor.FormatBGR8, sensor.FormatRGBA8, sensor.FormatBGRA8, sensor.FormatYUYV, sensor.FormatMJPEG:
		default:
			return nil, fmt.Errorf("software: synthetic color format %s: want RGB8, BGR8, RGBA8, BGRA8, YUYV or MJPEG", f)
		}
		model := sensor.DistortionInverseBrownConrady
		if cfg.ColorDistortion != nil {
			model = *cfg.ColorDistortion
		}
		colorP = s.AddVideoStream(VideoStream{Stream: sensor.StreamColor, Format: f,
			Width: v.Width, Height: v.Height, FPS: v.FPS, Default: true,
			Intrinsics: videoIntrinsics(v.Width, v.Height, 1, model)})
	}
	var accelP, gyroP, poseP *sensor.StreamProfile
	if cfg.AccelFPS > 0 || cfg.GyroFPS > 0 {
		s := addSensor(MotionModuleName)
		if cfg.AccelFPS > 0 {
			accelP = s.AddMotionStream(MotionStream{Stream: sensor.StreamAccel, FPS: cfg.AccelFPS, Default: true, Intrinsics: motionIntrinsics(1)})
		}
		if cfg.GyroFPS > 0 {
			gyroP = s.AddMotionStream(MotionStream{Stream: sensor.StreamGyro, FPS: cfg.GyroFPS, Default: true, Intrinsics: motionIntrinsics(2)})
		}
	}
	if cfg.PoseFPS > 0 {
		s := addSensor(TrackingModuleName)
		poseP = s.AddPoseStream(PoseStream{FPS: cfg.PoseFPS, Default: true})
	}
	if len(byName) == 0 {
		return nil, fmt.Errorf("software: synthetic camera without streams")
	}
	lookup := func(what, name string) (*Sensor, error) {
		s, ok := byName[cfg.sensorFor(name)]
		if !ok {
			return nil, fmt.Errorf("software: synthetic %s: no sensor %q", what, name)
		}
		return s, nil
	}
	for _, o := range cfg.script.Set {
		s, err := lookup("option "+o.Option.String(), o.Sensor)
		if err != nil {
			return nil, err
		}
		if err := s.opts.Update(o.Option, o.Value); err != nil {
			return nil, fmt.Errorf("software: synthetic set %s: %w", o.Sensor, err)
		}
	}
	for _, c := range cfg.script.Changes {
		if _, err := lookup("option change", c.Sensor); err != nil {
			return nil, err
		}
	}
	for _, n := range cfg.script.Notifications {
		if _, err := lookup("notification", n.Sensor); err != nil {
			return nil, err
		}
	}
	for name, at := range cfg.SensorStart {
		s, err := lookup("sensor start", name)
		if err != nil {
			return nil, err
		}
		if at > 0 {
			s.deferStreaming.Store(true)
		}
	}

	// Extrinsics: from the reference (depth, else the first video stream)
	// to every other video stream.
	videos := append(append([]*sensor.StreamProfile{depthP}, irP...), colorP)
	var ref *sensor.StreamProfile
	for _, p := range videos {
		if p != nil {
			ref = p
			break
		}
	}
	if ref != nil {
		for _, p := range videos {
			if p == nil || p == ref {
				continue
			}
			// README: color rotates by 0.01f about Y, infrared by 0.
			e := rotationY(0, [3]float32{})
			switch {
			case p == colorP:
				e = rotationY(0.01, [3]float32{0.0147, 0.0001, 0.0003})
			case p.Stream == sensor.StreamInfrared && p.Index == 2:
				e.Translation = [3]float32{-0.05, 0, 0}
			}
			if err := d.RegisterExtrinsics(ref, p, e); err != nil {
				return nil, err
			}
		}
	}

	// Streams in device order.
	add := func(p *sensor.StreamProfile, seed int) {
		if p == nil {
			return
		}
		s := byName[sensorOf(d, p)]
		st := &synthStream{s: s, p: p, seed: seed, domain: sensor.TimestampDomainHardwareClock}
		if dom, ok := cfg.Domains[p.Stream]; ok {
			st.domain = dom
		}
		if at, ok := cfg.SensorStart[findKey(cfg, byName, s)]; ok {
			st.startMs = float64(at) / float64(time.Millisecond)
		}
		if p.Kind == sensor.KindVideo && cfg.Scene == nil {
			st.prepare(cfg.PreparedFrames, cfg.FirstFrameNumber, cfg.GapEvery)
		}
		y.streams = append(y.streams, st)
	}
	add(depthP, 1)
	for _, p := range irP {
		add(p, 10+p.Index)
	}
	add(colorP, 2)
	add(accelP, 0)
	add(gyroP, 0)
	add(poseP, 0)
	if cfg.Scene != nil {
		if err := y.newFilming(*cfg.Scene); err != nil {
			return nil, err
		}
		for _, st := range y.streams {
			for k := 0; k < cfg.PreparedFrames && st.p.Kind == sensor.KindVideo; k++ {
				st.ready = append(st.ready, y.filmVideo(st, k, tickMs(k, st.p.FPS)))
			}
		}
	}

	for _, s := range d.softwareSensors() {
		s.mu.Lock()
		s.onStart = y.sensorStarted
		s.onStop = y.sensorStopped
		s.mu.Unlock()
	}
	d.mu.Lock()
	d.onClose = append(d.onClose, y.closeTimeline)
	d.mu.Unlock()
	d.rt.Own(&y.running)
	y.doneCh = make(chan struct{})
	return y, nil
}

func sensorOf(d *Device, p *sensor.StreamProfile) string {
	for _, s := range d.softwareSensors() {
		if slices.Contains(s.Profiles(), p) {
			return s.String()
		}
	}
	return ""
}

// findKey returns the SensorStart key that names s.
func findKey(cfg SyntheticConfig, byName map[string]*Sensor, s *Sensor) string {
	for k := range cfg.SensorStart {
		if byName[cfg.sensorFor(k)] == s {
			return k
		}
	}
	return ""
}
