package units

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/rsbag/rsbag/internal/testsupport/synthrig"
	"github.com/rsbag/rsbag/pipeline"
	"github.com/rsbag/rsbag/replay"
	"github.com/rsbag/rsbag/sensor"
	"github.com/rsbag/rsbag/software"
)

// smallBag records a tiny synthetic bag (depth 16x12 at 30 fps, the
// accelerometer at 100 Hz, 300 ms) in a synctest bubble, so that its bag
// times are the stream times, the same on every run.
func smallBag(t testing.TB, serial string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), serial+".bag")
	cfg := software.SyntheticConfig{
		Depth:    &software.Video{Width: 16, Height: 12, FPS: 30, Format: sensor.FormatZ16},
		Color:    &software.Video{Width: 16, Height: 12, FPS: 30, Format: sensor.FormatRGB8},
		AccelFPS: 100,
		Duration: 300 * time.Millisecond,
		Speed:    1,
		Info:     map[sensor.CameraInfo]string{sensor.CameraInfoSerialNumber: serial},
	}
	if tt, ok := t.(*testing.T); ok {
		synctest.Test(tt, func(t *testing.T) { synthrig.Bag(t, path, cfg) })
	} else {
		synthrig.Bag(t, path, cfg)
	}
	return path
}

// Topics of the diamond graph.
var (
	topicA = NewTopic[int64]("a/sum")
	topicB = NewTopic[int64]("b/acc")
	topicC = NewTopic[float64]("c/mix")
	topicD = NewTopic[string]("d/fused")
	topicE = NewTopic[string]("e/rate")
)

