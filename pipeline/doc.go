// Package pipeline is librealsense's rs2::pipeline in Go: a Config names the
// streams, the device (a camera by serial number, a bag to play with
// EnableDeviceFromFile, or the synthetic camera) and optionally a bag to
// record to; a Pipeline resolves the configuration against the device,
// starts its sensors and hands out Framesets through WaitForFrames,
// PollForFrames, TryWaitForFrames or a callback (StartWithCallback): as
// librealsense 2.56.5's pipeline, the frames its syncer groups together,
// completed with the latest frame of every other enabled stream once every
// enabled stream has delivered a frame.
//
// A pipeline opens a live camera only in a program that registers cameras
// (import _ "github.com/rsbag/rsbag/usb", a cgo build); without one, and no
// camera named, it streams the synthetic camera. A bag played without
// repeat ends with ErrEndOfStream once every frameset was taken.
package pipeline
