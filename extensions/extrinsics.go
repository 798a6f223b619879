package extensions

import (
	"fmt"

	"github.com/rsbag/rsbag/sensor"
)

// StreamKey identifies a stream of a device for extrinsics: profiles of the
// same stream (different formats or rates) share their extrinsics.
type StreamKey struct {
	Sensor int           // sensor index in the device
	Stream sensor.Stream // stream type
	Index  int           // stream index
}

// String returns "Stream/index@sensor".
func (k StreamKey) String() string { return fmt.Sprintf("%s/%d@%d", k.Stream, k.Index, k.Sensor) }

// Less orders keys by (sensor index, rs2_stream value, stream index), the
// order librealsense playback uses to pick the direction it computes.
func (k StreamKey) Less(o StreamKey) bool {
	if k.Sensor != o.Sensor {
		return k.Sensor < o.Sensor
	}
	if k.Stream != o.Stream {
		return k.Stream < o.Stream
	}
	return k.Index < o.Index
}

// PinnedExtrinsics is the extrinsics of one stream as a bag stores them: the
// transform from its group's reference ("pin") stream to the stream. The pin
// itself has the identity.
type PinnedExtrinsics struct {
	Key     StreamKey
	Group   uint32            // extrinsics group (the <g> of the tf topic)
	FromPin sensor.Extrinsics // pin → Key
}
