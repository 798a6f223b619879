package record

import (
	"github.com/rsbag/rsbag/internal/layout"
	"github.com/rsbag/rsbag/msgs"
	"github.com/rsbag/rsbag/rosbag"
)

// fileVersion is the /file_version value we write (spec §4.3, v3 column).
const fileVersion = layout.VersionWrite

// Topics of the device description (spec §4.1; the device index is 0).
var (
	topicFileVersion = layout.Topic{Kind: layout.KindFileVersion}.String()
	topicDeviceInfo  = layout.DeviceInfoTopic()
)

// bagTime converts a capture time in nanoseconds to the bag time librealsense
// writes: 0 is the static time (0 s, 1 ns); anything else goes through the
// float64 conversion of spec §3.1.
func bagTime(ns int64) rosbag.Time {
	if ns < 0 {
		ns = 0
	}
	return rosbag.Time(layout.BagTimeNs(uint64(ns)))
}

// stamp is the Image/Imu header stamp of a frame timestamp (spec §3.2).
func stamp(ms float64) msgs.Time { return layout.FrameStamp(ms) }
