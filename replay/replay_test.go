package replay_test

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rsbag/rsbag/internal/testsupport/synthrig"
	"github.com/rsbag/rsbag/pipeline"
	"github.com/rsbag/rsbag/replay"
	"github.com/rsbag/rsbag/sensor"
)

var refBag = filepath.Join("..", "testdata", "librealsense", "depth_color.bag")

// depthStats is a stateful handler: the running mean of every depth
// frame's mean value, and how many frames of any stream came in the last
// 100 ms of virtual time, published per depth frame and every 50 ms.
type depthStats struct {
	n      int
	mean   float64
	recent []time.Time
	ticker bool
	// bias changes the computation (a deliberate regression).
	bias float64
}

func (d *depthStats) frame(c *replay.Context, f *sensor.Frame) error {
	now := c.Now()
	d.recent = append(d.recent, now)
	for len(d.recent) > 0 && c.Since(d.recent[0]) >= 100*time.Millisecond {
		d.recent = d.recent[1:]
	}
	if !d.ticker {
		d.ticker = true
		if _, err := c.Every(50*time.Millisecond, func(c *replay.Context) error {
			return c.Publish("frames_last_100ms", len(d.recent))
		}); err != nil {
			return err
		}
	}
	return nil
}

func (d *depthStats) depth(c *replay.Context, f *sensor.Frame) error {
	var sum float64
	for i := 0; i+1 < len(f.Data); i += 2 {
		sum += float64(binary.LittleEndian.Uint16(f.Data[i:]))
	}
	m := sum/float64(len(f.Data)/2) + d.bias
	d.n++
	d.mean += (m - d.mean) / float64(d.n)
	if err := c.Publish("depth_running_mean", d.mean); err != nil {
		return err
	}
	return c.Publish("frames_last_100ms", len(d.recent))
}

func (d *depthStats) handlers() replay.Handlers {
	return replay.Handlers{
		Frame:   d.frame,
		Streams: map[replay.StreamKey]replay.FrameFunc{{Stream: sensor.StreamDepth}: d.depth},
	}
}

func outputs(t *testing.T, res *replay.Result) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := res.WriteOutputs(&b); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// TestDeterministic replays a reference bag through a stateful handler 20
// times under scheduling noise — GOMAXPROCS from 1 to 4 and a goroutine
// burning CPU — and requires byte-identical outputs every time.
func TestDeterministic(t *testing.T) {
	var first []byte
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	for run := range 20 {
		runtime.GOMAXPROCS(1 + run%4)
		stop := make(chan struct{})
		var spins atomic.Int64
		go func() {
			r := rand.New(rand.NewPCG(uint64(run), 7))
			for {
				select {
				case <-stop:
					return
				default:
				}
				for range r.IntN(50000) {
					spins.Add(1)
				}
				runtime.Gosched()
			}
		}()
		d := &depthStats{}
		res, err := replay.Run(context.Background(), []string{refBag}, d.handlers(), nil)
		close(stop)
		if err != nil {
			t.Fatal(err)
		}
		out := outputs(t, res)
		if run == 0 {
			first = out
			if d.n < 10 || len(res.Outputs) < 2*d.n {
				t.Fatalf("%d depth frames, %d outputs: the handler saw too little", d.n, len(res.Outputs))
			}
			if !bytes.Contains(out, []byte(`"input":"timer"`)) {
				t.Fatal("the 50 ms ticker never fired")
			}
			continue
		}
		if !bytes.Equal(out, first) {
			t.Fatalf("run %d (GOMAXPROCS %d): outputs differ from run 0 at byte %d", run, 1+run%4, firstDiff(out, first))
		}
	}
}

func firstDiff(a, b []byte) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}

