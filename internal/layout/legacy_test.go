package layout

import (
	"testing"

	"github.com/rsbag/rsbag/internal/legacymsgs"
	"github.com/rsbag/rsbag/msgs"
	"github.com/rsbag/rsbag/sensor"
)

func TestParseLegacy(t *testing.T) {
	cases := []struct {
		topic string
		want  Topic
		typ   *msgs.Type
	}{
		{"/FILE_VERSION", Topic{Kind: KindLegacyFileVersion}, new(msgs.UInt32).Type()},
		{"/info/4294967295", Topic{Kind: KindLegacyDeviceInfo}, new(legacymsgs.VendorData).Type()},
		{"/info/1", Topic{Kind: KindLegacySensorInfo, Sensor: 1}, new(legacymsgs.VendorData).Type()},
		{"/camera/rs_stream_info/0", Topic{Kind: KindLegacyStreamInfo}, new(legacymsgs.StreamInfo).Type()},
		{"/camera/rs_motion_stream_info/1", Topic{Kind: KindLegacyMotionStreamInfo, Sensor: 1}, new(legacymsgs.MotionStreamInfo).Type()},
		{"/camera/DEPTH/image_raw/0", Topic{Kind: KindLegacyImageData, Stream: sensor.StreamDepth}, new(msgs.Image).Type()},
		{"/camera/INFRARED2/image_raw/0", Topic{Kind: KindLegacyImageData, Stream: sensor.StreamInfrared, Index: 2}, new(msgs.Image).Type()},
		{"/camera/FISHEYE/image_raw/2", Topic{Kind: KindLegacyImageData, Sensor: 2, Stream: sensor.StreamFisheye}, new(msgs.Image).Type()},
		{"/imu/ACCLEROMETER/imu_raw/1", Topic{Kind: KindLegacyImuData, Sensor: 1, Stream: sensor.StreamAccel}, new(msgs.Imu).Type()},
		{"/imu/GYROMETER/imu_raw/1", Topic{Kind: KindLegacyImuData, Sensor: 1, Stream: sensor.StreamGyro}, new(msgs.Imu).Type()},
		{"/camera/rs_6DoF0/3", Topic{Kind: KindLegacyPoseData, Sensor: 3, Stream: sensor.StreamPose}, new(legacymsgs.Pose).Type()},
		{"/camera/COLOR/rs_frame_info_ext/0", Topic{Kind: KindLegacyFrameInfo, Stream: sensor.StreamColor, Category: "camera"}, new(legacymsgs.FrameInfo).Type()},
		{"/imu/GYROMETER/rs_frame_info_ext/1", Topic{Kind: KindLegacyFrameInfo, Sensor: 1, Stream: sensor.StreamGyro, Category: "imu"}, new(legacymsgs.FrameInfo).Type()},
		{"/camera/rs_6DoF/3", Topic{}, nil},
		{"/camera/DEPTH/image_raw/x", Topic{}, nil},
		{"/camera/DEPTH/image_raw/4294967295", Topic{}, nil},
		{"/camera/GYROMETER/image_raw/0", Topic{}, nil},
		{"/imu/DEPTH/imu_raw/0", Topic{}, nil},
		{"/camera/DEPTHX/image_raw/0", Topic{}, nil},
		{"/device_0/info", Topic{}, nil},
		{"/info", Topic{}, nil},
		{"", Topic{}, nil},
	}
	for _, c := range cases {
		got := ParseLegacy(c.topic)
		if got != c.want {
			t.Errorf("ParseLegacy(%q) = %+v, want %+v", c.topic, got, c.want)
			continue
		}
		if got.Kind.Type() != c.typ {
			t.Errorf("%q: type %v, want %v", c.topic, got.Kind.Type(), c.typ)
		}
		if got.Kind == KindUnknown {
			continue
		}
		if !got.Kind.IsLegacy() || !got.Kind.InVersion(1) || got.Kind.InVersion(3) {
			t.Errorf("%q: %s is not a version-1 kind", c.topic, got.Kind)
		}
		if s := got.String(); s != c.topic {
			t.Errorf("%q rebuilds as %q", c.topic, s)
		}
		if Parse(c.topic).Kind != KindUnknown && got.Kind != KindLegacyFileVersion {
			t.Errorf("Parse(%q) knows a version-1 topic", c.topic)
		}
	}
	for k := kindCount; k < legacyKindEnd; k++ {
		if k.String() == "" || k.Type() == nil || k.IsFrameData() {
			t.Errorf("legacy kind %d", k)
		}
	}
}
