package sensorrt

import (
	"sync"
	"sync/atomic"
	"time"

	"github.com/rsbag/rsbag/internal/goid"
	"github.com/rsbag/rsbag/sensor"
)

// MaxQueued bounds the real-time queue of a Worker. It holds more than one
// frame only after the producer stalled and then handed out its overdue
// frames back to back; a stall longer than MaxQueued frame periods loses the
// oldest of them.
const MaxQueued = 32

// Counters are the delivery counters of a stream. They belong to the stream
// and outlive the workers that update them, so that they add up over
// several starts.
type Counters struct {
	// Delivered counts the frames whose handler call returned.
	Delivered atomic.Uint64
	// Dropped counts the frames evicted from a real-time queue, dropped by
	// Flush and left undelivered by Stop.
	Dropped atomic.Uint64
	// Lost counts the frames that never reached the worker whole; the
	// producer counts them (a worker never does).
	Lost atomic.Uint64
}

// Of returns c: a worker given one Counters counts every frame into it.
func (c *Counters) Of(*sensor.StreamProfile) *Counters { return c }

// Counting finds the Counters of a frame's stream: a *Counters counts every
// frame of a worker into itself, a *Tally each stream into its own.
type Counting interface {
	Of(p *sensor.StreamProfile) *Counters
}

// Tally holds the Counters of each stream of a sensor whose workers serve
// several streams, in the order they were first asked for; they outlive the
// workers, so that they add up over several starts. The zero Tally is
// empty and ready.
type Tally struct {
	mu sync.Mutex
	ps []*sensor.StreamProfile
	cs []*Counters
}

// Of returns the Counters of the stream of p (the same profile, or one of
// the same UID), added when it has none yet.
func (t *Tally) Of(p *sensor.StreamProfile) *Counters {
	t.mu.Lock()
	defer t.mu.Unlock()
	for i, q := range t.ps {
		if q == p || (p != nil && q != nil && p.UID != 0 && q.UID == p.UID) {
			return t.cs[i]
		}
	}
	c := new(Counters)
	t.ps, t.cs = append(t.ps, p), append(t.cs, c)
	return c
}

// Each calls fn for every stream of the tally, in the order they were
// added.
func (t *Tally) Each(fn func(p *sensor.StreamProfile, c *Counters)) {
	t.mu.Lock()
	ps, cs := t.ps, t.cs
	t.mu.Unlock()
	for i, p := range ps {
		fn(p, cs[i])
	}
}

