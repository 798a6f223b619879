package layout

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/rsbag/rsbag/internal/legacymsgs"
	"github.com/rsbag/rsbag/msgs"
	"github.com/rsbag/rsbag/sensor"
)

// TopicKind is the kind of a RealSense topic.
type TopicKind uint8

// Kinds of topic (spec §4.1, §10).
const (
	KindUnknown           TopicKind = iota // not a RealSense topic
	KindFileVersion                        // /file_version
	KindLegacyFileVersion                  // /FILE_VERSION (file version 1)
	KindDeviceInfo                         // /device_<d>/info
	KindSensorInfo                         // /device_<d>/sensor_<s>/info
	KindStreamInfo                         // .../<Stream>_<i>/info
	KindCameraInfo                         // .../<Stream>_<i>/info/camera_info
	KindImuIntrinsic                       // .../<Stream>_<i>/imu_intrinsic
	KindExtrinsics                         // .../<Stream>_<i>/tf/<g>
	KindImageData                          // .../<Stream>_<i>/image/data
	KindImageMetadata                      // .../<Stream>_<i>/image/metadata
	KindImuData                            // .../<Stream>_<i>/imu/data
	KindImuMetadata                        // .../<Stream>_<i>/imu/metadata
	KindPoseTransform                      // .../<Stream>_<i>/pose/transform/data
	KindPoseAccel                          // .../<Stream>_<i>/pose/accel/data
	KindPoseTwist                          // .../<Stream>_<i>/pose/twist/data
	KindPoseMetadata                       // .../<Stream>_<i>/pose/metadata
	KindOptionValue                        // /device_<d>/sensor_<s>/option/<Name>/value (version >= 3)
	KindOptionDescription                  // /device_<d>/sensor_<s>/option/<Name>/description (version >= 3)
	KindProperty                           // /device_<d>/sensor_<s>/property (version 2)
	KindPostProcessing                     // /device_<d>/sensor_<s>/post_processing (version >= 4)
	KindNotification                       // /device_<d>/sensor_<s>/notification/<Category Name>
	kindCount
)

var kindNames = [...]string{
	"unknown", "file_version", "legacy_file_version", "device_info", "sensor_info", "stream_info",
	"camera_info", "imu_intrinsic", "extrinsics", "image_data", "image_metadata", "imu_data",
	"imu_metadata", "pose_transform", "pose_accel", "pose_twist", "pose_metadata", "option_value",
	"option_description", "property", "post_processing", "notification",
}

// String returns a short lower-case name of the kind, e.g. "image_data".
func (k TopicKind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	if k >= kindCount && k < legacyKindEnd {
		return legacyKindNames[k-kindCount]
	}
	return fmt.Sprintf("Kind(%d)", uint8(k))
}

// Type returns the message type written on topics of this kind, or nil for
// KindUnknown.
func (k TopicKind) Type() *msgs.Type {
	switch k {
	case KindFileVersion, KindLegacyFileVersion:
		return new(msgs.UInt32).Type()
	case KindDeviceInfo, KindSensorInfo, KindProperty, KindImageMetadata, KindImuMetadata, KindPoseMetadata:
		return new(msgs.KeyValue).Type()
	case KindStreamInfo:
		return new(msgs.StreamInfo).Type()
	case KindCameraInfo:
		return new(msgs.CameraInfo).Type()
	case KindImuIntrinsic:
		return new(msgs.ImuIntrinsic).Type()
	case KindExtrinsics, KindPoseTransform:
		return new(msgs.Transform).Type()
	case KindImageData:
		return new(msgs.Image).Type()
	case KindImuData:
		return new(msgs.Imu).Type()
	case KindPoseAccel:
		return new(msgs.Accel).Type()
	case KindPoseTwist:
		return new(msgs.Twist).Type()
	case KindOptionValue:
		return new(msgs.Float32).Type()
	case KindOptionDescription, KindPostProcessing:
		return new(msgs.String).Type()
	case KindNotification:
		return new(msgs.Notification).Type()
	}
	return legacyType(k)
}

// InVersion reports whether librealsense writes topics of this kind in files
// of version v (table of spec §4.3). Version 1 has none of them except
// KindLegacyFileVersion.
func (k TopicKind) InVersion(v uint32) bool {
	switch {
	case k == KindLegacyFileVersion || (k >= kindCount && k < legacyKindEnd):
		return v == VersionLegacy
	case k == KindUnknown || v < VersionMin:
		return false
	case k == KindProperty:
		return v == 2
	case k == KindOptionValue || k == KindOptionDescription || k == KindImuData || k == KindImuMetadata ||
		k == KindImuIntrinsic || (k >= KindPoseTransform && k <= KindPoseMetadata) || k == KindNotification:
		return v >= 3
	case k == KindPostProcessing:
		return v >= 4
	}
	return true
}

