package description

import (
	"strings"
	"testing"

	"github.com/rsbag/rsbag/internal/layout"
	"github.com/rsbag/rsbag/msgs"
	"github.com/rsbag/rsbag/rosbag"
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

// TestCollectorKeepsRecorded: what Read leaves out of the description (keys
// that name no camera info, options this module does not know or only
// recorded later, an encoding that names no format) the Collector keeps
// for info, and an unknown encoding is an error naming the topic.
func TestCollectorKeepsRecorded(t *testing.T) {
	c := NewCollector()
	add := func(name string, at rosbag.Time, v msgs.Message) error {
		t.Helper()
		return c.Add(name, TopicOf(name), at, v)
	}
	for _, m := range []struct {
		name string
		at   rosbag.Time
		v    msgs.Message
	}{
		{"/file_version", StaticTime, &msgs.UInt32{Data: 4}},
		{"/device_0/info", StaticTime, &msgs.KeyValue{Key: "Name", Value: "Intel RealSense D435"}},
		{"/device_0/info", StaticTime, &msgs.KeyValue{Key: "Vendor Note", Value: "x"}},
		{"/device_0/sensor_0/info", StaticTime, &msgs.KeyValue{Key: "Name", Value: "Stereo Module"}},
		{"/device_0/sensor_0/option/Laser_Power/value", StaticTime, &msgs.Float32{Data: 150}},
		{"/device_0/sensor_0/option/Laser_Power/value", 2e9, &msgs.Float32{Data: 200}},
		{"/device_0/sensor_0/option/Future_Option/value", StaticTime, &msgs.Float32{Data: 1}},
		{"/device_0/sensor_1/option/Exposure/value", 3e9, &msgs.Float32{Data: 7}},
		{"/device_0/sensor_0/option/Exposure/description", StaticTime, &msgs.String{Data: "Exposure time"}},
		{"/device_0/info", StaticTime, &msgs.String{Data: "a foreign type: ignored"}},
	} {
		if err := add(m.name, m.at, m.v); err != nil {
			t.Fatalf("%s: %v", m.name, err)
		}
	}
	err := add("/device_0/sensor_0/Depth_0/info", StaticTime, &msgs.StreamInfo{Fps: 30, Encoding: "no_such_format"})
	if err == nil || !strings.Contains(err.Error(), `"/device_0/sensor_0/Depth_0/info"`) {
		t.Errorf("unknown encoding: error %v, want one naming the topic", err)
	}
	if st := c.Stream(Key{0, sensor.StreamDepth, 0}); st == nil || !st.Unparsed || st.Encoding != "no_such_format" || st.FPS != 30 || st.InfoSeq != 0 {
		t.Errorf("stream with an unknown encoding: %+v", st)
	}
	if got := c.Versions(); len(got) != 1 || got[0] != 4 {
		t.Errorf("Versions() = %v, want [4]", got)
	}
	if got := c.Fields(); len(got) != 2 || got[1].Key != "Vendor Note" {
		t.Errorf("Fields() = %v, want both device info messages", got)
	}
	rec := c.Recorded()
	if len(rec) != 2 || rec[0].Index != 0 || rec[1].Index != 1 || !c.HasSensorInfo(0) || c.HasSensorInfo(1) {
		t.Fatalf("Recorded() = %d sensors, want 0 (with info) and 1 (options only)", len(rec))
	}
	s0 := rec[0]
	if lp := s0.Recorded["Laser Power"]; lp == nil || lp.Opt != sensor.OptionLaserPower || lp.Count != 2 || lp.First != 150 ||
		!lp.HasStatic || lp.Static != 150 || len(lp.Changes) != 1 || s0.Options[sensor.OptionLaserPower] != lp {
		t.Errorf("Laser Power: %+v", lp)
	}
	if fo := s0.Recorded["Future Option"]; fo == nil || fo.Opt != 0 || fo.Count != 1 {
		t.Errorf("an option this module does not know: %+v", fo)
	}
	if ex := s0.Recorded["Exposure"]; ex == nil || !ex.HasDesc || ex.Desc != "Exposure time" || ex.Count != 0 {
		t.Errorf("an option with a description only: %+v", ex)
	}
	if ex := rec[1].Recorded["Exposure"]; ex == nil || ex.HasStatic || ex.Count != 1 {
		t.Errorf("an option only recorded later: %+v", ex)
	}
}

// TestFrameStream: a frame data topic names its stream only when the
// description plays that stream and the topic carries its kind of frames.
func TestFrameStream(t *testing.T) {
	depth := &Stream{Key: Key{0, sensor.StreamDepth, 0}, Profile: &sensor.StreamProfile{Kind: sensor.KindVideo, Stream: sensor.StreamDepth}}
	accel := &Stream{Key: Key{1, sensor.StreamAccel, 0}, Profile: &sensor.StreamProfile{Kind: sensor.KindMotion, Stream: sensor.StreamAccel}}
	unplayed := &Stream{Key: Key{3, sensor.StreamDepth, 0}} // no profile: its sensor is not described
	d := &Description{Version: 3, Streams: map[Key]*Stream{depth.Key: depth, accel.Key: accel, unplayed.Key: unplayed}}
	for _, c := range []struct {
		topic string
		want  *Stream
	}{
		{"/device_0/sensor_0/Depth_0/image/data", depth},
		{"/device_0/sensor_0/Depth_0/image/metadata", nil},   // not frame data
		{"/device_0/sensor_0/Depth_0/info", nil},             // description
		{"/device_0/sensor_3/Depth_0/image/data", nil},       // not played
		{"/device_0/sensor_1/Accel_0/imu/data", accel},       // motion
		{"/device_0/sensor_1/Accel_0/image/data", nil},       // the wrong kind of frames
		{"/device_0/sensor_2/Depth_0/image/data", nil},       // not described
		{"/device_0/sensor_0/Depth_0/image/data/extra", nil}, // not a RealSense topic
	} {
		got, ok := d.FrameStream(c.topic)
		if got != c.want || ok != (c.want != nil) {
			t.Errorf("FrameStream(%q) = %v, %v; want %v", c.topic, got, ok, c.want)
		}
	}
}
