package layout

import (
	"strconv"
	"strings"

	"github.com/rsbag/rsbag/internal/legacymsgs"
	"github.com/rsbag/rsbag/msgs"
	"github.com/rsbag/rsbag/sensor"
)

// Topics of file version 1 (spec §10; read-only, never written). They are
// parsed by ParseLegacy, which returns the kinds below.
const (
	KindLegacyDeviceInfo       TopicKind = iota + kindCount // /info/4294967295 (vendor_data)
	KindLegacySensorInfo                                    // /info/<sensor> (vendor_data)
	KindLegacyStreamInfo                                    // /camera/rs_stream_info/<sensor>
	KindLegacyMotionStreamInfo                              // /camera/rs_motion_stream_info/<sensor>
	KindLegacyImageData                                     // /camera/<TYPE><idx>/image_raw/<sensor>
	KindLegacyImuData                                       // /imu/<TYPE>/imu_raw/<sensor>
	KindLegacyPoseData                                      // /camera/rs_6DoF<idx>/<sensor>
	KindLegacyFrameInfo                                     // /camera|imu/<TYPE><idx>/rs_frame_info_ext/<sensor>
	legacyKindEnd
)

var legacyKindNames = [...]string{
	"legacy_device_info", "legacy_sensor_info", "legacy_stream_info", "legacy_motion_stream_info",
	"legacy_image_data", "legacy_imu_data", "legacy_pose_data", "legacy_frame_info",
}

// LegacyDeviceSensor is the sensor number of the device-level info topic
// /info/4294967295 of file version 1.
const LegacyDeviceSensor = 4294967295

// legacyStreams are the stream names inside version-1 topics (the spelling
// ACCLEROMETER is librealsense's).
var legacyStreams = [...]struct {
	name   string
	stream sensor.Stream
}{
	{"DEPTH", sensor.StreamDepth},
	{"COLOR", sensor.StreamColor},
	{"INFRARED", sensor.StreamInfrared},
	{"FISHEYE", sensor.StreamFisheye},
	{"ACCLEROMETER", sensor.StreamAccel},
	{"GYROMETER", sensor.StreamGyro},
}

const legacyPosePrefix = "rs_6DoF"

func legacyType(k TopicKind) *msgs.Type {
	switch k {
	case KindLegacyDeviceInfo, KindLegacySensorInfo:
		return new(legacymsgs.VendorData).Type()
	case KindLegacyStreamInfo:
		return new(legacymsgs.StreamInfo).Type()
	case KindLegacyMotionStreamInfo:
		return new(legacymsgs.MotionStreamInfo).Type()
	case KindLegacyImageData:
		return new(msgs.Image).Type()
	case KindLegacyImuData:
		return new(msgs.Imu).Type()
	case KindLegacyPoseData:
		return new(legacymsgs.Pose).Type()
	case KindLegacyFrameInfo:
		return new(legacymsgs.FrameInfo).Type()
	}
	return nil
}

// parseLegacyStream parses "<TYPE><idx>" (idx empty for 0) or
// "rs_6DoF<idx>".
func parseLegacyStream(e string) (sensor.Stream, int, bool) {
	if rest, ok := strings.CutPrefix(e, legacyPosePrefix); ok {
		i, ok := parseDec(rest)
		return sensor.StreamPose, int(i), ok
	}
	for _, ls := range legacyStreams {
		if rest, ok := strings.CutPrefix(e, ls.name); ok {
			if rest == "" {
				return ls.stream, 0, true
			}
			i, ok := parseDec(rest)
			return ls.stream, int(i), ok
		}
	}
	return 0, 0, false
}

func legacyStreamName(st sensor.Stream, idx int) string {
	if st == sensor.StreamPose {
		return legacyPosePrefix + strconv.Itoa(idx)
	}
	for _, ls := range legacyStreams {
		if ls.stream == st {
			if idx == 0 {
				return ls.name
			}
			return ls.name + strconv.Itoa(idx)
		}
	}
	return ""
}

