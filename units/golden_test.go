package units

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/rsbag/rsbag/replay/replaytest"
	"github.com/rsbag/rsbag/sensor"
)

// A graph's outputs against a golden file, as package replay's handlers'
// are (go test -update rewrites it).
func TestGoldenGraph(t *testing.T) {
	bag := filepath.Join("..", "testdata", "librealsense", "depth_color.bag")
	if _, err := os.Stat(bag); err != nil {
		t.Skipf("reference bag: %v", err)
	}
	pairs := NewTopic[[2]uint64]("pairs")
	g, err := NewGraph(append(nearUnits(3000, 1),
		Unit{Name: "pair", Handlers: []Handler{{Name: "sync", Sync: Approximate(20e6), Outputs: []Output{pairs},
			Inputs: []Input{Camera("", sensor.StreamDepth, 0), Camera("", sensor.StreamColor, 0)},
			Func: func(c *Context, in []*Msg) error {
				return pairs.Publish(c, [2]uint64{in[0].Frame.Number, in[1].Frame.Number})
			}}}})...)
	if err != nil {
		t.Fatal(err)
	}
	res, err := Replay(context.Background(), g, []string{bag}, nil)
	if err != nil {
		t.Fatal(err)
	}
	replaytest.GoldenResult(t, replaytest.Path(t), res.Replay(), nil)
}
