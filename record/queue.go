package record

import (
	"sync"

	"github.com/rsbag/rsbag/extensions"
	"github.com/rsbag/rsbag/msgs"
	"github.com/rsbag/rsbag/sensor"
)

type eventKind uint8

const (
	evFrame        eventKind = iota // a frame
	evStreams                       // a sensor started: stream info of profiles
	evOption                        // an option changed
	evNotification                  // a notification was raised
	evBarrier                       // closes done once everything before it is written
	evDescription                   // the device description, snapshot at the first frame
	evMessage                       // an extra message (WriteMessage)
)

// event is one unit of work for the writer goroutine. Capture time t is in
// nanoseconds since the time base (0 = static).
type event struct {
	kind     eventKind
	t        int64
	sensor   *recSensor
	stream   *streamState
	frame    *sensor.Frame
	extra    []Companion // written beside the frame
	profiles []*sensor.StreamProfile
	option   extensions.OptionChange
	note     sensor.Notification
	seq      uint64 // option changes: order of the change; description: last change it may miss
	desc     *description
	done     chan struct{}
	topic    string       // evMessage
	msg      msgs.Message // evMessage
}

// queue is the FIFO between the frame handlers and the writer goroutine.
// Frames are bounded (count and bytes); other events are always accepted, so
// option changes and notifications are never lost and never block.
type queue struct {
	mu        sync.Mutex
	space     sync.Cond // signalled when frames leave the queue or it closes
	items     []event
	frames    int
	bytes     int64
	maxFrames int
	maxBytes  int64
	closed    bool
	signal    chan struct{} // capacity 1: "items is not empty"
}

func newQueue(maxFrames int, maxBytes int64) *queue {
	q := &queue{maxFrames: maxFrames, maxBytes: maxBytes, signal: make(chan struct{}, 1)}
	q.space.L = &q.mu
	return q
}

func (q *queue) wake() {
	select {
	case q.signal <- struct{}{}:
	default:
	}
}

// push appends a non-frame event. It reports false if the queue is closed.
func (q *queue) push(e event) bool {
	q.mu.Lock()
	if q.closed {
		q.mu.Unlock()
		return false
	}
	q.items = append(q.items, e)
	q.mu.Unlock()
	q.wake()
	return true
}

func (q *queue) fits(n int64) bool {
	if q.frames == 0 {
		return true // a single frame larger than maxBytes still goes through
	}
	return q.frames < q.maxFrames && q.bytes+n <= q.maxBytes
}

// pushFrame appends a frame event if there is room (or, with wait, once there
// is). It reports false when the frame was not queued.
func (q *queue) pushFrame(e event, wait bool) bool {
	n := int64(len(e.frame.Data))
	q.mu.Lock()
	for !q.closed && !q.fits(n) {
		if !wait {
			q.mu.Unlock()
			return false
		}
		q.space.Wait()
	}
	if q.closed {
		q.mu.Unlock()
		return false
	}
	q.items = append(q.items, e)
	q.frames++
	q.bytes += n
	q.mu.Unlock()
	q.wake()
	return true
}

// take moves the queued events into buf (which it returns) and empties the
// queue; closed reports whether the queue was closed. The returned frames
// stay counted until release.
func (q *queue) take(buf []event) (_ []event, closed bool) {
	q.mu.Lock()
	buf = append(buf[:0], q.items...)
	clear(q.items)
	q.items = q.items[:0]
	closed = q.closed
	q.mu.Unlock()
	return buf, closed
}

// release gives back the room of one written frame of n bytes.
func (q *queue) release(n int64) {
	q.mu.Lock()
	q.frames--
	q.bytes -= n
	q.mu.Unlock()
	q.space.Broadcast()
}

// close refuses further events and wakes waiting producers.
func (q *queue) close() {
	q.mu.Lock()
	q.closed = true
	q.mu.Unlock()
	q.space.Broadcast()
	q.wake()
}

func (q *queue) len() int {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.frames
}
