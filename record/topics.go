package record

import (
	"math"
	"strconv"
	"strings"

	"github.com/rsbag/rsbag/rosbag"
	"github.com/rsbag/rsbag/sensor"
)

// fileVersion is the /file_version value we write (spec §4.3, v3 column).
const fileVersion = 3

// Topic grammar of spec §4.1. The device index is always 0.
const (
	topicFileVersion = "/file_version"
	topicDeviceInfo  = "/device_0/info"
)

func sensorPrefix(s int) string { return "/device_0/sensor_" + strconv.Itoa(s) }

func streamPrefix(s int, st sensor.Stream, idx int) string {
	return sensorPrefix(s) + "/" + st.String() + "_" + strconv.Itoa(idx)
}

// optionTopicName is the option name as current librealsense writes it in
// topics: spaces replaced by underscores (spec §4.1).
func optionTopicName(o sensor.Option) string { return strings.ReplaceAll(o.String(), " ", "_") }

// payloadKind is the topic kind of a stream's frames (spec §4.1).
type payloadKind uint8

const (
	kindNone payloadKind = iota
	kindImage
	kindImu
	kindPose
)

func streamKind(st sensor.Stream) payloadKind {
	switch st {
	case sensor.StreamDepth, sensor.StreamColor, sensor.StreamInfrared, sensor.StreamFisheye, sensor.StreamConfidence:
		return kindImage
	case sensor.StreamGyro, sensor.StreamAccel, sensor.StreamMotion:
		return kindImu
	case sensor.StreamPose:
		return kindPose
	}
	return kindNone
}

// encoding maps a format to the Image/StreamInfo encoding string (spec §5.14).
func encoding(f sensor.Format) string {
	switch f {
	case sensor.FormatZ16:
		return "mono16"
	case sensor.FormatRGB8:
		return "rgb8"
	case sensor.FormatBGR8:
		return "bgr8"
	case sensor.FormatRGBA8:
		return "rgba8"
	case sensor.FormatBGRA8:
		return "bgra8"
	case sensor.FormatY8:
		return "8UC1"
	case sensor.FormatY16:
		return "16UC1"
	case sensor.FormatRAW8:
		return "mono8"
	case sensor.FormatUYVY:
		return "yuv422"
	}
	return f.String()
}

// rosTime converts seconds to a ROS (sec, nsec) pair the way librealsense
// does, through float64 (spec §3.1).
func rosTime(s float64) (sec, nsec uint32) {
	if !(s > 0) { // also NaN
		return 0, 0
	}
	if s >= math.MaxUint32 {
		return math.MaxUint32, 999_999_999
	}
	fsec := math.Floor(s)
	sec = uint32(fsec)
	nsec = uint32(math.Round((s - fsec) * 1e9))
	sec += nsec / 1_000_000_000
	nsec %= 1_000_000_000
	return sec, nsec
}

// bagTime converts a capture time in nanoseconds to the bag time librealsense
// writes: 0 is the static time (0 s, 1 ns); anything else goes through the
// float64 conversion of spec §3.1.
func bagTime(ns int64) rosbag.Time {
	if ns <= 0 {
		return rosbag.MinTime
	}
	sec, nsec := rosTime(float64(ns) / 1e9)
	t := rosbag.NewTime(sec, nsec)
	if t < rosbag.MinTime {
		t = rosbag.MinTime
	}
	return t
}
