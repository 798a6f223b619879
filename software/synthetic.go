package software

import (
	"encoding/binary"
	"fmt"
	"math"
	"strings"
	"sync"
	"time"

	"github.com/rsbag/rsbag/extensions"
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

// Set parses "none", "basic" or "rich" (flag.Value).
func (m *MetadataMode) Set(s string) error {
	switch s {
	case "none":
		*m = MetadataNone
	case "basic":
		*m = MetadataBasic
	case "rich":
		*m = MetadataRich
	default:
		return fmt.Errorf("software: metadata mode %q: want none, basic or rich", s)
	}
	return nil
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
	// Format: Z16 for depth; RGB8 (default), BGR8, RGBA8, BGRA8 or YUYV for
	// color; Y8 (default) or Y16 for infrared.
	Format sensor.Format
}

// OptionValue is an option value for a sensor of the synthetic camera.
// Sensor is a sensor name or one of "depth", "ir", "color", "motion",
// "accel", "gyro", "pose".
type OptionValue struct {
	Sensor string
	Option sensor.Option
	Value  float32
}

// OptionChangeAt changes an option at a stream time (rsgen --change-at). The
// change is made from the device side (ignoring the read-only flag) after
// every earlier frame has been handled and before frames at that time.
type OptionChangeAt struct {
	At time.Duration
	OptionValue
}

// NotificationAt raises a Hardware Event notification of severity Info on a
// sensor at a stream time (rsgen --notify-at), with serialized data
// {"rsgen_t_ms":T}.
type NotificationAt struct {
	At          time.Duration
	Sensor      string
	Description string
}

// Hook runs Func on the synthetic camera's timeline goroutine at a stream
// time, after every earlier frame has been handled and before frames at that
// time. Func must not start, stop or close sensors of the camera; closing the
// camera from it fails with sensor.ErrStopFromHandler.
type Hook struct {
	At   time.Duration
	Func func()
}

// Clock is the time source of the synthetic camera's pacing; tests inject a
// virtual one.
type Clock interface {
	Now() time.Time
	// Sleep waits for d or until done is closed; it reports whether d
	// elapsed.
	Sleep(d time.Duration, done <-chan struct{}) bool
}

type realClock struct{}

func (realClock) Now() time.Time { return time.Now() }
func (realClock) Sleep(d time.Duration, done <-chan struct{}) bool {
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

// RealClock is the wall clock.
var RealClock Clock = realClock{}

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
	// Set replaces option values before streaming (--set).
	Set []OptionValue
	// Changes, Notifications and Hooks happen at stream times.
	Changes       []OptionChangeAt
	Notifications []NotificationAt
	Hooks         []Hook
	// PauseAt/ResumeAt call OnPause/OnResume at those stream times
	// (--pause-ms/--resume-ms; rsgen pauses its recorder). Zero: none.
	PauseAt, ResumeAt time.Duration
	OnPause, OnResume func()
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
	// of Clock. 0 delivers as fast as the handlers take them.
	Speed float64
	// Clock is the pacing clock and the source of notification times (and
	// of frame arrival times with HostSystemTime); RealClock when nil.
	Clock Clock
	// HostSystemTime makes every frame carry its arrival time on Clock in
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
	clock   Clock
	streams []*synthStream

	mu      sync.Mutex
	running owner     // the timeline goroutine
	gen     *timeline // current or last timeline
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

// DefaultSyntheticInfo returns the synthetic camera's default device info.
func DefaultSyntheticInfo() sensor.Info {
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

// VideoIntrinsics returns the synthetic intrinsics of a w×h stream with
// variant v (0 depth/infrared, 1 color), computed in float32 as the reference
// bags were.
func VideoIntrinsics(w, h, v int, model sensor.Distortion) sensor.Intrinsics {
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

// SyntheticMotionIntrinsics returns the motion intrinsics of variant v (1
// accel, 2 gyro), computed in float32.
func SyntheticMotionIntrinsics(v int) sensor.MotionIntrinsics {
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
			if err := sensor.CheckVideo(v.v.Width, v.v.Height, v.v.FPS); err != nil {
				return nil, fmt.Errorf("software: synthetic %s: %w", v.name, err)
			}
		}
	}
	for _, m := range []struct {
		name string
		fps  int
	}{{"accel", cfg.AccelFPS}, {"gyro", cfg.GyroFPS}, {"pose", cfg.PoseFPS}} {
		if err := sensor.CheckMotion(m.fps); err != nil {
			return nil, fmt.Errorf("software: synthetic %s: %w", m.name, err)
		}
	}
	if cfg.FirstFrameNumber == 0 {
		cfg.FirstFrameNumber = 1
	}
	info := DefaultSyntheticInfo()
	for k, v := range cfg.Info {
		info.Set(k, v)
	}
	y := &Synthetic{Device: New(info), cfg: cfg, clock: cfg.Clock}
	if y.clock == nil {
		y.clock = RealClock
	}
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
		s.AddOptionSpec(extensions.OptionSpec{Option: sensor.OptionStereoBaseline, Value: 50,
			Range: extensions.Range{Min: 50, Max: 50, Default: 50}, Description: extensions.DescriptionBypassReadOnly, ReadOnly: true})
		if v := cfg.Depth; v != nil {
			if v.Format != sensor.FormatAny && v.Format != sensor.FormatZ16 {
				return nil, fmt.Errorf("software: synthetic depth format %s: want Z16", v.Format)
			}
			depthP = s.AddVideoStream(VideoStream{Stream: sensor.StreamDepth, Format: sensor.FormatZ16,
				Width: v.Width, Height: v.Height, FPS: v.FPS, Default: true,
				Intrinsics: VideoIntrinsics(v.Width, v.Height, 0, sensor.DistortionBrownConrady)})
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
					Intrinsics: VideoIntrinsics(v.Width, v.Height, 0, sensor.DistortionBrownConrady)}))
			}
		}
	}
	if v := cfg.Color; v != nil {
		s := addSensor(RGBCameraName)
		f := v.Format
		switch f {
		case sensor.FormatAny:
			f = sensor.FormatRGB8
		case sensor.FormatRGB8, sensor.FormatBGR8, sensor.FormatRGBA8, sensor.FormatBGRA8, sensor.FormatYUYV:
		default:
			return nil, fmt.Errorf("software: synthetic color format %s: want RGB8, BGR8, RGBA8, BGRA8 or YUYV", f)
		}
		model := sensor.DistortionInverseBrownConrady
		if cfg.ColorDistortion != nil {
			model = *cfg.ColorDistortion
		}
		colorP = s.AddVideoStream(VideoStream{Stream: sensor.StreamColor, Format: f,
			Width: v.Width, Height: v.Height, FPS: v.FPS, Default: true,
			Intrinsics: VideoIntrinsics(v.Width, v.Height, 1, model)})
	}
	var accelP, gyroP, poseP *sensor.StreamProfile
	if cfg.AccelFPS > 0 || cfg.GyroFPS > 0 {
		s := addSensor(MotionModuleName)
		if cfg.AccelFPS > 0 {
			accelP = s.AddMotionStream(MotionStream{Stream: sensor.StreamAccel, FPS: cfg.AccelFPS, Default: true, Intrinsics: SyntheticMotionIntrinsics(1)})
		}
		if cfg.GyroFPS > 0 {
			gyroP = s.AddMotionStream(MotionStream{Stream: sensor.StreamGyro, FPS: cfg.GyroFPS, Default: true, Intrinsics: SyntheticMotionIntrinsics(2)})
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
	for _, o := range cfg.Set {
		s, err := lookup("option "+o.Option.String(), o.Sensor)
		if err != nil {
			return nil, err
		}
		if err := s.Update(o.Option, o.Value); err != nil {
			return nil, fmt.Errorf("software: synthetic set %s: %w", o.Sensor, err)
		}
	}
	for _, c := range cfg.Changes {
		if _, err := lookup("option change", c.Sensor); err != nil {
			return nil, err
		}
	}
	for _, n := range cfg.Notifications {
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
		if p.Kind == sensor.KindVideo {
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

	for _, s := range d.SoftwareSensors() {
		s.mu.Lock()
		s.onStart = y.sensorStarted
		s.onStop = y.sensorStopped
		s.mu.Unlock()
	}
	d.mu.Lock()
	d.onClose = append(d.onClose, y.closeTimeline)
	d.owners = append(d.owners, &y.running)
	d.mu.Unlock()
	y.doneCh = make(chan struct{})
	return y, nil
}

func sensorOf(d *Device, p *sensor.StreamProfile) string {
	for _, s := range d.SoftwareSensors() {
		if s.hasProfileLocked(p) {
			return s.String()
		}
	}
	return ""
}

func (s *Sensor) hasProfileLocked(p *sensor.StreamProfile) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.hasProfile(p)
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

// Config returns the configuration the camera was built with.
func (y *Synthetic) Config() SyntheticConfig { return y.cfg }

// Done returns a channel closed when the current timeline (or, before the
// first start, the next one) has delivered its last frame or was stopped.
func (y *Synthetic) Done() <-chan struct{} {
	y.mu.Lock()
	defer y.mu.Unlock()
	return y.doneCh
}

// sensorStarted starts a timeline when every sensor with opened profiles is
// started and none is running.
func (y *Synthetic) sensorStarted(*Sensor) {
	y.mu.Lock()
	defer y.mu.Unlock()
	if y.closing {
		return
	}
	if y.gen != nil {
		select {
		case <-y.gen.quit:
			<-y.gen.done // stopping: wait, then start a new timeline
		case <-y.gen.done:
		default:
			return // running: the sensor joins it
		}
	}
	opened := 0
	for _, s := range y.SoftwareSensors() {
		if len(s.OpenProfiles()) == 0 {
			continue
		}
		opened++
		if !s.started() {
			return
		}
	}
	if opened == 0 {
		return
	}
	if y.gen != nil {
		y.doneCh = make(chan struct{}) // the last timeline closes its own
	}
	g := &timeline{quit: make(chan struct{}), done: make(chan struct{})}
	y.gen = g
	go y.run(g, y.doneCh)
}

func (y *Synthetic) sensorStopped(*Sensor) {
	y.mu.Lock()
	defer y.mu.Unlock()
	for _, s := range y.SoftwareSensors() {
		if s.started() {
			return
		}
	}
	g := y.gen
	if g != nil {
		g.once.Do(func() { close(g.quit) })
	}
}

func (y *Synthetic) closeTimeline() {
	y.mu.Lock()
	y.closing = true
	g := y.gen
	y.mu.Unlock()
	if g != nil {
		g.once.Do(func() { close(g.quit) })
		<-g.done
	}
}

// event kinds at equal stream times, in the order rsgen applies them.
const (
	evStart = iota
	evChange
	evNotify
	evHook
	evPause
)

type event struct {
	ms   float64
	kind int
	seq  int
	do   func()
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

func (y *Synthetic) events() []event {
	var evs []event
	cfg := &y.cfg
	add := func(at float64, kind int, f func()) {
		evs = append(evs, event{ms: at, kind: kind, seq: len(evs), do: f})
	}
	byName := map[string]*Sensor{}
	for _, s := range y.SoftwareSensors() {
		byName[s.String()] = s
	}
	for name, at := range cfg.SensorStart {
		s := byName[cfg.sensorFor(name)]
		if at > 0 && s != nil {
			add(ms(at), evStart, func() {
				if s.started() {
					s.streaming.Store(true)
				}
			})
		}
	}
	for _, c := range cfg.Changes {
		c := c
		s := byName[cfg.sensorFor(c.Sensor)]
		add(ms(c.At), evChange, func() { _ = s.Update(c.Option, c.Value) })
	}
	for _, n := range cfg.Notifications {
		n := n
		s := byName[cfg.sensorFor(n.Sensor)]
		add(ms(n.At), evNotify, func() {
			s.Notify(sensor.Notification{
				Category: sensor.NotificationCategoryHardwareEvent, Severity: sensor.SeverityInfo,
				Description:    n.Description,
				TimestampMs:    float64(y.clock.Now().UnixNano()) / 1e6,
				SerializedData: fmt.Sprintf(`{"rsgen_t_ms":%d}`, n.At.Milliseconds()),
			})
		})
	}
	for _, h := range cfg.Hooks {
		if h.Func != nil {
			add(ms(h.At), evHook, h.Func)
		}
	}
	if cfg.PauseAt > 0 && cfg.OnPause != nil {
		add(ms(cfg.PauseAt), evPause, cfg.OnPause)
	}
	if cfg.ResumeAt > 0 && cfg.OnResume != nil {
		add(ms(cfg.ResumeAt), evPause, cfg.OnResume)
	}
	// Stable order: time, kind, configuration order.
	for i := 1; i < len(evs); i++ {
		for j := i; j > 0 && evLess(evs[j], evs[j-1]); j-- {
			evs[j], evs[j-1] = evs[j-1], evs[j]
		}
	}
	return evs
}

func evLess(a, b event) bool {
	if a.ms != b.ms {
		return a.ms < b.ms
	}
	if a.kind != b.kind {
		return a.kind < b.kind
	}
	return a.seq < b.seq
}

// tickMs returns the stream time of tick k.
func tickMs(k, fps int) float64 { return float64(k) * 1000.0 / float64(fps) }

func (y *Synthetic) limit(k, fps int) bool {
	if y.cfg.Frames > 0 && k >= y.cfg.Frames {
		return false
	}
	if y.cfg.Duration > 0 && !(tickMs(k, fps) < ms(y.cfg.Duration)) {
		return false
	}
	return true
}

// run is the timeline goroutine.
func (y *Synthetic) run(g *timeline, done chan struct{}) {
	defer close(done)
	defer close(g.done)
	y.running.enter()
	defer y.running.leave() // before g.done: the next timeline enters after
	evs := y.events()
	ticks := make([]int, len(y.streams))
	epoch := y.clock.Now()
	flush := func() {
		for _, s := range y.SoftwareSensors() {
			s.Flush()
		}
	}
	pace := func(t float64) bool {
		if y.cfg.Speed <= 0 {
			select {
			case <-g.quit:
				return false
			default:
				return true
			}
		}
		target := epoch.Add(time.Duration(t / y.cfg.Speed * float64(time.Millisecond)))
		if d := target.Sub(y.clock.Now()); d > 0 {
			return y.clock.Sleep(d, g.quit)
		}
		select {
		case <-g.quit:
			return false
		default:
			return true
		}
	}
	for {
		// Next frame: smallest tick time, ties in device order.
		best := -1
		var bestMs float64
		for i, st := range y.streams {
			k := ticks[i]
			if !y.limit(k, st.p.FPS) {
				continue
			}
			t := tickMs(k, st.p.FPS)
			if best < 0 || t < bestMs {
				best, bestMs = i, t
			}
		}
		if len(evs) > 0 && (best < 0 || evs[0].ms <= bestMs) {
			if !pace(evs[0].ms) {
				return
			}
			flush()
			evs[0].do()
			evs = evs[1:]
			continue
		}
		if best < 0 {
			flush()
			return
		}
		if !pace(bestMs) {
			return
		}
		st := y.streams[best]
		k := ticks[best]
		ticks[best]++
		if bestMs < st.startMs || !st.s.started() || !st.s.IsOpen(st.p) {
			continue
		}
		f := y.frame(st, k, bestMs)
		_ = st.s.Inject(f) // a stopped sensor skips its ticks
	}
}

func (y *Synthetic) frameNumber(k int) uint64 {
	n := y.cfg.FirstFrameNumber + uint64(k)
	if y.cfg.GapEvery > 0 {
		n += uint64(k / y.cfg.GapEvery)
	}
	return n
}

// frame builds the frame of tick k at stream time t.
func (y *Synthetic) frame(st *synthStream, k int, t float64) *sensor.Frame {
	n := y.frameNumber(k)
	f := &sensor.Frame{Profile: st.p, Number: n, Domain: st.domain}
	base := hwBaseMs
	if st.domain != sensor.TimestampDomainHardwareClock {
		base = systemBaseMs
	}
	f.TimestampMs = base + t
	if y.cfg.HostSystemTime {
		f.SystemTimeMs = float64(y.clock.Now().UnixNano()) / 1e6
	} // else 0, as librealsense's software device (SyntheticConfig.HostSystemTime)
	p := st.p
	fn := float32(n)
	switch p.Kind {
	case sensor.KindVideo:
		f.Data = st.render(k, n)
	case sensor.KindMotion:
		if p.Stream == sensor.StreamAccel {
			f.Motion = [3]float32{float32(0.125 * fn), -9.80665, float32(1.0 / float32(fn+1.0))}
		} else {
			f.Motion = [3]float32{float32(0.001 * fn), float32(-0.002 * fn), 0.5}
		}
		f.Data = sensor.AppendMotion(make([]byte, 0, 12), f.Motion)
	case sensor.KindPose:
		f.Pose = SyntheticPose(n)
		f.Data = sensor.AppendPose(make([]byte, 0, sensor.PoseSize), &f.Pose)
	}
	if y.cfg.Metadata >= MetadataBasic {
		ft := int64(math.Round(f.TimestampMs * 1000))
		f.Metadata.Set(sensor.MetadataKeyFrameCounter, int64(n))
		f.Metadata.Set(sensor.MetadataKeyFrameTimestamp, ft)
		f.Metadata.Set(sensor.MetadataKeySensorTimestamp, ft-500)
	}
	if y.cfg.Metadata == MetadataRich {
		m := &f.Metadata
		nn := int64(n)
		toa := int64(math.Round(systemBaseMs + t + 2))
		m.Set(sensor.MetadataKeyActualExposure, 8000+50*(nn%10)+int64(st.seed))
		m.Set(sensor.MetadataKeyGainLevel, 16+nn%5)
		m.Set(sensor.MetadataKeyAutoExposure, nn%2)
		m.Set(sensor.MetadataKeyWhiteBalance, 4600+10*(nn%4))
		m.Set(sensor.MetadataKeyTimeOfArrival, toa)
		m.Set(sensor.MetadataKeyTemperature, 35+nn%3)
		m.Set(sensor.MetadataKeyBackendTimestamp, toa-1)
		m.Set(sensor.MetadataKeyActualFps, 1000*int64(p.FPS))
		m.Set(sensor.MetadataKeyFrameLaserPower, 150)
		m.Set(sensor.MetadataKeyFrameLaserPowerMode, 1)
		m.Set(sensor.MetadataKeyExposurePriority, 1)
		m.Set(sensor.MetadataKeyBrightness, -3)
		m.Set(sensor.MetadataKeyContrast, 50)
		m.Set(sensor.MetadataKeySaturation, 64)
		m.Set(sensor.MetadataKeySharpness, 50)
		m.Set(sensor.MetadataKeyAutoWhiteBalanceTemperature, 4600)
		m.Set(sensor.MetadataKeyHue, -nn-1)
		m.Set(sensor.MetadataKeyPowerLineFrequency, 3)
		m.Set(sensor.MetadataKeyLowLightCompensation, 0)
		m.Set(sensor.MetadataKeyFrameEmitterMode, 1)
		m.Set(sensor.MetadataKeyRawFrameSize, int64(len(f.Data)))
		m.Set(sensor.MetadataKeyGpioInputData, nn%16)
		m.Set(sensor.MetadataKeySequenceId, nn%2)
		m.Set(sensor.MetadataKeySequenceSize, 2)
		if p.Kind == sensor.KindVideo {
			m.Set(sensor.MetadataKeyInputWidth, int64(p.Width))
			m.Set(sensor.MetadataKeyInputHeight, int64(p.Height))
		}
		m.Set(sensor.MetadataKeyCalibInfo, int64(uint64(0x7FFFFFFFFFFFFF00)+n))
		m.Set(sensor.MetadataKeyCrc, 0x1234ABCD)
	}
	return f
}

// glibcSin and glibcCos are the rotation components, keyed by frame number
// n, for which glibc 2.36's sinf/cosf (x86-64), which computed the reference
// pose.bag, return the other float32 neighbour of sin/cos(x), x = 0.005f·n,
// than float32(math.Sin/Cos(float64(x))) does. The values are the ones
// testdata/librealsense/README.md ("Pose") lists for the frames of pose.bag
// (n = 1..200) and TestReferenceBags pins against its hashes. No rounding
// rule of ours reproduces glibc's choice, so they are a table.
var (
	glibcSin = map[uint64]float32{19: 0.09485717, 93: 0.4484228, 99: 0.4750316, 109: 0.5184181, 136: 0.62879306}
	glibcCos = map[uint64]float32{169: 0.66373134, 197: 0.5528631, 199: 0.54450285}
)

// SyntheticPose returns the pose of frame number n. The rotation is
// (0, sinf(x), 0, cosf(x)) with x = 0.005f·n as glibc 2.36 computes it: for
// n ≤ 200 exactly (float32(math.Sin/Cos(float64(x))) corrected by the
// glibcSin/glibcCos table), beyond that float32(math.Sin/Cos(float64(x))),
// which may be one float32 step away from glibc for some n.
func SyntheticPose(n uint64) sensor.Pose {
	fn := float32(n)
	x := float32(0.005 * fn)
	sin, cos := float32(math.Sin(float64(x))), float32(math.Cos(float64(x)))
	if v, ok := glibcSin[n]; ok {
		sin = v
	}
	if v, ok := glibcCos[n]; ok {
		cos = v
	}
	return sensor.Pose{
		Translation:         [3]float32{float32(0.01 * fn), float32(-0.02 * fn), 0.5},
		Velocity:            [3]float32{0.3, 0, -0.3},
		Acceleration:        [3]float32{0, 0.01, 0},
		Rotation:            [4]float32{0, sin, 0, cos},
		AngularVelocity:     [3]float32{0, 0.01, 0},
		AngularAcceleration: [3]float32{0, 0, float32(0.001 * fn)},
		TrackerConfidence:   uint32(n % 4),
		MapperConfidence:    uint32((n + 1) % 4),
	}
}

// SyntheticPixels renders the exact contents of frame number n of a w×h
// stream of format f with seed s (depth 1, color 2, infrared 10+index) into
// a new buffer.
func SyntheticPixels(f sensor.Format, w, h, seed int, n uint64) []byte {
	bpp := f.BitsPerPixel() / 8
	out := make([]byte, w*h*bpp)
	wide := f == sensor.FormatZ16 || f == sensor.FormatY16
	i := 0
	for y := 0; y < h; y++ {
		by := y / 8
		for x := 0; x < w; x++ {
			bx := x / 8
			if wide {
				v := uint16((bx*37 + by*101 + seed*1000) + int(n%65536)*7)
				binary.LittleEndian.PutUint16(out[i:], v)
				i += 2
				continue
			}
			for c := 0; c < bpp; c++ {
				out[i] = byte(bx*(c+3) + by*(2*c+5) + int(n%256)*(c+1) + seed*17 + c*50)
				i++
			}
		}
	}
	return out
}

// prepare renders the n = 0 contents and the per-frame addition pattern, and
// the prepared frames if asked.
func (st *synthStream) prepare(prepared int, first uint64, gap int) {
	p := st.p
	st.bytesPP = p.Format.BitsPerPixel() / 8
	st.wide = p.Format == sensor.FormatZ16 || p.Format == sensor.FormatY16
	st.base = SyntheticPixels(p.Format, p.Width, p.Height, st.seed, 0)
	// The addition for n = 1 per byte lane, repeated over lcm(bpp, 8) bytes.
	words := 1
	for (words*8)%st.bytesPP != 0 {
		words++
	}
	st.period = words
	st.pattern = make([]uint64, words)
	var lane [24]byte
	for j := 0; j < words*8; j++ {
		if st.wide {
			if j%2 == 0 {
				lane[j] = 7
			}
			continue
		}
		lane[j] = byte(j%st.bytesPP + 1)
	}
	for w := 0; w < words; w++ {
		st.pattern[w] = binary.LittleEndian.Uint64(lane[w*8:])
	}
	for k := 0; k < prepared; k++ {
		n := first + uint64(k)
		if gap > 0 {
			n += uint64(k / gap)
		}
		st.ready = append(st.ready, st.renderExact(n))
	}
}

func (st *synthStream) render(k int, n uint64) []byte {
	if len(st.ready) > 0 {
		return st.ready[k%len(st.ready)]
	}
	return st.renderExact(n)
}

// renderExact returns base + n·pattern with per-lane wrap-around, eight bytes
// at a time.
func (st *synthStream) renderExact(n uint64) []byte {
	out := make([]byte, len(st.base))
	var add [3]uint64
	var hi uint64 = 0x8080808080808080
	if st.wide {
		hi = 0x8000800080008000
	}
	for w := 0; w < st.period; w++ {
		add[w] = mulLanes(st.pattern[w], n, st.wide)
	}
	b := st.base
	step := 8 * st.period
	nw := (len(out) / step) * step / 8 // whole periods
	switch st.period {
	case 1:
		y := add[0]
		for i := 0; i+8 <= nw*8; i += 8 {
			x := binary.LittleEndian.Uint64(b[i : i+8])
			binary.LittleEndian.PutUint64(out[i:i+8], ((x&^hi)+(y&^hi))^((x^y)&hi))
		}
	default:
		for i := 0; i+step <= nw*8; i += step {
			for w := 0; w < st.period; w++ {
				j := i + 8*w
				x := binary.LittleEndian.Uint64(b[j : j+8])
				y := add[w]
				binary.LittleEndian.PutUint64(out[j:j+8], ((x&^hi)+(y&^hi))^((x^y)&hi))
			}
		}
	}
	// Remaining whole words.
	for i := nw; i < len(out)/8; i++ {
		x := binary.LittleEndian.Uint64(b[i*8:])
		y := add[i%st.period]
		binary.LittleEndian.PutUint64(out[i*8:], ((x&^hi)+(y&^hi))^((x^y)&hi))
	}
	nw = len(out) / 8
	// Tail bytes.
	for j := nw * 8; j < len(out); j++ {
		if st.wide {
			// 16-bit lanes never straddle the tail when the size is even.
			if j%2 == 0 && j+1 < len(out) {
				v := binary.LittleEndian.Uint16(b[j:]) + uint16(n%65536)*7
				binary.LittleEndian.PutUint16(out[j:], v)
			}
			continue
		}
		out[j] = b[j] + byte(n%256)*byte(j%st.bytesPP+1)
	}
	return out
}

// mulLanes multiplies every 8-bit (or 16-bit) lane of p by n, wrapping.
func mulLanes(p, n uint64, wide bool) uint64 {
	var r uint64
	if wide {
		for i := 0; i < 4; i++ {
			v := uint16(p>>(16*i)) * uint16(n)
			r |= uint64(v) << (16 * i)
		}
		return r
	}
	for i := 0; i < 8; i++ {
		v := uint8(p>>(8*i)) * uint8(n)
		r |= uint64(v) << (8 * i)
	}
	return r
}
