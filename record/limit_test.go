package record

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/rsbag/rsbag/rosbag"
	"github.com/rsbag/rsbag/sensor"
	"github.com/rsbag/rsbag/software"
)

// TestRefusedFrame: a frame whose message would exceed rosbag.MaxMessageSize
// is not recorded, is counted in Stats.Refused and reported by a
// notification naming it; recording goes on and the bag stays readable
// with the frames around it.
func TestRefusedFrame(t *testing.T) { synctest.Test(t, refusedFrame) }

func refusedFrame(t *testing.T) {
	td, rec, path, _, notes := recordDepth(t, "refused.bag", 16, 8)
	ss := rec.Sensors()
	inject := func(f *sensor.Frame) {
		time.Sleep(33 * time.Millisecond)
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

// TestRefusesUnplayableD400: a D400 with a sensor no reader knows for a
// version-3 bag (the synthetic D435i with a Tracking Module) is refused
// before anything is written, and an existing file is left untouched.
func TestRefusesUnplayableD400(t *testing.T) {
	cam, err := software.NewSynthetic(software.SyntheticConfig{AccelFPS: 100, PoseFPS: 200, Frames: 2})
	if err != nil {
		t.Fatal(err)
	}
	defer cam.Close()
	path := filepath.Join(t.TempDir(), "x.bag")
	if err := os.WriteFile(path, []byte("keep"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Create(cam, path, nil); !errors.Is(err, ErrUnplayable) || !strings.Contains(err.Error(), "Tracking Module") {
		t.Fatalf("Create = %v, want ErrUnplayable naming the Tracking Module", err)
	}
	if b, _ := os.ReadFile(path); string(b) != "keep" {
		t.Fatalf("the existing file was changed: %q", b)
	}
	if _, err := NewWriter(cam, &memFile{}, nil); !errors.Is(err, ErrUnplayable) {
		t.Fatalf("NewWriter = %v, want ErrUnplayable", err)
	}
	// Without the pose stream the same camera records.
	ok, err := software.NewSynthetic(software.SyntheticConfig{AccelFPS: 100, Frames: 2})
	if err != nil {
		t.Fatal(err)
	}
	defer ok.Close()
	rec, err := Create(ok, path, nil)
	if err != nil {
		t.Fatal(err)
	}
	rec.Close()
}
