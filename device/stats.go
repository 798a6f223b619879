package device

import "github.com/rsbag/rsbag/sensor"

// StreamStats counts the frames of one stream of a device: the one shape of
// delivered, dropped and lost frames, which the devices of every backend
// report (Counting).
type StreamStats struct {
	Profile   *sensor.StreamProfile
	Delivered uint64 // handler calls
	// Dropped counts the frames the device had and did not deliver: evicted
	// from a real-time queue because the handler fell behind, or discarded
	// by a seek, pause or stop.
	Dropped uint64
	// Lost counts the frames that never reached the device whole: for a
	// bag, the frames in parts damage made unreadable (each lost frame
	// counts once, however often playback passes its place).
	Lost uint64
}

// Counting is a Device that counts the frames of its streams: the devices
// of usb, software and playback implement it.
type Counting interface {
	Device
	// Stats returns the counters of the device's streams (a live or
	// software device: every stream it has started; playback: every
	// recorded stream), in a stable order. They add up over starts.
	Stats() []StreamStats
}
