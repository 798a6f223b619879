package playback

import (
	"runtime"
	"sync/atomic"
	"time"
)

// pacer waits until a frame is due on the wall clock. It reuses one timer
// instead of allocating one per frame (time.After). Tests run it as is in
// a testing/synctest bubble, where the same calls read and sleep on the
// bubble's fake clock.
type pacer struct {
	timer *time.Timer
}

// after returns a channel that receives once d has passed. A wait that is
// abandoned (the reader answered a request instead) needs no cleanup: the
// next call resets the timer, and since Go 1.23 a reset timer never
// delivers a stale value.
func (p *pacer) after(d time.Duration) <-chan time.Time {
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
const margin = preciseMargin

// until sleeps precisely until due.
func (p *pacer) until(due time.Time) {
	d := time.Until(due)
	if d <= 0 {
		return
	}
	// A thread in nanosleep keeps its P (the runtime takes it back only
	// when its monitor next looks, up to 10 ms later): with every P so
	// held, no worker runs and frames go stale. Sleep precisely only
	// while another P stays free; otherwise park on a Go timer.
	if int(preciseSleepers.Add(1)) < runtime.GOMAXPROCS(0) {
		sleepPrecise(d)
	} else {
		time.Sleep(d)
	}
	preciseSleepers.Add(-1)
	// nanosleep sleeps at least d, so this finds nothing left on the wall
	// clock; a clock that a thread's sleep does not move (a synctest
	// bubble's) is advanced to due here.
	if d := time.Until(due); d > 0 {
		time.Sleep(d)
	}
}

// preciseSleepers counts the readers (of every device) in sleepPrecise.
var preciseSleepers atomic.Int32

// stop releases the timer.
func (p *pacer) stop() {
	if p.timer != nil {
		p.timer.Stop()
	}
}
