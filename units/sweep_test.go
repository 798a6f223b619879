package units

import (
	"context"
	"math"
	"strings"
	"testing"
)

// Three variants of a graph swept over one bag: the baseline compares
// equal to itself, a changed threshold diverges with a numeric
// difference, and a failing variant is named.
func TestSweep(t *testing.T) {
	bag := smallBag(t, "SN1")
	variant := func(name string, threshold uint16) Variant {
		return Variant{Name: name, New: func() (*Graph, error) { return nearGraph(t, threshold, 1), nil }}
	}
	res, err := Sweep(context.Background(), []string{bag}, []Variant{variant("base", 3000), variant("same", 3000), variant("strict", 1000)}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(res) != 3 || res[0].Name != "base" || res[2].Name != "strict" {
		t.Fatalf("results %+v", res)
	}
	for _, i := range []int{0, 1} {
		for topic, d := range res[i].Topics {
			if d.First != nil || d.MaxDiff != 0 && topic == "near/count" || d.Count != d.Base || d.Count != 9 {
				t.Errorf("%s %s: %+v, want 9 outputs as the baseline", res[i].Name, topic, d)
			}
		}
	}
	d := res[2].Topics["near/count"]
	if d.First == nil || d.First.Index != 0 || d.MaxDiff != 192 {
		t.Errorf("strict near/count: %+v, want a divergence at output 0 and a largest difference of 192", d)
	}
	if f := res[2].Topics["near/flag"]; f.First == nil || !math.IsNaN(f.MaxDiff) {
		t.Errorf("strict near/flag: %+v, want a divergence and no numeric difference (booleans)", f)
	}
	_, err = Sweep(context.Background(), []string{bag}, []Variant{variant("base", 3000), {Name: "broken", New: func() (*Graph, error) {
		return NewGraph(Unit{Name: "x", Handlers: []Handler{{Name: "h", Inputs: []Input{In("nobody")}, Func: nop}}})
	}}}, nil)
	if err == nil || !strings.Contains(err.Error(), "variant 1 (broken)") || !strings.Contains(err.Error(), `"nobody"`) {
		t.Errorf("broken variant: %v", err)
	}
}
