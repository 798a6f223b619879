// Package device defines the Device interface that live cameras, the software
// device, record devices and playback devices all implement, so that user
// code cannot tell them apart, and Snapshot, the immutable description of a
// device that a record device writes and a playback device serves.
//
// # Frame delivery contract
//
// Every implementation follows the frame delivery rules of package sensor
// (its "Frame delivery" section), so that user code cannot tell them apart.
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
