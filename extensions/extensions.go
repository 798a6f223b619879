// Package extensions defines the optional abilities of sensors and devices,
// discovered by type assertion (like librealsense's is/as extensions):
// options, depth units, stereo baseline, sensor kinds, notifications,
// recommended processing blocks, recording and playback control.
package extensions

import (
	"errors"
	"sync"
	"time"

	"github.com/rsbag/rsbag/sensor"
)

// Range is the range of an option value.
type Range struct {
	Min, Max, Step, Default float32
}

// OptionChange reports that an option took a new value.
type OptionChange struct {
	Option sensor.Option
	Value  float32
}

// Options is implemented by sensors that have options.
type Options interface {
	// SupportedOptions lists the options in ascending enum order.
	SupportedOptions() []sensor.Option
	// Option returns the current value.
	Option(o sensor.Option) (float32, error)
	// SetOption sets a value; read-only options return ErrReadOnly.
	SetOption(o sensor.Option, v float32) error
	// OptionRange returns the value range.
	OptionRange(o sensor.Option) (Range, error)
	// OptionDescription returns the human-readable description.
	OptionDescription(o sensor.Option) string
	// OptionReadOnly reports whether SetOption is refused.
	OptionReadOnly(o sensor.Option) bool
	// OnOptionChange registers f to be called after every value change, on
	// the goroutine that made the change; cancel unregisters it.
	OnOptionChange(f func(OptionChange)) (cancel func())
}

// Notifier is implemented by sensors that raise notifications.
type Notifier interface {
	// OnNotification registers f for every notification; cancel unregisters it.
	OnNotification(f func(sensor.Notification)) (cancel func())
}

// DepthSensor is implemented by depth sensors.
type DepthSensor interface {
	// DepthUnits returns the meters per depth unit (the Depth Units option).
	DepthUnits() float32
}

// DepthStereoSensor is implemented by stereo depth sensors.
type DepthStereoSensor interface {
	DepthSensor
	// StereoBaselineMM returns the stereo baseline in millimeters.
	StereoBaselineMM() float32
}

// SensorKind is a sensor-kind extension.
type SensorKind uint8

// Sensor kinds, named as librealsense names the extensions.
const (
	KindDepthSensor SensorKind = iota
	KindDepthStereoSensor
	KindColorSensor
	KindMotionSensor
	KindFisheyeSensor
	KindPoseSensor
)

var kindNames = [...]string{"depth_sensor", "depth_stereo_sensor", "color_sensor", "motion_sensor", "fisheye_sensor", "pose_sensor"}

// String returns the extension name, e.g. "depth_sensor".
func (k SensorKind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return "unknown_extension"
}

// Kinded is implemented by sensors that report their kind extensions.
type Kinded interface {
	// Kinds returns the sensor's kind extensions in Kind order.
	Kinds() []SensorKind
}

// RecommendedFilters is implemented by sensors that recommend processing
// blocks (by librealsense block name, e.g. "Decimation Filter").
type RecommendedFilters interface {
	RecommendedFilters() []string
}

// Recorder is implemented by record devices.
type Recorder interface {
	// Pause stops writing frames until Resume; bag time excludes the pause.
	Pause() error
	// Resume resumes writing.
	Resume() error
	// Filename returns the path of the bag being written ("" if none).
	Filename() string
}

// PlaybackStatus is the state of a playback device (rs2_playback_status).
type PlaybackStatus int32

// Playback states, numbered as in librealsense.
const (
	StatusUnknown PlaybackStatus = 0
	StatusPlaying PlaybackStatus = 1
	StatusPaused  PlaybackStatus = 2
	StatusStopped PlaybackStatus = 3
)

var statusNames = [...]string{"Unknown", "Playing", "Paused", "Stopped"}

// String returns the librealsense name of s.
func (s PlaybackStatus) String() string {
	if s >= 0 && int(s) < len(statusNames) {
		return statusNames[s]
	}
	return "Unknown"
}

// Playback is implemented by playback devices.
type Playback interface {
	// Seek moves playback to bag time t (from the start of the recording).
	Seek(t time.Duration) error
	Pause() error
	Resume() error
	// SetSpeed sets the real-time speed factor; it must be > 0.
	SetSpeed(x float64) error
	// SetRealTime switches between paced (true) and lossless as-fast-as-consumed (false) playback.
	SetRealTime(on bool) error
	// Position returns the bag time of the last message read.
	Position() time.Duration
	// Duration returns the position of the end: the bag time of the last
	// frame, from the start of the recording (Position's origin).
	Duration() time.Duration
	// Status returns the playback state.
	Status() PlaybackStatus
	// OnStatusChange registers f for status changes; it replaces any previous one.
	OnStatusChange(f func(PlaybackStatus))
	// Filename returns the path of the bag being played.
	Filename() string
}

// Stopped returns a channel that is closed the first time p's status
// becomes Stopped (the end of the file, a read error, Stop). It registers
// itself with OnStatusChange, replacing the callback set before.
func Stopped(p Playback) <-chan struct{} {
	ch := make(chan struct{})
	var once sync.Once
	p.OnStatusChange(func(s PlaybackStatus) {
		if s == StatusStopped {
			once.Do(func() { close(ch) })
		}
	})
	return ch
}

// Errors returned by extension methods.
var (
	ErrReadOnly          = errors.New("extensions: option is read-only")
	ErrUnsupportedOption = errors.New("extensions: option not supported")
	ErrOutOfRange        = errors.New("extensions: value out of range")
)
