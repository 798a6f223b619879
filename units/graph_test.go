package units

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/rsbag/rsbag/sensor"
)

func nop(*Context, []*Msg) error { return nil }

func TestGraphValidation(t *testing.T) {
	x := NewTopic[int]("x")
	y := NewTopic[int]("y")
	z := NewTopic[int]("z")
	depth := Camera("", sensor.StreamDepth, 0)
	for _, tc := range []struct {
		name  string
		units []Unit
		want  []string // substrings of the error; none: valid
	}{
		{"valid chain", []Unit{
			{Name: "a", Handlers: []Handler{{Name: "h", Inputs: []Input{depth}, Outputs: []Output{x}, Func: nop}}},
			{Name: "b", Handlers: []Handler{{Name: "h", Inputs: []Input{x.In()}, Outputs: []Output{y}, Func: nop}}},
		}, nil},
		{"cycle", []Unit{
			{Name: "a", Handlers: []Handler{{Name: "h", Inputs: []Input{depth, z.In()}, Outputs: []Output{x}, Func: nop}}},
			{Name: "b", Handlers: []Handler{{Name: "h", Inputs: []Input{x.In()}, Outputs: []Output{y}, Func: nop}}},
			{Name: "c", Handlers: []Handler{{Name: "h", Inputs: []Input{y.In()}, Outputs: []Output{z}, Func: nop}}},
		}, []string{"cycle", "a.h → b.h → c.h → a.h"}},
		{"unpublished topic", []Unit{
			{Name: "a", Handlers: []Handler{{Name: "h", Inputs: []Input{In("nobody")}, Func: nop}}},
		}, []string{`topic "nobody"`, "a.h", "published by no unit"}},
		{"two publishers", []Unit{
			{Name: "a", Handlers: []Handler{{Name: "h", Inputs: []Input{depth}, Outputs: []Output{x}, Func: nop}}},
			{Name: "b", Handlers: []Handler{{Name: "h", Inputs: []Input{depth}, Outputs: []Output{x}, Func: nop}}},
		}, []string{`topic "x" has two publishers: a.h and b.h`}},
		{"two units of one name", []Unit{
			{Name: "a", Handlers: []Handler{{Name: "h", Inputs: []Input{depth}, Func: nop}}},
			{Name: "a", Handlers: []Handler{{Name: "g", Inputs: []Input{depth}, Func: nop}}},
		}, []string{`two units named "a"`}},
		{"unfilled template", []Unit{
			{Name: "a", Handlers: []Handler{{Name: "h", Inputs: []Input{Camera("{cam}", sensor.StreamDepth, 0)}, Func: nop}}},
		}, []string{"a.h", "unfilled template"}},
		{"rate without period", []Unit{
			{Name: "a", Handlers: []Handler{{Name: "h", Sync: Rate(0), Func: nop}}},
		}, []string{"a.h", "period 0s"}},
		{"all without trigger", []Unit{
			{Name: "a", Handlers: []Handler{{Name: "h", Inputs: []Input{depth.AsCached()}, Func: nop}}},
		}, []string{"a.h", "no uncached input"}},
		{"reserved output", []Unit{
			{Name: "a", Handlers: []Handler{{Name: "h", Inputs: []Input{depth}, Outputs: []Output{NewTopic[int]("/camera/x")}, Func: nop}}},
		}, []string{"a.h", "reserved prefix"}},
		{"no func", []Unit{
			{Name: "a", Handlers: []Handler{{Name: "h", Inputs: []Input{depth}}}},
		}, []string{"a.h has no Func"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := NewGraph(tc.units...)
			if tc.want == nil {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			if !errors.Is(err, ErrGraph) {
				t.Fatalf("error %v, want ErrGraph", err)
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not say %q", err, w)
				}
			}
		})
	}
}

// Two instances of one unit on two cameras: the templates give each its
// own topics.
func TestTemplates(t *testing.T) {
	near := NewTopic[float64]("{cam}/near")
	inst := func(cam string) Unit {
		return Unit{Name: "near-{cam}", Vars: map[string]string{"cam": cam}, Handlers: []Handler{{
			Name: "depth", Inputs: []Input{Camera("{cam}", sensor.StreamDepth, 0)}, Outputs: []Output{near}, Func: nop}}}
	}
	g, err := NewGraph(inst("RIG001"), inst("RIG002"))
	if err != nil {
		t.Fatal(err)
	}
	if got := g.Topics(); len(got) != 2 || got["RIG001/near"] != 1 || got["RIG002/near"] != 1 {
		t.Errorf("topics %v, want RIG001/near and RIG002/near, version 1", got)
	}
	if got := strings.Join(g.Units(), ","); got != "near-RIG001,near-RIG002" {
		t.Errorf("units %s", got)
	}
	if n := g.node("near-RIG002", "depth"); n == nil || n.topics[0] != "/camera/RIG002/Depth/0" {
		t.Errorf("input of the second instance: %v", n.topics)
	}
	if _, err := NewGraph(inst("RIG001"), inst("RIG001")); err == nil || !strings.Contains(err.Error(), `"near-RIG001"`) {
		t.Errorf("two instances on one camera: %v", err)
	}
}

func msg(topic string, stamp time.Duration) *Msg {
	return &Msg{Topic: topic, Stamp: stamp, Time: stamp}
}

