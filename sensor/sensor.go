package sensor

import "errors"

// Handler receives frames from a started sensor.
type Handler interface {
	HandleFrame(f *Frame)
}

// HandlerFunc adapts a function to a Handler.
type HandlerFunc func(f *Frame)

// HandleFrame calls h(f).
func (h HandlerFunc) HandleFrame(f *Frame) { h(f) }

// Info holds camera-info values (device or sensor info), keyed by CameraInfo;
// slices.Sorted(maps.Keys(i)) lists them in the order librealsense writes
// and lists them.
type Info map[CameraInfo]string

// Set sets k to v; an empty v removes k (a camera-info value is never
// empty).
func (i Info) Set(k CameraInfo, v string) {
	if v == "" {
		delete(i, k)
		return
	}
	i[k] = v
}

// Clone returns a copy of i.
func (i Info) Clone() Info {
	c := make(Info, len(i))
	for k, v := range i {
		c[k] = v
	}
	return c
}

// Notification is an event raised by a sensor (rs2_notification).
type Notification struct {
	Category       NotificationCategory
	Severity       Severity
	Description    string
	TimestampMs    float64 // milliseconds since the epoch
	SerializedData string  // JSON with additional data, may be empty
}

// Sensor is one sensor of a device: a set of stream profiles that are opened,
// started and stopped together.
//
// The life cycle is Open → Start → Stop → Close; Open and Start may be
// repeated after Stop/Close. Implementations are safe for concurrent use.
type Sensor interface {
	// Info returns the sensor's camera-info values (at least CameraInfoName).
	Info() Info
	// Profiles returns every stream profile the sensor can open.
	Profiles() []*StreamProfile
	// Open reserves the given profiles (all from Profiles) for streaming.
	Open(profiles ...*StreamProfile) error
	// Start begins streaming the opened profiles to h.
	Start(h Handler) error
	// Stop ends streaming. It is synchronous: h is not called after it
	// returns. Called from the sensor's own handler, it cannot wait for that
	// handler to return: it returns an error wrapping ErrStopFromHandler
	// (and the sensor keeps streaming) instead of deadlocking.
	Stop() error
	// Close releases the opened profiles; it stops the sensor first if
	// needed, and fails like Stop from the sensor's own handler.
	Close() error
}

// Errors shared by every Sensor implementation.
var (
	ErrNotOpen        = errors.New("sensor: not open")
	ErrAlreadyOpen    = errors.New("sensor: already open")
	ErrNotStarted     = errors.New("sensor: not started")
	ErrAlreadyStarted = errors.New("sensor: already started")
	ErrClosed         = errors.New("sensor: closed")
	ErrNoProfile      = errors.New("sensor: profile not available")
	// ErrStopFromHandler reports a call made on the goroutine that runs a
	// sensor's handler which would have to wait for that handler to return
	// (Stop or Close of the sensor, Close of its device, and the like): the
	// call fails instead of deadlocking. Stop the sensor from another
	// goroutine instead.
	ErrStopFromHandler = errors.New("sensor: called from the sensor's own handler, which it would wait for")
)
