package usb_test

import (
	"context"
	"errors"
	"fmt"

	"github.com/rsbag/rsbag/device"
	"github.com/rsbag/rsbag/usb"
)

// Open the first camera; with none attached the error is device.ErrNotFound.
// (Compiled, not run: its output depends on the cameras attached. The tests
// run the same call on a scripted camera.)
func ExampleOpen() {
	d, err := usb.Open(context.Background(), nil)
	if errors.Is(err, device.ErrNotFound) {
		fmt.Println(err) // no RealSense device found
		return
	}
	if err != nil {
		fmt.Println(err)
		return
	}
	defer d.Close()
	fmt.Println(d)
}
