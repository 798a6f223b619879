package device_test

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/rsbag/rsbag/device"
	"github.com/rsbag/rsbag/software"
)

// TestLiveOrSynthetic: the one choice "a camera, else the synthetic one".
func TestLiveOrSynthetic(t *testing.T) {
	errBusy := errors.New("camera busy")
	noCamera := fmt.Errorf("usb: list devices: %w", device.ErrNotFound)
	tests := []struct {
		name             string
		synthetic, named bool
		liveErr          error
		want             string // "live", "synthetic" or the error
		wantSynthetic    bool
		standInGets      error // the error standIn is called with
	}{
		{name: "camera", want: "live"},
		{name: "no camera", liveErr: noCamera, want: "synthetic", wantSynthetic: true, standInGets: noCamera},
		{name: "no backend", liveErr: device.ErrNoCameras, want: "synthetic", wantSynthetic: true, standInGets: device.ErrNoCameras},
		{name: "forced", synthetic: true, liveErr: errBusy, want: "synthetic", wantSynthetic: true},
		{name: "named camera missing", named: true, liveErr: noCamera, want: noCamera.Error()},
		{name: "camera fails", liveErr: errBusy, want: errBusy.Error()},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			liveCalls := 0
			got, isSynthetic, err := device.LiveOrSynthetic(tc.synthetic, tc.named,
				func() (string, error) {
					liveCalls++
					if tc.liveErr != nil {
						return "broken", tc.liveErr
					}
					return "live", nil
				},
				func(liveErr error) (string, error) {
					if liveErr != tc.standInGets {
						t.Errorf("standIn got %v, want %v", liveErr, tc.standInGets)
					}
					return "synthetic", nil
				})
			if err != nil {
				got = err.Error()
				if !errors.Is(err, tc.liveErr) {
					t.Errorf("error %v does not wrap %v", err, tc.liveErr)
				}
			}
			if got != tc.want || isSynthetic != tc.wantSynthetic {
				t.Errorf("got %q, synthetic %v; want %q, %v", got, isSynthetic, tc.want, tc.wantSynthetic)
			}
			if tc.synthetic && liveCalls > 0 {
				t.Error("live called with synthetic forced")
			}
		})
	}
	_, isSynthetic, err := device.LiveOrSynthetic(false, false,
		func() (int, error) { return 0, noCamera },
		func(error) (int, error) { return 0, errBusy })
	if !isSynthetic || err != errBusy {
		t.Errorf("a failing stand-in: synthetic %v, error %v; want true, %v", isSynthetic, err, errBusy)
	}
}

// TestOpenCamera: without a registered backend OpenCamera says so with an
// error that wraps ErrNotFound; a registered one is used, and a later
// registration replaces it.
func TestOpenCamera(t *testing.T) {
	// The device package's tests link no camera backend.
	if _, err := device.OpenCamera(context.Background(), ""); !errors.Is(err, device.ErrNoCameras) || !errors.Is(err, device.ErrNotFound) {
		t.Fatalf("OpenCamera without a backend = %v, want ErrNoCameras wrapping ErrNotFound", err)
	}
	t.Cleanup(func() { device.RegisterCameras(nil) })
	cam := software.New(nil)
	var asked []string
	device.RegisterCameras(func(_ context.Context, serial string) (device.Device, error) {
		return nil, errors.New("replaced")
	})
	device.RegisterCameras(func(_ context.Context, serial string) (device.Device, error) {
		asked = append(asked, serial)
		return cam, nil
	})
	d, err := device.OpenCamera(context.Background(), "123")
	if err != nil || d != cam || len(asked) != 1 || asked[0] != "123" {
		t.Errorf("OpenCamera = %v, %v (asked %q); want the registered camera for 123", d, err, asked)
	}
}
