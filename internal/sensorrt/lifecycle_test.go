package sensorrt

import (
	"errors"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/rsbag/rsbag/sensor"
)

var (
	pA = &sensor.StreamProfile{Stream: sensor.StreamDepth, Format: sensor.FormatZ16, Width: 4, Height: 2, FPS: 30}
	pB = &sensor.StreamProfile{Stream: sensor.StreamColor, Format: sensor.FormatRGB8, Width: 4, Height: 2, FPS: 30}
	pX = &sensor.StreamProfile{Stream: sensor.StreamInfrared, Index: 1, Format: sensor.FormatY8, Width: 4, Height: 2, FPS: 30}
)

var nop = sensor.HandlerFunc(func(*sensor.Frame) {})

// TestLifecycleTransitions runs scripts of calls and checks each result
// against the sensor package's errors (nil: success).
func TestLifecycleTransitions(t *testing.T) {
	open := func(ps ...*sensor.StreamProfile) func(*Lifecycle) error {
		return func(l *Lifecycle) error { return l.Open([]*sensor.StreamProfile{pA, pB}, ps, nil) }
	}
	start := func(l *Lifecycle) error { return l.Start(nop, func([]*sensor.StreamProfile) error { return nil }) }
	stop := func(l *Lifecycle) error { return l.Stop(func() error { return nil }) }
	closeL := func(l *Lifecycle) error { return l.Close(func() error { return nil }, nil) }
	shutdown := func(l *Lifecycle) error { return l.Shutdown(func() error { return nil }, nil) }
	check := func(l *Lifecycle) error { return l.CheckStart(nop, false) }
	checkPending := func(l *Lifecycle) error { return l.CheckStart(nop, true) }
	errStep := errors.New("step failed")
	type call struct {
		name string
		f    func(*Lifecycle) error
		want error
	}
	tests := []struct {
		name    string
		calls   []call
		started bool
		open    bool
	}{
		{"start unopened", []call{{"start", start, sensor.ErrNotOpen}}, false, false},
		{"stop unstarted", []call{{"open", open(pA), nil}, {"stop", stop, sensor.ErrNotStarted}}, false, true},
		{"close unopened", []call{{"close", closeL, sensor.ErrNotOpen}}, false, false},
		{"open nothing", []call{{"open", open(), sensor.ErrNoProfile}}, false, false},
		{"open foreign", []call{{"open", open(pA, pX), sensor.ErrNoProfile}}, false, false},
		{"open twice", []call{{"open", open(pA), nil}, {"open", open(pB), sensor.ErrAlreadyOpen}}, false, true},
		{"start twice", []call{{"open", open(pA, pB), nil}, {"start", start, nil}, {"start", start, sensor.ErrAlreadyStarted}}, true, true},
		{"stop twice", []call{{"open", open(pA), nil}, {"start", start, nil}, {"stop", stop, nil}, {"stop", stop, sensor.ErrNotStarted}}, false, true},
		{"close stops", []call{{"open", open(pA), nil}, {"start", start, nil}, {"close", closeL, nil}, {"start", start, sensor.ErrNotOpen}}, false, false},
		{"reopen", []call{{"open", open(pA), nil}, {"close", closeL, nil}, {"open", open(pB), nil}, {"start", start, nil}}, true, true},
		{"shutdown", []call{{"open", open(pA), nil}, {"start", start, nil}, {"shutdown", shutdown, nil},
			{"open", open(pA), sensor.ErrClosed}, {"start", start, sensor.ErrClosed}}, false, false},
		{"prepare fails", []call{{"open", func(l *Lifecycle) error {
			return l.Open(nil, []*sensor.StreamProfile{pA}, func() error { return errStep })
		}, errStep}, {"start", start, sensor.ErrNotOpen}}, false, false},
		{"start step fails", []call{{"open", open(pA), nil}, {"start", func(l *Lifecycle) error {
			return l.Start(nop, func([]*sensor.StreamProfile) error { return errStep })
		}, errStep}, {"stop", stop, sensor.ErrNotStarted}, {"start", start, nil}}, true, true},
		// CheckStart: Start's answer, nothing started; a pending start
		// counts as started.
		{"check unopened", []call{{"check", check, sensor.ErrNotOpen}}, false, false},
		{"check opened", []call{{"open", open(pA), nil}, {"check", check, nil}}, false, true},
		{"check pending", []call{{"open", open(pA), nil}, {"check", checkPending, sensor.ErrAlreadyStarted}}, false, true},
		{"check started", []call{{"open", open(pA), nil}, {"start", start, nil}, {"check", check, sensor.ErrAlreadyStarted}}, true, true},
		{"check shut down", []call{{"open", open(pA), nil}, {"shutdown", shutdown, nil}, {"check", check, sensor.ErrClosed}}, false, false},
		{"check nil handler", []call{{"open", open(pA), nil}, {"check", func(l *Lifecycle) error { return l.CheckStart(nil, false) }, errAny}}, false, true},
		{"nil handler", []call{{"open", open(pA), nil}, {"start", func(l *Lifecycle) error {
			return l.Start(nil, func([]*sensor.StreamProfile) error { return nil })
		}, errAny}}, false, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			l := &Lifecycle{Name: "test sensor", Handlers: &Goroutines{}}
			for i, c := range tc.calls {
				err := c.f(l)
				switch {
				case c.want == nil && err != nil:
					t.Fatalf("call %d (%s): %v", i, c.name, err)
				case c.want == errAny && err == nil:
					t.Fatalf("call %d (%s) succeeded, want an error", i, c.name)
				case c.want != nil && c.want != errAny && !errors.Is(err, c.want):
					t.Fatalf("call %d (%s): %v, want %v", i, c.name, err, c.want)
				}
				if err != nil && c.want != errStep && err.Error()[:len("test sensor: ")] != "test sensor: " {
					t.Errorf("call %d (%s): error %q does not name the sensor", i, c.name, err)
				}
			}
			if l.Started() != tc.started || l.IsOpen() != tc.open {
				t.Errorf("started %v open %v, want %v %v", l.Started(), l.IsOpen(), tc.started, tc.open)
			}
		})
	}
}

