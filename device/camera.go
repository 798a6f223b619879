package device

import (
	"context"
	"errors"
	"fmt"
	"sync"
)

// ErrNoCameras reports that the program cannot open live cameras at all:
// no package that opens them is linked (see RegisterCameras), or the one
// linked was built without what it needs (package usb without cgo). It
// wraps ErrNotFound, so that "a camera, else the synthetic one"
// (LiveOrSynthetic) takes the synthetic camera as when none is attached.
var ErrNoCameras = fmt.Errorf("device: live cameras unavailable in this program (package usb, built with cgo, opens them): %w", ErrNotFound)

var cameras struct {
	sync.Mutex
	open func(ctx context.Context, serial string) (Device, error)
}

// RegisterCameras makes OpenCamera (and so every package that opens a live
// camera when asked for one: pipeline, the tools) open cameras with open,
// which opens the live camera with the serial number serial, or the first
// one found when serial is "", and returns an error wrapping ErrNotFound
// when there is none.
// It is meant to be called from the init function of the package that
// provides them (package usb does), like rosbag.RegisterScheme and
// image.RegisterFormat, so that a program links a camera backend — and
// libusb, and cgo — only when it imports one. A later registration
// replaces the earlier one.
func RegisterCameras(open func(ctx context.Context, serial string) (Device, error)) {
	cameras.Lock()
	cameras.open = open
	cameras.Unlock()
}

// OpenCamera opens the live camera with the serial number serial (the
// first one when serial is "") through the registered camera backend
// (RegisterCameras). Without one it returns ErrNoCameras.
func OpenCamera(ctx context.Context, serial string) (Device, error) {
	cameras.Lock()
	open := cameras.open
	cameras.Unlock()
	if open == nil {
		return nil, ErrNoCameras
	}
	return open(ctx, serial)
}

// LiveOrSynthetic is the one choice "a live camera, else the synthetic
// one" that the programs and packages of this module make. Unless
// synthetic is true it calls live; when live fails because no camera is
// attached or none can be opened (an error wrapping ErrNotFound) and the
// caller asked for no particular camera (named false), it calls standIn
// with that error. With synthetic true it calls standIn(nil) at once.
// isSynthetic reports whether d (or err) comes from standIn; an error of
// live is returned as it is, for the caller to wrap.
func LiveOrSynthetic[D any](synthetic, named bool, live func() (D, error), standIn func(liveErr error) (D, error)) (d D, isSynthetic bool, err error) {
	var liveErr error
	if !synthetic {
		d, liveErr = live()
		if liveErr == nil {
			return d, false, nil
		}
		if named || !errors.Is(liveErr, ErrNotFound) {
			var none D
			return none, false, liveErr
		}
	}
	d, err = standIn(liveErr)
	return d, true, err
}
