package viewer

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/rsbag/rsbag/internal/testsupport/testbags"
	"github.com/rsbag/rsbag/internal/testsupport/unitsbag"
	"github.com/rsbag/rsbag/playback"
	"github.com/rsbag/rsbag/rosbag"
	"github.com/rsbag/rsbag/sensor"
	"github.com/rsbag/rsbag/software"
	"github.com/rsbag/rsbag/units"
)

// depthStats is what the test graph publishes per depth frame.
type depthStats struct {
	Frame uint64  `json:"frame"`
	Mean  float64 `json:"mean"`
}

// outputsBag records the synthetic camera live for d with a small graph's
// outputs (package units): "depth/stats" per depth frame (schema version
// 2) and "depth/far" from it, in a synctest bubble.
func outputsBag(t *testing.T, d time.Duration) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "robot.bag")
	synctest.Test(t, func(t *testing.T) { recordOutputs(t, path, d, synctest.Wait) })
	return path
}

// recordOutputs records outputsBag's camera and graph into path; settle
// waits for the last frames to reach the handlers.
func recordOutputs(t testing.TB, path string, d time.Duration, settle func()) {
	t.Helper()
	stats := units.Topic[depthStats]{Name: "depth/stats", Version: 2}
	far := units.NewTopic[bool]("depth/far")
	g, err := units.NewGraph(
		units.Unit{Name: "depth", Handlers: []units.Handler{{Name: "frame", Inputs: []units.Input{units.Camera("", sensor.StreamDepth, 0)},
			Outputs: []units.Output{stats}, Func: func(c *units.Context, in []*units.Msg) error {
				f := in[0].Frame
				var sum float64
				for i := 0; i+1 < len(f.Data); i += 2 {
					sum += float64(uint16(f.Data[i]) | uint16(f.Data[i+1])<<8)
				}
				return stats.Publish(c, depthStats{Frame: f.Number, Mean: sum / float64(len(f.Data)/2)})
			}}}},
		units.Unit{Name: "far", Handlers: []units.Handler{{Name: "stats", Inputs: []units.Input{stats.In()},
			Outputs: []units.Output{far}, Func: func(c *units.Context, in []*units.Msg) error {
				s, _ := stats.Value(in[0])
				return far.Publish(c, s.Frame%3 == 0)
			}}}},
	)
	if err != nil {
		t.Fatal(err)
	}
	unitsbag.Record(t, path, software.SyntheticConfig{
		Depth: &software.Video{Width: 64, Height: 48, FPS: 30, Format: sensor.FormatZ16}, AccelFPS: 100, Duration: d, Speed: 1,
	}, g, settle)
}

// wantOutputs is, per topic of rec, its latest output at or before bag
// time pos, as the state message carries it.
func wantOutputs(rec *units.Recorded, pos int64) map[string]stateOutput {
	out := map[string]stateOutput{}
	for topic, rs := range rec.Outputs {
		for _, r := range rs {
			if int64(r.Time) <= pos {
				out[topic] = stateOutput{Topic: topic, TimeNs: int64(r.Time), Value: r.Value}
			}
		}
	}
	return out
}

// checkOutputs compares the outputs of the client's state with rec's at
// the state's position, and returns how many topics it holds.
func checkOutputs(t *testing.T, c *wsClient, rec *units.Recorded, what string) int {
	t.Helper()
	want := wantOutputs(rec, c.state.PositionNs)
	if len(c.state.Outputs) != len(want) {
		t.Errorf("%s (position %d): %d outputs, want %d: %+v", what, c.state.PositionNs, len(c.state.Outputs), len(want), c.state.Outputs)
	}
	for _, o := range c.state.Outputs {
		w, ok := want[o.Topic]
		if !ok || o.TimeNs != w.TimeNs || !bytes.Equal(compactJSON(t, o.Value), compactJSON(t, w.Value)) {
			t.Errorf("%s (position %d): %s at %d = %s, want at %d %s", what, c.state.PositionNs, o.Topic, o.TimeNs, o.Value, w.TimeNs, w.Value)
		}
	}
	return len(want)
}

func compactJSON(t *testing.T, b []byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := json.Compact(&buf, b); err != nil {
		t.Fatalf("%s: %v", b, err)
	}
	return buf.Bytes()
}

