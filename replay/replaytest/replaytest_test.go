package replaytest_test

import (
	"encoding/binary"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/rsbag/rsbag/replay"
	"github.com/rsbag/rsbag/replay/replaytest"
	"github.com/rsbag/rsbag/sensor"
)

var (
	refBag   = filepath.Join("..", "..", "testdata", "librealsense", "depth_color.bag")
	otherBag = filepath.Join("..", "..", "testdata", "librealsense", "depth_color_ir2_uncompressed.bag")
)

// meanDepth publishes, per depth frame, the running mean of the frames'
// mean depth plus bias, and how many frames came in the last 100 ms of
// virtual time.
func meanDepth(bias float64) replay.Handlers {
	var (
		n      int
		mean   float64
		recent []time.Time
	)
	return replay.Handlers{
		Frame: func(c *replay.Context, f *sensor.Frame) error {
			recent = append(recent, c.Now())
			for c.Since(recent[0]) >= 100*time.Millisecond {
				recent = recent[1:]
			}
			return nil
		},
		Streams: map[replay.StreamKey]replay.FrameFunc{{Stream: sensor.StreamDepth}: func(c *replay.Context, f *sensor.Frame) error {
			var sum float64
			for i := 0; i+1 < len(f.Data); i += 2 {
				sum += float64(binary.LittleEndian.Uint16(f.Data[i:]))
			}
			n++
			mean += (sum/float64(len(f.Data)/2) + bias - mean) / float64(n)
			if err := c.Publish("depth_running_mean", mean); err != nil {
				return err
			}
			c.PublishBytes("depth_pixels", f.Data)
			return c.Publish("frames_last_100ms", len(recent))
		}},
	}
}

func TestGolden(t *testing.T) {
	res := replaytest.Golden(t, refBag, meanDepth(0), nil)
	if len(res.Outputs) < 30 {
		t.Fatalf("%d outputs", len(res.Outputs))
	}
}

// fakeT records what Golden reports instead of failing the test.
type fakeT struct {
	testing.TB
	name string
	msgs []string
}

func (f *fakeT) Helper()      {}
func (f *fakeT) Name() string { return f.name }
func (f *fakeT) Logf(format string, args ...any) {
	f.msgs = append(f.msgs, "log: "+fmt.Sprintf(format, args...))
}
func (f *fakeT) Fatalf(format string, args ...any) {
	f.msgs = append(f.msgs, "fatal: "+fmt.Sprintf(format, args...))
	runtime.Goexit()
}

// report runs Golden as the test named name and returns its fatal
// message, "" when it passed.
func report(t *testing.T, name, bag string, h replay.Handlers) string {
	t.Helper()
	f := &fakeT{TB: t, name: name}
	done := make(chan struct{})
	go func() {
		defer close(done)
		replaytest.Golden(f, bag, h, nil)
	}()
	<-done
	for _, m := range f.msgs {
		if strings.HasPrefix(m, "fatal: ") {
			return m
		}
	}
	return ""
}

func TestGoldenReports(t *testing.T) {
	if msg := report(t, "TestGolden", refBag, meanDepth(0)); msg != "" {
		t.Fatalf("the unchanged handler: %s", msg)
	}
	// A deliberately changed handler: the first divergence is named.
	msg := report(t, "TestGolden", refBag, meanDepth(0.5))
	for _, want := range []string{"diverges from testdata/TestGolden.golden at output 0", "input Depth/0 #1", "depth_running_mean", "golden:", "got:"} {
		if !strings.Contains(msg, want) {
			t.Errorf("changed handler: %q does not say %q", msg, want)
		}
	}
	// A golden file made from another bag.
	msg = report(t, "TestGolden", otherBag, meanDepth(0))
	for _, want := range []string{"golden file made from another replay", "depth_color.bag", "depth_color_ir2_uncompressed.bag", "sha256", "-update"} {
		if !strings.Contains(msg, want) {
			t.Errorf("other bag: %q does not say %q", msg, want)
		}
	}
	// No golden file.
	if msg := report(t, "TestNoSuchGolden", refBag, meanDepth(0)); !strings.Contains(msg, "does not exist: run the test with -update") {
		t.Errorf("missing golden: %q", msg)
	}
}

// TestGoldenUpdate writes a golden file and then passes against it, and a
// truncated one fails at the output where it ends.
func TestGoldenUpdate(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "g.golden")
	res := writeGolden(t, path)
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(string(b), "\n")
	if len(lines) != len(res.Outputs)+2 { // header, outputs, final ""
		t.Fatalf("%d lines for %d outputs", len(lines), len(res.Outputs))
	}
	if err := os.WriteFile(path, []byte(strings.Join(lines[:4], "")), 0o644); err != nil {
		t.Fatal(err)
	}
	f := &fakeT{TB: t, name: "x"}
	done := make(chan struct{})
	go func() {
		defer close(done)
		replaytest.GoldenFile(f, path, []string{refBag}, meanDepth(0), nil)
	}()
	<-done
	if len(f.msgs) == 0 || !strings.Contains(f.msgs[0], "at output 3") || !strings.Contains(f.msgs[0], "which ends after 3 outputs") {
		t.Fatalf("truncated golden: %v", f.msgs)
	}
}

// writeGolden writes the golden file at path as -update does.
func writeGolden(t *testing.T, path string) *replay.Result {
	t.Helper()
	if err := flag.Set("update", "true"); err != nil {
		t.Fatal(err)
	}
	defer flag.Set("update", "false")
	return replaytest.GoldenFile(t, path, []string{refBag}, meanDepth(0), nil)
}
