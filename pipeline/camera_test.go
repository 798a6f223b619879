package pipeline

import (
	"context"
	"errors"
	"testing"

	"github.com/rsbag/rsbag/device"
	"github.com/rsbag/rsbag/sensor"
	"github.com/rsbag/rsbag/software"
)

// TestPipelineCamera: a pipeline opens the camera of the registered backend
// (device.RegisterCameras), by serial number; without a backend, a named
// camera is an error that says live cameras are unavailable, and an
// unnamed one is the synthetic camera.
func TestPipelineCamera(t *testing.T) {
	ctx := context.Background()
	start := func(serial string) (string, error) {
		t.Helper()
		c := &Config{}
		if serial != "" {
			c.EnableDevice(serial)
		}
		p := New()
		prof, err := p.Start(ctx, c)
		if err != nil {
			return "", err
		}
		defer p.Stop()
		return prof.Device().Info()[sensor.CameraInfoSerialNumber], nil
	}
	synthetic := DefaultSynthetic()
	syn, err := software.NewSynthetic(synthetic)
	if err != nil {
		t.Fatal(err)
	}
	defaultSerial := syn.Info()[sensor.CameraInfoSerialNumber]
	syn.Close()

	if _, err := start("123"); !errors.Is(err, device.ErrNoCameras) {
		t.Errorf("a named camera without a camera backend: %v, want device.ErrNoCameras", err)
	}
	if got, err := start(""); err != nil || got != defaultSerial {
		t.Errorf("no camera backend: %q, %v; want the synthetic camera %q", got, err, defaultSerial)
	}

	t.Cleanup(func() { device.RegisterCameras(nil) })
	var asked []string
	device.RegisterCameras(func(_ context.Context, serial string) (device.Device, error) {
		asked = append(asked, serial)
		cfg := DefaultSynthetic()
		cfg.Info = map[sensor.CameraInfo]string{sensor.CameraInfoSerialNumber: "cam-" + serial}
		return software.NewSynthetic(cfg)
	})
	if got, err := start("7"); err != nil || got != "cam-7" {
		t.Errorf("registered camera 7: %q, %v; want cam-7", got, err)
	}
	if got, err := start(""); err != nil || got != "cam-" {
		t.Errorf("registered camera, none named: %q, %v; want the camera (cam-)", got, err)
	}
	if len(asked) != 2 || asked[0] != "7" || asked[1] != "" {
		t.Errorf("the backend was asked for %q, want [7 \"\"]", asked)
	}
}
