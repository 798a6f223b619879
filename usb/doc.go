// Package usb drives live Intel RealSense D400 cameras over USB through
// libusb (github.com/google/gousb) and presents them as device.Device.
//
// Everything above the small transport seam is pure Go: enumeration by
// vendor/product id, UVC descriptor parsing into stream profiles, probe/commit
// negotiation, payload assembly with RealSense metadata, options through
// processing- and extension-unit controls, and the HID IMU.
//
// At open the driver talks to the firmware through the depth extension
// unit's command channel (librealsense's "HW monitor"): GVD gives the
// firmware version and the optic and ASIC serials, advanced mode gives the
// depth units (and makes the Depth Units option writable: a set rewrites
// the depth table and reads it back; frames then carry the new units), and the calibration tables give the rectified depth and
// infrared intrinsics per resolution, the color intrinsics and distortion,
// the stereo baseline and the depth→color and depth→Infrared/2 extrinsics,
// derived as librealsense derives them. On cameras with an IMU the
// motion-module table (MMER) gives the accel and gyro motion intrinsics and
// the depth→IMU extrinsics (librealsense's defaults when it is missing or
// invalid); IMU samples are rotated into the depth frame and, with Enable
// Motion Correction on, corrected by that calibration.
//
// Timestamps: frames with RealSense metadata carry the hardware clock of the
// UVC header (microseconds). While a sensor streams, the device clock is
// sampled through the command channel and, with the Global Time Enabled
// option on (the default, as in librealsense for the D400), hardware
// timestamps are mapped onto host time by librealsense's linear fit and
// reported in the global-time domain. Frames without metadata use the host
// clock (system-time domain).
//
// The transport seam is internal to the module (internal/usbio): rs-record
// wraps libusb there to capture a camera's USB exchange (--record-usb), and
// the tests run the driver on a scripted fake camera
// (internal/testsupport/usbtest). The public API has no transport hook.
//
// The sensors of a Device (Sensors) are sensor.Sensor values that also
// implement the extensions interfaces of what they have (options,
// notifications, sensor kinds, depth units and stereo baseline for the
// depth sensor) and a method Stats() Stats.
//
// Frames are delivered by the rules of package sensor ("Frame delivery").
// Each streaming VideoStreaming interface, and the IMU, has a reading
// goroutine, which runs the notification callbacks, and behind it a worker
// goroutine of the sensor runtime, which runs the frame handler. The
// camera does not wait for a handler: one still inside a call a frame
// period after a newer frame arrived loses the older frames, oldest first
// (device.StreamStats.Dropped of Device.Stats), and gets the latest, while the USB reads go on.
// Stop and Close of a sensor, and Close of its device, wait for those
// goroutines: called from one of them they return an error wrapping
// sensor.ErrStopFromHandler and change nothing, instead of deadlocking.
//
// On a machine without libusb, a USB bus or a camera, Open and Devices
// return an error wrapping device.ErrNotFound ("no RealSense device found");
// in a program built without cgo (CGO_ENABLED=0), which has no libusb, an
// error wrapping device.ErrNoCameras (which wraps device.ErrNotFound) says
// so.
//
// Importing the package registers its cameras with device.RegisterCameras,
// so that device.OpenCamera, package pipeline and the tools open them; a
// program that does not import it links neither libusb nor cgo.
package usb
