// Package device defines the Device interface that live cameras, the software
// device, record devices and playback devices all implement, so that user
// code cannot tell them apart, and Snapshot, the immutable description of a
// device that a record device writes and a playback device serves.
//
// # Frame delivery contract
//
// Every implementation follows these rules (they refine those of package
// sensor):
//
//   - Goroutine: a started sensor calls its Handler on a goroutine owned by
//     that sensor (one per started sensor in the software and synthetic
//     devices, one per stream in playback), never on the goroutine that
//     called Start, and never with a lock held, so a handler may call any
//     method of the device except Stop/Close of its own sensor and Close of
//     the device, which would wait for the handler to return: they return
//     an error wrapping sensor.ErrStopFromHandler instead.
//   - Ordering: frames of one stream are delivered one at a time, in
//     increasing frame order. Frames of different streams of one sensor are
//     delivered in production order when the sensor has one delivery
//     goroutine; frames of different sensors may be delivered concurrently.
//   - Slow handlers: a handler that does not keep up applies back-pressure.
//     Lossless producers (software device, synthetic camera, non-real-time
//     playback) wait for it, so frames arrive late but none are lost;
//     real-time producers (live cameras, real-time playback) drop the oldest
//     undelivered frame of that stream instead of queueing without bound.
//     A handler never blocks the frames of another sensor's goroutine.
//   - Stop is synchronous: when it returns the handler is not running and
//     will not be called again for that sensor. Close stops every sensor and
//     returns only when every goroutine the device started has ended.
//   - Lifetime: a delivered *sensor.Frame and its Data are immutable and stay
//     valid for as long as they are referenced, including after the handler
//     returns, after Stop and after Close. Producers never write to a buffer
//     after handing it out; they may hand the same immutable buffer to
//     several frames (the synthetic camera's prepared contents). Consumers
//     must not modify a frame or its Data; there is nothing to release.
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
