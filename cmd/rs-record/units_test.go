package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/rsbag/rsbag/internal/testsupport/unitsbag"
	"github.com/rsbag/rsbag/sensor"
	"github.com/rsbag/rsbag/software"
	"github.com/rsbag/rsbag/units"
)

// A bag recorded with unit outputs: play plays its frames, info lists the
// output topics, dump --units prints the outputs.
func TestUnitOutputs(t *testing.T) {
	bag := filepath.Join(t.TempDir(), "robot.bag")
	synctest.Test(t, func(t *testing.T) {
		num := units.NewTopic[uint64]("depth/number")
		g, err := units.NewGraph(units.Unit{Name: "u", Handlers: []units.Handler{{Name: "h", Inputs: []units.Input{units.Camera("", sensor.StreamDepth, 0)},
			Outputs: []units.Output{num}, Func: func(c *units.Context, in []*units.Msg) error { return num.Publish(c, in[0].Frame.Number) }}}})
		if err != nil {
			t.Fatal(err)
		}
		unitsbag.Record(t, bag, software.SyntheticConfig{
			Depth: &software.Video{Width: 16, Height: 12, FPS: 30, Format: sensor.FormatZ16}, Duration: 300 * time.Millisecond, Speed: 1,
		}, g, nil)
	})
	if r := rsRecord(t, "play", "--realtime=false", bag); r.code != 0 || !strings.Contains(r.stdout, "Depth 9") {
		t.Errorf("play: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	if r := rsRecord(t, "info", bag); r.code != 0 || !strings.Contains(r.stdout, "/units/depth/number") || !strings.Contains(r.stdout, "rsbag_units/Output") {
		t.Errorf("info: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	r := rsRecord(t, "dump", "--units", bag)
	lines := strings.Split(strings.TrimSpace(r.stdout), "\n")
	if r.code != 0 || len(lines) != 9 {
		t.Fatalf("dump --units: exit %d, %d lines\n%s%s", r.code, len(lines), r.stdout, r.stderr)
	}
	var first struct {
		Topic, Unit, Handler, Input string
		Value                       json.RawMessage
	}
	if err := json.Unmarshal([]byte(lines[0]), &first); err != nil || first.Topic != "depth/number" || string(first.Value) != "1" || first.Unit != "u" || !strings.Contains(first.Input, "Depth/0 #1") {
		t.Errorf("first line %s (%v)", lines[0], err)
	}
	if r := rsRecord(t, "dump", "--units", "--limit", "3", bag); r.code != 2 {
		t.Errorf("--units --limit: exit %d, want 2", r.code)
	}
}
