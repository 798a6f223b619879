package playback

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/rsbag/rsbag/extensions"
	"github.com/rsbag/rsbag/sensor"
)

func firstAtOrAfter(all []rec, t int64) rec {
	for _, r := range all {
		if r.pos >= t {
			return r
		}
	}
	return rec{}
}

func TestSeek(t *testing.T) {
	all := playAll(t, depthColor)
	if len(all) != 60 {
		t.Fatalf("%d frames, want 60", len(all))
	}
	target := time.Duration(500_000_000)

	t.Run("stopped", func(t *testing.T) {
		d := open(t, depthColor, &Options{NonRealTime: true})
		c := newCollector(d)
		if err := d.Seek(target); err != nil {
			t.Fatal(err)
		}
		if d.Position() != target {
			t.Errorf("position %v after seek, want %v", d.Position(), target)
		}
		startAll(t, d, c)
		c.waitStopped(t)
		got := c.snapshot()
		if len(got) == 0 || got[0] != firstAtOrAfter(all, int64(target)) {
			t.Fatalf("first frame after seek while stopped: %v, want %v", got, firstAtOrAfter(all, int64(target)))
		}
		for _, r := range got {
			if r.pos < int64(target) {
				t.Errorf("frame %v before the seek target", r)
			}
		}
	})

	// P.35: a seek while paused delivers the current picture at the
	// target — each stream's last frame at or before it — before it
	// returns, in either mode; resuming goes on after that picture, with
	// every later frame once and none twice. Targets: a bag time with
	// frames exactly at it, one between frames, and 0.
	for _, rt := range []bool{false, true} {
		for _, tg := range []time.Duration{target, target + 20*time.Millisecond, 0} {
			t.Run(fmt.Sprintf("paused/realtime=%v/%v", rt, tg), func(t *testing.T) {
				d := open(t, depthColor, &Options{NonRealTime: !rt, Speed: 4})
				c := newCollector(d)
				startAll(t, d, c)
				if err := d.Pause(); err != nil {
					t.Fatal(err)
				}
				n := len(c.snapshot())
				if err := d.Seek(tg); err != nil {
					t.Fatal(err)
				}
				if d.Position() != tg {
					t.Errorf("position %v after a seek to %v while paused", d.Position(), tg)
				}
				var want []rec // each stream's last frame at or before tg, in bag order
				last := map[string]int{}
				for i, r := range all {
					if r.pos <= int64(tg) {
						last[r.stream] = i
					}
				}
				for i, r := range all {
					if j, ok := last[r.stream]; ok && j == i {
						want = append(want, r)
					}
				}
				picture := c.snapshot()[n:]
				// While a frame of the picture is handled, the position is
				// its bag time.
				if !slices.Equal(picture, want) {
					t.Fatalf("seek to %v while paused delivered %v, want the current picture %v", tg, picture, want)
				}
				if err := d.Resume(); err != nil {
					t.Fatal(err)
				}
				c.waitStopped(t)
				got := c.snapshot()[n+len(picture):]
				var after []rec
				for _, r := range all {
					if r.pos > int64(tg) || r.pos == int64(tg) && !slices.Contains(want, r) {
						after = append(after, r)
					}
				}
				if !rt && !slices.Equal(got, after) {
					t.Fatalf("after resuming: %d frames from %v, want %d from %v", len(got), got[:min(3, len(got))], len(after), after[:min(3, len(after))])
				}
				type key struct {
					stream string
					number uint64
				}
				seen := map[key]bool{}
				for _, r := range append(picture, got...) {
					if seen[key{r.stream, r.number}] {
						t.Fatalf("frame %v delivered twice", r)
					}
					seen[key{r.stream, r.number}] = true
				}
			})
		}
	}

	for _, rt := range []bool{false, true} {
		t.Run(fmt.Sprintf("playing/realtime=%v", rt), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) { seekPlaying(t, all, rt) })
		})
	}

	t.Run("range", func(t *testing.T) {
		d := open(t, depthColor, nil)
		for _, bad := range []time.Duration{-1, d.Duration() + 1} {
			if err := d.Seek(bad); !errors.Is(err, ErrOutOfRange) {
				t.Errorf("Seek(%v) = %v, want ErrOutOfRange", bad, err)
			}
		}
		if err := d.Seek(d.Duration()); err != nil {
			t.Errorf("Seek(duration) = %v", err)
		}
	})

	t.Run("frame", func(t *testing.T) {
		d := open(t, depthColor, &Options{NonRealTime: true})
		var color *sensor.StreamProfile
		for _, s := range d.Sensors() {
			for _, p := range s.Profiles() {
				if p.Stream == sensor.StreamColor {
					color = p
				}
			}
		}
		if err := d.SeekFrame(color, 10); err != nil {
			t.Fatal(err)
		}
		c := newCollector(d)
		startAll(t, d, c)
		c.waitStopped(t)
		if got := c.snapshot(); len(got) == 0 || got[0].stream != "Color/0" || got[0].number != 11 {
			t.Errorf("after SeekFrame(color, 10): %v, want Color/0#11 first", got)
		}
		if err := d.SeekFrame(color, 30); !errors.Is(err, ErrOutOfRange) {
			t.Errorf("SeekFrame(color, 30) = %v, want ErrOutOfRange", err)
		}
	})
}

