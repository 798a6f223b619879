package playback

import (
	"sync"
	"sync/atomic"
	"time"

	"github.com/rsbag/rsbag/internal/goid"
	"github.com/rsbag/rsbag/rosbag"
	"github.com/rsbag/rsbag/sensor"
)

// maxQueued bounds a stream's real-time queue. It holds more than one frame
// only after a stall of the reader, which then hands out the overdue frames
// back to back; a stall longer than maxQueued frame intervals loses the
// oldest of them.
const maxQueued = 32

// queued is one frame waiting in a stream's queue.
type queued struct {
	f   *sensor.Frame
	ack bool // non-real-time: the reader waits on dispatcher.ack
	// Real time: bag time, and when the reader queued it.
	t  rosbag.Time
	at time.Time
	// staleAt is set once a newer frame of the stream is queued behind this
	// one: at plus the recorded interval to that frame (scaled by the
	// speed). From then on the frame is stale: its handler has had a whole
	// frame interval to take it.
	staleAt time.Time
	next    bool // a newer frame is queued behind it
}

// dispatcher is the goroutine that calls a started stream's handler.
//
// In real-time mode a queued frame is evicted (drop-oldest, counted in
// Stats) only when it is stale: a newer frame of the stream is queued and
// the handler has not taken it within the recorded interval between the
// two, or within the stream's nominal frame period when the recording put
// them closer (a recorder that wrote a burst). A handler slower than the stream therefore sees only the latest
// frames, as with a live camera, while frames that the reader hands out in
// a burst after a stall of its own (the scheduler did not run it on time)
// wait for the dispatcher instead of evicting one another. In
// non-real-time mode the reader waits for the ack after each frame.
type dispatcher struct {
	st     *stream
	h      sensor.Handler
	owners *goid.Set // the device's handler goroutines
	mu     sync.Mutex
	q      []queued
	// busy is set while the handler runs a real-time frame; called is when
	// that call (or the last one) began and returned when the last one
	// returned: a frame goes stale only if the handler was inside a call
	// when its stale time came, not while the dispatcher waited for the
	// scheduler.
	busy     bool
	called   time.Time
	returned time.Time
	wake     chan struct{}
	ack      chan struct{}
	ctl      chan ctlReq
	quit     chan struct{}
	exited   chan struct{}
	// stopped is owned by the reader goroutine.
	stopped bool
}

type ctlKind int

const (
	ctlFlush ctlKind = iota // drop the queued frames
	ctlDrain                // deliver the queued frames
)

type ctlReq struct {
	kind  ctlKind
	reply chan struct{}
}

func startDispatcher(st *stream, h sensor.Handler, owners *goid.Set) *dispatcher {
	d := newDispatcher(st, h, owners)
	go d.run()
	return d
}

func newDispatcher(st *stream, h sensor.Handler, owners *goid.Set) *dispatcher {
	return &dispatcher{st: st, h: h, owners: owners, q: make([]queued, 0, 2), wake: make(chan struct{}, 1),
		ack: make(chan struct{}, 1), ctl: make(chan ctlReq), quit: make(chan struct{}), exited: make(chan struct{})}
}

func (d *dispatcher) deliver(it queued) {
	if !it.ack { // real time: the handler is busy until it returns
		now := time.Now()
		d.mu.Lock()
		d.busy, d.called = true, now
		d.mu.Unlock()
		defer func() {
			now := time.Now()
			d.mu.Lock()
			d.busy, d.returned = false, now
			d.mu.Unlock()
		}()
	}
	d.h.HandleFrame(it.f)
	d.st.delivered.Add(1)
	if it.ack {
		d.ack <- struct{}{}
	}
}

func (d *dispatcher) signal() {
	select {
	case d.wake <- struct{}{}:
	default:
	}
}

