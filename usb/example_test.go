package usb_test

import (
	"context"
	"errors"
	"fmt"

	"github.com/rsbag/rsbag/device"
	"github.com/rsbag/rsbag/usb"
	"github.com/rsbag/rsbag/usb/usbtest"
)

// Open the first camera; with none attached the error is device.ErrNotFound.
func ExampleOpen() {
	d, err := usb.Open(context.Background(), &usb.Options{Transport: usbtest.New()})
	if errors.Is(err, device.ErrNotFound) {
		fmt.Println(err)
		return
	}
	defer d.Close()
	// Output: no RealSense device found
}
