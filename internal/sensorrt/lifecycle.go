package sensorrt

import (
	"errors"
	"fmt"
	"slices"
	"sync"

	"github.com/rsbag/rsbag/sensor"
)

type phase int8

const (
	idle     phase = iota // nothing opened
	opened                // profiles reserved
	started               // delivering
	stopping              // Stop is waiting for the handler
)

// Lifecycle is the state machine of one sensor: Open reserves profiles,
// Start begins delivery, Stop ends it (synchronously), Close releases the
// profiles, Shutdown closes the sensor for good. Each transition checks the
// state, runs the backend's own step (claiming interfaces, starting
// workers, waiting for them) and reports a refused call with the sensor
// package's errors, wrapped with the sensor's name and the operation:
// "NAME: start: sensor: not open". It is safe for concurrent use; the
// zero value is ready to use: no name in its errors and no handler guard.
type Lifecycle struct {
	// Name starts every error, e.g. `usb Stereo Module`; when empty the
	// errors start with the operation, for the caller to wrap.
	Name string
	// Handlers are the goroutines that run the sensor's handler and
	// callbacks: Stop and Close from one of them would wait for itself and
	// fail with sensor.ErrStopFromHandler instead.
	Handlers *Goroutines

	mu      sync.Mutex
	phase   phase
	open    []*sensor.StreamProfile
	closed  bool
	stopped chan struct{} // closed when the Stop in progress is done
}

func (l *Lifecycle) errorf(op string, err error) error {
	if l.Name == "" {
		return fmt.Errorf("%s: %w", op, err)
	}
	return fmt.Errorf("%s: %s: %w", l.Name, op, err)
}

// FromHandler returns an error wrapping sensor.ErrStopFromHandler, naming
// op, when the caller is one of l.Handlers; else nil.
func (l *Lifecycle) FromHandler(op string) error {
	return Refuse(l.Name, op, l.Handlers)
}

// Open reserves ps, each of which must be one of offered (by identity;
// offered nil: the caller checked them). prepare, when not nil, runs with
// the state locked and may refuse; the profiles are reserved only if it
// succeeds. prepare must not call l's methods.
func (l *Lifecycle) Open(offered, ps []*sensor.StreamProfile, prepare func() error) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	switch {
	case l.closed:
		return l.errorf("open", sensor.ErrClosed)
	case l.phase != idle:
		return l.errorf("open", sensor.ErrAlreadyOpen)
	case len(ps) == 0:
		return l.errorf("open", fmt.Errorf("no profiles given: %w", sensor.ErrNoProfile))
	}
	if offered != nil {
		for _, p := range ps {
			if !slices.Contains(offered, p) {
				return l.errorf("open "+p.String(), sensor.ErrNoProfile)
			}
		}
	}
	if prepare != nil {
		if err := prepare(); err != nil {
			return err
		}
	}
	l.open = slices.Clone(ps)
	l.phase = opened
	return nil
}

// Start begins delivery to h: start (the backend's step, which starts its
// workers or reading goroutines) runs with the state locked, given the
// opened profiles, and the sensor is started only if it succeeds. start
// must not call l's methods.
func (l *Lifecycle) Start(h sensor.Handler, start func(opened []*sensor.StreamProfile) error) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if err := l.refuseStartLocked(h, false); err != nil {
		return err
	}
	if err := start(slices.Clone(l.open)); err != nil {
		return err
	}
	l.phase = started
	return nil
}

// CheckStart returns the error Start would return now, without starting:
// for a backend that applies a start later, on its own goroutine. pending
// (a start accepted and not yet applied) counts as started.
func (l *Lifecycle) CheckStart(h sensor.Handler, pending bool) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.refuseStartLocked(h, pending)
}

func (l *Lifecycle) refuseStartLocked(h sensor.Handler, pending bool) error {
	switch {
	case l.closed:
		return l.errorf("start", sensor.ErrClosed)
	case l.phase == idle:
		return l.errorf("start", sensor.ErrNotOpen)
	case l.phase != opened || pending:
		return l.errorf("start", sensor.ErrAlreadyStarted)
	case h == nil:
		return l.errorf("start", errors.New("nil handler"))
	}
	return nil
}

// Stop ends delivery: stop (the backend's step) runs without the lock and
// must return only when the handler is not running and will not be called
// again. From one of l.Handlers it fails with sensor.ErrStopFromHandler
// and the sensor keeps streaming; a sensor not started fails with
// sensor.ErrNotStarted (after waiting for a Stop in progress in another
// goroutine). Stop returns stop's error.
func (l *Lifecycle) Stop(stop func() error) error {
	if err := l.FromHandler("stop"); err != nil {
		return err
	}
	l.mu.Lock()
	switch l.phase {
	case started:
	case stopping:
		done := l.stopped
		l.mu.Unlock()
		<-done
		return l.errorf("stop", sensor.ErrNotStarted)
	default:
		l.mu.Unlock()
		return l.errorf("stop", sensor.ErrNotStarted)
	}
	l.phase = stopping
	done := make(chan struct{})
	l.stopped = done
	l.mu.Unlock()
	err := stop()
	l.mu.Lock()
	l.phase = opened
	close(done)
	l.mu.Unlock()
	return err
}

// Close stops the sensor if it is started (with stop) and releases its
// profiles; release, when not nil, runs with the state locked to forget
// what Open prepared. From one of l.Handlers it fails with
// sensor.ErrStopFromHandler and changes nothing; a sensor with nothing
// opened fails with sensor.ErrNotOpen.
func (l *Lifecycle) Close(stop func() error, release func()) error {
	if err := l.FromHandler("close"); err != nil {
		return err
	}
	var err error
	for {
		l.mu.Lock()
		switch l.phase {
		case idle:
			l.mu.Unlock()
			if err != nil {
				return err // closed meanwhile by another call, after this one stopped it
			}
			return l.errorf("close", sensor.ErrNotOpen)
		case opened:
			l.phase, l.open = idle, nil
			if release != nil {
				release()
			}
			l.mu.Unlock()
			return err
		}
		// Started, or being stopped: stop it (or wait for that), then look
		// again, as another goroutine may have started it meanwhile.
		l.mu.Unlock()
		if e := l.Stop(stop); !errors.Is(e, sensor.ErrNotStarted) {
			err = errors.Join(err, e)
		}
	}
}

// Shutdown closes the sensor for good (its device closes): every later
// Open and Start fails with sensor.ErrClosed, and the sensor is closed as
// Close does if anything is opened.
func (l *Lifecycle) Shutdown(stop func() error, release func()) error {
	l.mu.Lock()
	l.closed = true
	l.mu.Unlock()
	if err := l.Close(stop, release); !errors.Is(err, sensor.ErrNotOpen) {
		return err
	}
	return nil
}

// Opened returns the reserved profiles in the order Open got them.
func (l *Lifecycle) Opened() []*sensor.StreamProfile {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.open)
}

// IsOpen reports whether profiles are reserved.
func (l *Lifecycle) IsOpen() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.phase != idle
}

// Reserved reports whether p is one of the reserved profiles.
func (l *Lifecycle) Reserved(p *sensor.StreamProfile) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Contains(l.open, p)
}

// Started reports whether the sensor is started (and not being stopped).
func (l *Lifecycle) Started() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.phase == started
}
