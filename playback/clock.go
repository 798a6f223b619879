package playback

import (
	"runtime"
	"sync/atomic"
	"time"
)

// Clock is the time source of real-time pacing. After is the sleep: the
// reader waits on its channel until the next frame is due, so a fake Clock
// paces playback in virtual time. Now is also called by the stream
// dispatchers (to tell a stale frame), so it must be safe for concurrent
// use.
type Clock interface {
	Now() time.Time
	After(d time.Duration) <-chan time.Time
}

type wallClock struct{}

func (wallClock) Now() time.Time { return time.Now() }

func (wallClock) After(d time.Duration) <-chan time.Time { return time.After(d) }

// pacer waits until a frame is due. With the wall clock it reuses one
// timer instead of allocating one per frame (time.After); any other Clock
// is asked for After.
type pacer struct {
	clock Clock
	timer *time.Timer
}

// after returns a channel that receives once d has passed. A wait that is
// abandoned (the reader answered a request instead) needs no cleanup: the
// next call resets the timer, and since Go 1.23 a reset timer never
// delivers a stale value.
func (p *pacer) after(d time.Duration) <-chan time.Time {
	if _, wall := p.clock.(wallClock); !wall {
		return p.clock.After(d)
	}
	if p.timer == nil {
		p.timer = time.NewTimer(d)
	} else {
		p.timer.Reset(d)
	}
	return p.timer.C
}

// margin is how long before a frame is due the reader stops waiting on
// the interruptible timer and sleeps precisely instead (until). Go timers
// wake a few hundred microseconds late; a short blocking sleep of the
// reader's thread is several times more precise, and the few requests that
// arrive during it wait at most this long.
func (p *pacer) margin() time.Duration {
	if _, wall := p.clock.(wallClock); wall {
		return preciseMargin
	}
	return 0
}

// until sleeps precisely until due with the wall clock; with any other
// Clock the timer wait already reached due.
func (p *pacer) until(due time.Time) {
	if _, wall := p.clock.(wallClock); !wall {
		return
	}
	d := time.Until(due)
	if d <= 0 {
		return
	}
	// A thread in nanosleep keeps its P (the runtime takes it back only
	// when its monitor next looks, up to 10 ms later): with every P so
	// held, no dispatcher runs and frames go stale. Sleep precisely only
	// while another P stays free; otherwise park on a Go timer.
	if int(preciseSleepers.Add(1)) < runtime.GOMAXPROCS(0) {
		sleepPrecise(d)
	} else {
		time.Sleep(d)
	}
	preciseSleepers.Add(-1)
}

// preciseSleepers counts the readers (of every device) in sleepPrecise.
var preciseSleepers atomic.Int32

// stop releases the timer.
func (p *pacer) stop() {
	if p.timer != nil {
		p.timer.Stop()
	}
}
