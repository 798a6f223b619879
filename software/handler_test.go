package software

import (
	"errors"
	"testing"
	"testing/synctest"
	"time"

	"github.com/rsbag/rsbag/internal/synthscript"
	"github.com/rsbag/rsbag/internal/testsupport/await"
	"github.com/rsbag/rsbag/internal/testsupport/leak"
	"github.com/rsbag/rsbag/sensor"
)

// within fails the test if f does not return (the calls under test used to
// deadlock): in the synctest bubble, as soon as every goroutine waits.
func within(t *testing.T, what string, f func()) {
	t.Helper()
	await.Do(t, what, f)
}

// TestCallsFromOwnHandler: Stop, Close, device Close and Inject made from a
// sensor's own handler fail with sensor.ErrStopFromHandler instead of
// deadlocking, and Flush returns; the sensor keeps streaming and can still
// be stopped from another goroutine.
func TestCallsFromOwnHandler(t *testing.T) { synctest.Test(t, callsFromOwnHandler) }

func callsFromOwnHandler(t *testing.T) {
	base := leak.Count()
	d := New(nil)
	s := d.AddSensor("RGB Camera")
	p := s.AddVideoStream(VideoStream{Stream: sensor.StreamColor, Format: sensor.FormatRGB8, Width: 2, Height: 2, FPS: 30})
	other := d.AddSensor("Stereo Module")
	q := other.AddVideoStream(VideoStream{Stream: sensor.StreamDepth, Format: sensor.FormatZ16, Width: 2, Height: 2, FPS: 30})
	if err := s.Open(p); err != nil {
		t.Fatal(err)
	}
	if err := other.Open(q); err != nil {
		t.Fatal(err)
	}
	if err := other.Start(sensor.HandlerFunc(func(*sensor.Frame) {})); err != nil {
		t.Fatal(err)
	}
	type result struct{ stop, close, devClose, inject, stopOther error }
	results := make(chan result, 1)
	h := sensor.HandlerFunc(func(f *sensor.Frame) {
		var r result
		r.stop = s.Stop()
		r.close = s.Close()
		r.devClose = d.Close()
		r.inject = s.Inject(&sensor.Frame{Profile: p, Data: make([]byte, 12)})
		s.Flush()
		r.stopOther = other.Stop() // another sensor's: allowed
		results <- r
	})
	if err := s.Start(h); err != nil {
		t.Fatal(err)
	}
	within(t, "inject", func() {
		if err := s.Inject(&sensor.Frame{Profile: p, Data: make([]byte, 12)}); err != nil {
			t.Error(err)
		}
	})
	var r result
	within(t, "handler", func() { r = <-results })
	for what, err := range map[string]error{"Stop": r.stop, "Close": r.close, "device Close": r.devClose, "Inject": r.inject} {
		if !errors.Is(err, sensor.ErrStopFromHandler) {
			t.Errorf("%s from own handler: %v, want ErrStopFromHandler", what, err)
		}
	}
	if r.stopOther != nil {
		t.Errorf("Stop of another sensor from a handler: %v", r.stopOther)
	}
	if !s.life.Started() || !s.life.Reserved(p) {
		t.Error("failed calls changed the sensor")
	}
	within(t, "stop", func() {
		if err := s.Stop(); err != nil {
			t.Error(err)
		}
	})
	within(t, "close", func() {
		if err := d.Close(); err != nil {
			t.Error(err)
		}
	})
	leak.Check(t, base)
}

// TestCloseFromTimeline: closing the synthetic camera from a hook (its
// timeline goroutine) fails instead of deadlocking.
func TestCloseFromTimeline(t *testing.T) { synctest.Test(t, closeFromTimeline) }

func closeFromTimeline(t *testing.T) {
	base := leak.Count()
	errs := make(chan error, 1)
	var cam *Synthetic
	cfg := SyntheticConfig{Depth: &Video{Width: 4, Height: 4, FPS: 30}, Frames: 3}
	cfg.script.Hooks = []synthscript.Hook{{At: 10 * time.Millisecond, Func: func() { errs <- cam.Close() }}}
	cam, err := NewSynthetic(cfg)
	if err != nil {
		t.Fatal(err)
	}
	s := cam.softwareSensors()[0]
	if err := s.Open(s.Profiles()...); err != nil {
		t.Fatal(err)
	}
	if err := s.Start(sensor.HandlerFunc(func(*sensor.Frame) {})); err != nil {
		t.Fatal(err)
	}
	within(t, "timeline", func() { <-cam.Done() })
	if err := <-errs; !errors.Is(err, sensor.ErrStopFromHandler) {
		t.Errorf("Close from a hook: %v, want ErrStopFromHandler", err)
	}
	within(t, "close", func() {
		if err := cam.Close(); err != nil {
			t.Error(err)
		}
	})
	leak.Check(t, base)
}