func (d *dispatcher) run() {
	defer close(d.exited)
	leave := d.owners.Enter()
	defer leave()
	for {
		select {
		case <-d.wake:
			// One frame per turn, so that a flush or a stop waits for at
			// most one handler call.
			if it, ok := d.take(); ok {
				d.deliver(it)
				d.mu.Lock()
				more := len(d.q) > 0
				d.mu.Unlock()
				if more {
					d.signal()
				}
			}
		case c := <-d.ctl:
			for {
				it, ok := d.take()
				if !ok {
					break
				}
				if c.kind == ctlDrain {
					d.deliver(it)
				} else {
					d.st.dropped.Add(1)
				}
			}
			close(c.reply)
		case <-d.quit:
			return
		}
	}
}

// take removes the oldest frame that is not stale.
func (d *dispatcher) take() (queued, bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if len(d.q) > 1 && d.q[0].next {
		d.evictLocked(time.Now())
	}
	if len(d.q) == 0 {
		return queued{}, false
	}
	it := d.q[0]
	d.shiftLocked(1)
	return it, true
}

// shiftLocked removes the n oldest frames.
func (d *dispatcher) shiftLocked(n int) {
	k := copy(d.q, d.q[n:])
	clear(d.q[k:])
	d.q = d.q[:k]
}

// evictLocked drops the stale frames at the front of the queue: those
// whose stale time came while the handler was inside a call (after the
// call began, and up to now or, when the handler is idle, up to its last
// return). A frame that the dispatcher has not yet taken because the
// scheduler has not run it is not the handler's delay.
func (d *dispatcher) evictLocked(now time.Time) {
	if !d.busy && d.returned.Before(now) {
		now = d.returned
	}
	n := 0
	for n < len(d.q) && d.q[n].next && d.called.Before(d.q[n].staleAt) && !now.Before(d.q[n].staleAt) {
		n++
	}
	if n > 0 {
		d.shiftLocked(n)
		d.st.dropped.Add(uint64(n))
	}
}

// pushLatest queues f, read at bag time t, at time now of the device's
// clock (real time), evicting the frames that became stale.
func (d *dispatcher) pushLatest(f *sensor.Frame, t rosbag.Time, now time.Time, speed float64) {
	d.mu.Lock()
	if n := len(d.q); n > 0 {
		last := &d.q[n-1]
		var gap time.Duration
		if t > last.t {
			gap = time.Duration(float64(t-last.t) / speed)
		}
		// A frame recorded in a burst (microseconds after the previous
		// one) does not make the previous one stale before the handler
		// has had the stream's nominal frame period to take it.
		if fps := d.st.profile.FPS; fps > 0 {
			gap = max(gap, time.Duration(float64(time.Second)/float64(fps)/speed))
		}
		last.staleAt, last.next = last.at.Add(gap), true
	}
	d.q = append(d.q, queued{f: f, t: t, at: now})
	d.evictLocked(now)
	if over := len(d.q) - maxQueued; over > 0 {
		d.shiftLocked(over)
		d.st.dropped.Add(uint64(over))
	}
	d.mu.Unlock()
	d.signal()
}

// pushWait queues f for the non-real-time handoff; the reader then waits
// on ack.
func (d *dispatcher) pushWait(f *sensor.Frame) {
	d.mu.Lock()
	d.q = append(d.q, queued{f: f, ack: true})
	d.mu.Unlock()
	d.signal()
}

// control sends a flush or drain request and waits until it is done.
func (d *dispatcher) control(k ctlKind) {
	c := ctlReq{kind: k, reply: make(chan struct{})}
	d.ctl <- c
	<-c.reply
}

// stop ends the goroutine (undelivered frames are dropped) and waits.
func (d *dispatcher) stop() {
	if d.stopped {
		return
	}
	d.stopped = true
	close(d.quit)
	<-d.exited
	d.mu.Lock()
	d.st.dropped.Add(uint64(len(d.q)))
	d.q = d.q[:0]
	d.mu.Unlock()
}

// counters of a stream, read with Stats.
type streamCounters struct {
	delivered atomic.Uint64
	dropped   atomic.Uint64
	lost      atomic.Uint64 // frames in corrupt chunks
}