// IsFrameData reports whether k carries frames: image data, imu data or
// pose transforms (the topics the playback duration and samples view use;
// version-1 frame kinds are not included).
func (k TopicKind) IsFrameData() bool {
	return k == KindImageData || k == KindImuData || k == KindPoseTransform
}

// IsMetadata reports whether k is a frame metadata topic.
func (k TopicKind) IsMetadata() bool {
	return k == KindImageMetadata || k == KindImuMetadata || k == KindPoseMetadata
}

// HasStream reports whether topics of kind k name a stream (<Stream>_<i>,
// or a version-1 stream name).
func (k TopicKind) HasStream() bool {
	return (k >= KindStreamInfo && k <= KindPoseMetadata) || (k >= KindLegacyImageData && k <= KindLegacyFrameInfo)
}

// HasSensor reports whether topics of kind k name a sensor (sensor_<s>, or
// the sensor number of a version-1 topic).
func (k TopicKind) HasSensor() bool {
	return (k >= KindSensorInfo && k <= KindNotification) || (k >= KindLegacySensorInfo && k < legacyKindEnd)
}

// IsLegacy reports whether k is a kind of file version 1 (ParseLegacy).
func (k TopicKind) IsLegacy() bool {
	return k == KindLegacyFileVersion || (k >= kindCount && k < legacyKindEnd)
}

// Topic is a parsed RealSense topic name. Which fields are meaningful
// depends on Kind (see HasSensor, HasStream).
type Topic struct {
	Kind   TopicKind
	Device int           // device index (always 0 in files librealsense writes)
	Sensor int           // sensor index
	Stream sensor.Stream // stream type
	Index  int           // stream index
	Group  uint32        // extrinsics group (KindExtrinsics)
	// OptionName is the option name with spaces ("Enable Auto Exposure") for
	// option topics, whatever spelling the topic used.
	OptionName string
	// Category is the notification category name ("Hardware Event").
	Category string
}

// Option returns the option of an option topic, if its name is a known
// rs2_option name.
func (t *Topic) Option() (sensor.Option, bool) { return sensor.Parse[sensor.Option](t.OptionName) }

// NotificationCategory returns the category of a notification topic, if its
// name is a known category name.
func (t *Topic) NotificationCategory() (sensor.NotificationCategory, bool) {
	return sensor.Parse[sensor.NotificationCategory](t.Category)
}

// Topic names and fixed elements (spec §4.1).
const (
	FileVersionTopic       = "/file_version"
	LegacyFileVersionTopic = "/FILE_VERSION"
	// AdditionalInfoTopic holds diagnostic_msgs/KeyValue messages about the
	// recording (librealsense's doc/record-and-playback.md names it;
	// librealsense neither writes nor reads it, spec §4, §5.15, §6.4).
	AdditionalInfoTopic = "/additional_info"
	// GroundTruthPrefix begins the topics of a synthetic camera's ground
	// truth (rs-record record --ground-truth; GroundTruthTopic). They hold
	// no /device_ element, so that no query of librealsense's reader
	// (spec §6: every one names /device_<d>/sensor_<s>) matches them: it
	// ignores them (§6.4), as Parse and the player do.
	GroundTruthPrefix = "/ground_truth/"
)

// GroundTruthTopic returns the ground-truth topic what of a stream:
// /ground_truth/<Stream>_<i>/<what>, the stream named as in the RealSense
// topics (spec §4.1).
func GroundTruthTopic(s sensor.Stream, index int, what string) string {
	return GroundTruthPrefix + s.String() + "_" + strconv.Itoa(index) + "/" + what
}

// ParseGroundTruthTopic returns the stream, index and what of a topic that
// GroundTruthTopic names; ok is false for any other topic.
func ParseGroundTruthTopic(topic string) (s sensor.Stream, index int, what string, ok bool) {
	rest, ok := strings.CutPrefix(topic, GroundTruthPrefix)
	if !ok {
		return 0, 0, "", false
	}
	name, what, ok := strings.Cut(rest, "/")
	i := strings.LastIndexByte(name, '_')
	if !ok || i < 0 || what == "" {
		return 0, 0, "", false
	}
	s, ok = sensor.Parse[sensor.Stream](name[:i])
	index, err := strconv.Atoi(name[i+1:])
	if !ok || err != nil || index < 0 || strconv.Itoa(index) != name[i+1:] {
		return 0, 0, "", false
	}
	return s, index, what, true
}

