package software

import (
	"fmt"
	"sort"
	"sync"
	"sync/atomic"

	"github.com/rsbag/rsbag/extensions"
	"github.com/rsbag/rsbag/internal/callbacks"
	"github.com/rsbag/rsbag/internal/optionset"
	"github.com/rsbag/rsbag/internal/sensorrt"
	"github.com/rsbag/rsbag/sensor"
)

// Sensor is a sensor of a software device. Besides sensor.Sensor it
// implements extensions.Options,
// extensions.Notifier, extensions.DepthStereoSensor, extensions.Kinded and
// extensions.RecommendedFilters. Its Kinds follow librealsense: depth sensor
// if it has the Depth Units option, plus depth stereo sensor if it has Stereo
// Baseline; color sensor if named "RGB Camera", motion sensor if "Motion
// Module", fisheye sensor if "Wide FOV Camera". It is safe for concurrent use.
type Sensor struct {
	// opts holds the sensor's options (AddOption, AddReadOnlyOption,
	// SetReadOnlyOption); the embedded interface gives the sensor the
	// extensions.Options methods of opts, and only those.
	opts optionset.OptionSet
	optionsView

	dev   *Device
	index int

	life     sensorrt.Lifecycle
	handlers sensorrt.Goroutines // the delivery goroutine while it runs

	infos infoSet

	mu       sync.Mutex
	profiles []*sensor.StreamProfile
	filters  []string
	worker   *sensorrt.Worker // while started
	count    sensorrt.Tally   // per stream, over every start

	// streaming is what Frames Queue Size reports on: 0 while streaming.
	streaming atomic.Bool
	// deferStreaming (synthetic camera) keeps streaming false at Start; the
	// owner sets it later.
	deferStreaming atomic.Bool
	// onStart and onStop are called (without locks) after Start and Stop.
	onStart, onStop func(*Sensor)

	notes callbacks.Callbacks[sensor.Notification]
}

var (
	_ sensor.Sensor                 = (*Sensor)(nil)
	_ extensions.Options            = (*Sensor)(nil)
	_ extensions.Notifier           = (*Sensor)(nil)
	_ extensions.DepthStereoSensor  = (*Sensor)(nil)
	_ extensions.Kinded             = (*Sensor)(nil)
	_ extensions.RecommendedFilters = (*Sensor)(nil)
)

// framesQueueSizeDefault is the value of Frames Queue Size of a sensor that
// is not streaming, as librealsense reports it (options_pause_notify.bag).
const framesQueueSizeDefault = 16

// optionsView is the field type through which Sensor has the
// extensions.Options methods of its OptionSet.
type optionsView = extensions.Options

func newSensor(d *Device, index int, name string) *Sensor {
	s := &Sensor{dev: d, index: index, infos: infoSet{info: sensor.Info{sensor.CameraInfoName: name}}}
	s.life.Handlers = &s.handlers
	s.optionsView = &s.opts
	s.opts.Add(extensions.OptionSpec{
		Option: sensor.OptionFramesQueueSize, Value: framesQueueSizeDefault,
		Range:       extensions.Range{Min: 0, Max: 32, Step: 1, Default: framesQueueSizeDefault},
		Description: optionset.DescriptionFramesQueueSize,
	})
	s.opts.SetValueHook(func(o sensor.Option, v float32) float32 {
		if o == sensor.OptionFramesQueueSize && s.streaming.Load() {
			return 0
		}
		return v
	})
	return s
}

// Index returns the sensor's position in its device.
func (s *Sensor) Index() int { return s.index }

// String returns the sensor name.
func (s *Sensor) String() string {
	n, _ := s.infos.get(sensor.CameraInfoName)
	return n
}

// Info returns a copy of the sensor info.
func (s *Sensor) Info() sensor.Info { return s.infos.clone() }

// SetInfo sets a sensor info value; an empty value removes it.
func (s *Sensor) SetInfo(k sensor.CameraInfo, v string) { s.infos.set(k, v) }

// VideoStream describes a video stream to add (rs2_video_stream).
type VideoStream struct {
	Stream        sensor.Stream
	Index         int
	Format        sensor.Format
	Width, Height int
	FPS           int
	// Intrinsics; Width and Height are taken from the stream when zero.
	Intrinsics sensor.Intrinsics
	Default    bool
}

// MotionStream describes a motion stream to add (rs2_motion_stream).
type MotionStream struct {
	Stream     sensor.Stream // StreamAccel or StreamGyro
	Index      int
	Format     sensor.Format // FormatMotionXYZ32F when zero
	FPS        int
	Intrinsics sensor.MotionIntrinsics
	Default    bool
}

// PoseStream describes a pose stream to add (rs2_pose_stream).
type PoseStream struct {
	Index   int
	Format  sensor.Format // Format6DOF when zero
	FPS     int
	Default bool
}