// ParseLegacy parses a topic of file version 1 (spec §10). For
// KindLegacyFrameInfo, Category is "camera" or "imu" (the first element).
// Unrecognised topics give KindUnknown.
func ParseLegacy(topic string) Topic {
	if topic == LegacyFileVersionTopic {
		return Topic{Kind: KindLegacyFileVersion}
	}
	e := strings.Split(topic, "/")
	if len(e) < 3 || len(e) > 5 || e[0] != "" {
		return Topic{}
	}
	sensorOf := func(s string) (int, bool) {
		if s == strconv.Itoa(LegacyDeviceSensor) {
			return LegacyDeviceSensor, true
		}
		v, ok := parseDec(s)
		return int(v), ok
	}
	s, ok := sensorOf(e[len(e)-1])
	if !ok {
		return Topic{}
	}
	t := Topic{Sensor: s}
	switch {
	case len(e) == 3 && e[1] == "info":
		t.Kind = KindLegacySensorInfo
		if s == LegacyDeviceSensor {
			t.Kind, t.Sensor = KindLegacyDeviceInfo, 0
		}
		return t
	case s == LegacyDeviceSensor:
		return Topic{}
	case len(e) == 4 && e[1] == "camera" && e[2] == "rs_stream_info":
		t.Kind = KindLegacyStreamInfo
		return t
	case len(e) == 4 && e[1] == "camera" && e[2] == "rs_motion_stream_info":
		t.Kind = KindLegacyMotionStreamInfo
		return t
	case len(e) == 4 && e[1] == "camera" && strings.HasPrefix(e[2], legacyPosePrefix):
		t.Kind = KindLegacyPoseData
	case len(e) == 5 && e[1] == "camera" && e[3] == "image_raw":
		t.Kind = KindLegacyImageData
	case len(e) == 5 && e[1] == "imu" && e[3] == "imu_raw":
		t.Kind = KindLegacyImuData
	case len(e) == 5 && (e[1] == "camera" || e[1] == "imu") && e[3] == "rs_frame_info_ext":
		t.Kind = KindLegacyFrameInfo
		t.Category = e[1]
	default:
		return Topic{}
	}
	st, idx, ok := parseLegacyStream(e[2])
	if !ok || (t.Kind == KindLegacyPoseData) != (st == sensor.StreamPose) {
		return Topic{}
	}
	if t.Kind == KindLegacyImuData && idx != 0 {
		return Topic{}
	}
	if k, _ := StreamKind(st); (t.Kind == KindLegacyImageData && k != sensor.KindVideo) ||
		(t.Kind == KindLegacyImuData && k != sensor.KindMotion) {
		return Topic{}
	}
	t.Stream, t.Index = st, idx
	return t
}

// legacyString builds a version-1 topic name; "" if t is not one.
func (t Topic) legacyString() string {
	s := strconv.Itoa(t.Sensor)
	switch t.Kind {
	case KindLegacyDeviceInfo:
		return "/info/" + strconv.Itoa(LegacyDeviceSensor)
	case KindLegacySensorInfo:
		return "/info/" + s
	case KindLegacyStreamInfo:
		return "/camera/rs_stream_info/" + s
	case KindLegacyMotionStreamInfo:
		return "/camera/rs_motion_stream_info/" + s
	}
	name := legacyStreamName(t.Stream, t.Index)
	if name == "" {
		return ""
	}
	switch t.Kind {
	case KindLegacyPoseData:
		return "/camera/" + name + "/" + s
	case KindLegacyImageData:
		return "/camera/" + name + "/image_raw/" + s
	case KindLegacyImuData:
		return "/imu/" + name + "/imu_raw/" + s
	case KindLegacyFrameInfo:
		return "/" + t.Category + "/" + name + "/rs_frame_info_ext/" + s
	}
	return ""
}
