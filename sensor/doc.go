// Package sensor defines what every RealSense sensor has in common, whatever
// backs it (a live USB camera, the software device, a record device or a
// playback device): the librealsense enums, stream profiles, intrinsics,
// frames and the Sensor interface.
//
// # Frame delivery
//
// A started sensor calls its Handler on goroutines the sensor owns. Frames of
// one stream are delivered in order, one at a time; frames of different
// streams may be delivered concurrently. Stop is synchronous: once it returns
// the handler is never called again; that is why a handler cannot stop its
// own sensor (Stop would wait for the handler itself): Stop and Close then
// return ErrStopFromHandler. A delivered *Frame is immutable and
// stays valid for as long as anybody holds it: producers never reuse
// Frame.Data after handing a frame out, so a handler may keep a frame (or
// hand it to another goroutine) without copying it.
// A producer may hand the same immutable buffer to several frames (the
// synthetic camera's prepared contents do); nobody ever writes to it.
package sensor

//go:generate go run ./internal/genenums -spec ../testdata/spec/realsense-bag-format.md -out enums.go
