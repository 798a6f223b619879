// Package device defines the Device interface that live cameras, the software
// device, record devices and playback devices all implement, so that user
// code cannot tell them apart, and Snapshot, the immutable description of a
// device that a record device writes and a playback device serves.
//
// # Frame delivery contract
//
// Every implementation delivers frames through one sensor runtime
// (internal/sensorrt, where the contract is written out in full and
// tested), so that they all behave alike:
//
//   - A started sensor calls its handler on a goroutine it owns, never on
//     the caller's and never with a lock held; from the handler, Stop and
//     Close of its own sensor and Close of the device fail with an error
//     wrapping sensor.ErrStopFromHandler instead of waiting for themselves.
//   - Frames of a stream arrive one at a time, in order.
//   - Lossless producers (software device, synthetic camera, non-real-time
//     playback) wait for a slow handler; real-time ones (live cameras,
//     real-time playback) drop its oldest undelivered frames, counted, once
//     they have waited a frame period while it was inside a call.
//   - Stop is synchronous; Close returns when every goroutine has ended.
//   - A delivered frame and its Data are immutable and stay valid as long
//     as they are referenced; there is nothing to release.
package device

import (
	"errors"

	"github.com/rsbag/rsbag/sensor"
)

// Device is a RealSense device: info, sensors and the extrinsics between
// their streams.
type Device interface {
	// Info returns the device's camera-info values.
	Info() sensor.Info
	// Sensors returns the sensors in device order (sensor index = position).
	Sensors() []sensor.Sensor
	// Extrinsics returns the transform from one stream to another; both
	// profiles must belong to this device.
	Extrinsics(from, to *sensor.StreamProfile) (sensor.Extrinsics, error)
	// Close stops and closes every sensor. It is idempotent.
	Close() error
}

// Errors shared by Device implementations.
var (
	// ErrDisconnected reports that the device went away.
	ErrDisconnected = errors.New("device: disconnected")
	// ErrNoExtrinsics reports that no transform is known between two streams.
	ErrNoExtrinsics = errors.New("device: requested extrinsics are not available")
	// ErrNotFound reports that no device was found.
	ErrNotFound = errors.New("no RealSense device found")
)