// TestPauseResumeStep: pausing, stepping and resuming neither skips nor
// repeats a frame.
func TestPauseResumeStep(t *testing.T) {
	all := playAll(t, depthColor)
	synctest.Test(t, func(t *testing.T) { pauseResumeStep(t, all) })
}

// pauseAt makes c's handler pause d from the handler of the n-th frame:
// in non-real-time mode the pause takes effect before the next frame.
func pauseAt(t *testing.T, d *Device, c *collector, n int) {
	var seen atomic.Int32
	c.delay = func() {
		if int(seen.Add(1)) == n {
			if err := d.Pause(); err != nil {
				t.Errorf("Pause from the handler: %v", err)
			}
		}
	}
}

func pauseResumeStep(t *testing.T, all []rec) {
	d := open(t, depthColor, &Options{NonRealTime: true})
	c := newCollector(d)
	var statuses []extensions.PlaybackStatus
	var smu sync.Mutex
	d.OnStatusChange(func(s extensions.PlaybackStatus) {
		smu.Lock()
		statuses = append(statuses, s)
		smu.Unlock()
		if s == extensions.StatusStopped {
			c.once.Do(func() { close(c.stopped) })
		}
	})
	if err := d.Step(); !errors.Is(err, ErrNotPaused) {
		t.Errorf("Step while stopped = %v, want ErrNotPaused", err)
	}
	pauseAt(t, d, c, 5)
	startAll(t, d, c)
	synctest.Wait() // every goroutine of the device is blocked
	if d.Status() != extensions.StatusPaused {
		t.Errorf("status %v, want Paused", d.Status())
	}
	n := len(c.snapshot())
	if n != 5 {
		t.Fatalf("%d frames delivered, want 5: frames delivered while paused", n)
	}
	for i := 0; i < 3; i++ {
		if err := d.Step(); err != nil {
			t.Fatal(err)
		}
		if got := len(c.snapshot()); got != n+i+1 {
			t.Fatalf("step %d: %d frames, want %d", i, got, n+i+1)
		}
	}
	if err := d.Resume(); err != nil {
		t.Fatal(err)
	}
	c.waitStopped(t)
	if got := c.snapshot(); fmt.Sprint(got) != fmt.Sprint(all) {
		t.Errorf("with pause/step/resume:\n got %v\nwant %v", got, all)
	}
	d.ev.flush()
	smu.Lock()
	want := []extensions.PlaybackStatus{extensions.StatusPlaying,
		extensions.StatusPaused, extensions.StatusPlaying, extensions.StatusStopped}
	if fmt.Sprint(statuses) != fmt.Sprint(want) {
		t.Errorf("statuses %v, want %v", statuses, want)
	}
	smu.Unlock()

	// Restart after EOF plays again from the start; the sensors are still
	// open, so reading waits until both are started and nothing is missed.
	c2 := newCollector(d)
	for _, s := range d.Sensors() {
		if err := s.Start(c2); err != nil {
			t.Fatal(err)
		}
	}
	c2.waitStopped(t)
	if got := c2.snapshot(); fmt.Sprint(got) != fmt.Sprint(all) {
		t.Errorf("restart after EOF:\n got %v\nwant %v", got, all)
	}
}

