package description

import (
	"testing"

	"github.com/rsbag/rsbag/internal/layout"
	"github.com/rsbag/rsbag/sensor"
)

func TestParseTopic(t *testing.T) {
	for _, c := range []struct {
		topic string
		want  layout.Topic
	}{
		{"/file_version", layout.Topic{Kind: layout.KindFileVersion}},
		{"/device_0/sensor_1/Color_0/image/data", layout.Topic{Kind: layout.KindImageData, Sensor: 1, Stream: sensor.StreamColor}},
		{"/device_0/sensor_0/Infrared_2/tf/1", layout.Topic{Kind: layout.KindExtrinsics, Stream: sensor.StreamInfrared, Index: 2, Group: 1}},
		{"/device_0/sensor_0/option/Laser_Power/value", layout.Topic{Kind: layout.KindOptionValue, OptionName: "Laser Power"}},
		{"/device_0/sensor_0/option/Laser Power/description", layout.Topic{Kind: layout.KindOptionDescription, OptionName: "Laser Power"}},
		{"/device_0/sensor_3/Pose_0/pose/metadata", layout.Topic{Kind: layout.KindPoseMetadata, Sensor: 3, Stream: sensor.StreamPose}},
		{"/device_0/sensor_0/notification/Hardware Event", layout.Topic{Kind: layout.KindNotification, Category: "Hardware Event"}},
		{"/device_0/sensor_0/Depth_0/image/data_extra", layout.Topic{}},
		{"/device_1/sensor_0/Depth_0/image/data", layout.Topic{}},
		{"/device_0/sensor_x/info", layout.Topic{}},
	} {
		if got := TopicOf(c.topic); got != c.want {
			t.Errorf("TopicOf(%q) = %+v, want %+v", c.topic, got, c.want)
		}
	}
}
