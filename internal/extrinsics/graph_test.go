package extrinsics_test

import (
	"bufio"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rsbag/rsbag/extensions"
	"github.com/rsbag/rsbag/internal/extrinsics"
	"github.com/rsbag/rsbag/sensor"
)

// pinned returns the transforms the reference bags store (tf topics, group
// 1): from the depth stream to each video stream, as
// testdata/librealsense/README.md describes them.
func pinned() map[string]extensions.PinnedExtrinsics {
	a := float32(0.01)
	c, s := float32(math.Cos(float64(a))), float32(math.Sin(float64(a)))
	id := sensor.IdentityExtrinsics()
	ir2 := id
	ir2.Translation = [3]float32{-0.05, 0, 0}
	return map[string]extensions.PinnedExtrinsics{
		"Depth/0":    {Key: extensions.StreamKey{Sensor: 0, Stream: sensor.StreamDepth, Index: 0}, Group: 1, FromPin: id},
		"Infrared/1": {Key: extensions.StreamKey{Sensor: 0, Stream: sensor.StreamInfrared, Index: 1}, Group: 1, FromPin: id},
		"Infrared/2": {Key: extensions.StreamKey{Sensor: 0, Stream: sensor.StreamInfrared, Index: 2}, Group: 1, FromPin: ir2},
		"Color/0": {Key: extensions.StreamKey{Sensor: 1, Stream: sensor.StreamColor, Index: 0}, Group: 1, FromPin: sensor.Extrinsics{
			Rotation: [9]float32{c, 0, -s, 0, 1, 0, s, 0, c}, Translation: [3]float32{0.0147, 0.0001, 0.0003}}},
	}
}

type extrLine struct {
	Type        string     `json:"type"`
	From        string     `json:"from"`
	To          string     `json:"to"`
	Available   bool       `json:"available"`
	Rotation    [9]float32 `json:"rotation"`
	Translation [3]float32 `json:"translation"`
}

// TestExtrinsicsGraphMatchesPlayback compares every derived pair bit for bit
// (negative zeros included) with what librealsense playback reported.
func TestExtrinsicsGraphMatchesPlayback(t *testing.T) {
	for _, name := range []string{"depth_color", "depth_color_ir2_uncompressed", "metadata_rich", "options_pause_notify"} {
		t.Run(name, func(t *testing.T) {
			f, err := os.Open(filepath.Join("..", "..", "testdata", "librealsense", name+".expected.jsonl"))
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			var lines []extrLine
			streams := map[string]bool{}
			sc := bufio.NewScanner(f)
			sc.Buffer(nil, 1<<20)
			for sc.Scan() {
				if !strings.Contains(sc.Text(), `"type":"extrinsics"`) {
					continue
				}
				var l extrLine
				if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
					t.Fatal(err)
				}
				lines = append(lines, l)
				streams[l.From] = true
			}
			all := pinned()
			var ps []extensions.PinnedExtrinsics
			for s := range streams {
				ps = append(ps, all[s])
			}
			g := extrinsics.NewGraph(ps)
			if len(lines) != len(streams)*(len(streams)-1) {
				t.Fatalf("%d extrinsics lines for %d streams", len(lines), len(streams))
			}
			for _, l := range lines {
				e, ok := g.Extrinsics(all[l.From].Key, all[l.To].Key)
				if ok != l.Available {
					t.Fatalf("%s→%s: available %v", l.From, l.To, ok)
				}
				if !sameBits(e.Rotation[:], l.Rotation[:]) || !sameBits(e.Translation[:], l.Translation[:]) {
					t.Errorf("%s→%s: got %v %v, want %v %v", l.From, l.To, e.Rotation, e.Translation, l.Rotation, l.Translation)
				}
			}
		})
	}
}

func sameBits(a, b []float32) bool {
	for i := range a {
		if math.Float32bits(a[i]) != math.Float32bits(b[i]) {
			return false
		}
	}
	return true
}

func TestExtrinsicsExamples(t *testing.T) {
	all := pinned()
	g := extrinsics.NewGraph([]extensions.PinnedExtrinsics{all["Depth/0"], all["Color/0"], all["Infrared/1"]})
	cd, _ := g.Extrinsics(all["Color/0"].Key, all["Depth/0"].Key)
	if want := [3]float32{-0.014696266, -0.0001, -0.00044698257}; cd.Translation != want {
		t.Errorf("Color→Depth %v, want %v", cd.Translation, want)
	}
	di, _ := g.Extrinsics(all["Depth/0"].Key, all["Infrared/1"].Key)
	for i, v := range di.Translation {
		if math.Float32bits(v) != 1<<31 {
			t.Errorf("Depth→Infrared/1 translation[%d] = %v, want -0", i, v)
		}
	}
	if e, ok := g.Extrinsics(all["Depth/0"].Key, all["Depth/0"].Key); !ok || e != sensor.IdentityExtrinsics() {
		t.Errorf("Depth→Depth = %v %v, want identity", e, ok)
	}
	other := extensions.PinnedExtrinsics{Key: extensions.StreamKey{Sensor: 2, Stream: sensor.StreamGyro}, Group: 2, FromPin: sensor.IdentityExtrinsics()}
	g = extrinsics.NewGraph([]extensions.PinnedExtrinsics{all["Depth/0"], other})
	if _, ok := g.Extrinsics(all["Depth/0"].Key, other.Key); ok {
		t.Error("extrinsics across groups")
	}
	if _, ok := g.Extrinsics(all["Depth/0"].Key, all["Color/0"].Key); ok {
		t.Error("extrinsics to a stream without entry")
	}
	// Composition and inverse: T·T⁻¹ is the identity for an exact transform.
	tr := sensor.Extrinsics{Rotation: [9]float32{0, 1, 0, -1, 0, 0, 0, 0, 1}, Translation: [3]float32{1, 2, 3}}
	if got := tr.Compose(tr.Inverse()); got != sensor.IdentityExtrinsics() {
		t.Errorf("T·T⁻¹ = %v", got)
	}
}