// diamond returns a graph of five units: A (depth) feeds B and C, both
// feed D (an approximate synchronizer), and E runs at a rate on D's output
// and the accelerometer. Every unit keeps state, so a change of the order
// of its inputs changes what it publishes. delay, when set, is called at
// the start of every handler call.
func diamond(t testing.TB, delay func()) *Graph {
	t.Helper()
	if delay == nil {
		delay = func() {}
	}
	var aSum, bAcc int64
	var cMix float64
	var dN int
	var eLast string
	g, err := NewGraph(
		Unit{Name: "A", Handlers: []Handler{{Name: "depth", Inputs: []Input{Camera("", sensor.StreamDepth, 0)}, Outputs: []Output{topicA},
			Func: func(c *Context, in []*Msg) error {
				delay()
				var s int64
				for i := 0; i+1 < len(in[0].Frame.Data); i += 2 {
					s += int64(binary.LittleEndian.Uint16(in[0].Frame.Data[i:]))
				}
				aSum = aSum*31 + s + int64(in[0].Frame.Number)
				return topicA.Publish(c, aSum%1000003)
			}}}},
		Unit{Name: "B", Handlers: []Handler{{Name: "acc", Inputs: []Input{topicA.In()}, Outputs: []Output{topicB},
			Func: func(c *Context, in []*Msg) error {
				delay()
				v, _ := topicA.Value(in[0])
				bAcc = bAcc*7 + v
				return topicB.Publish(c, bAcc%999983)
			}}}},
		Unit{Name: "C", Handlers: []Handler{
			{Name: "mix", Inputs: []Input{topicA.In(), Camera("", sensor.StreamAccel, 0).AsCached().AsOptional()}, Outputs: []Output{topicC},
				Func: func(c *Context, in []*Msg) error {
					delay()
					v, _ := topicA.Value(in[0])
					cMix = cMix/2 + float64(v)
					if in[1] != nil {
						cMix += float64(in[1].Frame.Motion[2])
					}
					return topicC.Publish(c, cMix)
				}},
			{Name: "accel", Inputs: []Input{Camera("", sensor.StreamAccel, 0)},
				Func: func(c *Context, in []*Msg) error {
					delay()
					cMix += float64(in[0].Frame.Number) // shares the unit's state with mix
					return nil
				}},
		}},
		Unit{Name: "D", Handlers: []Handler{{Name: "fuse", Sync: Approximate(5 * time.Millisecond), Inputs: []Input{topicB.In(), topicC.In()}, Outputs: []Output{topicD},
			Func: func(c *Context, in []*Msg) error {
				delay()
				b, _ := topicB.Value(in[0])
				cv, _ := topicC.Value(in[1])
				dN++
				return topicD.Publish(c, fmt.Sprintf("%d:%d/%.3f", dN, b, cv))
			}}}},
		Unit{Name: "E", Handlers: []Handler{{Name: "tick", Sync: Rate(50 * time.Millisecond), Inputs: []Input{topicD.In(), Camera("", sensor.StreamAccel, 0).AsOptional()}, Outputs: []Output{topicE},
			Func: func(c *Context, in []*Msg) error {
				delay()
				d, _ := topicD.Value(in[0])
				a := "none"
				if in[1] != nil {
					a = fmt.Sprint(in[1].Frame.Number)
				}
				eLast = fmt.Sprintf("%v %s accel %s after %d", c.Now(), d, a, len(eLast))
				return topicE.Publish(c, eLast)
			}}}},
	)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

func replayLog(t testing.TB, g *Graph, bags ...string) (*Result, []byte) {
	t.Helper()
	res, err := Replay(context.Background(), g, bags, nil)
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := res.WriteLog(&b); err != nil {
		t.Fatal(err)
	}
	return res, b.Bytes()
}

func TestReplayDiamond(t *testing.T) {
	bag := smallBag(t, "SN1")
	res, log := replayLog(t, diamond(t, nil), bag)
	counts := map[string]int{}
	for _, o := range res.Outputs {
		counts[o.Topic]++
	}
	// 9 depth frames in 300 ms at 30 fps; B and C publish for each, D
	// pairs them; E ticks at 50, 100, ... up to the last frame.
	if counts["a/sum"] == 0 || counts["a/sum"] != counts["b/acc"] || counts["b/acc"] != counts["c/mix"] || counts["d/fused"] != counts["a/sum"] {
		t.Errorf("outputs per topic %v: want as many of a, b, c and d", counts)
	}
	if counts["e/rate"] < 4 {
		t.Errorf("outputs per topic %v: want e/rate every 50 ms", counts)
	}
	if res.Calls["C.accel"] == 0 {
		t.Errorf("calls %v: C.accel never called", res.Calls)
	}
	// Everything a frame triggers runs before bag time moves on: each D
	// output follows its A output at the same bag time, before the next A.
	var lastA time.Duration = -1
	for _, o := range res.Outputs {
		switch o.Topic {
		case "a/sum":
			lastA = o.Time
		case "d/fused":
			if o.Time != lastA {
				t.Errorf("d/fused at %v, the frame that made it at %v", o.Time, lastA)
			}
		case "e/rate":
			if o.Time%(50*time.Millisecond) != 0 {
				t.Errorf("e/rate at %v, not on the 50 ms clock", o.Time)
			}
		}
	}
	_, again := replayLog(t, diamond(t, nil), bag)
	if !bytes.Equal(log, again) {
		t.Errorf("two replays differ:\n%s\n%s", log, again)
	}
	t.Logf("%d outputs, %d events, calls %v", len(res.Outputs), res.Events, res.Calls)
}

// The proof of determinism: the diamond graph with a rate handler and an
// approximate synchronizer, run 50 times over a bag and over a session of
// two bags with random handler delays and GOMAXPROCS from 1 to 8, writes
// byte-identical output logs.
func TestReplayDeterministic(t *testing.T) {
	sets := [][]string{{smallBag(t, "SN1")}, {synthrig.Record(t, 2)}}
	var want [][]byte
	for _, bags := range sets {
		_, log := replayLog(t, diamond(t, nil), bags...)
		if len(log) == 0 {
			t.Fatalf("%v: no outputs", bags)
		}
		want = append(want, log)
	}
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	runs := 50
	if testing.Short() {
		runs = 10
	}
	for i := range runs {
		procs := 1 + i%8
		runtime.GOMAXPROCS(procs)
		rng := rand.New(rand.NewPCG(uint64(i), 35))
		var mu sync.Mutex
		delay := func() {
			mu.Lock()
			r := rng.IntN(100)
			mu.Unlock()
			switch {
			case r < 3: // a longer delay: the other goroutines run ahead
				for range (r + 1) * 50 {
					runtime.Gosched()
				}
			case r < 40:
				runtime.Gosched()
			}
		}
		set := (i / 8) % 2 // every GOMAXPROCS on each set of bags
		_, got := replayLog(t, diamond(t, delay), sets[set]...)
		if !bytes.Equal(got, want[set]) {
			t.Fatalf("run %d (%v, GOMAXPROCS %d): output log differs from the first run's:\n%s", i, sets[set], procs, firstDiff(got, want[set]))
		}
	}
}

func firstDiff(a, b []byte) string {
	al, bl := strings.Split(string(a), "\n"), strings.Split(string(b), "\n")
	for i := range min(len(al), len(bl)) {
		if al[i] != bl[i] {
			return fmt.Sprintf("line %d: %s\nwant line %d: %s", i+1, al[i], i+1, bl[i])
		}
	}
	return fmt.Sprintf("%d lines, want %d", len(al), len(bl))
}

// A handler that panics stops the replay with an error naming the unit,
// the handler and the input.
func TestReplayPanic(t *testing.T) {
	bag := smallBag(t, "SN1")
	n := 0
	g, err := NewGraph(Unit{Name: "obstacle", Handlers: []Handler{{Name: "depth", Inputs: []Input{Camera("", sensor.StreamDepth, 0)},
		Func: func(c *Context, in []*Msg) error {
			if n++; n == 3 {
				var s []int
				_ = s[n] // a bug in the handler
			}
			return nil
		}}}})
	if err != nil {
		t.Fatal(err)
	}
	_, err = Replay(context.Background(), g, []string{bag}, nil)
	var he *HandlerError
	if !errors.As(err, &he) {
		t.Fatalf("error %v, want a HandlerError", err)
	}
	for _, w := range []string{"unit obstacle", "handler depth", "/camera/SN1/Depth/0 #3", "panic: runtime error: index out of range [3] with length 0"} {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("error %q does not say %q", err, w)
		}
	}
}

