package sensorrt

import (
	"fmt"
	"sync"

	"github.com/rsbag/rsbag/internal/goid"
	"github.com/rsbag/rsbag/sensor"
)

// Goroutines is a set of goroutines that run a sensor's or a device's user
// code (frame handlers, notification and status callbacks, a synthetic
// camera's timeline): the calls that would wait for one of them are refused
// from it (Refuse). The zero value is empty and ready to use; a Goroutines
// must not be copied after first use.
type Goroutines struct{ set goid.Set }

// Enter adds the calling goroutine and returns the function that removes
// it.
func (g *Goroutines) Enter() (leave func()) { return g.set.Enter() }

// Current reports whether the calling goroutine is in g (false for a nil
// g). It reads the goroutine id only when g is not empty.
func (g *Goroutines) Current() bool { return g != nil && g.set.Current() }

// Refuse returns nil, or, when the calling goroutine is in one of sets, the
// one error every backend gives for a call that would wait for the
// goroutine making it: "NAME: OP: " followed by sensor.ErrStopFromHandler,
// which it wraps.
func Refuse(name, op string, sets ...*Goroutines) error {
	for _, g := range sets {
		if g.Current() {
			return refused(name, op)
		}
	}
	return nil
}

func refused(name, op string) error {
	if name == "" {
		return fmt.Errorf("%s: %w", op, sensor.ErrStopFromHandler)
	}
	return fmt.Errorf("%s: %s: %w", name, op, sensor.ErrStopFromHandler)
}

// Device is the part of a device's Close that every backend shares: it
// knows the goroutines that run the user code of all the device's sensors
// and callbacks, refuses Close from one of them (Close would wait for it),
// and shuts the device down once. The zero value is ready to use.
type Device struct {
	// Name starts the refusal, e.g. `usb 8086:0b3a at 2-1`.
	Name string

	mu   sync.Mutex
	sets []*Goroutines
	once sync.Once
	err  error
}

// Own adds sets to the goroutines the device's Close is refused from.
func (d *Device) Own(sets ...*Goroutines) {
	d.mu.Lock()
	d.sets = append(d.sets, sets...)
	d.mu.Unlock()
}

// Refuse returns Refuse(d.Name, op, the sets d owns...).
func (d *Device) Refuse(op string) error {
	d.mu.Lock()
	sets := d.sets
	d.mu.Unlock()
	return Refuse(d.Name, op, sets...)
}

// Close closes the device: called from one of the goroutines d owns it
// returns the refusal (Refuse with op "close") and closes nothing;
// otherwise it runs shutdown (the backend's: shut its sensors down for
// good — Lifecycle.Shutdown — and release the device) the first time and
// returns its error every time.
func (d *Device) Close(shutdown func() error) error {
	if err := d.Refuse("close"); err != nil {
		return err
	}
	d.once.Do(func() { d.err = shutdown() })
	return d.err
}
