package units

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/rsbag/rsbag/device"
	"github.com/rsbag/rsbag/internal/testsupport/benchplay"
	"github.com/rsbag/rsbag/internal/testsupport/conformance"
	"github.com/rsbag/rsbag/internal/tools/baginfo"
	"github.com/rsbag/rsbag/mcapbag"
	"github.com/rsbag/rsbag/msgs"
	"github.com/rsbag/rsbag/record"
	"github.com/rsbag/rsbag/rosbag"
	"github.com/rsbag/rsbag/sensor"
)

// nearGraph counts the depth pixels nearer than threshold (in depth units)
// per frame and flags frames with more than 10 of them.
func nearGraph(t testing.TB, threshold uint16, version int) *Graph {
	t.Helper()
	g, err := NewGraph(nearUnits(threshold, version)...)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// nearUnits are the units of nearGraph.
func nearUnits(threshold uint16, version int) []Unit {
	count := Topic[int]{Name: "near/count", Version: version}
	flag := NewTopic[bool]("near/flag")
	return []Unit{
		{Name: "near", Handlers: []Handler{{Name: "depth", Inputs: []Input{Camera("", sensor.StreamDepth, 0)}, Outputs: []Output{count},
			Func: func(c *Context, in []*Msg) error {
				n := 0
				d := in[0].Frame.Data
				for i := 0; i+1 < len(d); i += 2 {
					if v := uint16(d[i]) | uint16(d[i+1])<<8; v > 0 && v < threshold {
						n++
					}
				}
				return count.Publish(c, n)
			}}}},
		{Name: "flag", Handlers: []Handler{{Name: "count", Inputs: []Input{count.In()}, Outputs: []Output{flag},
			Func: func(c *Context, in []*Msg) error {
				n, _ := count.Value(in[0])
				return flag.Publish(c, n > 10)
			}}}},
	}
}

// recordLive records the synthetic camera live with the graph's outputs
// into one bag.
func recordLive(t *testing.T, g *Graph) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "robot.bag")
	synctest.Test(t, func(t *testing.T) {
		cam := liveCamera(t, "SN1", 500*time.Millisecond)
		rec, err := record.Create(cam, path, nil)
		if err != nil {
			t.Fatal(err)
		}
		l, err := Start(context.Background(), g, []device.Device{rec}, &LiveOptions{Record: rec})
		if err != nil {
			t.Fatal(err)
		}
		<-cam.Done()
		synctest.Wait() // the last frames handed to the handlers
		if err := l.Stop(); err != nil {
			t.Fatal(err)
		}
		if err := rec.Close(); err != nil {
			t.Fatal(err)
		}
		for k, s := range l.Stats() {
			if s.Dropped != 0 {
				t.Errorf("%s dropped %d", k, s.Dropped)
			}
		}
	})
	return path
}

