package layout

import (
	"testing"

	"github.com/rsbag/rsbag/sensor"
)

// TestParseGroundTruthTopic: ParseGroundTruthTopic reads back what
// GroundTruthTopic names, and refuses every other topic.
func TestParseGroundTruthTopic(t *testing.T) {
	for _, c := range []struct {
		s     sensor.Stream
		index int
		what  string
	}{{sensor.StreamDepth, 0, "depth"}, {sensor.StreamInfrared, 2, "pose"}, {sensor.StreamGyro, 0, "pose"}} {
		topic := GroundTruthTopic(c.s, c.index, c.what)
		if s, i, w, ok := ParseGroundTruthTopic(topic); !ok || s != c.s || i != c.index || w != c.what {
			t.Errorf("%s: %v %d %q %v", topic, s, i, w, ok)
		}
	}
	for _, topic := range []string{"/ground_truth/Depth_0", "/ground_truth/Depth_0/", "/ground_truth/Depth/pose", "/ground_truth/Depth_01/pose",
		"/ground_truth/Depth_-1/pose", "/ground_truth/Nothing_0/pose", "/device_0/sensor_0/Depth_0/image/data", "/units/Depth_0/pose"} {
		if _, _, _, ok := ParseGroundTruthTopic(topic); ok {
			t.Errorf("%s: parsed", topic)
		}
	}
}