// TestTimers: timers fire in bag time, between the frames they fall
// between, in due order, and tickers as often as the bag time allows.
func TestTimers(t *testing.T) {
	type ev struct {
		kind string
		t    time.Duration
	}
	var evs []ev
	var tick *replay.Timer
	var once, stopped bool
	res, err := replay.Run(context.Background(), []string{refBag}, replay.Handlers{Frame: func(c *replay.Context, f *sensor.Frame) error {
		evs = append(evs, ev{"frame", c.BagTime()})
		if !once {
			once = true
			start := c.BagTime()
			c.AfterFunc(120*time.Millisecond, func(c *replay.Context) error {
				if c.BagTime() != start+120*time.Millisecond || c.Now() != time.Unix(0, int64(start+120*time.Millisecond)).UTC() {
					t.Errorf("AfterFunc fired at %v (now %v), want %v", c.BagTime(), c.Now(), start+120*time.Millisecond)
				}
				evs = append(evs, ev{"after", c.BagTime()})
				return nil
			})
			var err error
			tick, err = c.Every(33*time.Millisecond, func(c *replay.Context) error {
				evs = append(evs, ev{"tick", c.BagTime()})
				return nil
			})
			if err != nil {
				return err
			}
			if _, err := c.Every(0, nil); !errors.Is(err, replay.ErrBadPeriod) {
				t.Errorf("Every(0): %v, want ErrBadPeriod", err)
			}
			never := c.AfterFunc(time.Hour, func(*replay.Context) error { t.Error("a stopped timer fired"); return nil })
			if !never.Stop() || never.Stop() {
				t.Error("Stop of a pending timer: want true once, then false")
			}
		}
		if c.BagTime() > 400*time.Millisecond && !stopped {
			stopped = true
			if !tick.Stop() {
				t.Error("Stop of a running ticker reported false")
			}
		}
		return nil
	}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	var ticks, afters int
	for i, e := range evs {
		if i > 0 && e.t < evs[i-1].t {
			t.Fatalf("event %d %v at %v before event %d %v at %v: not in bag-time order", i, e.kind, e.t, i-1, evs[i-1].kind, evs[i-1].t)
		}
		switch e.kind {
		case "tick":
			ticks++
			if e.t > 400*time.Millisecond+33*time.Millisecond {
				t.Errorf("tick at %v after the ticker was stopped", e.t)
			}
		case "after":
			afters++
		}
	}
	if afters != 1 || ticks < 10 || res.Frames == 0 {
		t.Fatalf("%d AfterFunc calls, %d ticks, %d frames; want 1, >= 10, > 0", afters, ticks, res.Frames)
	}
}

// TestWindowAndStreams: only [Start, End) and the selected streams.
func TestWindowAndStreams(t *testing.T) {
	var got []time.Duration
	start, end := 200*time.Millisecond, 600*time.Millisecond
	res, err := replay.Run(context.Background(), []string{refBag}, replay.Handlers{Frame: func(c *replay.Context, f *sensor.Frame) error {
		if f.Profile.Stream != sensor.StreamColor {
			t.Errorf("frame of %s, only Color/0 was selected", f.Profile.Name())
		}
		got = append(got, c.BagTime())
		return nil
	}}, &replay.Options{Start: start, End: end, Streams: []replay.StreamKey{{Stream: sensor.StreamColor}}})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) == 0 || got[0] < start || got[len(got)-1] >= end || res.Frames != len(got) {
		t.Fatalf("%d frames from %v to %v, want some within [%v, %v)", len(got), got[0], got[len(got)-1], start, end)
	}
}

// TestFramesets: framesets come through the pipeline's syncer and are
// those librealsense's syncer makes of each reference bag.
func TestFramesets(t *testing.T) {
	exp, _ := filepath.Glob(filepath.Join("..", "testdata", "librealsense", "sync", "*.sync.expected.jsonl"))
	if len(exp) == 0 {
		t.Fatal("no syncer reference files")
	}
	for _, e := range exp {
		name := strings.TrimSuffix(filepath.Base(e), ".sync.expected.jsonl")
		bag := filepath.Join("..", "testdata", "librealsense", name+".bag")
		if _, err := os.Stat(bag); err != nil {
			bag = filepath.Join("..", "testdata", "librealsense", "real", name+".bag")
		}
		t.Run(name, func(t *testing.T) {
			want := expectedFramesets(t, e)
			var got []string
			res, err := replay.Run(context.Background(), []string{bag}, replay.Handlers{Frameset: func(c *replay.Context, fs *pipeline.Frameset) error {
				got = append(got, fs.String())
				return c.Publish("frames", fs.Len())
			}}, nil)
			if err != nil {
				t.Fatal(err)
			}
			if res.Framesets != len(got) || !strings.HasPrefix(res.Outputs[0].Input, "frameset [") {
				t.Fatalf("%d framesets counted, %d handled; first input %q", res.Framesets, len(got), res.Outputs[0].Input)
			}
			// librealsense may still hold framesets when its file ends.
			if len(got) < len(want) || !slices.Equal(got[:len(want)], want) {
				for i := range min(len(got), len(want)) {
					if got[i] != want[i] {
						t.Fatalf("frameset %d: %s, librealsense %s", i, got[i], want[i])
					}
				}
				t.Fatalf("%d framesets, librealsense made %d", len(got), len(want))
			}
		})
	}
}

// expectedFramesets reads a syncer reference file as Frameset.String forms.
func expectedFramesets(t *testing.T, path string) []string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, line := range bytes.Split(bytes.TrimSpace(b), []byte("\n")) {
		var l struct {
			Type   string
			Frames json.RawMessage
		}
		if err := json.Unmarshal(line, &l); err != nil {
			t.Fatal(err)
		}
		if l.Type != "frameset" {
			continue
		}
		var frames []struct {
			Stream string
			Number uint64
		}
		if err := json.Unmarshal(l.Frames, &frames); err != nil {
			t.Fatal(err)
		}
		var parts []string
		for _, f := range frames {
			parts = append(parts, fmt.Sprintf("%s #%d", f.Stream, f.Number))
		}
		out = append(out, "["+strings.Join(parts, " ")+"]")
	}
	return out
}

