package record

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/rsbag/rsbag/rosbag"
	"github.com/rsbag/rsbag/sensor"
)

// TestRefusedFrame: a frame whose message would exceed rosbag.MaxMessageSize
// is not recorded, is counted in Stats.Refused and reported by a
// notification naming it; recording goes on and the bag stays readable
// with the frames around it.
func TestRefusedFrame(t *testing.T) {
	path := filepath.Join(t.TempDir(), "refused.bag")
	td := newTestDevice(t, 16, 8)
	clk := newClock()
	rec, err := New(td.dev, path, clk.opts(Options{Lossless: true}))
	if err != nil {
		t.Fatal(err)
	}
	ss := rec.Sensors()
	var log handlerLog
	var notes noteLog
	notes.watch(ss[0])
	openStart(t, ss[0], &log, td.depth)
	inject := func(f *sensor.Frame) {
		clk.Add(33e6)
		if err := td.depthS.Inject(f); err != nil {
			t.Fatal(err)
		}
		td.depthS.Flush()
	}
	inject(td.frame(td.depth))
	huge := td.frame(td.depth)
	// Never touched: the pages of the 1 GiB are not even mapped in.
	huge.Data = make([]byte, rosbag.MaxMessageSize)
	inject(huge)
	inject(td.frame(td.depth))
	stopAndClose(t, rec, ss[:1])

	st := rec.Stats()
	if st.Refused != 1 || len(st.Streams) != 1 || st.Streams[0].Refused != 1 || st.Frames != 2 {
		t.Errorf("stats %+v: want 2 frames recorded and 1 refused", st)
	}
	found := false
	for _, n := range notes.list() {
		if strings.Contains(n.Description, "refused frame 2 of Depth/0") && n.Severity == sensor.SeverityError {
			found = true
		}
	}
	if !found {
		t.Errorf("no notification of the refused frame: %+v", notes.list())
	}
	ms, _, err := readBag(t, path)
	if err != nil {
		t.Fatalf("the bag is not readable: %v", err)
	}
	if n := len(byTopic(ms)["/device_0/sensor_0/Depth_0/image/data"]); n != 2 {
		t.Errorf("%d depth frames in the bag, want 2", n)
	}
}