func TestRepeat(t *testing.T) {
	d := open(t, poseBag, &Options{NonRealTime: true, Repeat: true})
	var n sync.WaitGroup
	n.Add(450)
	var cnt int
	var mu sync.Mutex
	s := d.Sensors()[0]
	s.Open(s.Profiles()...)
	s.Start(sensor.HandlerFunc(func(*sensor.Frame) {
		mu.Lock()
		cnt++
		if cnt <= 450 {
			n.Done()
		}
		mu.Unlock()
	}))
	n.Wait()
	if d.Status() != extensions.StatusPlaying {
		t.Errorf("status %v while repeating", d.Status())
	}
}

// TestRealTimeDrops: a slow handler loses frames in real time, and the loss
// is counted.
func TestRealTimeDrops(t *testing.T) { synctest.Test(t, realTimeDrops) }

func realTimeDrops(t *testing.T) {
	d := open(t, motionBag, &Options{Speed: 4})
	c := newCollector(d)
	c.delay = func() { time.Sleep(5 * time.Millisecond) }
	startAll(t, d, c)
	c.waitStopped(t)
	var delivered, dropped uint64
	for _, st := range d.Stats() {
		delivered += st.Delivered
		dropped += st.Dropped
	}
	if dropped == 0 || delivered+dropped != 675 || int(delivered) != len(c.snapshot()) {
		t.Errorf("delivered %d (handler saw %d) dropped %d, want drops and a total of 675", delivered, len(c.snapshot()), dropped)
	}
}

func TestOptionsAndFilters(t *testing.T) {
	d := open(t, realBag, nil)
	ss := d.Sensors()
	ds := ss[0].(extensions.DepthStereoSensor)
	if ds.DepthUnits() != 0.001 || ds.StereoBaselineMM() != float32(50.170666) {
		t.Errorf("depth units %v baseline %v", ds.DepthUnits(), ds.StereoBaselineMM())
	}
	o := ss[0].(extensions.Options)
	if err := o.SetOption(sensor.OptionExposure, 1); !errors.Is(err, extensions.ErrReadOnly) {
		t.Errorf("SetOption = %v, want ErrReadOnly", err)
	}
	if v, _ := o.Option(sensor.OptionExposure); v != 8500 {
		t.Errorf("Exposure %v, want 8500", v)
	}
	if r, _ := o.OptionRange(sensor.OptionExposure); r.Min != 8500 || r.Max != 8500 || r.Step != 0 {
		t.Errorf("range %+v", r)
	}
	if _, err := o.Option(sensor.OptionHue); !errors.Is(err, extensions.ErrUnsupportedOption) {
		t.Errorf("Option(Hue) on depth = %v", err)
	}
	if f := ss[1].(extensions.RecommendedFilters).RecommendedFilters(); strings.Join(f, ",") != "Decimation Filter,Rotation Filter" {
		t.Errorf("v3 color filters %v", f)
	}
}

// TestDeviceStop: Device.Stop halts reading, stops the sensors, rewinds
// and reports Stopped; starting again plays from the start, or from a seek
// made while stopped.
func TestDeviceStop(t *testing.T) {
	all := playAll(t, depthColor)
	synctest.Test(t, func(t *testing.T) { deviceStop(t, all) })
}