// A recording without a stream the graph needs is refused before any
// handler runs, naming the stream; an output that cannot be encoded is a
// handler error naming the topic.
func TestReplayBadInput(t *testing.T) {
	bag := smallBag(t, "SN1")
	called := false
	g, err := NewGraph(Unit{Name: "u", Handlers: []Handler{{Name: "ir", Inputs: []Input{Camera("", sensor.StreamInfrared, 1)},
		Func: func(*Context, []*Msg) error { called = true; return nil }}}})
	if err != nil {
		t.Fatal(err)
	}
	_, err = Replay(context.Background(), g, []string{bag}, nil)
	if !errors.Is(err, ErrMissingStream) || !strings.Contains(err.Error(), "/camera/Infrared/1") || !strings.Contains(err.Error(), "u.ir") || called {
		t.Errorf("error %v (handler called: %v), want ErrMissingStream naming /camera/Infrared/1 and u.ir", err, called)
	}
	nan := NewTopic[float64]("nan")
	g, err = NewGraph(Unit{Name: "u", Handlers: []Handler{{Name: "depth", Inputs: []Input{Camera("", sensor.StreamDepth, 0)}, Outputs: []Output{nan},
		Func: func(c *Context, in []*Msg) error { return nan.Publish(c, 0/zero()) }}}})
	if err != nil {
		t.Fatal(err)
	}
	_, err = Replay(context.Background(), g, []string{bag}, nil)
	if err == nil || !strings.Contains(err.Error(), `publish on "nan": the value cannot be encoded`) || !strings.Contains(err.Error(), "unit u, handler depth") {
		t.Errorf("error %v, want the encoding error with the unit and handler", err)
	}
}

func zero() float64 { return 0 }

// Several bags of a session: per-camera instances of one unit through
// templates, an external trigger, and an equal synchronizer on depth and
// color.
func TestReplaySession(t *testing.T) {
	manifest := synthrig.Record(t, 2)
	pairs := NewTopic[string]("{cam}/pairs")
	inst := func(cam string) Unit {
		return Unit{Name: "pair-{cam}", Vars: map[string]string{"cam": cam}, Handlers: []Handler{{
			Name: "sync", Sync: Equal(), Outputs: []Output{pairs},
			Inputs: []Input{Camera("{cam}", sensor.StreamDepth, 0), Camera("{cam}", sensor.StreamColor, 0)},
			Func: func(c *Context, in []*Msg) error {
				return pairs.Publish(c, fmt.Sprintf("%s %d %d", in[0].Device, in[0].Frame.Number, in[1].Frame.Number))
			}}}}
	}
	fired := NewTopic[int]("fired")
	g, err := NewGraph(inst("RIG001"), inst("RIG002"), Unit{Name: "ext", Handlers: []Handler{{Name: "poke", Sync: External(),
		Inputs: []Input{In("RIG001/pairs").AsOptional()}, Outputs: []Output{fired},
		Func: func(c *Context, in []*Msg) error { return fired.Publish(c, int(c.Now()/time.Millisecond)) }}}})
	if err != nil {
		t.Fatal(err)
	}
	res, err := Replay(context.Background(), g, []string{manifest}, &ReplayOptions{Triggers: []Trigger{{Time: 100 * time.Millisecond, Unit: "ext", Handler: "poke"}}})
	if err != nil {
		t.Fatal(err)
	}
	counts := map[string]int{}
	for _, o := range res.Outputs {
		counts[o.Topic]++
		if o.Topic == "fired" && string(o.Value) != "100" {
			t.Errorf("trigger at %v: %s", o.Time, o.Value)
		}
	}
	if len(res.Bags) != 2 || res.Bags[0].Serial != "RIG001" || !strings.HasSuffix(res.Bags[0].Path, "rig.RIG001.bag") || !strings.HasSuffix(res.Bags[1].Path, "rig.RIG002.bag") {
		t.Errorf("bags %+v, want the session's two bags", res.Bags)
	}
	if counts["RIG001/pairs"] < 10 || counts["RIG002/pairs"] < 10 || counts["fired"] != 1 {
		t.Errorf("outputs per topic %v", counts)
	}
	for _, o := range res.Outputs {
		var dev string
		var a, b int
		if o.Topic != "fired" {
			fmt.Sscanf(strings.Trim(string(o.Value), `"`), "%s %d %d", &dev, &a, &b)
			if a != b || !strings.HasPrefix(o.Topic, dev) {
				t.Errorf("%s: %s: frames of unequal stamps or another camera", o.Topic, o.Value)
			}
		}
	}
}

