package playback

import (
	"sync/atomic"
	"testing"
	"time"

	"github.com/rsbag/rsbag/sensor"
)

// totals sums the frame counters of every stream.
func totals(d *Device) (delivered, dropped uint64) {
	for _, st := range d.Stats() {
		delivered += st.Delivered
		dropped += st.Dropped
	}
	return delivered, dropped
}

// nextSleep returns the reader's next sleep on clk, or ok false when the
// playback stopped first.
func nextSleep(t *testing.T, clk *fakeClock, stopped <-chan struct{}) (r sleepReq, ok bool) {
	t.Helper()
	select {
	case r = <-clk.sleeps:
		return r, true
	case <-stopped:
		return r, false
	case <-time.After(waitDeadline):
		t.Fatal("timeout waiting for the reader to sleep")
	}
	return r, false
}

// TestNoDropFastHandler plays the 250 Hz + 200 Hz IMU bag in real time on a
// virtual clock with a handler that keeps up, and holds the reader up every
// few frames (the clock jumps 30 ms past the frame it waits for, as when
// the scheduler runs it late): the overdue frames leave back to back and
// must all be delivered, none evicted.
func TestNoDropFastHandler(t *testing.T) {
	all := playAll(t, motionBag) // bag order, with positions
	if len(all) != 675 {
		t.Fatalf("%d frames, want 675", len(all))
	}
	clk := newFakeClock()
	d := open(t, motionBag, &Options{Clock: clk})
	c := newCollector(d)
	startAll(t, d, c)
	stalls := 0
	for k := 0; ; k++ {
		r, ok := nextSleep(t, clk, c.stopped)
		if !ok {
			break
		}
		// The reader sleeps before the next frame: every frame up to the
		// position has been handed out. Wait until a fast handler got them.
		pos := int64(d.Position())
		want := 0
		for want < len(all) && all[want].pos <= pos {
			want++
		}
		deadline := time.Now().Add(waitDeadline)
		for {
			delivered, dropped := totals(d)
			if dropped != 0 {
				t.Fatalf("sleep %d (position %d): %d frames dropped with a fast handler; delivered %d", k, pos, dropped, delivered)
			}
			if int(delivered) == want {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("sleep %d (position %d): %d frames delivered, want %d", k, pos, delivered, want)
			}
			time.Sleep(50 * time.Microsecond)
		}
		if k%8 == 7 {
			r.d += 30 * time.Millisecond // the reader wakes up late
			stalls++
		}
		clk.advance(r)
	}
	c.waitStopped(t)
	delivered, dropped := totals(d)
	if delivered != 675 || dropped != 0 || len(c.snapshot()) != 675 {
		t.Errorf("delivered %d (handler saw %d), dropped %d; want 675 and none dropped", delivered, len(c.snapshot()), dropped)
	}
	if stalls < 10 {
		t.Errorf("only %d stalls simulated", stalls)
	}
	// Per stream, in order.
	got := c.snapshot()
	last := map[string]uint64{}
	for _, r := range got {
		if n, ok := last[r.stream]; ok && r.number <= n {
			t.Fatalf("%v after %s#%d: out of order", r, r.stream, n)
		}
		last[r.stream] = r.number
	}
}

// TestSlowHandlerEvicts: on a virtual clock, a handler that is still busy
// while k more frames of its stream become due loses the frames that
// became stale: a newer one was queued and a frame period (the recorded
// spacing, at least the stream's nominal 1/fps) has passed since it was
// queued; the next frame it gets is the oldest one not stale.
func TestSlowHandlerEvicts(t *testing.T) {
	all := playAll(t, poseBag)
	clk := newFakeClock()
	d := open(t, poseBag, &Options{Clock: clk})
	entered := make(chan uint64, 16)
	release := make(chan struct{})
	var calls atomic.Int32
	s := d.Sensors()[0]
	if err := s.Open(s.Profiles()...); err != nil {
		t.Fatal(err)
	}
	if err := s.Start(sensor.HandlerFunc(func(f *sensor.Frame) {
		entered <- f.Number
		if calls.Add(1) == 1 {
			<-release
		}
	})); err != nil {
		t.Fatal(err)
	}
	never := make(chan struct{})
	first := <-entered // the handler is now busy with the first frame
	const k = 5
	for i := 0; i < k; i++ {
		r, _ := nextSleep(t, clk, never)
		clk.advance(r)
	}
	// Let the reader queue the k-th frame: it sleeps again afterwards.
	r, _ := nextSleep(t, clk, never)
	// Frames first+1 .. first+k are queued at their bag times (the clock
	// follows the bag exactly); frame j is stale once j+1 is queued and
	// max(its spacing, the nominal period) has passed.
	i0 := -1
	for i, f := range all {
		if f.number == first {
			i0 = i
		}
	}
	if i0 < 0 || i0+k >= len(all) {
		t.Fatalf("frame %d not in the bag's first frames", first)
	}
	period := int64(time.Second) / int64(d.Sensors()[0].Profiles()[0].FPS)
	wantDropped := 0
	for j := i0 + 1; j < i0+k; j++ {
		if all[j].pos+max(all[j+1].pos-all[j].pos, period) <= all[i0+k].pos {
			wantDropped++
		}
	}
	if wantDropped < k-2 {
		t.Fatalf("only %d of %d frames would be stale: the test does not test eviction", wantDropped, k)
	}
	if _, dropped := totals(d); int(dropped) != wantDropped {
		t.Errorf("%d frames dropped while the handler was busy for %d frame intervals, want %d", dropped, k, wantDropped)
	}
	close(release)
	select {
	case n := <-entered:
		if n != first+uint64(wantDropped)+1 {
			t.Errorf("after the slow call the handler got frame %d, want the oldest not stale, %d", n, first+uint64(wantDropped)+1)
		}
	case <-time.After(waitDeadline):
		t.Fatal("no frame after the slow call")
	}
	go func() {
		for {
			select {
			case r := <-clk.sleeps:
				r.ch <- clk.Now()
			case <-d.done:
				return
			}
		}
	}()
	r.ch <- clk.Now()
	if err := d.Close(); err != nil {
		t.Fatal(err)
	}
}
