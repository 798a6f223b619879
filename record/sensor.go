package record

import (
	"sync"
	"sync/atomic"

	"github.com/rsbag/rsbag/extensions"
	"github.com/rsbag/rsbag/internal/callbacks"
	"github.com/rsbag/rsbag/sensor"
)

// streamKey identifies a stream of a sensor.
type streamKey struct {
	stream sensor.Stream
	index  int
}

// streamState is the per-stream state: counters (atomic, shared) and the
// writer goroutine's cached topics and connections.
type streamState struct {
	sensor int
	key    streamKey

	frames, bytes, dropped, droppedBytes, paused, refused atomic.Uint64

	reported   atomic.Uint64 // drops already notified
	lastReport atomic.Int64  // time.Now().UnixNano() of the last drop report

	lastT int64 // capture time of the last frame (guarded by Device.mu)

	// Owned by the writer goroutine.
	out *streamOut
}

func (st *streamState) snapshot() StreamStats {
	return StreamStats{
		Sensor: st.sensor, Stream: st.key.stream, Index: st.key.index,
		Frames: st.frames.Load(), Bytes: st.bytes.Load(),
		Dropped: st.dropped.Load(), DroppedBytes: st.droppedBytes.Load(),
		Paused: st.paused.Load(), Refused: st.refused.Load(),
	}
}

// Unwrapper is implemented by every record sensor: Unwrap returns the sensor
// it wraps.
type Unwrapper interface {
	Unwrap() sensor.Sensor
}

// recSensor is a record sensor. Device.Sensors returns it wrapped in a type
// that also forwards the inner sensor's extensions, reached through the
// Unwrapper and extensions interfaces.
type recSensor struct {
	rec   *Device
	inner sensor.Sensor
	index int

	mu      sync.Mutex
	open    []*sensor.StreamProfile
	written map[int]bool // profile UIDs whose stream info was recorded

	smu     sync.RWMutex
	streams map[streamKey]*streamState
	ordered []*streamState // streams in creation order (copy on write)

	notes        callbacks.Callbacks[sensor.Notification]
	failNotified atomic.Bool // the write error was notified
}

// Unwrap returns the wrapped sensor.
func (s *recSensor) Unwrap() sensor.Sensor { return s.inner }

// Info returns the wrapped sensor's info.
func (s *recSensor) Info() sensor.Info { return s.inner.Info() }

// Profiles returns the wrapped sensor's profiles.
func (s *recSensor) Profiles() []*sensor.StreamProfile { return s.inner.Profiles() }

// Open opens the profiles on the wrapped sensor; they are recorded when the
// sensor starts.
func (s *recSensor) Open(profiles ...*sensor.StreamProfile) error {
	if err := s.inner.Open(profiles...); err != nil {
		return err
	}
	s.mu.Lock()
	s.open = append(s.open[:0:0], profiles...)
	s.mu.Unlock()
	for _, p := range profiles {
		if p != nil {
			s.stream(p.Stream, p.Index)
		}
	}
	return nil
}

// Start starts the wrapped sensor with a handler that records each frame and
// then passes the very same frame to h. The stream info of every opened
// profile not recorded before is recorded first.
func (s *recSensor) Start(h sensor.Handler) error {
	if h == nil {
		return s.inner.Start(h)
	}
	s.mu.Lock()
	var ps []*sensor.StreamProfile
	for _, p := range s.open {
		if p != nil && !s.written[p.UID] {
			ps = append(ps, p)
		}
	}
	s.mu.Unlock()
	rec := s.rec
	if len(ps) > 0 {
		// Recorded before the inner sensor starts, so that the stream info
		// precedes the stream's frames (and has static time when no frame
		// was recorded yet). If Start fails, the stream info stays written.
		s.mu.Lock()
		for _, p := range ps {
			s.written[p.UID] = true
		}
		s.mu.Unlock()
		rec.pushControl(event{kind: evStreams, sensor: s, profiles: ps})
	}
	return s.inner.Start(sensor.HandlerFunc(func(f *sensor.Frame) {
		rec.onFrame(s, f)
		h.HandleFrame(f)
	}))
}

// Stop stops the wrapped sensor (synchronously) and then delivers the
// recorder's notifications of the sensor not delivered yet. It returns the
// wrapped sensor's error as is: called from the sensor's own handler (or
// notification callback) it fails like the wrapped sensor's Stop, with an
// error wrapping sensor.ErrStopFromHandler for the devices of this module.
func (s *recSensor) Stop() error {
	if err := s.inner.Stop(); err != nil {
		return err
	}
	s.rec.notifyPending(s, true)
	return nil
}

// Close closes the wrapped sensor and returns its error as is.
func (s *recSensor) Close() error {
	if err := s.inner.Close(); err != nil {
		return err
	}
	s.mu.Lock()
	s.open = nil
	s.mu.Unlock()
	return nil
}

// OnNotification registers f for the wrapped sensor's notifications (when it
// is an extensions.Notifier), delivered on the goroutine the wrapped sensor
// raises them on, and for the recorder's own: dropped frames (category
// Unknown Error, severity Warn) and the write error that stopped recording
// (category Unknown Error, severity Error), delivered on the sensor's frame
// delivery goroutine (before the frame's handler), or by Stop and
// Device.Close on their caller's goroutine.
func (s *recSensor) OnNotification(f func(sensor.Notification)) (cancel func()) {
	return s.notes.Add(f)
}

func (s *recSensor) notify(n sensor.Notification) { s.notes.Call(n) }

// stream returns the state of a stream, creating it on first use.
func (s *recSensor) stream(st sensor.Stream, idx int) *streamState {
	k := streamKey{st, idx}
	s.smu.RLock()
	ss := s.streams[k]
	s.smu.RUnlock()
	if ss != nil {
		return ss
	}
	s.smu.Lock()
	defer s.smu.Unlock()
	if ss = s.streams[k]; ss == nil {
		ss = &streamState{sensor: s.index, key: k}
		s.streams[k] = ss
		s.ordered = append(s.ordered[:len(s.ordered):len(s.ordered)], ss)
		s.rec.addStream(ss)
	}
	return ss
}

var _ extensions.Notifier = (*recSensor)(nil)
var _ Unwrapper = (*recSensor)(nil)