// String returns the topic name as our writer spells it: option names with
// underscores, notification categories with spaces. It returns "" for
// KindUnknown.
func (t Topic) String() string {
	var b []byte
	switch t.Kind {
	case KindUnknown:
		return ""
	case KindFileVersion:
		return FileVersionTopic
	case KindLegacyFileVersion:
		return LegacyFileVersionTopic
	}
	if t.Kind.IsLegacy() {
		return t.legacyString()
	}
	if t.Kind >= kindCount {
		return ""
	}
	b = append(b, "/device_"...)
	b = strconv.AppendInt(b, int64(t.Device), 10)
	if t.Kind == KindDeviceInfo {
		return string(append(b, "/info"...))
	}
	b = append(b, "/sensor_"...)
	b = strconv.AppendInt(b, int64(t.Sensor), 10)
	switch t.Kind {
	case KindSensorInfo:
		return string(append(b, "/info"...))
	case KindProperty:
		return string(append(b, "/property"...))
	case KindPostProcessing:
		return string(append(b, "/post_processing"...))
	case KindNotification:
		return string(append(append(b, "/notification/"...), t.Category...))
	case KindOptionValue, KindOptionDescription:
		b = append(b, "/option/"...)
		b = append(b, OptionTopicName(t.OptionName)...)
		if t.Kind == KindOptionValue {
			return string(append(b, "/value"...))
		}
		return string(append(b, "/description"...))
	}
	b = append(b, '/')
	b = append(b, t.Stream.String()...)
	b = append(b, '_')
	b = strconv.AppendInt(b, int64(t.Index), 10)
	var tail string
	switch t.Kind {
	case KindStreamInfo:
		tail = "/info"
	case KindCameraInfo:
		tail = "/info/camera_info"
	case KindImuIntrinsic:
		tail = "/imu_intrinsic"
	case KindExtrinsics:
		b = append(b, "/tf/"...)
		return string(strconv.AppendUint(b, uint64(t.Group), 10))
	case KindImageData:
		tail = "/image/data"
	case KindImageMetadata:
		tail = "/image/metadata"
	case KindImuData:
		tail = "/imu/data"
	case KindImuMetadata:
		tail = "/imu/metadata"
	case KindPoseTransform:
		tail = "/pose/transform/data"
	case KindPoseAccel:
		tail = "/pose/accel/data"
	case KindPoseTwist:
		tail = "/pose/twist/data"
	case KindPoseMetadata:
		tail = "/pose/metadata"
	default:
		return ""
	}
	return string(append(b, tail...))
}

// OptionTopicName returns the option name as written in topics (writers >=
// v2.26): every space replaced by '_'.
func OptionTopicName(name string) string { return strings.ReplaceAll(name, " ", "_") }

// OptionDisplayName returns the option name of a topic element with every
// '_' replaced by a space, which is how the reader matches both spellings.
func OptionDisplayName(elem string) string { return strings.ReplaceAll(elem, "_", " ") }

