package playback

import (
	"sync/atomic"

	"github.com/rsbag/rsbag/sensor"
)

// item is one frame handed to a stream's dispatcher.
type item struct {
	f   *sensor.Frame
	ack bool // the reader waits on dispatcher.ack (non-real-time)
}

// dispatcher is the goroutine that calls a started stream's handler. In
// real-time mode its slot holds at most one frame and a newer frame evicts
// the older one; in non-real-time mode the reader waits for the ack after
// each frame.
type dispatcher struct {
	st      *stream
	h       sensor.Handler
	slot    chan item
	ack     chan struct{}
	ctl     chan ctlReq
	quit    chan struct{}
	exited  chan struct{}
	stopped bool
}

type ctlKind int

const (
	ctlFlush ctlKind = iota // drop the queued frame
	ctlDrain                // deliver the queued frame
)

type ctlReq struct {
	kind  ctlKind
	reply chan struct{}
}

func startDispatcher(st *stream, h sensor.Handler) *dispatcher {
	d := &dispatcher{st: st, h: h, slot: make(chan item, 1), ack: make(chan struct{}, 1),
		ctl: make(chan ctlReq), quit: make(chan struct{}), exited: make(chan struct{})}
	go d.run()
	return d
}

func (d *dispatcher) deliver(it item) {
	d.h.HandleFrame(it.f)
	d.st.delivered.Add(1)
	if it.ack {
		d.ack <- struct{}{}
	}
}

func (d *dispatcher) run() {
	defer close(d.exited)
	for {
		select {
		case it := <-d.slot:
			d.deliver(it)
		case c := <-d.ctl:
			select {
			case it := <-d.slot:
				if c.kind == ctlDrain {
					d.deliver(it)
				} else {
					d.st.dropped.Add(1)
				}
			default:
			}
			close(c.reply)
		case <-d.quit:
			return
		}
	}
}

// pushLatest queues f, evicting an undelivered older frame (drop-oldest).
func (d *dispatcher) pushLatest(f *sensor.Frame) {
	for {
		select {
		case d.slot <- item{f: f}:
			return
		default:
		}
		select {
		case <-d.slot:
			d.st.dropped.Add(1)
		default:
		}
	}
}

// control sends a flush or drain request and waits until it is done.
func (d *dispatcher) control(k ctlKind) {
	c := ctlReq{kind: k, reply: make(chan struct{})}
	d.ctl <- c
	<-c.reply
}

// stop ends the goroutine (an undelivered frame is dropped) and waits.
func (d *dispatcher) stop() {
	if d.stopped {
		return
	}
	d.stopped = true
	close(d.quit)
	<-d.exited
	select {
	case <-d.slot:
		d.st.dropped.Add(1)
	default:
	}
}

// counters of a stream, read with Stats.
type streamCounters struct {
	delivered atomic.Uint64
	dropped   atomic.Uint64
}
