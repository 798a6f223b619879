package sensorrt

import (
	"errors"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

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
	}), &Goroutines{}, PeriodOf(p), &c)
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
	d := New(sensor.HandlerFunc(func(f *sensor.Frame) { got <- f.Number }), &Goroutines{}, PeriodOf(p), &c)
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

// TestSendHandsOff: Send returns once the worker took the frame, frames
// arrive in order; from the handler, when it would wait for itself, Send
// fails with ErrStopFromHandler; after Stop with ErrNotStarted.
func TestSendHandsOff(t *testing.T) { synctest.Test(t, sendHandsOff) }

func sendHandsOff(t *testing.T) {
	var w *Worker
	got := make(chan uint64, 8)
	fromHandler := make(chan error, 1)
	w = Start(sensor.HandlerFunc(func(f *sensor.Frame) {
		if f.Number == 2 {
			fromHandler <- w.Send(&sensor.Frame{Number: 99})
		}
		got <- f.Number
	}), &Goroutines{}, 0, nil)
	for n := range uint64(3) {
		if err := w.Send(&sensor.Frame{Number: n}); err != nil {
			t.Fatal(err)
		}
	}
	w.Drain()
	if err := <-fromHandler; !errors.Is(err, sensor.ErrStopFromHandler) {
		t.Errorf("Send from the handler: %v, want ErrStopFromHandler", err)
	}
	for want := range uint64(3) {
		if n := <-got; n != want {
			t.Fatalf("got frame %d, want %d", n, want)
		}
	}
	w.Stop()
	if err := w.Send(&sensor.Frame{}); !errors.Is(err, sensor.ErrNotStarted) {
		t.Errorf("Send after Stop: %v, want ErrNotStarted", err)
	}
}

// TestDeliverWaitsForHandler: Deliver returns after the handler returned,
// and gives up when its cancel channel closes.
func TestDeliverWaitsForHandler(t *testing.T) { synctest.Test(t, deliverWaitsForHandler) }

func deliverWaitsForHandler(t *testing.T) {
	var c Counters
	block := make(chan struct{})
	w := Start(sensor.HandlerFunc(func(f *sensor.Frame) {
		if f.Number == 1 {
			<-block
		}
	}), &Goroutines{}, 0, &c)
	defer w.Stop()
	if !w.Deliver(&sensor.Frame{Number: 0}, nil) || c.Delivered.Load() != 1 {
		t.Fatalf("Deliver returned before the handler did (delivered %d)", c.Delivered.Load())
	}
	cancel := make(chan struct{})
	done := make(chan bool, 1)
	go func() { done <- w.Deliver(&sensor.Frame{Number: 1}, cancel) }()
	synctest.Wait()
	select {
	case <-done:
		t.Fatal("Deliver returned while the handler ran")
	default:
	}
	close(cancel)
	if <-done {
		t.Error("Deliver reported the frame handled after its cancel")
	}
	close(block)
}

// TestDeliverServingServes: while DeliverServing waits for a handler, it
// runs the functions sent to it on the producer's goroutine — here the one
// that releases the handler, which would otherwise wait forever.
func TestDeliverServingServes(t *testing.T) { synctest.Test(t, deliverServingServes) }

func deliverServingServes(t *testing.T) {
	var c Counters
	release := make(chan struct{})
	w := Start(sensor.HandlerFunc(func(*sensor.Frame) { <-release }), &Goroutines{}, 0, &c)
	defer w.Stop()
	serve := make(chan func())
	done := make(chan bool, 1)
	go func() { done <- w.DeliverServing(&sensor.Frame{}, nil, serve) }()
	served := make(chan struct{})
	serve <- func() { close(served) }
	<-served
	serve <- func() { close(release) }
	if !<-done || c.Delivered.Load() != 1 {
		t.Fatalf("DeliverServing did not report the frame handled (delivered %d)", c.Delivered.Load())
	}
}

// TestDrainFlushStop: Drain delivers offered frames; Flush and Stop drop
// them, counted; Drain from the handler returns at once; the handler is not
// called after Stop.
func TestDrainFlushStop(t *testing.T) { synctest.Test(t, drainFlushStop) }

func drainFlushStop(t *testing.T) {
	var c Counters
	var w *Worker
	entered, release := make(chan uint64), make(chan struct{})
	var after atomic.Bool
	w = New(sensor.HandlerFunc(func(f *sensor.Frame) {
		if after.Load() {
			t.Error("handler called after Stop")
		}
		if f.Number == 0 {
			w.Drain() // from the handler: returns at once
			entered <- f.Number
			<-release
		}
	}), &Goroutines{}, 10*time.Millisecond, &c)
	w.Go()
	now := time.Now()
	w.Offer(&sensor.Frame{Number: 0}, 0, now, 1)
	<-entered // the handler is inside frame 0
	for n := range uint64(3) {
		w.Offer(&sensor.Frame{Number: n + 1}, time.Duration(n+1)*time.Microsecond, now, 1)
	}
	close(release)
	w.Drain()
	if d := c.Delivered.Load(); d != 4 || c.Dropped.Load() != 0 {
		t.Fatalf("after Drain: %d delivered, %d dropped, want 4 and 0", d, c.Dropped.Load())
	}
	// Queue frames the worker cannot take yet: the handler is busy again.
	release2 := make(chan struct{})
	w2 := Start(sensor.HandlerFunc(func(f *sensor.Frame) {
		if f.Number == 0 {
			<-release2
		}
	}), &Goroutines{}, 10*time.Millisecond, &c)
	w2.Offer(&sensor.Frame{Number: 0}, 0, time.Now(), 1)
	synctest.Wait() // worker 2 is inside frame 0
	for n := range uint64(2) {
		w2.Offer(&sensor.Frame{Number: n + 1}, time.Duration(n+1)*time.Microsecond, time.Now(), 1)
	}
	go func() { synctest.Wait(); close(release2) }()
	w2.Flush()
	if c.Dropped.Load() != 2 {
		t.Fatalf("Flush dropped %d, want 2", c.Dropped.Load())
	}
	w2.Stop()
	w.Offer(&sensor.Frame{Number: 9}, time.Second, time.Now(), 1)
	w.Offer(&sensor.Frame{Number: 10}, time.Second+1, time.Now(), 1)
	w.Stop()
	after.Store(true)
	if got := c.Delivered.Load() + c.Dropped.Load(); got != 4+1+2+2 {
		t.Errorf("delivered+dropped = %d after Stop, want every frame counted once (9)", got)
	}
}