// TestSession replays the bags of a session in common bag-time order.
func TestSession(t *testing.T) {
	man := synthrig.Record(t, 2)
	var devs []string
	var last time.Duration
	res, err := replay.Run(context.Background(), []string{man}, replay.Handlers{Frame: func(c *replay.Context, f *sensor.Frame) error {
		if c.BagTime() < last {
			t.Errorf("frame at %v after one at %v", c.BagTime(), last)
		}
		last = c.BagTime()
		devs = append(devs, c.Device())
		return c.Publish("n", f.Number)
	}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(devs, "RIG001") || !slices.Contains(devs, "RIG002") || len(res.Bags) != 2 {
		t.Fatalf("devices seen: %v; bags %v", slices.Compact(slices.Clone(devs)), res.Bags)
	}
}

// TestHandlerError: an error ends the replay and says where.
func TestHandlerError(t *testing.T) {
	boom := errors.New("boom")
	n := 0
	_, err := replay.Run(context.Background(), []string{refBag}, replay.Handlers{Frame: func(c *replay.Context, f *sensor.Frame) error {
		n++
		if n == 5 {
			return boom
		}
		return nil
	}}, nil)
	if !errors.Is(err, boom) || !strings.Contains(err.Error(), "depth_color.bag") || !strings.Contains(err.Error(), "#") {
		t.Fatalf("err = %v, want boom naming the bag and the frame", err)
	}
	if n != 5 {
		t.Fatalf("the handler ran %d times, want 5: the replay goes on after an error", n)
	}
	if _, err := replay.Run(context.Background(), []string{refBag}, replay.Handlers{Frame: func(c *replay.Context, f *sensor.Frame) error {
		return c.Publish("nan", math.NaN())
	}}, nil); err == nil || !strings.Contains(err.Error(), `"nan"`) {
		t.Fatalf("publishing NaN: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := replay.Run(ctx, []string{refBag}, replay.Handlers{}, nil); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled: %v", err)
	}
	if _, err := replay.Run(context.Background(), []string{"missing.bag"}, replay.Handlers{}, nil); err == nil || !strings.Contains(err.Error(), "missing.bag") {
		t.Fatalf("missing bag: %v", err)
	}
}
