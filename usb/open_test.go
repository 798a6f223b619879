package usb_test

import (
	"context"
	"errors"
	"testing"

	"github.com/rsbag/rsbag/device"
	"github.com/rsbag/rsbag/usb"
)

// On a machine without a USB bus or camera, Open and Devices report
// device.ErrNotFound ("no RealSense device found") and never crash.
func TestOpenNoCamera(t *testing.T) {
	ctx := context.Background()
	if _, err := usb.Devices(ctx); !errors.Is(err, device.ErrNotFound) {
		t.Skipf("a camera or bus is attached here: %v", err)
	}
	d, err := usb.Open(ctx, nil)
	if !errors.Is(err, device.ErrNotFound) {
		if d != nil {
			d.Close()
		}
		t.Fatalf("Open = %v, want ErrNotFound", err)
	}
	t.Logf("Open: %v", err)
}
