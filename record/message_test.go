package record

import (
	"errors"
	"testing"

	"github.com/rsbag/rsbag/msgs"
)

// Extra messages are recorded on their own topics beside the frames, with
// their type and definition; RealSense topics, a second type on a topic
// and writes after Close are refused.
func TestWriteMessage(t *testing.T) {
	td, rec, path, _, _ := recordDepth(t, "extra.bag", 8, 6)
	if err := rec.WriteMessage("/units/near", &msgs.String{Data: "first"}); err != nil {
		t.Fatal(err)
	}
	for range 3 {
		if err := td.depthS.Inject(td.frame(td.depth)); err != nil {
			t.Fatal(err)
		}
	}
	td.depthS.Flush()
	if err := rec.WriteMessage("/units/near", &msgs.String{Data: "second"}); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		topic string
		m     msgs.Message
	}{
		{"/device_0/sensor_0/Depth_0/image/data", &msgs.String{}},
		{"/file_version", &msgs.String{}},
		{"units/near", &msgs.String{}},
		{"/units/near", &msgs.UInt32{}},
	} {
		if err := rec.WriteMessage(tc.topic, tc.m); !errors.Is(err, ErrTopic) {
			t.Errorf("WriteMessage(%q, %s): %v, want ErrTopic", tc.topic, tc.m.Type().Name, err)
		}
	}
	stopAndClose(t, rec, rec.Sensors()[:1])
	if err := rec.WriteMessage("/units/near", &msgs.String{Data: "late"}); !errors.Is(err, ErrClosed) {
		t.Errorf("after Close: %v, want ErrClosed", err)
	}
	ms, _, err := readBag(t, path)
	if err != nil {
		t.Fatal(err)
	}
	got := byTopic(ms)["/units/near"]
	if len(got) != 2 {
		t.Fatalf("%d messages on /units/near, want 2", len(got))
	}
	for i, want := range []string{"first", "second"} {
		var s msgs.String
		if err := msgs.Unmarshal(got[i].Data, &s); err != nil || s.Data != want || got[i].Type != new(msgs.String).Type().Name || got[i].MD5 != new(msgs.String).Type().MD5 {
			t.Errorf("message %d: %q (%s %s, %v), want %q", i, s.Data, got[i].Type, got[i].MD5, err, want)
		}
	}
	if len(byTopic(ms)["/device_0/sensor_0/Depth_0/image/data"]) != 3 {
		t.Errorf("frames: %d, want 3", len(byTopic(ms)["/device_0/sensor_0/Depth_0/image/data"]))
	}
	checkConformance(t, path)
}
