package main

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/rsbag/rsbag/software"
	"github.com/rsbag/rsbag/units"
)

// robotBag records the synthetic camera for a second with the graph's
// outputs, as `go run ./examples/units -t 1 --synthetic` does, in a
// synctest bubble (no real time passes).
func robotBag(t *testing.T) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "robot.bag")
	synctest.Test(t, func(t *testing.T) {
		cam, err := software.NewSynthetic(SyntheticConfig(time.Second))
		if err != nil {
			t.Fatal(err)
		}
		defer cam.Close()
		if err := recordGraph(context.Background(), cam, path, 1100*time.Millisecond, io.Discard); err != nil {
			t.Fatal(err)
		}
	})
	return path
}

// replayAgainstRobot is what CI runs: replay the robot's bag through the
// graph with params and compare with what the robot published.
func replayAgainstRobot(bag string, p Params) (*units.Comparison, error) {
	g, err := NewGraph(p)
	if err != nil {
		return nil, err
	}
	c, err := units.Compare(context.Background(), g, []string{bag}, nil)
	if err != nil {
		return nil, err
	}
	if c.First != nil {
		return c, fmt.Errorf("the replay diverges from the robot: %s", c.First)
	}
	return c, nil
}

func TestReplayMatchesRobot(t *testing.T) {
	bag := robotBag(t)
	c, err := replayAgainstRobot(bag, DefaultParams)
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(c.Topics, ","); got != "fusion/warning,obstacle/nearest_m,orientation/pitch_deg" {
		t.Errorf("compared topics %s", got)
	}
	warn, calm := 0, 0
	for _, o := range c.Result.ByTopic()["fusion/warning"] {
		if strings.Contains(string(o.Value), `"warn":true`) {
			warn++
		} else {
			calm++
		}
	}
	if warn == 0 || calm == 0 {
		t.Errorf("%d warnings and %d calm verdicts: the recording should hold both", warn, calm)
	}
}

// A changed threshold makes the replay fail, naming where.
func TestChangedThresholdIsCaught(t *testing.T) {
	bag := robotBag(t)
	changed := DefaultParams
	changed.TiltDeg = 25
	_, err := replayAgainstRobot(bag, changed)
	if err == nil || !strings.Contains(err.Error(), "topic fusion/warning") || !strings.Contains(err.Error(), `"warn":true`) {
		t.Fatalf("replay with tilt %v°: %v, want a divergence on fusion/warning", changed.TiltDeg, err)
	}
	t.Log(err)
}

func TestUsage(t *testing.T) {
	for _, args := range [][]string{{"-t", "0"}, {"-t", "x"}, {"extra"}} {
		var stderr strings.Builder
		if code := run(context.Background(), args, io.Discard, &stderr); code != 2 {
			t.Errorf("%v: exit %d, want 2 (%s)", args, code, stderr.String())
		}
	}
}