// TestUnitOutputsFollowPosition: a bag recorded with unit outputs is shown
// with its output topics in the hello and, in every state, each topic's
// latest output at or before the position (its bag time and value), after
// seeks forward and back, steps, and at the end.
func TestUnitOutputsFollowPosition(t *testing.T) {
	path := outputsBag(t, 600*time.Millisecond)
	rec, err := units.ReadRecorded([]string{path})
	if err != nil {
		t.Fatal(err)
	}
	if len(rec.Outputs["depth/stats"]) < 10 || len(rec.Outputs["depth/far"]) < 10 {
		t.Fatalf("recorded outputs: %d stats, %d far", len(rec.Outputs["depth/stats"]), len(rec.Outputs["depth/far"]))
	}
	c := dialWS(t, startTest(t, path, false), "")
	if got, want := c.hello.Outputs, []helloOutput{{"depth/far", 1, len(rec.Outputs["depth/far"])}, {"depth/stats", 2, len(rec.Outputs["depth/stats"])}}; len(got) != 2 || got[0] != want[0] || got[1] != want[1] {
		t.Errorf("hello outputs %+v, want %+v", got, want)
	}
	stats := rec.Outputs["depth/stats"]
	d := time.Duration(c.hello.DurationNs)
	for _, to := range []time.Duration{stats[len(stats)/2].Time, d * 3 / 4, stats[3].Time - 1, stats[len(stats)/3].Time, 0} {
		c.must(command{Cmd: "seek", T: to.Seconds()})
		checkOutputs(t, c, rec, "seek to "+to.String())
	}
	c.must(command{Cmd: "seek", T: stats[5].Time.Seconds()})
	c.must(command{Cmd: "step", Dir: 1})
	if n := checkOutputs(t, c, rec, "step"); n != 2 {
		t.Errorf("after a step to %d: %d topics with an output, want 2", c.state.PositionNs, n)
	}
	c.must(command{Cmd: "play"})
	c.until("end of file", func() bool { return c.state.Ended })
	checkOutputs(t, c, rec, "end")
	if last := c.state.Outputs; len(last) != 2 || last[1].TimeNs != int64(stats[len(stats)-1].Time) {
		t.Errorf("at the end: %+v, want the last outputs", last)
	}
}

// TestNoUnitOutputs: a bag without unit outputs has none in the hello or
// the state.
func TestNoUnitOutputs(t *testing.T) {
	c := dialWS(t, startTest(t, filepath.Join(refDir, "depth_color.bag"), false), "")
	c.until("a state", func() bool { return c.nState > 0 })
	if c.hello.Outputs != nil || c.state.Outputs != nil || c.state.Error != "" {
		t.Errorf("outputs %+v %+v, error %q", c.hello.Outputs, c.state.Outputs, c.state.Error)
	}
}

// TestBrowserUnitOutputs: the page shows a bag's unit outputs in a panel of
// their own, each topic's latest value and bag time at the position, after
// a seek and at the end.
func TestBrowserUnitOutputs(t *testing.T) {
	path := outputsBag(t, 600*time.Millisecond)
	rec, err := units.ReadRecorded([]string{path})
	if err != nil {
		t.Fatal(err)
	}
	ts := startTest(t, path, false)
	b := newBrowser(t)
	b.do(chromedp.Navigate(ts.url + "/"))
	b.waitFor("a state", `+document.body.dataset.states > 0`)
	if eval[bool](b, `document.getElementById('outputs').hidden`) {
		t.Fatal("the unit outputs panel is hidden")
	}
	type shown struct {
		Pos    string              `json:"pos"`
		Topics map[string][]string `json:"topics"` // bag time, value
	}
	check := func(what string) {
		t.Helper()
		got := eval[shown](b, `({pos: document.getElementById('position').dataset.positionNs,
			topics: Object.fromEntries([...document.querySelectorAll('#outputs-table [data-topic]')].map(e => [e.dataset.topic, [e.dataset.tNs, e.dataset.value]]))})`)
		pos, err := strconv.ParseInt(got.Pos, 10, 64)
		if err != nil {
			t.Fatalf("%s: position %q", what, got.Pos)
		}
		want := wantOutputs(rec, pos)
		if len(got.Topics) != len(rec.Outputs) {
			t.Errorf("%s: topics %v, want %d", what, got.Topics, len(rec.Outputs))
		}
		for topic := range rec.Outputs {
			w, ok := want[topic]
			g := got.Topics[topic]
			if !ok {
				if g[0] != "" {
					t.Errorf("%s (position %d): %s shows %v, want none yet", what, pos, topic, g)
				}
				continue
			}
			if g[0] != strconv.FormatInt(w.TimeNs, 10) || g[1] != string(compactJSON(t, w.Value)) {
				t.Errorf("%s (position %d): %s shows %v, want at %d %s", what, pos, topic, g, w.TimeNs, w.Value)
			}
		}
	}
	stats := rec.Outputs["depth/stats"]
	to := stats[len(stats)/2].Time
	b.do(chromedp.Evaluate[chromedp.Void](fmt.Sprintf(`(() => { const s = document.getElementById('seek'); s.value = '%d'; s.dispatchEvent(new Event('change')); })()`, to.Milliseconds())))
	b.waitFor("the outputs at the seek", fmt.Sprintf(`Math.abs(+document.getElementById('position').dataset.positionNs - %d) < 40e6 && [...document.querySelectorAll('#outputs-table [data-topic]')].every(e => e.dataset.tNs !== '')`, to.Milliseconds()*1e6))
	check("after a seek")
	b.do(chromedp.Click("#play"))
	b.waitFor("the end of the bag", `document.getElementById('status').textContent === 'End of file'`)
	states := b.datasetInt("body", "states")
	b.waitFor("a state at the end", fmt.Sprintf("+document.body.dataset.states > %d", states))
	check("at the end")
	b.screenshot("unit-outputs")
	if errs := b.consoleErrors(); len(errs) > 0 {
		t.Errorf("console errors: %q", errs)
	}
}