func (s *Sensor) addProfile(p *sensor.StreamProfile) *sensor.StreamProfile {
	p.UID = nextUID()
	s.mu.Lock()
	s.profiles = append(s.profiles, p)
	s.mu.Unlock()
	s.dev.addProfile(p, extensions.StreamKey{Sensor: s.index, Stream: p.Stream, Index: p.Index})
	return p
}

// AddVideoStream adds a video stream profile and returns it.
func (s *Sensor) AddVideoStream(v VideoStream) *sensor.StreamProfile {
	in := v.Intrinsics
	if in.Width == 0 && in.Height == 0 {
		in.Width, in.Height = v.Width, v.Height
	}
	return s.addProfile(&sensor.StreamProfile{
		Stream: v.Stream, Index: v.Index, Format: v.Format, FPS: v.FPS, Default: v.Default,
		Kind: sensor.KindVideo, Width: v.Width, Height: v.Height, Intrinsics: in,
	})
}

// AddMotionStream adds a motion stream profile and returns it.
func (s *Sensor) AddMotionStream(m MotionStream) *sensor.StreamProfile {
	if m.Format == sensor.FormatAny {
		m.Format = sensor.FormatMotionXYZ32F
	}
	return s.addProfile(&sensor.StreamProfile{
		Stream: m.Stream, Index: m.Index, Format: m.Format, FPS: m.FPS, Default: m.Default,
		Kind: sensor.KindMotion, MotionIntrinsics: m.Intrinsics,
	})
}

// AddPoseStream adds a pose stream profile and returns it.
func (s *Sensor) AddPoseStream(p PoseStream) *sensor.StreamProfile {
	if p.Format == sensor.FormatAny {
		p.Format = sensor.Format6DOF
	}
	return s.addProfile(&sensor.StreamProfile{
		Stream: sensor.StreamPose, Index: p.Index, Format: p.Format, FPS: p.FPS, Default: p.Default,
		Kind: sensor.KindPose,
	})
}

// AddOption adds a writable (or, with writable false, read-only) option with
// librealsense's custom-option description, as
// rs2::software_sensor::add_option.
func (s *Sensor) AddOption(o sensor.Option, value float32, r extensions.Range, writable bool) {
	s.opts.Add(extensions.OptionSpec{Option: o, Value: value, Range: r, Description: optionset.DescriptionCustomOption, ReadOnly: !writable})
}

// AddReadOnlyOption adds a read-only option with librealsense's read-only
// custom-option description, as rs2::software_sensor::add_read_only_option.
func (s *Sensor) AddReadOnlyOption(o sensor.Option, value float32) {
	s.opts.Add(extensions.OptionSpec{Option: o, Value: value, Range: extensions.Range{Min: value, Max: value, Default: value},
		Description: optionset.DescriptionReadOnlyCustomOption, ReadOnly: true})
}

// SetReadOnlyOption changes the value of an option from the device side,
// read-only or not, as rs2::software_sensor::set_read_only_option: the
// change is reported to OnOptionChange callbacks like any other.
func (s *Sensor) SetReadOnlyOption(o sensor.Option, v float32) error { return s.opts.Update(o, v) }

// SetRecommendedFilters sets the recommended processing blocks (names).
func (s *Sensor) SetRecommendedFilters(names []string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.filters = append([]string(nil), names...)
}

// RecommendedFilters returns the recommended processing block names.
func (s *Sensor) RecommendedFilters() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string{}, s.filters...)
}

// Kinds returns the librealsense extensions of the sensor.
func (s *Sensor) Kinds() []extensions.SensorKind {
	var k []extensions.SensorKind
	if _, ok := s.opts.Spec(sensor.OptionDepthUnits); ok {
		k = append(k, extensions.KindDepthSensor)
		if _, ok := s.opts.Spec(sensor.OptionStereoBaseline); ok {
			k = append(k, extensions.KindDepthStereoSensor)
		}
	}
	switch s.String() {
	case "RGB Camera":
		k = append(k, extensions.KindColorSensor)
	case "Motion Module":
		k = append(k, extensions.KindMotionSensor)
	case "Wide FOV Camera":
		k = append(k, extensions.KindFisheyeSensor)
	}
	sort.Slice(k, func(i, j int) bool { return k[i] < k[j] })
	return k
}

// DepthUnits returns the Depth Units option value (0 without the option).
func (s *Sensor) DepthUnits() float32 {
	v, _ := s.Option(sensor.OptionDepthUnits)
	return v
}

// StereoBaselineMM returns the Stereo Baseline option value (0 without it).
func (s *Sensor) StereoBaselineMM() float32 {
	v, _ := s.Option(sensor.OptionStereoBaseline)
	return v
}

// Profiles returns the sensor's stream profiles in the order they were added.
func (s *Sensor) Profiles() []*sensor.StreamProfile {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]*sensor.StreamProfile(nil), s.profiles...)
}

// OpenProfiles returns the opened profiles in the sensor's order.
func (s *Sensor) OpenProfiles() []*sensor.StreamProfile {
	var out []*sensor.StreamProfile
	for _, p := range s.Profiles() {
		if s.life.Reserved(p) {
			out = append(out, p)
		}
	}
	return out
}

