package playback

import (
	"strconv"
	"strings"

	"github.com/rsbag/rsbag/sensor"
)

// topicKind classifies the topics of the RealSense grammar (spec §4.1).
type topicKind int

const (
	topicOther topicKind = iota
	topicFileVersion
	topicLegacyVersion
	topicDeviceInfo
	topicSensorInfo
	topicStreamInfo
	topicCameraInfo
	topicImuIntrinsic
	topicTF
	topicImageData
	topicImuData
	topicMetadata
	topicPoseTransform
	topicPoseAccel
	topicPoseTwist
	topicOptionValue
	topicOptionDescription
	topicProperty
	topicPostProcessing
	topicNotification
)

// Topic names and elements of spec §4.1.
const (
	fileVersionTopic   = "/file_version"
	legacyVersionTopic = "/FILE_VERSION"
	deviceInfoTopic    = "/device_0/info"
)

// topicInfo is a parsed topic.
type topicInfo struct {
	kind   topicKind
	sensor int
	stream sensor.Stream
	index  int
	group  uint32 // tf group
	name   string // option name (spaces) or notification category
	kindEl string // "image", "imu" or "pose" for metadata topics
}

// streamKey identifies a recorded stream.
type streamKey struct {
	sensor int
	stream sensor.Stream
	index  int
}

func (t topicInfo) key() streamKey { return streamKey{t.sensor, t.stream, t.index} }

func parseDecimal(s string) (int, bool) {
	if s == "" || len(s) > 9 {
		return 0, false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return 0, false
		}
	}
	n, err := strconv.Atoi(s)
	return n, err == nil
}

// parseTopic parses topic per spec §4.2. Topics outside the grammar (or of a
// device other than 0) give topicOther.
func parseTopic(topic string) topicInfo {
	switch topic {
	case fileVersionTopic:
		return topicInfo{kind: topicFileVersion}
	case legacyVersionTopic:
		return topicInfo{kind: topicLegacyVersion}
	case deviceInfoTopic:
		return topicInfo{kind: topicDeviceInfo}
	}
	el := strings.Split(topic, "/")
	if len(el) < 4 || el[0] != "" || el[1] != "device_0" || !strings.HasPrefix(el[2], "sensor_") {
		return topicInfo{}
	}
	s, ok := parseDecimal(el[2][len("sensor_"):])
	if !ok {
		return topicInfo{}
	}
	t := topicInfo{sensor: s}
	rest := el[3:]
	switch {
	case len(rest) == 1 && rest[0] == "info":
		t.kind = topicSensorInfo
		return t
	case len(rest) == 1 && rest[0] == "property":
		t.kind = topicProperty
		return t
	case len(rest) == 1 && rest[0] == "post_processing":
		t.kind = topicPostProcessing
		return t
	case len(rest) == 3 && rest[0] == "option":
		name := strings.ReplaceAll(rest[1], "_", " ")
		t.name = name
		switch rest[2] {
		case "value":
			t.kind = topicOptionValue
		case "description":
			t.kind = topicOptionDescription
		default:
			return topicInfo{}
		}
		return t
	case len(rest) == 2 && rest[0] == "notification":
		t.kind = topicNotification
		t.name = rest[1]
		return t
	}
	// Stream topics: <Stream>_<i>/...
	us := strings.IndexByte(rest[0], '_')
	if us < 0 {
		return topicInfo{}
	}
	st, ok := sensor.ParseStream(rest[0][:us])
	if !ok {
		return topicInfo{}
	}
	idx, ok := parseDecimal(rest[0][us+1:])
	if !ok {
		return topicInfo{}
	}
	t.stream, t.index = st, idx
	r := strings.Join(rest[1:], "/")
	switch r {
	case "info":
		t.kind = topicStreamInfo
	case "info/camera_info":
		t.kind = topicCameraInfo
	case "imu_intrinsic":
		t.kind = topicImuIntrinsic
	case "image/data":
		t.kind = topicImageData
	case "imu/data":
		t.kind = topicImuData
	case "image/metadata", "imu/metadata", "pose/metadata":
		t.kind = topicMetadata
		t.kindEl = rest[1]
	case "pose/transform/data":
		t.kind = topicPoseTransform
	case "pose/accel/data":
		t.kind = topicPoseAccel
	case "pose/twist/data":
		t.kind = topicPoseTwist
	default:
		if len(rest) == 3 && rest[1] == "tf" {
			g, err := strconv.ParseUint(rest[2], 10, 32)
			if err != nil {
				return topicInfo{}
			}
			t.kind = topicTF
			t.group = uint32(g)
			return t
		}
		return topicInfo{}
	}
	return t
}

// isFrameTopic reports whether k carries frames (the duration topics of §6.1).
func (k topicKind) isFrame() bool {
	return k == topicImageData || k == topicImuData || k == topicPoseTransform
}

// parseEncoding maps a StreamInfo/Image encoding to a format (spec §5.14).
func parseEncoding(enc string) (sensor.Format, bool) {
	switch enc {
	case "mono16":
		return sensor.FormatZ16, true
	case "8UC1":
		return sensor.FormatY8, true
	case "16UC1":
		return sensor.FormatY16, true
	case "mono8":
		return sensor.FormatRAW8, true
	case "yuv422":
		return sensor.FormatUYVY, true
	}
	return sensor.ParseFormat(strings.ToUpper(enc))
}