// BenchmarkUnitOutputsState measures what the unit outputs add to the state
// messages while a bag plays: the bytes per second at the default state
// period (the "outputs" member of every state, positions a period apart
// over the whole bag; RSBAG_OUTPUTS_BAG names another bag to measure, e.g.
// one recorded by go run ./examples/units) and the time to pick the latest
// outputs at a position.
func BenchmarkUnitOutputsState(b *testing.B) {
	path := os.Getenv("RSBAG_OUTPUTS_BAG")
	if path == "" {
		path = filepath.Join(b.TempDir(), "robot.bag")
		recordOutputs(b, path, time.Second, nil) // on the wall clock
	}
	dev, err := playback.Open(path, nil)
	if err != nil {
		b.Fatal(err)
	}
	defer dev.Close()
	s := &Server{pb: dev}
	if err := s.loadOutputs(); err != nil {
		b.Fatal(err)
	}
	if len(s.outputs) == 0 {
		b.Fatalf("%s holds no unit outputs", path)
	}
	const period = 100 * time.Millisecond // Config.StatePeriod's default
	d := dev.Duration()
	var bytes, states int
	for pos := time.Duration(0); pos <= d; pos += period {
		if outs := s.outputsAt(int64(pos)); outs != nil {
			m, err := json.Marshal(struct {
				Outputs []stateOutput `json:"outputs"`
			}{outs})
			if err != nil {
				b.Fatal(err)
			}
			bytes += len(m) - 2 // the member and its comma, without the braces
		}
		states++
	}
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		s.outputsAt(int64(d) * int64(i%100) / 100)
	}
	b.ReportMetric(float64(bytes)/float64(states)/period.Seconds(), "state-B/s")
	b.ReportMetric(float64(len(s.outputs)), "topics")
}

// TestUnitOutputsBadTopic: a /units/ topic that is not of the units'
// message type is reported on the page, naming it, and the bag still
// plays.
func TestUnitOutputsBadTopic(t *testing.T) {
	path := filepath.Join(t.TempDir(), "bad.bag")
	testbags.CopyAdding(t, filepath.Join(refDir, "depth_color.bag"), path, func(m *rosbag.Message) []testbags.Added {
		return []testbags.Added{{Topic: units.BagTopic("odd/topic"), Type: "std_msgs/String", MD5Sum: "992ce8a1687cec8c8bd883ec73ca41d1", Definition: "string data\n", Data: []byte{0, 0, 0, 0}}}
	})
	c := dialWS(t, playTest(t, path, false), "")
	c.until("end of file", func() bool { return c.state.Ended })
	if !strings.Contains(c.state.Error, "/units/odd/topic") || !strings.Contains(c.state.Error, "rsbag_units/Output") {
		t.Errorf("error %q, want one naming the topic and the type expected", c.state.Error)
	}
	if c.hello.Outputs != nil || c.state.Outputs != nil {
		t.Errorf("outputs %+v %+v", c.hello.Outputs, c.state.Outputs)
	}
	if len(c.frames) == 0 {
		t.Error("no picture played")
	}
}
