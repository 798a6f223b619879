package playback

import (
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/rsbag/rsbag/extensions"
	"github.com/rsbag/rsbag/internal/testsupport/await"
	"github.com/rsbag/rsbag/sensor"
)

// watchdog makes a deadlocked test fail with every goroutine's stack
// (await.Watchdog: after d in a synctest bubble, else at the test's
// deadline). Call it before open, so that it also covers the device's
// Close at cleanup.
func watchdog(t *testing.T, d time.Duration) { await.Watchdog(t, d) }

// waitFor polls cond until it holds or the wait deadline passes; call it in
// a synctest bubble, whose clock it polls on.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(waitDeadline)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timeout waiting for %s", what)
		}
		time.Sleep(100 * time.Microsecond)
	}
}

// TestRefusedFromHandler: the calls that would wait for the calling
// handler fail with sensor.ErrStopFromHandler instead of deadlocking, and
// playback goes on to the end.
func TestRefusedFromHandler(t *testing.T) {
	calls := []struct {
		name string
		call func(d *Device, s []sensor.Sensor) error
	}{
		{"Device.Stop", func(d *Device, _ []sensor.Sensor) error { return d.Stop() }},
		{"Device.Close", func(d *Device, _ []sensor.Sensor) error { return d.Close() }},
		{"Device.Step", func(d *Device, _ []sensor.Sensor) error { return d.Step() }},
		{"own Sensor.Stop", func(_ *Device, s []sensor.Sensor) error { return s[0].Stop() }},
		{"other Sensor.Stop", func(_ *Device, s []sensor.Sensor) error { return s[1].Stop() }},
		{"Sensor.Close", func(_ *Device, s []sensor.Sensor) error { return s[0].Close() }},
		{"Sensor.Open", func(_ *Device, s []sensor.Sensor) error { return s[1].Open(s[1].Profiles()...) }},
		{"Sensor.Start", func(_ *Device, s []sensor.Sensor) error {
			return s[1].Start(sensor.HandlerFunc(func(*sensor.Frame) {}))
		}},
	}
	for _, rt := range []bool{false, true} {
		for _, c := range calls {
			t.Run(fmt.Sprintf("%s/realtime=%v", c.name, rt), func(t *testing.T) {
				watchdog(t, 10*time.Second)
				d := open(t, depthColor, &Options{NonRealTime: !rt, Speed: 20})
				col := newCollector(d)
				ss := d.Sensors()
				var once sync.Once
				errc := make(chan error, 1)
				startAll(t, d, sensor.HandlerFunc(func(f *sensor.Frame) {
					once.Do(func() { errc <- c.call(d, ss) })
					col.HandleFrame(f)
				}))
				if err := await.Recv(t, c.name+" from a handler", errc); !errors.Is(err, sensor.ErrStopFromHandler) {
					t.Errorf("%s from a handler = %v, want ErrStopFromHandler", c.name, err)
				}
				col.waitStopped(t)
				if n := len(col.snapshot()); !rt && n != 60 {
					t.Errorf("%d frames, want 60: the refused call changed playback", n)
				}
			})
		}
	}
}