// wrap names the sensor in an error of its life cycle.
func (s *Sensor) wrap(err error) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("software sensor %q: %w", s.String(), err)
}

// Open reserves profiles of this sensor for streaming.
func (s *Sensor) Open(profiles ...*sensor.StreamProfile) error {
	return s.wrap(s.life.Open(s.Profiles(), profiles, nil))
}

// Start starts delivering injected frames to h on the sensor's delivery
// goroutine.
func (s *Sensor) Start(h sensor.Handler) error {
	err := s.life.Start(h, func(opened []*sensor.StreamProfile) error {
		for _, p := range opened {
			s.count.Of(p) // listed by Device.Stats, frames or not
		}
		w := sensorrt.Start(h, &s.handlers, 0, &s.count)
		s.mu.Lock()
		s.worker = w
		s.mu.Unlock()
		if !s.deferStreaming.Load() {
			s.streaming.Store(true)
		}
		return nil
	})
	if err != nil {
		return s.wrap(err)
	}
	if s.onStart != nil {
		s.onStart(s)
	}
	return nil
}

// stopWorker ends the delivery goroutine (Lifecycle's stop step).
func (s *Sensor) stopWorker() error {
	s.mu.Lock()
	w := s.worker
	s.worker = nil
	s.mu.Unlock()
	w.Stop()
	s.streaming.Store(false)
	if s.onStop != nil {
		s.onStop(s)
	}
	return nil
}

// Stop stops delivery. It is synchronous: when it returns the handler is not
// running and will not be called again. Called from the sensor's own handler
// (which it would wait for), it returns an error wrapping
// sensor.ErrStopFromHandler and the sensor keeps streaming.
func (s *Sensor) Stop() error { return s.wrap(s.life.Stop(s.stopWorker)) }

// Close stops the sensor if needed and releases its opened profiles. From
// the sensor's own handler it fails like Stop and changes nothing; a sensor
// with nothing opened fails with an error wrapping sensor.ErrNotOpen.
func (s *Sensor) Close() error { return s.wrap(s.life.Close(s.stopWorker, nil)) }

// shutdown closes the sensor for good (device Close).
func (s *Sensor) shutdown() error {
	if err := s.life.Shutdown(s.stopWorker, nil); err != nil {
		return fmt.Errorf("software sensor %q: close: %w", s.String(), err)
	}
	return nil
}

func (s *Sensor) currentWorker() *sensorrt.Worker {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.worker
}

// Inject hands a frame to the delivery goroutine, waiting while the handler
// is busy with the previous one. The frame's Profile must be an opened
// profile of this sensor. Inject fills in what the frame leaves zero, as
// librealsense's software sensor does: Width, Height, BPP and Stride (Width ×
// bytes per pixel) from the profile, and DepthUnits of Z16 frames from the
// Depth Units option. The caller must not modify f or its Data afterwards.
// It returns an error wrapping sensor.ErrNotStarted when the sensor is not
// started (or is stopped while Inject waits), and one wrapping
// sensor.ErrStopFromHandler when called from the sensor's own handler while
// it would have to wait for that handler.
func (s *Sensor) Inject(f *sensor.Frame) error {
	w := s.currentWorker()
	if w == nil {
		return fmt.Errorf("software sensor %q: inject: %w", s.String(), sensor.ErrNotStarted)
	}
	if !s.life.Reserved(f.Profile) {
		return fmt.Errorf("software sensor %q: inject frame of %v: %w", s.String(), f.Profile, sensor.ErrNoProfile)
	}
	p := f.Profile
	if p.Kind == sensor.KindVideo {
		if f.Width == 0 && f.Height == 0 {
			f.Width, f.Height = p.Width, p.Height
		}
		if f.BPP == 0 {
			f.BPP = p.Format.BitsPerPixel()
		}
		if f.Stride == 0 {
			f.Stride = f.Width * f.BPP / 8
		}
		if f.DepthUnits == 0 && p.Format == sensor.FormatZ16 {
			f.DepthUnits = s.DepthUnits()
		}
	}
	if err := w.Send(f); err != nil {
		return fmt.Errorf("software sensor %q: inject: %w", s.String(), err)
	}
	return nil
}

// Flush waits until every frame injected before it has been handled. It
// returns at once when the sensor is not started, and when called from the
// sensor's own handler (every earlier frame has then been handled).
func (s *Sensor) Flush() {
	if w := s.currentWorker(); w != nil {
		w.Drain()
	}
}

// OnNotification registers f for every notification of the sensor; cancel
// unregisters it.
func (s *Sensor) OnNotification(f func(sensor.Notification)) (cancel func()) {
	return s.notes.Add(f)
}

// Notify raises a notification: the registered callbacks run on the calling
// goroutine, in registration order, with no lock held.
func (s *Sensor) Notify(n sensor.Notification) { s.notes.Call(n) }