// queued is one frame waiting in a worker's queue.
type queued struct {
	f   *sensor.Frame
	ack bool // Deliver: the producer waits on the worker's ack channel
	// Offer: the frame's stamp (recorded time, scaled by nothing) and when
	// it was queued.
	stamp time.Duration
	at    time.Time
	// staleAt is set once a newer frame is queued behind this one: at plus
	// the interval between their stamps (divided by the speed), or the
	// nominal frame period when that is longer. From then on the frame is
	// stale, if the handler spent that time inside a call.
	staleAt time.Time
	next    bool // a newer frame is queued behind it
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

// Worker is the goroutine that calls one handler, one frame at a time, and
// the queue in front of it. A producer hands it frames in one of three
// ways, which a sensor does not mix:
//
//   - Send (lossless hand-off): returns once the worker has taken the frame,
//     waiting while the handler is busy with the previous one (the software
//     device's Inject).
//   - Deliver (lossless, in step): returns once the handler has returned
//     from the frame (non-real-time playback, which keeps bag order across
//     streams that way).
//   - Offer (real time, drop-oldest): queues the frame and returns at once.
//     A queued frame is evicted (counted in Dropped) only when it is stale:
//     a newer one is queued and the handler, inside a call, has not taken it
//     within the recorded interval between the two or within the stream's
//     nominal frame period, whichever is longer. A handler slower than the
//     stream thus sees the latest frames, as with a live camera, while a
//     burst (a recorder that wrote frames microseconds apart, a producer that
//     caught up after a stall of its own, a worker the scheduler ran late)
//     waits instead of evicting frames a handler that keeps up would take.
type Worker struct {
	h        sensor.Handler
	handlers *Goroutines // the goroutines that run the sensor's user code
	period   time.Duration
	count    Counting

	self    atomic.Uint64 // the worker goroutine's id once it runs
	running atomic.Bool   // the handler is inside a call

	in chan *sensor.Frame // Send

	mu sync.Mutex
	q  []queued
	// busy is set while the handler runs an offered frame; called is when
	// that call (or the last one) began and returned when the last one
	// returned: a frame goes stale only if the handler was inside a call
	// when its stale time came, not while the worker waited for the
	// scheduler.
	busy     bool
	called   time.Time
	returned time.Time

	wake   chan struct{}
	ack    chan bool // Deliver: whether the handler took the frame
	ctl    chan ctlReq
	quit   chan struct{}
	exited chan struct{}
	stop   sync.Once
}

// New returns a worker that will call h for frames of a stream whose
// nominal frame period is period (0 when unknown), counting into the
// Counters c finds for each frame's stream, and whose goroutine will join
// handlers while it runs. Go starts it.
func New(h sensor.Handler, handlers *Goroutines, period time.Duration, c Counting) *Worker {
	if c == nil {
		c = new(Counters)
	}
	return &Worker{h: h, handlers: handlers, period: period, count: c,
		in: make(chan *sensor.Frame), q: make([]queued, 0, 2),
		wake: make(chan struct{}, 1), ack: make(chan bool, 1), ctl: make(chan ctlReq),
		quit: make(chan struct{}), exited: make(chan struct{})}
}

// Start returns a running worker (New, then Go).
func Start(h sensor.Handler, handlers *Goroutines, period time.Duration, c Counting) *Worker {
	w := New(h, handlers, period, c)
	w.Go()
	return w
}

// Go starts the worker's goroutine; call it once.
func (w *Worker) Go() { go w.run() }

// PeriodOf returns the nominal frame period of a profile: 1/FPS, or 0 when
// the rate is unknown.
func PeriodOf(p *sensor.StreamProfile) time.Duration {
	if p == nil || p.FPS <= 0 {
		return 0
	}
	return time.Second / time.Duration(p.FPS)
}

// Current reports whether the caller runs on the worker's goroutine.
func (w *Worker) Current() bool {
	id := w.self.Load()
	return id != 0 && goid.ID() == id
}

func (w *Worker) run() {
	defer close(w.exited)
	w.self.Store(goid.ID())
	if w.handlers != nil {
		defer w.handlers.Enter()()
	}
	for {
		// A flush or drain waiting is served before the next frame, so that
		// no frame queued before it is delivered after it was asked for.
		select {
		case c := <-w.ctl:
			w.serve(c)
			continue
		default:
		}
		select {
		case f := <-w.in:
			w.call(f, false)
		case <-w.wake:
			// One frame per turn, so that a flush or a stop waits for at
			// most one handler call.
			if it, ok := w.take(); ok {
				w.deliver(it)
				w.mu.Lock()
				more := len(w.q) > 0
				w.mu.Unlock()
				if more {
					w.signal()
				}
			}
		case c := <-w.ctl:
			w.serve(c)
		case <-w.quit:
			return
		}
	}
}

// serve empties the queue as c asks: delivering or dropping the frames.
func (w *Worker) serve(c ctlReq) {
	for {
		it, ok := w.take()
		if !ok {
			break
		}
		if c.kind == ctlDrain {
			w.deliver(it)
			continue
		}
		w.counters(it.f).Dropped.Add(1)
		if it.ack {
			w.ack <- false // its producer waits
		}
	}
	close(c.reply)
}

// call runs the handler; offered marks a real-time frame, during whose call
// the handler is busy for the eviction rule.
func (w *Worker) call(f *sensor.Frame, offered bool) {
	if offered {
		now := time.Now()
		w.mu.Lock()
		w.busy, w.called = true, now
		w.mu.Unlock()
	}
	w.running.Store(true)
	w.h.HandleFrame(f)
	w.running.Store(false)
	if offered {
		now := time.Now()
		w.mu.Lock()
		w.busy, w.returned = false, now
		w.mu.Unlock()
	}
	w.counters(f).Delivered.Add(1)
}

// counters returns the Counters of f's stream.
func (w *Worker) counters(f *sensor.Frame) *Counters {
	var p *sensor.StreamProfile
	if f != nil {
		p = f.Profile
	}
	return w.count.Of(p)
}

// dropLocked counts the frames qs as dropped.
func (w *Worker) dropLocked(qs []queued) {
	for _, it := range qs {
		w.counters(it.f).Dropped.Add(1)
	}
}

func (w *Worker) deliver(it queued) {
	w.call(it.f, !it.ack)
	if it.ack {
		w.ack <- true
	}
}

func (w *Worker) signal() {
	select {
	case w.wake <- struct{}{}:
	default:
	}
}

// take removes the oldest frame that is not stale.
func (w *Worker) take() (queued, bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if len(w.q) > 1 && w.q[0].next {
		w.evictLocked(time.Now())
	}
	if len(w.q) == 0 {
		return queued{}, false
	}
	it := w.q[0]
	w.shiftLocked(1)
	return it, true
}

// shiftLocked removes the n oldest frames.
func (w *Worker) shiftLocked(n int) {
	k := copy(w.q, w.q[n:])
	clear(w.q[k:])
	w.q = w.q[:k]
}

// evictLocked drops the stale frames at the front of the queue: those whose
// stale time came while the handler was inside a call (after the call
// began, and up to now or, when the handler is idle, up to its last
// return). A frame the worker has not taken because the scheduler has not
// run it is not the handler's delay.
func (w *Worker) evictLocked(now time.Time) {
	if !w.busy && w.returned.Before(now) {
		now = w.returned
	}
	n := 0
	for n < len(w.q) && w.q[n].next && w.called.Before(w.q[n].staleAt) && !now.Before(w.q[n].staleAt) {
		n++
	}
	if n > 0 {
		w.dropLocked(w.q[:n])
		w.shiftLocked(n)
	}
}

// Offer queues f, stamped stamp (its recorded time), at time now of the
// producer's clock; speed (> 0) scales recorded intervals into real ones.
// It evicts the frames that became stale and never waits.
func (w *Worker) Offer(f *sensor.Frame, stamp time.Duration, now time.Time, speed float64) {
	w.mu.Lock()
	if n := len(w.q); n > 0 {
		last := &w.q[n-1]
		var gap time.Duration
		if stamp > last.stamp {
			gap = time.Duration(float64(stamp-last.stamp) / speed)
		}
		// A frame recorded in a burst (microseconds after the previous
		// one) does not make the previous one stale before the handler has
		// had the stream's nominal frame period to take it.
		if w.period > 0 {
			gap = max(gap, time.Duration(float64(w.period)/speed))
		}
		last.staleAt, last.next = last.at.Add(gap), true
	}
	w.q = append(w.q, queued{f: f, stamp: stamp, at: now})
	w.evictLocked(now)
	if over := len(w.q) - MaxQueued; over > 0 {
		w.dropLocked(w.q[:over])
		w.shiftLocked(over)
	}
	w.mu.Unlock()
	w.signal()
}

// Deliver hands f to the handler and waits until it has returned from it,
// until a Flush drops it, or until cancel is closed or the worker stops; it
// reports whether the handler took the frame. One producer at a time.
func (w *Worker) Deliver(f *sensor.Frame, cancel <-chan struct{}) bool {
	return w.DeliverServing(f, cancel, nil)
}

// DeliverServing is Deliver that, while it waits, runs on the producer's
// goroutine each function received from serve: requests the producer
// answers even while the handler is busy (a handler that waits for the
// caller of such a request would otherwise wait forever).
func (w *Worker) DeliverServing(f *sensor.Frame, cancel <-chan struct{}, serve <-chan func()) bool {
	w.mu.Lock()
	w.q = append(w.q, queued{f: f, ack: true})
	w.mu.Unlock()
	w.signal()
	for {
		select {
		case ok := <-w.ack:
			return ok
		case fn := <-serve:
			fn()
		case <-cancel:
			return false
		case <-w.exited:
			return false
		}
	}
}

// Send hands f to the worker and returns once the worker has taken it,
// waiting while the handler is busy with the previous frame. It returns
// sensor.ErrNotStarted when the worker stops first, and
// sensor.ErrStopFromHandler when called from the handler itself while it
// would have to wait for that handler.
func (w *Worker) Send(f *sensor.Frame) error {
	select {
	case w.in <- f:
		return nil
	default:
	}
	if w.running.Load() && w.Current() {
		return sensor.ErrStopFromHandler
	}
	select {
	case w.in <- f:
		return nil
	case <-w.quit:
		return sensor.ErrNotStarted
	}
}

// Flush drops the queued frames (counted in Dropped) and returns once the
// handler is not running one taken before.
func (w *Worker) Flush() { w.control(ctlFlush) }

// Drain delivers the queued frames and returns once the handler has
// returned from every frame handed to the worker before. Called from the
// handler itself, whose earlier frames have all been handled, it returns at
// once; so it does when the worker has stopped.
func (w *Worker) Drain() { w.control(ctlDrain) }

func (w *Worker) control(k ctlKind) {
	if w.Current() {
		return
	}
	c := ctlReq{kind: k, reply: make(chan struct{})}
	select {
	case w.ctl <- c:
	case <-w.exited:
		return
	}
	select {
	case <-c.reply:
	case <-w.exited:
	}
}

// Stop ends the worker and waits for its goroutine: when it returns the
// handler is not running and will not be called again. Frames still queued
// are dropped (counted in Dropped). It is idempotent; it must not be called
// from the handler.
func (w *Worker) Stop() {
	w.stop.Do(func() {
		close(w.quit)
		<-w.exited
		w.mu.Lock()
		w.dropLocked(w.q)
		clear(w.q)
		w.q = w.q[:0]
		w.mu.Unlock()
	})
}
