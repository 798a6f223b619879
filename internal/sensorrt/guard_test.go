package sensorrt

import (
	"errors"
	"testing"

	"github.com/rsbag/rsbag/sensor"
)

// TestDeviceClose: a device's Close from a goroutine of any set it owns is
// refused with the one error and shuts nothing down; from elsewhere it
// shuts down once and returns the same result every time.
func TestDeviceClose(t *testing.T) {
	var handlerA, handlerB, callbacks Goroutines
	d := &Device{Name: "usb 8086:0b3a at 2-1"}
	d.Own(&handlerA, &handlerB)
	d.Own(&callbacks)
	errDown := errors.New("release failed")
	runs := 0
	shutdown := func() error { runs++; return errDown }
	for _, g := range []*Goroutines{&handlerA, &handlerB, &callbacks} {
		got := make(chan error)
		go func() {
			defer g.Enter()()
			got <- d.Close(shutdown)
		}()
		err := <-got
		if !errors.Is(err, sensor.ErrStopFromHandler) {
			t.Fatalf("Close from an owned goroutine: %v, want ErrStopFromHandler", err)
		}
		if want := "usb 8086:0b3a at 2-1: close: " + sensor.ErrStopFromHandler.Error(); err.Error() != want {
			t.Errorf("refusal %q, want %q", err, want)
		}
	}
	if runs != 0 {
		t.Fatalf("shutdown ran %d times from owned goroutines", runs)
	}
	for range 2 {
		if err := d.Close(shutdown); err != errDown {
			t.Errorf("Close = %v, want %v", err, errDown)
		}
	}
	if runs != 1 {
		t.Errorf("shutdown ran %d times, want 1", runs)
	}
}

// TestRefuse: the refusal names the caller and the operation, only from a
// goroutine of one of the sets (nil sets are empty).
func TestRefuse(t *testing.T) {
	var g Goroutines
	if err := Refuse("playback: a.bag", "stop", nil, &g); err != nil {
		t.Errorf("Refuse outside the sets = %v", err)
	}
	got := make(chan [2]error)
	go func() {
		defer g.Enter()()
		got <- [2]error{Refuse("playback: a.bag", "sensor 0: stop", nil, &g), Refuse("", "stop", &g)}
	}()
	errs := <-got
	for i, want := range []string{
		"playback: a.bag: sensor 0: stop: " + sensor.ErrStopFromHandler.Error(),
		"stop: " + sensor.ErrStopFromHandler.Error(),
	} {
		if errs[i] == nil || errs[i].Error() != want || !errors.Is(errs[i], sensor.ErrStopFromHandler) {
			t.Errorf("refusal %d: %v, want %q", i, errs[i], want)
		}
	}
}