// A damaged bag is replayed as far as it can be and its losses are
// reported with the result.
func TestReplayDamaged(t *testing.T) {
	bag := smallBag(t, "SN1")
	b, err := os.ReadFile(bag)
	if err != nil {
		t.Fatal(err)
	}
	cut := filepath.Join(t.TempDir(), "cut.bag")
	if err := os.WriteFile(cut, b[:len(b)/2], 0o644); err != nil {
		t.Fatal(err)
	}
	whole, _ := replayLog(t, nearGraph(t, 3000, 1), bag)
	res, err := Replay(context.Background(), nearGraph(t, 3000, 1), []string{cut}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !res.Damaged() || len(res.Losses) != 1 || len(res.Losses[0]) == 0 || res.Calls["near.depth"] == 0 || res.Calls["near.depth"] > whole.Calls["near.depth"] {
		t.Errorf("cut bag: damaged %v, losses %v, %d depth calls of the whole bag's %d", res.Damaged(), res.Losses, res.Calls["near.depth"], whole.Calls["near.depth"])
	}
}

// Framesets are those of the pipeline's syncer, as package replay gives
// them; a clock input ticks on bag time; two units feeding each other
// through different handlers (no cycle between handlers) run.
func TestReplayFramesetsClockAndUnitLoop(t *testing.T) {
	bag := smallBag(t, "SN1")
	want, err := replay.Run(context.Background(), []string{bag}, replay.Handlers{Frameset: func(*replay.Context, *pipeline.Frameset) error { return nil }}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t1, t2, t3 := NewTopic[int]("t1"), NewTopic[int]("t2"), NewTopic[int]("t3")
	ticks := NewTopic[int64]("ticks")
	var sets []string
	g, err := NewGraph(
		Unit{Name: "X", Handlers: []Handler{
			{Name: "sets", Inputs: []Input{Framesets("")}, Outputs: []Output{t1}, Func: func(c *Context, in []*Msg) error {
				sets = append(sets, in[0].Frameset.String())
				return t1.Publish(c, in[0].Frameset.Len())
			}},
			{Name: "back", Inputs: []Input{t2.In()}, Outputs: []Output{t3}, Func: func(c *Context, in []*Msg) error {
				v, _ := t2.Value(in[0])
				return t3.Publish(c, v+1)
			}},
			{Name: "clock", Inputs: []Input{Clock(100 * time.Millisecond)}, Outputs: []Output{ticks}, Func: func(c *Context, in []*Msg) error {
				return ticks.Publish(c, int64(in[0].Value.(time.Duration)/time.Millisecond))
			}},
		}},
		Unit{Name: "Y", Handlers: []Handler{{Name: "fwd", Inputs: []Input{t1.In()}, Outputs: []Output{t2}, Func: func(c *Context, in []*Msg) error {
			v, _ := t1.Value(in[0])
			return t2.Publish(c, v*10)
		}}}},
	)
	if err != nil {
		t.Fatal(err)
	}
	res, err := Replay(context.Background(), g, []string{bag}, nil)
	if err != nil {
		t.Fatal(err)
	}
	by := res.ByTopic()
	if len(sets) != want.Framesets || len(by["t3"]) != want.Framesets || want.Framesets == 0 {
		t.Errorf("%d framesets, %d t3 outputs; package replay gives %d framesets", len(sets), len(by["t3"]), want.Framesets)
	}
	var got []string
	for _, o := range by["ticks"] {
		got = append(got, string(o.Value))
	}
	if strings.Join(got, ",") != "100,200" {
		t.Errorf("clock ticks %v, want 100,200 (the bag's frames end before 300 ms)", got)
	}
}

// A replay whose context ends returns the context's error.
func TestReplayCancel(t *testing.T) {
	bag := smallBag(t, "SN1")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	g, err := NewGraph(Unit{Name: "u", Handlers: []Handler{{Name: "h", Inputs: []Input{Camera("", sensor.StreamAccel, 0)},
		Func: func(c *Context, in []*Msg) error {
			if in[0].Frame.Number == 3 {
				cancel()
			}
			return nil
		}}}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Replay(ctx, g, []string{bag}, nil); !errors.Is(err, context.Canceled) {
		t.Errorf("error %v, want context.Canceled", err)
	}
}
