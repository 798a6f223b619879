package playback

import (
	"sync/atomic"
	"testing"
	"testing/synctest"
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

// TestNoDropFastHandler plays the 250 Hz + 200 Hz IMU bag in real time, on
// a synctest bubble's clock, with a handler that keeps up: every frame is
// delivered, none evicted, each stream in order. (Frames that leave back to
// back because the reader or the dispatcher ran late are
// TestBurstKeepsFrames' and TestSchedulerDelayKeepsFrames'.)
func TestNoDropFastHandler(t *testing.T) {
	all := playAll(t, motionBag)
	if len(all) != 675 {
		t.Fatalf("%d frames, want 675", len(all))
	}
	synctest.Test(t, func(t *testing.T) {
		d := open(t, motionBag, nil)
		c := newCollector(d)
		startAll(t, d, c)
		c.waitStopped(t)
		delivered, dropped := totals(d)
		if delivered != 675 || dropped != 0 || len(c.snapshot()) != 675 {
			t.Errorf("delivered %d (handler saw %d), dropped %d; want 675 and none dropped", delivered, len(c.snapshot()), dropped)
		}
		last := map[string]uint64{}
		for _, r := range c.snapshot() {
			if n, ok := last[r.stream]; ok && r.number <= n {
				t.Fatalf("%v after %s#%d: out of order", r, r.stream, n)
			}
			last[r.stream] = r.number
		}
	})
}

// TestSlowHandlerEvicts: on a virtual clock, a handler that is still busy
// while k more frames of its stream become due loses the frames that
// became stale: a newer one was queued and a frame period (the recorded
// spacing, at least the stream's nominal 1/fps) has passed since it was
// queued; the next frame it gets is the oldest one not stale.
func TestSlowHandlerEvicts(t *testing.T) {
	all := playAll(t, poseBag)
	synctest.Test(t, func(t *testing.T) { slowHandlerEvicts(t, all) })
}

func slowHandlerEvicts(t *testing.T, all []rec) {
	d := open(t, poseBag, nil)
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
	first := <-entered // the handler is now busy with the first frame
	t0 := time.Now()
	i0 := -1
	for i, f := range all {
		if f.number == first {
			i0 = i
		}
	}
	const k = 5
	if i0 < 0 || i0+k+1 >= len(all) {
		t.Fatalf("frame %d not in the bag's first frames", first)
	}
	// Frames first+1 .. first+k are queued at their bag times (the first
	// left at once); stop halfway between the k-th and the next.
	mid := (all[i0+k].pos + all[i0+k+1].pos) / 2
	time.Sleep(time.Until(t0.Add(time.Duration(mid - all[i0].pos))))
	synctest.Wait()
	// Frame j is stale once j+1 is queued and max(its spacing, the nominal
	// period) has passed while the handler is still in its first call.
	period := int64(time.Second) / int64(s.Profiles()[0].FPS)
	staleBy := func(at int64) int {
		n := 0
		for j := i0 + 1; j < i0+k; j++ {
			if all[j].pos+max(all[j+1].pos-all[j].pos, period) <= at {
				n++
			}
		}
		return n
	}
	// Queuing frame first+k evicted those stale then; the dispatcher,
	// freed at mid, evicts those stale by then and takes the oldest left.
	atPush, atMid := staleBy(all[i0+k].pos), staleBy(mid)
	if atMid < k-2 {
		t.Fatalf("only %d of %d frames would be stale: the test does not test eviction", atMid, k)
	}
	if _, dropped := totals(d); int(dropped) != atPush {
		t.Errorf("%d frames dropped while the handler was busy for %d frame intervals, want %d", dropped, k, atPush)
	}
	close(release)
	if n := <-entered; n != first+uint64(atMid)+1 {
		t.Errorf("after the slow call the handler got frame %d, want the oldest not stale, %d", n, first+uint64(atMid)+1)
	}
	if _, dropped := totals(d); int(dropped) != atMid {
		t.Errorf("%d frames dropped once the handler returned, want %d", dropped, atMid)
	}
	if err := d.Close(); err != nil {
		t.Fatal(err)
	}
}
