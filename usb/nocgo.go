//go:build !cgo

package usb

import (
	"fmt"

	"github.com/rsbag/rsbag/device"
	"github.com/rsbag/rsbag/internal/usbio"
)

// defaultTransport returns the libusb transport, which a program built
// without cgo (CGO_ENABLED=0) does not have: it returns an error wrapping
// device.ErrNoCameras (and so device.ErrNotFound) that says so. Bags play,
// convert and export all the same; a scripted transport still works.
func defaultTransport() (usbio.Transport, error) {
	return nil, fmt.Errorf("usb: built without cgo (CGO_ENABLED=0), so without libusb: %w", device.ErrNoCameras)
}
