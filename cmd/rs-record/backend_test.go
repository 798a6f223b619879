package main

import (
	"testing"

	"github.com/rsbag/rsbag/device"
	"github.com/rsbag/rsbag/sensor"
	"github.com/rsbag/rsbag/usb"
)

// statsSensor is a sensor that reports usb.Stats.
type statsSensor struct {
	sensor.Sensor
	st usb.Stats
}

func (s statsSensor) Stats() usb.Stats { return s.st }

// sensorsDevice is a device with the given sensors.
type sensorsDevice struct {
	device.Device
	sensors []sensor.Sensor
}

func (d sensorsDevice) Sensors() []sensor.Sensor { return d.sensors }

// TestCameraLosses: what a live camera lost before recording is summed over
// its sensors and named by cause; nothing is said when nothing was lost or
// for a device that keeps no such counters.
func TestCameraLosses(t *testing.T) {
	lossy := sensorsDevice{sensors: []sensor.Sensor{
		statsSensor{st: usb.Stats{Frames: 300, ErrorFrames: 1, ShortFrames: 2, LateFrames: 3}},
		statsSensor{st: usb.Stats{Frames: 900, OversizedFrames: 4, LateFrames: 5, Resets: 1}},
	}}
	want := "the camera lost 15 frames before recording: 1 with the error bit, 2 short, 4 oversized, 8 late (the recorder fell behind); 1 endpoint resets"
	if got := cameraLosses(lossy); got != want {
		t.Errorf("got  %q\nwant %q", got, want)
	}
	mjpeg := sensorsDevice{sensors: []sensor.Sensor{statsSensor{st: usb.Stats{Frames: 30, CorruptFrames: 2}}}}
	want = "the camera lost 2 frames before recording: 0 with the error bit, 0 short, 0 oversized, 2 corrupt MJPEG, 0 late (the recorder fell behind); 0 endpoint resets"
	if got := cameraLosses(mjpeg); got != want {
		t.Errorf("MJPEG frames that did not decode:\ngot  %q\nwant %q", got, want)
	}
	clean := sensorsDevice{sensors: []sensor.Sensor{statsSensor{st: usb.Stats{Frames: 300}}}}
	if got := cameraLosses(clean); got != "" {
		t.Errorf("no loss: %q", got)
	}
	other := sensorsDevice{sensors: []sensor.Sensor{nil}}
	if got := cameraLosses(other); got != "" {
		t.Errorf("a device without counters: %q", got)
	}
}
