package playback

import (
	"fmt"
	"github.com/rsbag/rsbag/internal/callbacks"
	"github.com/rsbag/rsbag/internal/description"
	"math"
	"sync/atomic"

	"github.com/rsbag/rsbag/device"
	"github.com/rsbag/rsbag/extensions"
	"github.com/rsbag/rsbag/internal/layout"
	"github.com/rsbag/rsbag/internal/sensorrt"
	"github.com/rsbag/rsbag/sensor"
)

// optionState is a read-only option whose value follows the recording.
type optionState struct {
	desc *description.Option
	cur  atomic.Uint32 // float32 bits
}

func (o *optionState) value() float32 { return math.Float32frombits(o.cur.Load()) }

func (o *optionState) set(v float32) { o.cur.Store(math.Float32bits(v)) }

// stream is a recorded stream with its connections and delivery state.
type stream struct {
	sensorrt.Counters // Lost: frames in corrupt chunks
	rec               *description.Stream
	profile           *sensor.StreamProfile
	sens              *bagSensor
	kind              layout.TopicKind // KindImageData, KindImuData or KindPoseTransform
	conns             []uint32         // data, metadata and pose sibling connections
	data              []uint32         // data connections only
	w                 *sensorrt.Worker // while its sensor is started
}

// bagSensor is a playback sensor, which Device.Sensors gives as a
// sensor.Sensor. It implements sensor.Sensor and the
// extensions Options (read-only), Notifier, Kinded and RecommendedFilters;
// a sensor with a Depth Units option is returned by Device.Sensors wrapped
// so that it also implements DepthSensor (and DepthStereoSensor with a
// Stereo Baseline option).
type bagSensor struct {
	dev      *Device
	index    int
	snap     *device.SensorSnapshot // its part of the device's Snapshot
	streams  []*stream
	options  []*optionState
	byOption map[sensor.Option]*optionState

	optCbs   callbacks.Callbacks[extensions.OptionChange]
	notifCbs callbacks.Callbacks[sensor.Notification]

	// life changes state only on the device's reader goroutine, which owns
	// opened (the streams of the opened profiles).
	life   sensorrt.Lifecycle
	opened []*stream
	// startPending is set from a Start until the reader applies it.
	startPending atomic.Bool
}

// stopWorkers ends the workers of the opened streams, delivering their
// queued frames first when drain is set.
func (s *bagSensor) stopWorkers(drain bool) {
	for _, st := range s.opened {
		if st.w != nil {
			if drain {
				st.w.Drain()
			}
			st.w.Stop()
			st.w = nil
		}
	}
}

// Index returns the sensor's index in the recorded device.
func (s *bagSensor) Index() int { return s.index }

// Info returns the recorded sensor info.
func (s *bagSensor) Info() sensor.Info { return s.snap.Info.Clone() }

// Profiles returns the recorded stream profiles, every one tagged default.
func (s *bagSensor) Profiles() []*sensor.StreamProfile {
	return append([]*sensor.StreamProfile(nil), s.snap.Profiles...)
}

// Open reserves profiles for streaming; each must be one of Profiles.
func (s *bagSensor) Open(profiles ...*sensor.StreamProfile) error {
	sel, err := s.streamsOf(profiles)
	if err != nil {
		return err
	}
	if err := s.dev.refuseFromHandler(fmt.Sprintf("sensor %d: open", s.index)); err != nil {
		return err
	}
	return s.dev.do(func() error { return s.dev.openSensor(s, profiles, sel) })
}

// streamsOf returns the recorded streams of profiles, in their order.
func (s *bagSensor) streamsOf(profiles []*sensor.StreamProfile) ([]*stream, error) {
	var sel []*stream
	for _, p := range profiles {
		var found *stream
		for _, st := range s.streams {
			if p != nil && st.profile.UID == p.UID {
				found = st
			}
		}
		if found == nil {
			return nil, fmt.Errorf("playback: sensor %d: failed to open sensor, requested profile %v is not available: %w",
				s.index, p, sensor.ErrNoProfile)
		}
		sel = append(sel, found)
	}
	return sel, nil
}

// Start begins delivering the opened streams' frames to h, one goroutine
// per stream.
func (s *bagSensor) Start(h sensor.Handler) error {
	if err := s.dev.refuseFromHandler(fmt.Sprintf("sensor %d: start", s.index)); err != nil {
		return err
	}
	select {
	case <-s.dev.done:
		return ErrClosed
	default:
	}
	err := s.life.CheckStart(h, false)
	if err == nil && !s.startPending.CompareAndSwap(false, true) {
		err = s.life.CheckStart(h, true) // started by another call
	}
	if err != nil {
		return err
	}
	// Start queues the start on the reader and returns without waiting
	// for it, as librealsense's playback sensor queues its start on its
	// reader thread (playback_device::create_playback_sensors, on_started;
	// playback_sensor::start): sensors started one after the other are
	// all started before the reader hands out another frame or answers
	// another call, however late the reader's goroutine runs, and get
	// every frame of their streams handed out after their Start returned.
	s.dev.starts.post(func() {
		s.startPending.Store(false)
		// Refused only if the sensor was closed meanwhile (Close from
		// another goroutine).
		_ = s.dev.startSensor(s, h)
	})
	return nil
}