// Parse parses a topic name with the reader's rules (spec §4.2). Topics it
// does not recognise give Kind == KindUnknown; Parse never fails.
func Parse(topic string) Topic {
	switch topic {
	case FileVersionTopic:
		return Topic{Kind: KindFileVersion}
	case LegacyFileVersionTopic:
		return Topic{Kind: KindLegacyFileVersion}
	}
	var t Topic
	rest, ok := strings.CutPrefix(topic, "/device_")
	if !ok {
		return Topic{}
	}
	var elems [8]string
	n := 0
	for n < len(elems) {
		e, r, more := strings.Cut(rest, "/")
		elems[n] = e
		n++
		rest = r
		if !more {
			break
		}
	}
	if rest != "" && n == len(elems) {
		return Topic{} // too many elements
	}
	e := elems[:n] // e[0] = device index digits
	d, ok := parseDec(e[0])
	if !ok {
		return Topic{}
	}
	t.Device = int(d)
	if len(e) == 2 && e[1] == "info" {
		t.Kind = KindDeviceInfo
		return t
	}
	if len(e) < 3 {
		return Topic{}
	}
	s, ok := strings.CutPrefix(e[1], "sensor_")
	if !ok {
		return Topic{}
	}
	sn, ok := parseDec(s)
	if !ok {
		return Topic{}
	}
	t.Sensor = int(sn)
	switch {
	case len(e) == 3 && e[2] == "info":
		t.Kind = KindSensorInfo
		return t
	case len(e) == 3 && e[2] == "property":
		t.Kind = KindProperty
		return t
	case len(e) == 3 && e[2] == "post_processing":
		t.Kind = KindPostProcessing
		return t
	case len(e) == 4 && e[2] == "notification" && e[3] != "":
		t.Kind = KindNotification
		t.Category = e[3]
		return t
	case len(e) == 5 && e[2] == "option" && e[3] != "" && (e[4] == "value" || e[4] == "description"):
		t.Kind = KindOptionValue
		if e[4] == "description" {
			t.Kind = KindOptionDescription
		}
		t.OptionName = OptionDisplayName(e[3])
		return t
	}
	// <Stream>_<i>: stream name up to the first '_', index after it.
	name, idx, ok := strings.Cut(e[2], "_")
	if !ok {
		return Topic{}
	}
	st, ok := sensor.Parse[sensor.Stream](name)
	if !ok {
		return Topic{}
	}
	in, ok := parseDec(idx)
	if !ok {
		return Topic{}
	}
	t.Stream, t.Index = st, int(in)
	switch tail := e[3:]; {
	case len(tail) == 1 && tail[0] == "info":
		t.Kind = KindStreamInfo
	case len(tail) == 1 && tail[0] == "imu_intrinsic":
		t.Kind = KindImuIntrinsic
	case len(tail) == 2 && tail[0] == "info" && tail[1] == "camera_info":
		t.Kind = KindCameraInfo
	case len(tail) == 2 && tail[0] == "tf":
		g, ok := parseDec(tail[1])
		if !ok {
			return Topic{}
		}
		t.Kind, t.Group = KindExtrinsics, g
	case len(tail) == 2 && tail[1] == "data" && tail[0] == "image":
		t.Kind = KindImageData
	case len(tail) == 2 && tail[1] == "data" && tail[0] == "imu":
		t.Kind = KindImuData
	case len(tail) == 2 && tail[1] == "metadata" && tail[0] == "image":
		t.Kind = KindImageMetadata
	case len(tail) == 2 && tail[1] == "metadata" && tail[0] == "imu":
		t.Kind = KindImuMetadata
	case len(tail) == 2 && tail[1] == "metadata" && tail[0] == "pose":
		t.Kind = KindPoseMetadata
	case len(tail) == 3 && tail[0] == "pose" && tail[2] == "data" && tail[1] == "transform":
		t.Kind = KindPoseTransform
	case len(tail) == 3 && tail[0] == "pose" && tail[2] == "data" && tail[1] == "accel":
		t.Kind = KindPoseAccel
	case len(tail) == 3 && tail[0] == "pose" && tail[2] == "data" && tail[1] == "twist":
		t.Kind = KindPoseTwist
	default:
		return Topic{}
	}
	return t
}

// parseDec parses a non-empty string of decimal digits that fits in 31 bits
// (so it fits an int everywhere).
func parseDec(s string) (uint32, bool) {
	if s == "" || len(s) > 10 {
		return 0, false
	}
	var v uint64
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < '0' || c > '9' {
			return 0, false
		}
		v = v*10 + uint64(c-'0')
	}
	if v > 1<<31-1 {
		return 0, false
	}
	return uint32(v), true
}

// Decoder returns a new message to decode the messages of a connection of
// topic kind k, type name typ and md5sum md5 into, as every reader of a bag
// takes them: a RealSense topic whose md5sum is its kind's type's is that
// type whatever the type's name says (the md5sum decides, spec §1.6);
// otherwise the type named, when this project knows it; nil when neither.
func (k TopicKind) Decoder(typ, md5 string) msgs.Message {
	if kt := k.Type(); kt != nil && md5 == kt.MD5 {
		return newMessage(kt.Name)
	}
	return newMessage(typ)
}

// newMessage returns a new zero message of the ROS type name, of package
// msgs or of the file version 1 types (internal/legacymsgs); nil if the type
// is neither's.
func newMessage(name string) msgs.Message {
	if m := msgs.New(name); m != nil {
		return m
	}
	return legacymsgs.New(name)
}

// LookupType returns the descriptor of the ROS type name among every type a
// reader of RealSense bags knows: package msgs' and those of file version 1
// (internal/legacymsgs).
func LookupType(name string) (*msgs.Type, bool) {
	if t, ok := msgs.LookupType(name); ok {
		return t, true
	}
	return legacymsgs.LookupType(name)
}