// TestQueueBound: a producer that outruns a stuck handler keeps at most
// MaxQueued frames; the oldest are dropped.
func TestQueueBound(t *testing.T) { synctest.Test(t, queueBound) }

func queueBound(t *testing.T) {
	var c Counters
	release := make(chan struct{})
	var got []uint64
	w := Start(sensor.HandlerFunc(func(f *sensor.Frame) {
		if f.Number == 0 {
			<-release
		}
		got = append(got, f.Number)
	}), &Goroutines{}, time.Second, &c)
	w.Offer(&sensor.Frame{Number: 0}, 0, time.Now(), 1)
	synctest.Wait()
	const n = MaxQueued + 7
	for i := range uint64(n) {
		w.Offer(&sensor.Frame{Number: i + 1}, time.Duration(i+1), time.Now(), 1)
	}
	if d := c.Dropped.Load(); d != n-MaxQueued {
		t.Errorf("dropped %d, want %d", d, n-MaxQueued)
	}
	close(release)
	w.Drain()
	w.Stop()
	if len(got) != MaxQueued+1 || got[1] != n-MaxQueued+1 || got[len(got)-1] != n {
		t.Errorf("handler got %d frames %v..., want frame 0 then the newest %d", len(got), got[:min(3, len(got))], MaxQueued)
	}
}

// TestTallyPerStream: one worker serving two streams (a USB interface that
// carries both infrared imagers) counts each stream's delivered and dropped
// frames into its own Counters: those the queue bound and Flush drop as
// well as the handler's calls.
func TestTallyPerStream(t *testing.T) { synctest.Test(t, tallyPerStream) }

func tallyPerStream(t *testing.T) {
	left := &sensor.StreamProfile{Stream: sensor.StreamInfrared, Index: 1, FPS: 30, UID: 101}
	right := &sensor.StreamProfile{Stream: sensor.StreamInfrared, Index: 2, FPS: 30, UID: 102}
	var tally Tally
	tally.Of(left)
	tally.Of(right)
	stuck, release := make(chan struct{}), make(chan struct{})
	w := Start(sensor.HandlerFunc(func(f *sensor.Frame) {
		if f.Number%100 == 0 {
			stuck <- struct{}{}
			<-release
		}
	}), &Goroutines{}, time.Second, &tally)
	defer w.Stop()
	offer := func(p *sensor.StreamProfile, n uint64) {
		w.Offer(&sensor.Frame{Profile: p, Number: n}, time.Duration(n), time.Now(), 1)
	}
	offer(left, 0)
	<-stuck
	// Frames 1..MaxQueued+4, odd ones right, even ones left: the queue
	// bound drops the 4 oldest (right 1, left 2, right 3, left 4).
	for n := uint64(1); n <= MaxQueued+4; n++ {
		p := left
		if n%2 == 1 {
			p = right
		}
		offer(p, n)
	}
	release <- struct{}{}
	w.Drain() // delivers the MaxQueued queued frames, half of each stream
	// A flush while the handler is stuck in left 100 drops right 101, 102.
	offer(left, 100)
	<-stuck
	offer(right, 101)
	offer(right, 102)
	flushed := make(chan struct{})
	go func() { w.Flush(); close(flushed) }()
	synctest.Wait() // the flush waits for the handler
	release <- struct{}{}
	<-flushed
	var got []string
	tally.Each(func(p *sensor.StreamProfile, c *Counters) { got = append(got, p.Name()) })
	if len(got) != 2 || got[0] != left.Name() || got[1] != right.Name() {
		t.Fatalf("tally streams %v, want %s then %s", got, left.Name(), right.Name())
	}
	// Of finds a stream by its UID too.
	l, r := tally.Of(left), tally.Of(&sensor.StreamProfile{UID: right.UID})
	for _, c := range []struct {
		name               string
		c                  *Counters
		delivered, dropped uint64
	}{
		{"left", l, 1 + MaxQueued/2 + 1, 2},
		{"right", r, MaxQueued / 2, 2 + 2},
	} {
		if d, x := c.c.Delivered.Load(), c.c.Dropped.Load(); d != c.delivered || x != c.dropped {
			t.Errorf("%s: delivered %d, dropped %d; want %d and %d", c.name, d, x, c.delivered, c.dropped)
		}
	}
}