// errAny stands for any error in TestLifecycleTransitions.
var errAny = errors.New("any error")

// TestLifecycleOpened: the profiles reserved are those given, in order, and
// the start step gets them.
func TestLifecycleOpened(t *testing.T) {
	var l Lifecycle
	if err := l.Open([]*sensor.StreamProfile{pA, pB}, []*sensor.StreamProfile{pB, pA}, nil); err != nil {
		t.Fatal(err)
	}
	if got := l.Opened(); len(got) != 2 || got[0] != pB || got[1] != pA {
		t.Errorf("Opened = %v", got)
	}
	if !l.Reserved(pA) || l.Reserved(pX) {
		t.Error("Reserved wrong")
	}
	var got []*sensor.StreamProfile
	if err := l.Start(nop, func(ps []*sensor.StreamProfile) error { got = ps; return nil }); err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0] != pB {
		t.Errorf("start step got %v", got)
	}
}

// TestLifecycleStopFromHandler: Stop and Close from one of the handler
// goroutines fail with ErrStopFromHandler and leave the sensor started.
func TestLifecycleStopFromHandler(t *testing.T) {
	var handlers Goroutines
	l := &Lifecycle{Name: "s", Handlers: &handlers}
	if err := l.Open(nil, []*sensor.StreamProfile{pA}, nil); err != nil {
		t.Fatal(err)
	}
	if err := l.Start(nop, func([]*sensor.StreamProfile) error { return nil }); err != nil {
		t.Fatal(err)
	}
	errs := make(chan error, 2)
	go func() {
		defer handlers.Enter()()
		errs <- l.Stop(func() error { t.Error("stop step ran from a handler"); return nil })
		errs <- l.Close(func() error { t.Error("stop step ran from a handler"); return nil }, nil)
	}()
	for range 2 {
		if err := <-errs; !errors.Is(err, sensor.ErrStopFromHandler) {
			t.Errorf("from a handler: %v, want ErrStopFromHandler", err)
		}
	}
	if !l.Started() {
		t.Error("stopped from a handler")
	}
}

// TestLifecycleConcurrentStop: a second Stop while the first waits for the
// handler returns only once the first is done (Stop is synchronous for
// every caller).
func TestLifecycleConcurrentStop(t *testing.T) {
	var l Lifecycle
	if err := l.Open(nil, []*sensor.StreamProfile{pA}, nil); err != nil {
		t.Fatal(err)
	}
	if err := l.Start(nop, func([]*sensor.StreamProfile) error { return nil }); err != nil {
		t.Fatal(err)
	}
	inStep, release := make(chan struct{}), make(chan struct{})
	var stepDone atomic.Bool
	first := make(chan error, 1)
	go func() {
		first <- l.Stop(func() error { close(inStep); <-release; stepDone.Store(true); return nil })
	}()
	<-inStep
	second := make(chan error, 1)
	go func() { second <- l.Stop(func() error { t.Error("second stop step ran"); return nil }) }()
	close(release)
	if err := <-second; !errors.Is(err, sensor.ErrNotStarted) {
		t.Errorf("second Stop: %v, want ErrNotStarted", err)
	}
	if !stepDone.Load() {
		t.Error("second Stop returned before the first one's step finished")
	}
	if err := <-first; err != nil {
		t.Error(err)
	}
}

// TestLifecycleNoLeak: sensors opened, started, stopped, closed and shut
// down from several goroutines at once stop every delivery they start
// exactly once (run with -race).
func TestLifecycleNoLeak(t *testing.T) {
	for round := range 20 {
		l := &Lifecycle{Name: "s", Handlers: &Goroutines{}}
		var running, starts, stops atomic.Int64
		step := func([]*sensor.StreamProfile) error { running.Add(1); starts.Add(1); return nil }
		stopStep := func() error {
			if running.Add(-1) < 0 {
				t.Error("stop step without a start")
			}
			stops.Add(1)
			return nil
		}
		var wg sync.WaitGroup
		for g := range 4 {
			wg.Go(func() {
				for i := range 50 {
					switch (i + g + round) % 5 {
					case 0:
						_ = l.Open(nil, []*sensor.StreamProfile{pA}, nil)
					case 1, 2:
						_ = l.Start(nop, step)
					case 3:
						_ = l.Stop(stopStep)
					case 4:
						_ = l.Close(stopStep, nil)
					}
				}
			})
		}
		wg.Go(func() { _ = l.Shutdown(stopStep, nil) })
		wg.Wait()
		_ = l.Shutdown(stopStep, nil)
		if running.Load() != 0 || starts.Load() != stops.Load() {
			t.Fatalf("round %d: %d deliveries started, %d stopped", round, starts.Load(), stops.Load())
		}
		if err := l.Start(nop, step); !errors.Is(err, sensor.ErrClosed) {
			t.Fatalf("start after shutdown: %v", err)
		}
	}
}