// The synchronizers' rules, message by message.
func TestSynchronizers(t *testing.T) {
	ms := time.Millisecond
	type step struct {
		input int // -1: clock or trigger
		stamp time.Duration
		fire  string // stamps of the call's inputs, "" no call
	}
	for _, tc := range []struct {
		name   string
		sync   Sync
		inputs []Input
		steps  []step
	}{
		{"all", All(), []Input{In("/camera/a"), In("/camera/b")}, []step{
			{0, 1 * ms, ""}, {0, 2 * ms, ""}, {1, 3 * ms, "2ms 3ms"}, {1, 4 * ms, ""}, {0, 5 * ms, "5ms 4ms"}}},
		{"all optional and cached", All(), []Input{In("/camera/a"), In("/camera/b").AsOptional(), In("/camera/c").AsCached()}, []step{
			{0, 1 * ms, ""}, {2, 2 * ms, ""}, {0, 3 * ms, "3ms none 2ms"}, {1, 4 * ms, ""}, {0, 5 * ms, "5ms 4ms 2ms"}}},
		{"equal", Equal(), []Input{In("/camera/a"), In("/camera/b")}, []step{
			{0, 1 * ms, ""}, {0, 2 * ms, ""}, {1, 2 * ms, "2ms 2ms"}, {1, 1 * ms, ""}, {0, 3 * ms, ""}, {1, 3 * ms, "3ms 3ms"}}},
		{"approximate", Approximate(2 * ms), []Input{In("/camera/a"), In("/camera/b")}, []step{
			{0, 10 * ms, ""}, {1, 13 * ms, ""}, {0, 14 * ms, ""}, {1, 20 * ms, "14ms 13ms"}, {0, 17 * ms, ""}, {0, 19 * ms, "19ms 20ms"}}},
		{"approximate optional", Approximate(ms), []Input{In("/camera/a"), In("/camera/b").AsOptional()}, []step{
			{1, 5 * ms, ""}, {0, 10 * ms, "10ms none"}, {1, 20 * ms, ""}, {0, 20 * ms, "20ms 20ms"}}},
		{"rate", Rate(10 * ms), []Input{In("/camera/a")}, []step{
			{-1, 10 * ms, ""}, {0, 12 * ms, ""}, {-1, 20 * ms, "12ms"}, {-1, 30 * ms, "12ms"}}},
		{"rate without inputs", Rate(10 * ms), nil, []step{
			{-1, 10 * ms, "()"}, {-1, 20 * ms, "()"}}},
		{"external", External(), []Input{In("/camera/a"), In("/camera/b").AsOptional()}, []step{
			{0, 1 * ms, ""}, {-1, 2 * ms, "1ms none"}, {1, 3 * ms, ""}, {-1, 4 * ms, "1ms 3ms"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g, err := NewGraph(Unit{Name: "u", Handlers: []Handler{{Name: "h", Sync: tc.sync, Inputs: tc.inputs, Func: nop}}})
			if err != nil {
				t.Fatal(err)
			}
			n := g.nodes[0]
			s := newState(n)
			for k, st := range tc.steps {
				m := msg(clockTopic(10*ms), st.stamp)
				if st.input >= 0 {
					m = msg(n.topics[st.input], st.stamp)
				}
				var got []string
				calls := s.add(st.input, m)
				if len(calls) == 1 && len(calls[0]) == 0 {
					got = append(got, "()") // a call without inputs
				}
				for _, x := range slices.Concat(calls...) {
					if x == nil {
						got = append(got, "none")
					} else {
						got = append(got, x.Stamp.String())
					}
				}
				if g := strings.Join(got, " "); g != st.fire {
					t.Errorf("step %d (input %d at %v): call with %q, want %q", k, st.input, st.stamp, g, st.fire)
				}
			}
		})
	}
}

func sprintf(format string, args ...any) string { return fmt.Sprintf(format, args...) }

func contains(s, sub string) bool { return strings.Contains(s, sub) }

// Equal and approximate matches depend on the messages' stamps, not on how
// the inputs' messages interleave: every interleaving (each input's
// messages in order) gives the same calls, as live and replay must.
func TestMatchOrderIndependent(t *testing.T) {
	ms := time.Millisecond
	a := []time.Duration{0, 33 * ms, 66 * ms, 100 * ms, 133 * ms, 166 * ms}
	b := []time.Duration{2 * ms, 12 * ms, 22 * ms, 32 * ms, 42 * ms, 52 * ms, 62 * ms, 72 * ms, 82 * ms, 92 * ms, 102 * ms, 112 * ms, 122 * ms, 132 * ms, 142 * ms, 152 * ms, 162 * ms, 172 * ms}
	for _, sy := range []Sync{Approximate(4 * ms), Equal()} {
		var want string
		for seed := range 200 {
			g, err := NewGraph(Unit{Name: "u", Handlers: []Handler{{Name: "h", Sync: sy, Inputs: []Input{In("/camera/a"), In("/camera/b")}, Func: nop}}})
			if err != nil {
				t.Fatal(err)
			}
			s := newState(g.nodes[0])
			rng := rand.New(rand.NewPCG(uint64(seed), 1))
			var got []string
			i, j := 0, 0
			for i < len(a) || j < len(b) {
				var calls [][]*Msg
				if j == len(b) || i < len(a) && rng.IntN(2) == 0 {
					calls = s.add(0, msg("/camera/a", a[i]))
					i++
				} else {
					calls = s.add(1, msg("/camera/b", b[j]))
					j++
				}
				for _, c := range calls {
					got = append(got, fmt.Sprint(c[0].Stamp, "+", c[1].Stamp))
				}
			}
			g2 := strings.Join(got, " ")
			if seed == 0 {
				want = g2
				t.Logf("%v: %s", sy, want)
				if sy.kind == syncApproximate && len(got) != 6 {
					t.Errorf("%v: %d matches, want 6", sy, len(got))
				}
			} else if g2 != want {
				t.Fatalf("%v: interleaving %d gives %s, the first %s", sy, seed, g2, want)
			}
		}
	}
}
