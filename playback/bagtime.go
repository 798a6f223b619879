package playback

import (
	"github.com/rsbag/rsbag/internal/description"
	"github.com/rsbag/rsbag/internal/layout"
	"github.com/rsbag/rsbag/rosbag"
)

// The bag time of librealsense's static messages and the start of the
// samples view (description.StaticTime).
const (
	staticTime  = description.StaticTime
	samplesFrom = description.SamplesFrom
)

// bagNs converts a bag time to the nanoseconds playback reports: the static
// time is 0 (spec §3.1).
func bagNs(t rosbag.Time) int64 {
	if t <= staticTime {
		return 0
	}
	return int64(t)
}

// metadataKind is the metadata topic kind of each frame data kind.
var metadataKind = map[layout.TopicKind]layout.TopicKind{
	layout.KindImageData:     layout.KindImageMetadata,
	layout.KindImuData:       layout.KindImuMetadata,
	layout.KindPoseTransform: layout.KindPoseMetadata,
}

// Sensor names that select sensor kinds (spec §6.2).
const (
	nameRGB     = layout.SensorRGB
	nameMotion  = layout.SensorMotion
	nameFisheye = "Wide FOV Camera"
)
