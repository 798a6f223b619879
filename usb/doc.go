// Package usb drives live Intel RealSense D400 cameras over USB through
// libusb (github.com/google/gousb) and presents them as device.Device.
//
// Everything above the small Transport seam is pure Go: enumeration by
// vendor/product id, UVC descriptor parsing into stream profiles, probe/commit
// negotiation, payload assembly with RealSense metadata, options through
// processing- and extension-unit controls, and the HID IMU. Package usbtest
// supplies a scripted fake transport and a recorder for fixtures.
//
// On a machine without libusb, a USB bus or a camera, Open and Devices
// return an error wrapping device.ErrNotFound ("no RealSense device found").
package usb