// Stop stops delivery; queued frames are dropped. It returns after the
// handler returned for the last time. Stopping a sensor that is not
// started does nothing. Called from a frame handler of the device, it fails
// with an error wrapping sensor.ErrStopFromHandler (the sensor keeps
// streaming).
func (s *bagSensor) Stop() error {
	if err := s.dev.refuseFromHandler(fmt.Sprintf("sensor %d: stop", s.index)); err != nil {
		return err
	}
	return s.dev.do(func() error { s.dev.stopSensor(s, false); return nil })
}

// Close stops the sensor if needed and releases its profiles. It fails like
// Stop from a frame handler of the device.
func (s *bagSensor) Close() error {
	if err := s.dev.refuseFromHandler(fmt.Sprintf("sensor %d: close", s.index)); err != nil {
		return err
	}
	return s.dev.do(func() error { return s.dev.closeSensor(s) })
}

// SupportedOptions lists the recorded options in ascending enum order.
func (s *bagSensor) SupportedOptions() []sensor.Option {
	out := make([]sensor.Option, len(s.options))
	for i, o := range s.options {
		out[i] = o.desc.Opt
	}
	return out
}

func (s *bagSensor) option(o sensor.Option) (*optionState, error) {
	st := s.byOption[o]
	if st == nil {
		return nil, fmt.Errorf("playback: sensor %d: option %v: %w", s.index, o, extensions.ErrUnsupportedOption)
	}
	return st, nil
}

// Option returns the recorded value in effect at the playback position.
func (s *bagSensor) Option(o sensor.Option) (float32, error) {
	st, err := s.option(o)
	if err != nil {
		return 0, err
	}
	return st.value(), nil
}

// SetOption always fails: playback options are read-only.
func (s *bagSensor) SetOption(o sensor.Option, v float32) error {
	if _, err := s.option(o); err != nil {
		return err
	}
	return fmt.Errorf("playback: sensor %d: option %v: %w", s.index, o, extensions.ErrReadOnly)
}

// OptionRange returns {v, v, 0, v} for the current value v.
func (s *bagSensor) OptionRange(o sensor.Option) (extensions.Range, error) {
	v, err := s.Option(o)
	if err != nil {
		return extensions.Range{}, err
	}
	return extensions.Range{Min: v, Max: v, Step: 0, Default: v}, nil
}

// OptionDescription returns the recorded description.
func (s *bagSensor) OptionDescription(o sensor.Option) string {
	if st := s.byOption[o]; st != nil {
		return st.desc.Desc
	}
	return ""
}

// OptionReadOnly reports true for every option.
func (s *bagSensor) OptionReadOnly(o sensor.Option) bool { return true }

// OnOptionChange registers f for recorded option changes met during
// playback (and value changes caused by a seek).
func (s *bagSensor) OnOptionChange(f func(extensions.OptionChange)) (cancel func()) {
	return s.optCbs.Add(f)
}

// OnNotification registers f for recorded notifications and playback
// errors.
func (s *bagSensor) OnNotification(f func(sensor.Notification)) (cancel func()) {
	return s.notifCbs.Add(f)
}

// Kinds returns the sensor's kind extensions (spec §6.2).
func (s *bagSensor) Kinds() []extensions.SensorKind {
	return append([]extensions.SensorKind(nil), s.snap.Kinds...)
}

// RecommendedFilters returns the recommended processing block names.
func (s *bagSensor) RecommendedFilters() []string {
	return append([]string{}, s.snap.RecommendedFilters...)
}

func (s *bagSensor) raiseOptionChange(c extensions.OptionChange) { s.optCbs.Call(c) }

func (s *bagSensor) raiseNotification(n sensor.Notification) { s.notifCbs.Call(n) }

// depthSensor adds the DepthSensor extension.
type depthSensor struct{ *bagSensor }

// DepthUnits returns the Depth Units option value.
func (s depthSensor) DepthUnits() float32 { v, _ := s.Option(sensor.OptionDepthUnits); return v }

// stereoSensor adds the DepthStereoSensor extension.
type stereoSensor struct{ depthSensor }

// StereoBaselineMM returns the Stereo Baseline option value.
func (s stereoSensor) StereoBaselineMM() float32 {
	v, _ := s.Option(sensor.OptionStereoBaseline)
	return v
}

var (
	_ sensor.Sensor                 = (*bagSensor)(nil)
	_ extensions.Options            = (*bagSensor)(nil)
	_ extensions.Notifier           = (*bagSensor)(nil)
	_ extensions.Kinded             = (*bagSensor)(nil)
	_ extensions.RecommendedFilters = (*bagSensor)(nil)
	_ extensions.DepthSensor        = depthSensor{}
	_ extensions.DepthStereoSensor  = stereoSensor{}
)
