package main

import (
	"testing"

	"github.com/rsbag/rsbag/device"
	"github.com/rsbag/rsbag/sensor"
	"github.com/rsbag/rsbag/software"
	"github.com/rsbag/rsbag/usb"
)

// TestCameraLosses: what a camera lost before recording is counted from its
// per-stream counters (device.StreamStats), named by stream and, for a live
// camera, by cause; nothing is said when nothing was lost or for a device
// that keeps no counters.
func TestCameraLosses(t *testing.T) {
	depth := &sensor.StreamProfile{Stream: sensor.StreamDepth, Format: sensor.FormatZ16}
	ir2 := &sensor.StreamProfile{Stream: sensor.StreamInfrared, Index: 2, Format: sensor.FormatY8}
	gyro := &sensor.StreamProfile{Stream: sensor.StreamGyro, Format: sensor.FormatMotionXYZ32F}
	for _, c := range []struct {
		name    string
		streams []device.StreamStats
		causes  usb.Stats
		want    string
	}{
		{"lossy", []device.StreamStats{{Profile: depth, Delivered: 300, Dropped: 3, Lost: 3}, {Profile: ir2, Delivered: 300},
			{Profile: gyro, Delivered: 900, Dropped: 5, Lost: 4}},
			usb.Stats{ErrorFrames: 1, ShortFrames: 2, OversizedFrames: 4, Resets: 1},
			"the camera lost 15 frames before recording (Depth 6, Gyro 9): 1 with the error bit, 2 short, 4 oversized, 8 late (the recorder fell behind); 1 endpoint resets"},
		{"MJPEG", []device.StreamStats{{Profile: depth, Delivered: 30, Lost: 2}}, usb.Stats{CorruptFrames: 2},
			"the camera lost 2 frames before recording (Depth 2): 0 with the error bit, 0 short, 0 oversized, 2 corrupt MJPEG, 0 late (the recorder fell behind); 0 endpoint resets"},
		{"resets only", []device.StreamStats{{Profile: depth, Delivered: 30}}, usb.Stats{Resets: 2},
			"the camera lost 0 frames before recording: 0 with the error bit, 0 short, 0 oversized, 0 late (the recorder fell behind); 2 endpoint resets"},
		{"clean", []device.StreamStats{{Profile: depth, Delivered: 300}, {Profile: ir2, Delivered: 300}}, usb.Stats{}, ""},
		{"none", nil, usb.Stats{}, ""},
	} {
		if got := describeLosses(c.streams, c.causes); got != c.want {
			t.Errorf("%s:\ngot  %q\nwant %q", c.name, got, c.want)
		}
	}
	// A software camera counts too (and loses nothing); a device that
	// keeps no counters says nothing.
	cam, err := software.NewSynthetic(software.SyntheticConfig{Depth: &software.Video{Width: 8, Height: 8, FPS: 30}, Frames: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer cam.Close()
	if got := cameraLosses(cam); got != "" {
		t.Errorf("the synthetic camera: %q", got)
	}
	if got := cameraLosses(sensorsDevice{}); got != "" {
		t.Errorf("a device without counters: %q", got)
	}
}

// sensorsDevice is a device with the given sensors and no frame counters.
type sensorsDevice struct {
	device.Device
	sensors []sensor.Sensor
}

func (d sensorsDevice) Sensors() []sensor.Sensor { return d.sensors }
