// Package synthrig records synthetic cameras for tests: one into a bag, or
// several as a session (package rig).
package synthrig

import (
	"fmt"
	"github.com/rsbag/rsbag/internal/rigfiles"
	"github.com/rsbag/rsbag/internal/synthscript"
	"path/filepath"
	"testing"
	"testing/synctest"
	"time"

	"github.com/rsbag/rsbag/device"
	"github.com/rsbag/rsbag/internal/testsupport/refcam"
	"github.com/rsbag/rsbag/record"
	"github.com/rsbag/rsbag/rig"
	"github.com/rsbag/rsbag/sensor"
	"github.com/rsbag/rsbag/software"
)

// Camera returns a small synthetic camera with this serial: depth and
// color 64x48 at 30 fps and the accelerometer at 100 Hz for 600 ms of
// stream time, delivered at 4× real time so that bag times are real
// arrival times.
func Camera(t testing.TB, serial string) *software.Synthetic {
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

// Record records n synthetic cameras together as the session rig.bag in
// a temporary directory and returns the manifest's path. With shift, the
// cameras are recorded at the same time but not as one session: bag i's
// origin is shift[i] before now (its frames come that much later in bag
// time), no manifest is written, and the -f file's path is returned (the
// bags are rigfiles.BagPath(file, serial)); the serials are RIG001, RIG002 ...
func Record(t testing.TB, n int, shift ...time.Duration) string {
	t.Helper()
	var cams []*software.Synthetic
	var devs []device.Device
	for i := range n {
		c := Camera(t, fmt.Sprintf("RIG%03d", i+1))
		defer c.Close()
		cams = append(cams, c)
		devs = append(devs, c)
	}
	file := filepath.Join(t.TempDir(), "rig.bag")
	var recs []*record.Device
	var rec *rig.Recording
	if len(shift) == 0 {
		r, err := rig.Create(file, devs, &record.Options{Lossless: true})
		if err != nil {
			t.Fatal(err)
		}
		rec, recs = r, r.Devices
	} else {
		// Separate recordings whose origins differ: not one session.
		now := time.Now()
		for i, d := range devs {
			r, err := record.Create(d, rigfiles.BagPath(file, fmt.Sprintf("RIG%03d", i+1)), &record.Options{Lossless: true, Origin: now.Add(-shift[i])})
			if err != nil {
				t.Fatal(err)
			}
			recs = append(recs, r)
		}
	}
	stream(t, cams, recs)
	if rec == nil {
		return file
	}
	return rec.ManifestFile
}

// Bag records the synthetic camera of cfg losslessly into the bag at path,
// every stream of it from start to the end of its stream time. In a
// synctest bubble a paced camera takes no real time.
func Bag(t testing.TB, path string, cfg software.SyntheticConfig) {
	t.Helper()
	cam, err := software.NewSynthetic(cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer cam.Close()
	rec, err := record.Create(cam, path, &record.Options{Lossless: true})
	if err != nil {
		t.Fatal(err)
	}
	stream(t, []*software.Synthetic{cam}, []*record.Device{rec})
}

// ReferenceBag records the synthetic camera of the reference bag name
// (refcam.Config) losslessly into the bag at path, the first d
// of its stream time, in a synctest bubble: bag times are stream times and
// the recording takes no real time.
func ReferenceBag(t *testing.T, path, name string, d time.Duration) {
	t.Helper()
	cfg, ok := refcam.Config(name)
	if !ok {
		t.Fatalf("no reference config %s", name)
	}
	cfg.Duration, cfg.Frames, cfg.Speed = d, 0, 1
	synthscript.Of(&cfg).PauseAt, synthscript.Of(&cfg).ResumeAt = 0, 0
	synctest.Test(t, func(t *testing.T) { Bag(t, path, cfg) })
}

// stream streams every profile of the recorders' sensors until each camera
// is done, then stops and closes the recorders.
func stream(t testing.TB, cams []*software.Synthetic, recs []*record.Device) {
	t.Helper()
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
			if err := s.Stop(); err != nil {
				t.Fatal(err)
			}
		}
		if err := r.Close(); err != nil {
			t.Fatal(err)
		}
	}
}

// SmallFrames records into the bag at path many small frames, so that the
// cost per frame, not per byte, dominates what reads it: the IMU at 400 Hz
// and a 64x48 depth stream at 90 fps for d of stream time.
func SmallFrames(t testing.TB, path string, d time.Duration) {
	t.Helper()
	Bag(t, path, software.SyntheticConfig{
		Depth:    &software.Video{Width: 64, Height: 48, FPS: 90, Format: sensor.FormatZ16},
		AccelFPS: 400,
		GyroFPS:  400,
		Duration: d,
	})
}