func deviceStop(t *testing.T, all []rec) {
	d := open(t, depthColor, &Options{NonRealTime: true})
	c := newCollector(d)
	pauseAt(t, d, c, 5) // Stop also clears a pause
	startAll(t, d, c)
	synctest.Wait()
	if err := d.Stop(); err != nil {
		t.Fatal(err)
	}
	c.waitStopped(t)
	synctest.Wait()
	if n := len(c.snapshot()); n != 5 {
		t.Errorf("%d frames delivered, want the 5 before the pause and none after Stop returned", n)
	}
	if d.Status() != extensions.StatusStopped || d.Position() != 0 {
		t.Errorf("after Stop: status %v, position %v", d.Status(), d.Position())
	}
	if err := d.Stop(); err != nil {
		t.Errorf("second Stop: %v", err)
	}
	restart := func() *collector {
		c := newCollector(d)
		for _, s := range d.Sensors() {
			if err := s.Start(c); err != nil { // still open, no longer started
				t.Fatal(err)
			}
		}
		return c
	}
	// Starting one sensor at a time would lose the other's first frames:
	// start every sensor while paused, as startAll does.
	if err := d.Pause(); err != nil {
		t.Fatal(err)
	}
	c2 := restart()
	if err := d.Resume(); err != nil {
		t.Fatal(err)
	}
	c2.waitStopped(t)
	if got := c2.snapshot(); fmt.Sprint(got) != fmt.Sprint(all) {
		t.Errorf("after Stop and Start:\n got %v\nwant %v", got, all)
	}

	// A seek while stopped sets where the next start begins.
	target := all[len(all)/2].pos
	if err := d.Seek(time.Duration(target)); err != nil {
		t.Fatal(err)
	}
	if err := d.Pause(); err != nil {
		t.Fatal(err)
	}
	c3 := restart()
	if err := d.Resume(); err != nil {
		t.Fatal(err)
	}
	c3.waitStopped(t)
	got := c3.snapshot()
	if len(got) == 0 || got[0].pos < target || len(got) >= len(all) {
		t.Errorf("after a seek to %d while stopped: %v", target, got)
	}
}

// seekPlaying: TestSeek while playing, in a synctest bubble.
func seekPlaying(t *testing.T, all []rec, rt bool) {
	d := open(t, depthColor, &Options{NonRealTime: !rt, Speed: 0.5})
	c := newCollector(d)
	c.delay = func() { time.Sleep(time.Millisecond) }
	startAll(t, d, c)
	waitFor(t, "3 frames", func() bool { return len(c.snapshot()) >= 3 })
	back := time.Duration(100_000_000)
	n0 := len(c.snapshot())
	if err := d.Seek(back); err != nil {
		t.Fatal(err)
	}
	// Frames from n on were delivered after Seek returned; the
	// first frame after the seek may come before that.
	n := len(c.snapshot())
	start := time.Now()
	for len(c.snapshot()) == n {
		if time.Since(start) > waitDeadline {
			t.Fatal("no frame after seek: stall")
		}
		time.Sleep(time.Millisecond)
	}
	// On the bubble's clock: at most a frame interval of the 30 fps
	// streams at speed 0.5, plus the handler's 1 ms and the poll's.
	if stall, most := time.Since(start), time.Second/30*2+2*time.Millisecond; stall > most {
		t.Errorf("first frame after the seek took %v, want at most %v", stall, most)
	}
	snap := c.snapshot()
	for _, got := range snap[n:] {
		if got.pos < int64(back) {
			t.Fatalf("stale frame %v after seek to %v", got, back)
		}
	}
	if !rt {
		// Non-real time: the frames after the seek are those from
		// the first one at or after the target, in order.
		want := firstAtOrAfter(all, int64(back))
		k := -1
		for i := n0; i <= n && i < len(snap); i++ {
			if snap[i] == want {
				k = i
			}
		}
		if k < 0 {
			t.Fatalf("first frame after seek: %v, want %v", snap[n0:min(n+1, len(snap))], want)
		}
		for _, got := range snap[k:] {
			if got.pos < int64(back) {
				t.Fatalf("frame %v after the seek's first frame %v", got, want)
			}
		}
	}
}
