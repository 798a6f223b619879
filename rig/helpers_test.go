package rig

import (
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/rsbag/rsbag/device"
	"github.com/rsbag/rsbag/record"
	"github.com/rsbag/rsbag/sensor"
	"github.com/rsbag/rsbag/software"
)

// synthetic returns a small synthetic camera with this serial: depth and
// color 64x48 at 30 fps and the accelerometer at 100 Hz for 600 ms of
// stream time, delivered at 4× real time so that bag times are real
// arrival times.
func synthetic(t testing.TB, serial string) *software.Synthetic {
	t.Helper()
	cam, err := software.NewSynthetic(software.SyntheticConfig{
		Depth:    &software.Video{Width: 64, Height: 48, FPS: 30, Format: sensor.FormatZ16},
		Color:    &software.Video{Width: 64, Height: 48, FPS: 30, Format: sensor.FormatRGB8},
		AccelFPS: 100,
		Duration: 600 * time.Millisecond,
		Speed:    4,
		Info:     map[sensor.CameraInfo]string{sensor.CameraInfoSerialNumber: serial},
	})
	if err != nil {
		t.Fatal(err)
	}
	return cam
}

// recordRig records n synthetic cameras together as the session rig.bag in
// a temporary directory and returns the manifest's path. origins, when
// given, shifts each bag's origin by that much before the session's (so
// that its frames come that much later in bag time).
func recordRig(t testing.TB, n int, shift ...time.Duration) string {
	t.Helper()
	var cams []*software.Synthetic
	var devs []device.Device
	for i := range n {
		c := synthetic(t, fmt.Sprintf("RIG%03d", i+1))
		defer c.Close()
		cams = append(cams, c)
		devs = append(devs, c)
	}
	file := filepath.Join(t.TempDir(), "rig.bag")
	var recs []*record.Device
	var rec *Recording
	if len(shift) == 0 {
		r, err := Create(file, devs, &record.Options{Lossless: true})
		if err != nil {
			t.Fatal(err)
		}
		rec, recs = r, r.Devices
	} else {
		// Separate recordings whose origins differ: not one session.
		now := time.Now()
		for i, d := range devs {
			r, err := record.New(d, BagPath(file, fmt.Sprintf("RIG%03d", i+1)), &record.Options{Lossless: true, Origin: now.Add(-shift[i])})
			if err != nil {
				t.Fatal(err)
			}
			recs = append(recs, r)
		}
	}
	for _, r := range recs {
		for _, s := range r.Sensors() {
			if err := s.Open(s.Profiles()...); err != nil {
				t.Fatal(err)
			}
		}
	}
	for _, r := range recs {
		for _, s := range r.Sensors() {
			if err := s.Start(sensor.HandlerFunc(func(*sensor.Frame) {})); err != nil {
				t.Fatal(err)
			}
		}
	}
	for _, c := range cams {
		<-c.Done()
	}
	for _, r := range recs {
		for _, s := range r.Sensors() {
			s.Stop()
		}
		if err := r.Close(); err != nil {
			t.Fatal(err)
		}
	}
	if rec == nil {
		return file
	}
	return rec.ManifestFile
}