// TestControlFromHandler: Pause, Resume, Seek, SeekFrame, SetSpeed and
// SetRealTime called from a handler return at once and take effect when
// the handler returns — in non-real-time mode before the next frame, so
// that playback stays deterministic.
func TestControlFromHandler(t *testing.T) {
	all := playAll(t, depthColor)
	const k = 5 // the call is made from the handler of the k-th frame

	// run plays depthColor non-real-time, making call from the k-th
	// frame's handler, and returns the collector once call's effect
	// settled (after = what to wait for).
	run := func(t *testing.T, call func(d *Device) error) (*Device, *collector) {
		t.Helper()
		watchdog(t, 10*time.Second)
		d := open(t, depthColor, &Options{NonRealTime: true})
		col := newCollector(d)
		errc := make(chan error, 1)
		var n atomic.Int32 // SetRealTime(true) makes handlers concurrent
		startAll(t, d, sensor.HandlerFunc(func(f *sensor.Frame) {
			col.HandleFrame(f)
			if n.Add(1) == k {
				errc <- call(d)
			}
		}))
		if err := await.Recv(t, "the call from a handler", errc); err != nil {
			t.Fatalf("call from a handler: %v", err)
		}
		return d, col
	}

	t.Run("Pause", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) { pauseFromHandler(t, run, all) })
	})

	t.Run("Pause+Resume", func(t *testing.T) {
		_, col := run(t, func(d *Device) error {
			if err := d.Pause(); err != nil {
				return err
			}
			return d.Resume()
		})
		col.waitStopped(t)
		if got := col.snapshot(); fmt.Sprint(got) != fmt.Sprint(all) {
			t.Errorf("pause and resume from a handler:\n got %v\nwant %v", got, all)
		}
	})

	target := time.Duration(500_000_000)
	t.Run("Seek", func(t *testing.T) {
		_, col := run(t, func(d *Device) error { return d.Seek(target) })
		col.waitStopped(t)
		got := col.snapshot()
		first := firstAtOrAfter(all, int64(target))
		i := 0
		for i < len(all) && all[i] != first {
			i++
		}
		want := append(append([]rec(nil), all[:k]...), all[i:]...)
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("seek from a handler:\n got %v\nwant %v", got, want)
		}
	})

	t.Run("Seek out of range", func(t *testing.T) {
		watchdog(t, 10*time.Second)
		d := open(t, depthColor, &Options{NonRealTime: true})
		col := newCollector(d)
		errc := make(chan error, 1)
		var once sync.Once
		startAll(t, d, sensor.HandlerFunc(func(f *sensor.Frame) {
			once.Do(func() { errc <- d.Seek(d.Duration() + 1) })
			col.HandleFrame(f)
		}))
		if err := <-errc; !errors.Is(err, ErrOutOfRange) {
			t.Errorf("Seek beyond the end from a handler = %v, want ErrOutOfRange", err)
		}
		col.waitStopped(t)
	})

	t.Run("SeekFrame", func(t *testing.T) {
		_, col := run(t, func(d *Device) error {
			return d.SeekFrame(d.Sensors()[1].Profiles()[0], 20) // Color/0 #21
		})
		col.waitStopped(t)
		got := col.snapshot()
		if len(got) <= k || got[k].stream != "Color/0" || got[k].number != 21 {
			t.Errorf("after SeekFrame(color, 20) from a handler: %v, want Color/0#21 after %d frames", got, k)
		}
	})

	t.Run("SetSpeed+SetRealTime", func(t *testing.T) {
		d, col := run(t, func(d *Device) error {
			if err := d.SetSpeed(3); err != nil {
				return err
			}
			if err := d.SetSpeed(0); err == nil {
				return errors.New("SetSpeed(0) from a handler succeeded")
			}
			return d.SetRealTime(true)
		})
		col.waitStopped(t)
		if !d.RealTime() {
			t.Error("SetRealTime(true) from a handler not applied")
		}
	})

	// Real time in a synctest bubble: the waits are on its clock.
	t.Run("real time", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			watchdog(t, 10*time.Second)
			d := open(t, depthColor, &Options{Speed: 4})
			col := newCollector(d)
			errc := make(chan error, 2)
			var n int
			var mu sync.Mutex
			startAll(t, d, sensor.HandlerFunc(func(f *sensor.Frame) {
				col.HandleFrame(f)
				mu.Lock()
				n++
				first := n == 3
				mu.Unlock()
				if first {
					errc <- d.Pause()
					errc <- d.Seek(target)
				}
			}))
			for i := 0; i < 2; i++ {
				if err := <-errc; err != nil {
					t.Fatal(err)
				}
			}
			waitFor(t, "Paused", func() bool { return d.Status() == extensions.StatusPaused })
			waitFor(t, "the seek", func() bool { return d.Position() == target })
			n0 := len(col.snapshot())
			if err := d.Resume(); err != nil {
				t.Fatal(err)
			}
			col.waitStopped(t)
			if got := col.snapshot()[n0:]; len(got) == 0 || got[0].pos < int64(target) {
				t.Errorf("after pause and seek from a handler, resume: %v", got)
			}
		})
	})
}

// TestCloseFromCallback: closing the device from a status callback fails
// instead of waiting for the callback goroutine.
func TestCloseFromCallback(t *testing.T) {
	watchdog(t, 10*time.Second)
	d := open(t, poseBag, &Options{NonRealTime: true})
	errc := make(chan error, 1)
	d.OnStatusChange(func(s extensions.PlaybackStatus) {
		if s == extensions.StatusPlaying {
			errc <- d.Close()
		}
	})
	s := d.Sensors()[0]
	if err := s.Open(s.Profiles()...); err != nil {
		t.Fatal(err)
	}
	if err := s.Start(sensor.HandlerFunc(func(*sensor.Frame) {})); err != nil {
		t.Fatal(err)
	}
	if err := await.Recv(t, "Close from a status callback", errc); !errors.Is(err, sensor.ErrStopFromHandler) {
		t.Errorf("Close from a status callback = %v, want ErrStopFromHandler", err)
	}
	if err := d.Close(); err != nil {
		t.Fatal(err)
	}
}

// pauseFromHandler: TestControlFromHandler's Pause, in a synctest bubble so
// that "nothing more is delivered" is checked once every goroutine of the
// device is blocked.
func pauseFromHandler(t *testing.T, run func(*testing.T, func(*Device) error) (*Device, *collector), all []rec) {
	const k = 5
	d, col := run(t, (*Device).Pause)
	synctest.Wait()
	if d.Status() != extensions.StatusPaused {
		t.Fatalf("status %v after a pause from the handler, want Paused", d.Status())
	}
	if n := len(col.snapshot()); n != k {
		t.Fatalf("%d frames delivered after a pause from the handler of frame %d", n, k)
	}
	if err := d.Resume(); err != nil {
		t.Fatal(err)
	}
	col.waitStopped(t)
	if got := col.snapshot(); fmt.Sprint(got) != fmt.Sprint(all) {
		t.Errorf("pause from a handler, resume:\n got %v\nwant %v", got, all)
	}
}
