package record

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/rsbag/rsbag/internal/layout"
	"github.com/rsbag/rsbag/msgs"
	"github.com/rsbag/rsbag/sensor"
)

// TestCompanions: the messages Options.Companions returns for a frame are
// recorded on their own topics at the frame's bag time, after it; a
// companion on a topic of the RealSense layout stops the recording with an
// error naming it.
func TestCompanions(t *testing.T) {
	path := filepath.Join(t.TempDir(), "c.bag")
	topic := layout.GroundTruthTopic(sensor.StreamDepth, 0, "note")
	o := Options{Companions: func(f *sensor.Frame) []Companion {
		if f.Profile.Stream != sensor.StreamDepth {
			return nil
		}
		return []Companion{{Topic: topic, Msg: &msgs.KeyValue{Key: "frame", Value: f.Profile.Stream.String()}}}
	}}
	recordTestDevice(t, path, o, 5, nil)
	ms, _, err := readBag(t, path)
	if err != nil {
		t.Fatal(err)
	}
	by := byTopic(ms)
	depth, notes := by["/device_0/sensor_0/Depth_0/image/data"], by[topic]
	if len(depth) != 5 || len(notes) != 5 {
		t.Fatalf("%d depth frames, %d companions: want 5 and 5", len(depth), len(notes))
	}
	for i := range notes {
		if notes[i].Time != depth[i].Time || notes[i].Type != "diagnostic_msgs/KeyValue" || kv(t, notes[i].Data).Value != "Depth" {
			t.Errorf("companion %d: %s at %v, frame at %v", i, notes[i].Type, notes[i].Time, depth[i].Time)
		}
	}

	bad := filepath.Join(t.TempDir(), "bad.bag")
	o.Companions = func(f *sensor.Frame) []Companion {
		return []Companion{{Topic: "/device_0/sensor_0/Depth_0/image/data", Msg: &msgs.KeyValue{}}}
	}
	td := newTestDevice(t, 16, 8)
	rec, err := Create(td.dev, bad, &Options{Lossless: true, Companions: o.Companions})
	if err != nil {
		t.Fatal(err)
	}
	ss := rec.Sensors()
	openStart(t, ss[0], sensor.HandlerFunc(func(*sensor.Frame) {}), td.depth)
	if err := td.depthS.Inject(td.frame(td.depth)); err != nil {
		t.Fatal(err)
	}
	td.depthS.Flush()
	err = rec.Flush()
	if err == nil || !strings.Contains(err.Error(), "companion topic /device_0/sensor_0/Depth_0/image/data") {
		t.Errorf("companion on a RealSense topic: %v", err)
	}
	ss[0].Stop()
	ss[0].Close()
	rec.Close()
}
