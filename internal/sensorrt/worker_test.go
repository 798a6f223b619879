package sensorrt

import (
	"testing"
	"testing/synctest"
	"time"

	"github.com/rsbag/rsbag/internal/goid"
	"github.com/rsbag/rsbag/sensor"
)

// waitDeadline bounds a wait for a frame that must come (in a synctest
// bubble it passes only when every goroutine is blocked).
const waitDeadline = 20 * time.Second

// TestBurstKeepsFrames: frames recorded in a burst (4 µs and 103 µs apart
// on a 250 Hz stream, as a recorder under load writes them) reach a
// handler that keeps up with the stream's rate, even when the worker
// takes them only after the later one is queued; a frame is evicted only
// when its handler is still behind a whole nominal frame period later.
func TestBurstKeepsFrames(t *testing.T) { synctest.Test(t, burstKeepsFrames) }

func burstKeepsFrames(t *testing.T) {
	p := &sensor.StreamProfile{Stream: sensor.StreamAccel, FPS: 250, Kind: sensor.KindMotion}
	var c Counters
	busy := make(chan uint64)
	release := make(chan struct{})
	got := make(chan uint64, 16)
	d := Start(sensor.HandlerFunc(func(f *sensor.Frame) {
		if f.Number == 0 {
			busy <- 0
			<-release // the handler is busy while the burst is queued
		}
		got <- f.Number
	}), &goid.Set{}, PeriodOf(p), &c)
	var released bool
	defer func() {
		if !released {
			close(release)
		}
		d.Stop()
	}()
	frame := func(n uint64) *sensor.Frame { return &sensor.Frame{Profile: p, Number: n} }
	t0 := time.Now()
	// push queues frame n of bag time t when it is due, us microseconds
	// after frame 0.
	push := func(n uint64, t time.Duration, us int64) {
		time.Sleep(time.Until(t0.Add(time.Duration(us) * time.Microsecond)))
		d.Offer(frame(n), t, time.Now(), 1)
	}

	push(0, 0, 0)
	<-busy
	// A burst: 1 at 4 ms, 2 at 4.004 ms, 3 at 4.107 ms of bag time.
	base := 4 * time.Millisecond
	push(1, base, 4000)
	push(2, base+4*time.Microsecond, 4004)
	push(3, base+107*time.Microsecond, 4107)
	if dropped := c.Dropped.Load(); dropped != 0 {
		t.Fatalf("%d frames of a burst evicted within the stream's frame period", dropped)
	}
	// The handler is still busy a whole frame period (4 ms) after frames 1
	// and 2 were queued when frame 4 comes, at 8.1 ms: they are stale;
	// frame 3, queued at 4.107 ms, is not yet.
	push(4, base+4100*time.Microsecond, 8100)
	if dropped := c.Dropped.Load(); dropped != 2 {
		t.Fatalf("%d frames evicted for a handler a frame period behind, want 2 (frames 1 and 2)", dropped)
	}
	close(release)
	released = true
	var seq []uint64
	for range 3 {
		select {
		case n := <-got:
			seq = append(seq, n)
		case <-time.After(waitDeadline):
			t.Fatalf("handler got only %v", seq)
		}
	}
	if want := []uint64{0, 3, 4}; seq[0] != want[0] || seq[1] != want[1] || seq[2] != want[2] {
		t.Fatalf("handler got %v, want %v", seq, want)
	}
}

// TestSchedulerDelayKeepsFrames: frames that wait only because the
// worker has not been scheduled (its handler is idle, not behind) are
// not evicted, however late it runs; they are delivered in order.
func TestSchedulerDelayKeepsFrames(t *testing.T) { synctest.Test(t, schedulerDelayKeepsFrames) }

func schedulerDelayKeepsFrames(t *testing.T) {
	p := &sensor.StreamProfile{Stream: sensor.StreamGyro, FPS: 200, Kind: sensor.KindMotion}
	var c Counters
	got := make(chan uint64, 16)
	d := New(sensor.HandlerFunc(func(f *sensor.Frame) { got <- f.Number }), &goid.Set{}, PeriodOf(p), &c)
	// The worker's goroutine is not running yet: five frames 5 ms
	// apart are queued over 20 ms.
	for n := range uint64(5) {
		if n > 0 {
			time.Sleep(5 * time.Millisecond)
		}
		d.Offer(&sensor.Frame{Profile: p, Number: n}, time.Duration(n)*5*time.Millisecond, time.Now(), 1)
	}
	if dropped := c.Dropped.Load(); dropped != 0 {
		t.Fatalf("%d frames evicted while the handler was idle", dropped)
	}
	d.Go()
	defer d.Stop()
	for want := range uint64(5) {
		select {
		case n := <-got:
			if n != want {
				t.Fatalf("got frame %d, want %d", n, want)
			}
		case <-time.After(waitDeadline):
			t.Fatalf("frame %d not delivered", want)
		}
	}
}