// Outputs recorded live beside the camera streams: the player ignores
// them, info lists them, and a replay of the bag compares equal to them;
// a changed threshold is reported at its first divergence; another schema
// version is refused.
func TestRecordAndCompare(t *testing.T) {
	path := recordLive(t, nearGraph(t, 3000, 1))
	if n := benchplay.Frames(t, path); n != 15 {
		t.Errorf("the player plays %d frames, want the 15 depth frames (the outputs ignored)", n)
	}
	rep, err := baginfo.Inspect(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	var listed []string
	for _, tp := range rep.Topics {
		if strings.HasPrefix(tp.Topic, bagPrefix) {
			listed = append(listed, tp.Topic+":"+tp.Type)
			if tp.Messages != 15 {
				t.Errorf("info: %s has %d messages, want 15", tp.Topic, tp.Messages)
			}
		}
	}
	if strings.Join(listed, ",") != "/units/near/count:rsbag_units/Output,/units/near/flag:rsbag_units/Output" {
		t.Errorf("info lists %v", listed)
	}

	// ROS's own reader and Foxglove's read it in strict mode, the outputs'
	// type and md5sum included.
	for _, name := range []string{conformance.BagcheckROS, conformance.BagcheckJS} {
		if tool := conformance.Optional(t, name); tool != "" {
			if out, err := exec.Command(tool, "-q", path).CombinedOutput(); err != nil {
				t.Errorf("%s: %v\n%s", name, err, out)
			}
		}
	}

	c, err := Compare(context.Background(), nearGraph(t, 3000, 1), []string{path}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if c.First != nil || strings.Join(c.Topics, ",") != "near/count,near/flag" {
		t.Errorf("same graph: topics %v, divergence %v", c.Topics, c.First)
	}

	c, err = Compare(context.Background(), nearGraph(t, 1000, 1), []string{path}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if c.First == nil {
		t.Fatal("a changed threshold: no divergence")
	}
	s := c.First.String()
	if c.First.Topic != "near/count" || !strings.Contains(s, "input [/camera/SN1/Depth/0 #") || !strings.Contains(s, "recorded ") || c.First.Recorded == nil || c.First.New == nil {
		t.Errorf("divergence %s", s)
	}
	t.Log(s)

	_, err = Compare(context.Background(), nearGraph(t, 3000, 2), []string{path}, nil)
	if !errors.Is(err, ErrSchemaVersion) || !strings.Contains(err.Error(), "near/count") || !strings.Contains(err.Error(), "version 1") {
		t.Errorf("another schema version: %v", err)
	}
}

func TestOutputMsgRoundTrip(t *testing.T) {
	m := outputMsg{Version: 3, StampNs: -5, Unit: "u", Handler: "h", Input: "[x]", Value: `{"a":1}`}
	b := msgs.Append(nil, &m)
	if len(b) != msgs.Size(&m) {
		t.Fatalf("%d bytes, Size %d", len(b), msgs.Size(&m))
	}
	var got outputMsg
	if err := msgs.Unmarshal(b, &got); err != nil || got != m {
		t.Fatalf("round trip: %+v, %v", got, err)
	}
	for n := range len(b) {
		if err := msgs.Unmarshal(b[:n], &got); err == nil {
			t.Errorf("%d of %d bytes decoded", n, len(b))
		}
	}
	// ROS's md5sum of the definition's fields.
	if want := rosMD5("uint32 version\nint64 stamp_ns\nstring unit\nstring handler\nstring input\nstring value"); outputType.MD5 != want || len(want) != 32 {
		t.Errorf("md5 %s, want %s", outputType.MD5, want)
	}
}

// An MCAP file exported from a bag (ros1 profile) replays as the bag, and
// the outputs recorded in it compare as in the bag.
func TestReplayMCAP(t *testing.T) {
	path := recordLive(t, nearGraph(t, 3000, 1))
	_, want := replayLog(t, nearGraph(t, 3000, 1), path)
	r, err := rosbag.Open(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	mc := filepath.Join(t.TempDir(), "robot.mcap")
	f, err := os.Create(mc)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := mcapbag.Export(f, r, nil); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	res, got := replayLog(t, nearGraph(t, 3000, 1), mc)
	if !bytes.Equal(got, want) || len(got) == 0 {
		t.Errorf("the MCAP replays otherwise than its bag:\n%s", firstDiff(got, want))
	}
	if res.Bags[0].Path != mc {
		t.Errorf("result names %s, want the MCAP file", res.Bags[0].Path)
	}
	c, err := Compare(context.Background(), nearGraph(t, 3000, 1), []string{mc}, nil)
	if err != nil || c.First != nil || len(c.Topics) != 2 {
		t.Errorf("compare with the MCAP's outputs: %v, %v", c, err)
	}
}

// Stopped while the camera streams, the recording holds an output for
// every frame it holds: Stop handles every frame delivered until the
// sensors have stopped.
func TestRecordStopMidStream(t *testing.T) {
	path := filepath.Join(t.TempDir(), "robot.bag")
	synctest.Test(t, func(t *testing.T) {
		cam := liveCamera(t, "SN1", 2*time.Second)
		rec, err := record.Create(cam, path, nil)
		if err != nil {
			t.Fatal(err)
		}
		l, err := Start(context.Background(), nearGraph(t, 3000, 1), []device.Device{rec}, &LiveOptions{Record: rec})
		if err != nil {
			t.Fatal(err)
		}
		time.Sleep(500*time.Millisecond + 10*time.Microsecond) // bubble time: stop between two frames' deliveries
		if err := l.Stop(); err != nil {
			t.Fatal(err)
		}
		if err := rec.Close(); err != nil {
			t.Fatal(err)
		}
	})
	c, err := Compare(context.Background(), nearGraph(t, 3000, 1), []string{path}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if c.First != nil || c.Result.Calls["near.depth"] < 10 {
		t.Errorf("%d frames replayed; divergence %v", c.Result.Calls["near.depth"], c.First)
	}
}

// Topics of rate handlers, and of the handlers that take them, followed the
// wall clock live: Compare names them and leaves them out.
func TestCompareLeavesOutClocked(t *testing.T) {
	build := func() *Graph {
		summary := NewTopic[int]("near/summary")
		echo := NewTopic[int]("near/echo")
		count := Topic[int]{Name: "near/count", Version: 1}
		g, err := NewGraph(append(nearUnits(3000, 1),
			Unit{Name: "summary", Handlers: []Handler{{Name: "tick", Sync: Rate(70 * time.Millisecond), Inputs: []Input{count.In()}, Outputs: []Output{summary},
				Func: func(c *Context, in []*Msg) error {
					v, _ := count.Value(in[0])
					return summary.Publish(c, v+int(c.Now()%7))
				}}}},
			Unit{Name: "echo", Handlers: []Handler{{Name: "h", Inputs: []Input{summary.In()}, Outputs: []Output{echo},
				Func: func(c *Context, in []*Msg) error { v, _ := summary.Value(in[0]); return echo.Publish(c, v) }}}})...)
		if err != nil {
			t.Fatal(err)
		}
		return g
	}
	path := recordLive(t, build())
	c, err := Compare(context.Background(), build(), []string{path}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(c.Topics, ",") != "near/count,near/flag" || strings.Join(c.Clocked, ",") != "near/echo,near/summary" || c.First != nil {
		t.Errorf("compared %v, left out %v, divergence %v", c.Topics, c.Clocked, c.First)
	}
}
