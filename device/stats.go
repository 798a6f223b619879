package device

import "github.com/rsbag/rsbag/sensor"

// StreamStats counts the frames of one stream of a device: the one shape of
// delivered, dropped and lost frames (playback.Device.Stats reports it).
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
