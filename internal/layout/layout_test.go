package layout

import (
	"errors"
	"strings"
	"testing"

	"github.com/rsbag/rsbag/sensor"
)

// Topic strings from spec §4.1, §4.3, §5 and §12.
func TestTopicBuilders(t *testing.T) {
	must := func(s string, err error) string {
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	tr, ac, tw := PoseTopics(3, sensor.StreamPose, 0)
	cases := []struct{ got, want string }{
		{FileVersionTopic, "/file_version"},
		{LegacyFileVersionTopic, "/FILE_VERSION"},
		{DeviceInfoTopic(), "/device_0/info"},
		{SensorInfoTopic(0), "/device_0/sensor_0/info"},
		{SensorInfoTopic(12), "/device_0/sensor_12/info"},
		{StreamInfoTopic(0, sensor.StreamDepth, 0), "/device_0/sensor_0/Depth_0/info"},
		{CameraInfoTopic(1, sensor.StreamColor, 0), "/device_0/sensor_1/Color_0/info/camera_info"},
		{ImuIntrinsicTopic(2, sensor.StreamAccel, 0), "/device_0/sensor_2/Accel_0/imu_intrinsic"},
		{ExtrinsicsTopic(0, sensor.StreamDepth, 0, 0), "/device_0/sensor_0/Depth_0/tf/0"},
		{ExtrinsicsTopic(0, sensor.StreamInfrared, 1, 1), "/device_0/sensor_0/Infrared_1/tf/1"},
		{must(FrameDataTopic(0, sensor.StreamDepth, 0)), "/device_0/sensor_0/Depth_0/image/data"},
		{must(FrameMetadataTopic(0, sensor.StreamDepth, 0)), "/device_0/sensor_0/Depth_0/image/metadata"},
		{must(FrameDataTopic(0, sensor.StreamInfrared, 2)), "/device_0/sensor_0/Infrared_2/image/data"},
		{must(FrameDataTopic(2, sensor.StreamGyro, 0)), "/device_0/sensor_2/Gyro_0/imu/data"},
		{must(FrameMetadataTopic(2, sensor.StreamGyro, 0)), "/device_0/sensor_2/Gyro_0/imu/metadata"},
		{must(FrameDataTopic(2, sensor.StreamMotion, 0)), "/device_0/sensor_2/Motion_0/imu/data"},
		{must(FrameDataTopic(0, sensor.StreamConfidence, 0)), "/device_0/sensor_0/Confidence_0/image/data"},
		{must(FrameDataTopic(0, sensor.StreamFisheye, 1)), "/device_0/sensor_0/Fisheye_1/image/data"},
		{must(FrameDataTopic(3, sensor.StreamPose, 0)), "/device_0/sensor_3/Pose_0/pose/transform/data"},
		{must(FrameMetadataTopic(3, sensor.StreamPose, 0)), "/device_0/sensor_3/Pose_0/pose/metadata"},
		{tr, "/device_0/sensor_3/Pose_0/pose/transform/data"},
		{ac, "/device_0/sensor_3/Pose_0/pose/accel/data"},
		{tw, "/device_0/sensor_3/Pose_0/pose/twist/data"},
		{OptionValueTopic(0, sensor.OptionEnableAutoExposure), "/device_0/sensor_0/option/Enable_Auto_Exposure/value"},
		{OptionDescriptionTopic(0, sensor.OptionEnableAutoExposure), "/device_0/sensor_0/option/Enable_Auto_Exposure/description"},
		{OptionValueTopic(1, sensor.OptionDepthUnits), "/device_0/sensor_1/option/Depth_Units/value"},
		{PostProcessingTopic(0), "/device_0/sensor_0/post_processing"},
		{PropertyTopic(0), "/device_0/sensor_0/property"},
		{NotificationTopic(0, sensor.NotificationCategoryHardwareEvent), "/device_0/sensor_0/notification/Hardware Event"},
		{NotificationTopic(1, sensor.NotificationCategoryFirmwareUpdateRecommended), "/device_0/sensor_1/notification/Firmware Update Recommended"},
		{Topic{}.String(), ""},
	}
	for _, c := range cases {
		if c.got != c.want {
			t.Errorf("got %q, want %q", c.got, c.want)
		}
	}
	for _, st := range []sensor.Stream{sensor.StreamAny, sensor.StreamGpio, sensor.Stream(42)} {
		if _, err := FrameDataTopic(0, st, 0); !errors.Is(err, ErrNoFrameTopic) {
			t.Errorf("FrameDataTopic(%s): err %v", st, err)
		}
		if _, err := FrameMetadataTopic(0, st, 0); !errors.Is(err, ErrNoFrameTopic) {
			t.Errorf("FrameMetadataTopic(%s): err %v", st, err)
		}
	}
}

func TestStreamKind(t *testing.T) {
	want := map[sensor.Stream]sensor.ProfileKind{
		sensor.StreamDepth: sensor.KindVideo, sensor.StreamColor: sensor.KindVideo,
		sensor.StreamInfrared: sensor.KindVideo, sensor.StreamFisheye: sensor.KindVideo,
		sensor.StreamConfidence: sensor.KindVideo, sensor.StreamGyro: sensor.KindMotion,
		sensor.StreamAccel: sensor.KindMotion, sensor.StreamMotion: sensor.KindMotion,
		sensor.StreamPose: sensor.KindPose,
	}
	for s := sensor.Stream(0); int(s) < sensor.Count[sensor.Stream](); s++ {
		k, ok := StreamKind(s)
		w, wok := want[s]
		if ok != wok || k != w {
			t.Errorf("StreamKind(%s) = %v, %v; want %v, %v", s, k, ok, w, wok)
		}
	}
}

func TestParse(t *testing.T) {
	cases := []struct {
		topic string
		want  Topic
	}{
		{"/file_version", Topic{Kind: KindFileVersion}},
		{"/FILE_VERSION", Topic{Kind: KindLegacyFileVersion}},
		{"/device_0/info", Topic{Kind: KindDeviceInfo}},
		{"/device_3/info", Topic{Kind: KindDeviceInfo, Device: 3}},
		{"/device_0/sensor_1/info", Topic{Kind: KindSensorInfo, Sensor: 1}},
		{"/device_0/sensor_0/property", Topic{Kind: KindProperty}},
		{"/device_0/sensor_2/post_processing", Topic{Kind: KindPostProcessing, Sensor: 2}},
		{"/device_0/sensor_0/notification/Hardware Event", Topic{Kind: KindNotification, Category: "Hardware Event"}},
		{"/device_0/sensor_0/notification/Something New", Topic{Kind: KindNotification, Category: "Something New"}},
		{"/device_0/sensor_0/option/Enable Auto Exposure/value", Topic{Kind: KindOptionValue, OptionName: "Enable Auto Exposure"}},
		{"/device_0/sensor_0/option/Enable_Auto_Exposure/value", Topic{Kind: KindOptionValue, OptionName: "Enable Auto Exposure"}},
		{"/device_0/sensor_1/option/Depth_Units/description", Topic{Kind: KindOptionDescription, Sensor: 1, OptionName: "Depth Units"}},
		{"/device_0/sensor_1/option/Future_Option/value", Topic{Kind: KindOptionValue, Sensor: 1, OptionName: "Future Option"}},
		{"/device_0/sensor_0/Depth_0/info", Topic{Kind: KindStreamInfo, Stream: sensor.StreamDepth}},
		{"/device_0/sensor_0/Infrared_1/info/camera_info", Topic{Kind: KindCameraInfo, Stream: sensor.StreamInfrared, Index: 1}},
		{"/device_0/sensor_2/Gyro_0/imu_intrinsic", Topic{Kind: KindImuIntrinsic, Sensor: 2, Stream: sensor.StreamGyro}},
		{"/device_0/sensor_1/Color_0/tf/0", Topic{Kind: KindExtrinsics, Sensor: 1, Stream: sensor.StreamColor}},
		{"/device_0/sensor_0/Depth_0/tf/4294", Topic{Kind: KindExtrinsics, Stream: sensor.StreamDepth, Group: 4294}},
		{"/device_0/sensor_0/Depth_0/image/data", Topic{Kind: KindImageData, Stream: sensor.StreamDepth}},
		{"/device_0/sensor_0/Depth_0/image/metadata", Topic{Kind: KindImageMetadata, Stream: sensor.StreamDepth}},
		{"/device_0/sensor_2/Accel_0/imu/data", Topic{Kind: KindImuData, Sensor: 2, Stream: sensor.StreamAccel}},
		{"/device_0/sensor_2/Accel_0/imu/metadata", Topic{Kind: KindImuMetadata, Sensor: 2, Stream: sensor.StreamAccel}},
		{"/device_0/sensor_3/Pose_0/pose/transform/data", Topic{Kind: KindPoseTransform, Sensor: 3, Stream: sensor.StreamPose}},
		{"/device_0/sensor_3/Pose_0/pose/accel/data", Topic{Kind: KindPoseAccel, Sensor: 3, Stream: sensor.StreamPose}},
		{"/device_0/sensor_3/Pose_0/pose/twist/data", Topic{Kind: KindPoseTwist, Sensor: 3, Stream: sensor.StreamPose}},
		{"/device_0/sensor_3/Pose_0/pose/metadata", Topic{Kind: KindPoseMetadata, Sensor: 3, Stream: sensor.StreamPose}},
		// Unknown: never an error.
		{"", Topic{}},
		{"/", Topic{}},
		{"/additional_info", Topic{}},
		{"/log", Topic{}},
		{"/device_0/sensor_0/time", Topic{}},
		{"/device_0", Topic{}},
		{"/device_/info", Topic{}},
		{"/device_x/info", Topic{}},
		{"/device_-1/info", Topic{}},
		{"/device_+1/info", Topic{}},
		{"/device_0/info/extra", Topic{}},
		{"/device_0/sensor_/info", Topic{}},
		{"/device_0/sensor_0", Topic{}},
		{"/device_0/sensor_0/", Topic{}},
		{"/device_0/sensor_0/Depth_0", Topic{}},
		{"/device_0/sensor_0/Depth_0/image/data_extra", Topic{}},
		{"/device_0/sensor_0/Depth_0/image/data/", Topic{}},
		{"/device_0/sensor_0/Depth_0/occupancy_map/data", Topic{}},
		{"/device_0/sensor_0/Depth/image/data", Topic{}},
		{"/device_0/sensor_0/Depth_/image/data", Topic{}},
		{"/device_0/sensor_0/Depth_0_1/image/data", Topic{}},
		{"/device_0/sensor_0/depth_0/image/data", Topic{}},
		{"/device_0/sensor_0/Unknown_0/image/data", Topic{}},
		{"/device_0/sensor_0/Depth_0/tf/x", Topic{}},
		{"/device_0/sensor_0/Depth_0/tf", Topic{}},
		{"/device_0/sensor_0/option//value", Topic{}},
		{"/device_0/sensor_0/option/Exposure/other", Topic{}},
		{"/device_0/sensor_0/notification/", Topic{}},
		{"/device_0/sensor_99999999999/info", Topic{}},
		{"device_0/info", Topic{}},
		{"/camera/DEPTH/image_raw/0", Topic{}},
		{"/device_0/sensor_0/Depth_0/pose/transform/data/a/b/c/d", Topic{}},
	}
	for _, c := range cases {
		if got := Parse(c.topic); got != c.want {
			t.Errorf("Parse(%q) = %+v, want %+v", c.topic, got, c.want)
		}
	}
	tp := Parse("/device_0/sensor_0/option/Enable_Auto_Exposure/value")
	if o, ok := tp.Option(); !ok || o != sensor.OptionEnableAutoExposure {
		t.Errorf("Option() = %v, %v", o, ok)
	}
	tp = Parse("/device_0/sensor_0/notification/Hardware Event")
	if c, ok := tp.NotificationCategory(); !ok || c != sensor.NotificationCategoryHardwareEvent {
		t.Errorf("NotificationCategory() = %v, %v", c, ok)
	}
}

// Every known kind survives String → Parse.
func TestStringParseRoundTrip(t *testing.T) {
	for k := KindFileVersion; k < kindCount; k++ {
		tp := Topic{Kind: k}
		if k.HasSensor() {
			tp.Sensor = 2
		}
		if k.HasStream() {
			tp.Stream, tp.Index = sensor.StreamInfrared, 1
		}
		switch k {
		case KindExtrinsics:
			tp.Group = 7
		case KindOptionValue, KindOptionDescription:
			tp.OptionName = "Enable Auto Exposure"
		case KindNotification:
			tp.Category = "Hardware Error"
		}
		s := tp.String()
		if got := Parse(s); got != tp {
			t.Errorf("%s: Parse(%q) = %+v, want %+v", k, s, got, tp)
		}
		if k.Type() == nil {
			t.Errorf("%s has no message type", k)
		}
		if strings.HasPrefix(k.String(), "Kind(") {
			t.Errorf("kind %d has no name", k)
		}
	}
	if KindUnknown.Type() != nil || TopicKind(99).String() != "Kind(99)" || TopicKind(99).Type() != nil || (Topic{Kind: 99}).String() != "" {
		t.Error("unknown kind")
	}
}

func TestKindInVersion(t *testing.T) {
	cases := []struct {
		k    TopicKind
		v    uint32
		want bool
	}{
		{KindFileVersion, 2, true}, {KindFileVersion, 1, false},
		{KindLegacyFileVersion, 1, true}, {KindLegacyFileVersion, 3, false},
		{KindProperty, 2, true}, {KindProperty, 3, false},
		{KindOptionValue, 2, false}, {KindOptionValue, 3, true}, {KindOptionDescription, 4, true},
		{KindPostProcessing, 3, false}, {KindPostProcessing, 4, true}, {KindPostProcessing, 5, true},
		{KindImageData, 2, true}, {KindImuData, 2, false}, {KindImuData, 3, true},
		{KindPoseTransform, 3, true}, {KindNotification, 2, false}, {KindNotification, 3, true},
		{KindStreamInfo, 2, true}, {KindUnknown, 3, false}, {KindDeviceInfo, 1, false},
	}
	for _, c := range cases {
		if got := c.k.InVersion(c.v); got != c.want {
			t.Errorf("%s.InVersion(%d) = %v", c.k, c.v, got)
		}
	}
}

func TestVersions(t *testing.T) {
	if VersionWrite != 3 || VersionLatest != 4 || VersionMin != 2 || VersionLegacy != 1 {
		t.Error("version constants")
	}
	cases := []struct {
		k    TopicKind
		v    uint32
		want bool
	}{
		{KindFileVersion, 1, false}, {KindFileVersion, 2, true}, {KindFileVersion, 3, true},
		{KindFileVersion, 4, true}, {KindFileVersion, 5, true},
		{KindLegacyFileVersion, 1, true}, {KindLegacyFileVersion, 2, false}, {KindDeviceInfo, 3, false},
	}
	for _, c := range cases {
		if got := ReadableVersion(c.k, c.v); got != c.want {
			t.Errorf("ReadableVersion(%s, %d) = %v", c.k, c.v, got)
		}
	}
	if ReadOnlyOptionDescription("Asic Temperature") != "Read only option of Asic Temperature" {
		t.Error("read-only description")
	}
}

func TestEncoding(t *testing.T) {
	writer := map[sensor.Format]string{
		sensor.FormatZ16: "mono16", sensor.FormatRGB8: "rgb8", sensor.FormatBGR8: "bgr8",
		sensor.FormatRGBA8: "rgba8", sensor.FormatBGRA8: "bgra8", sensor.FormatY8: "8UC1",
		sensor.FormatY16: "16UC1", sensor.FormatRAW8: "mono8", sensor.FormatUYVY: "yuv422",
		sensor.FormatYUYV: "YUYV", sensor.FormatMotionXYZ32F: "MOTION_XYZ32F", sensor.Format6DOF: "6DOF",
		sensor.FormatY10BPack: "Y10BPACK", sensor.FormatZ16H: "Z16H", sensor.FormatMJPEG: "MJPEG",
		sensor.FormatY8I: "Y8I", sensor.FormatY12I: "Y12I", sensor.FormatCombinedMotion: "COMBINED_MOTION",
	}
	for f := sensor.Format(0); int(f) < sensor.Count[sensor.Format](); f++ {
		enc := Encoding(f)
		if w, ok := writer[f]; ok && enc != w {
			t.Errorf("Encoding(%s) = %q, want %q", f, enc, w)
		}
		back, err := ParseEncoding(enc)
		if err != nil || back != f {
			t.Errorf("ParseEncoding(%q) = %s, %v; want %s", enc, back, err, f)
		}
	}
	reader := map[string]sensor.Format{
		"rgb8": sensor.FormatRGB8, "bgra8": sensor.FormatBGRA8, "yuyv": sensor.FormatYUYV,
		"Y8": sensor.FormatY8, "y16": sensor.FormatY16, "z16": sensor.FormatZ16, "6dof": sensor.Format6DOF,
		"motion_xyz32f": sensor.FormatMotionXYZ32F,
	}
	for s, f := range reader {
		if got, err := ParseEncoding(s); err != nil || got != f {
			t.Errorf("ParseEncoding(%q) = %s, %v; want %s", s, got, err, f)
		}
	}
	for _, s := range []string{"", "MONO16X", "bayer_rggb8", "mono 16", "diſparity16", "32FC1"} {
		if _, err := ParseEncoding(s); !errors.Is(err, ErrUnknownEncoding) {
			t.Errorf("ParseEncoding(%q): err %v", s, err)
		}
	}
}
