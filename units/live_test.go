package units

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/rsbag/rsbag/device"
	"github.com/rsbag/rsbag/playback"
	"github.com/rsbag/rsbag/sensor"
	"github.com/rsbag/rsbag/software"
)

// liveCamera is a synthetic camera paced on the (bubble's) wall clock.
func liveCamera(t *testing.T, serial string, d time.Duration) *software.Synthetic {
	t.Helper()
	cam, err := software.NewSynthetic(software.SyntheticConfig{
		Depth:    &software.Video{Width: 16, Height: 12, FPS: 30, Format: sensor.FormatZ16},
		Color:    &software.Video{Width: 16, Height: 12, FPS: 30, Format: sensor.FormatRGB8},
		AccelFPS: 100,
		Duration: d,
		Speed:    1,
		Info:     map[sensor.CameraInfo]string{sensor.CameraInfoSerialNumber: serial},
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cam.Close() })
	return cam
}

// The graph live from the synthetic camera: every call respects its
// synchronizer's rule, a unit never runs two handlers at once, and the
// diamond's outputs flow through.
func TestLiveSynchronizerRules(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		cam := liveCamera(t, "SN1", time.Second)
		const tol = 5 * time.Millisecond
		var mu sync.Mutex
		var violations []string
		bad := func(format string, args ...any) {
			mu.Lock()
			violations = append(violations, sprintf(format, args...))
			mu.Unlock()
		}
		var inside [5]atomic.Int32
		enter := func(u int) func() {
			if inside[u].Add(1) != 1 {
				bad("unit %d runs two handlers at once", u)
			}
			return func() { inside[u].Add(-1) }
		}
		var rateCalls []time.Duration
		var equalCalls, approxCalls, allCalls atomic.Int64
		g, err := NewGraph(
			Unit{Name: "A", Handlers: []Handler{{Name: "depth", Inputs: []Input{Camera("", sensor.StreamDepth, 0)}, Outputs: []Output{topicA},
				Func: func(c *Context, in []*Msg) error {
					defer enter(0)()
					return topicA.Publish(c, int64(in[0].Frame.Number))
				}}}},
			Unit{Name: "B", Handlers: []Handler{{Name: "acc", Inputs: []Input{topicA.In()}, Outputs: []Output{topicB},
				Func: func(c *Context, in []*Msg) error {
					defer enter(1)()
					allCalls.Add(1)
					if in[0] == nil {
						bad("all: B called without its input")
					}
					v, _ := topicA.Value(in[0])
					return topicB.Publish(c, v)
				}}}},
			Unit{Name: "C", Handlers: []Handler{
				{Name: "mix", Inputs: []Input{topicA.In(), Camera("", sensor.StreamAccel, 0).AsCached().AsOptional()}, Outputs: []Output{topicC},
					Func: func(c *Context, in []*Msg) error {
						defer enter(2)()
						v, _ := topicA.Value(in[0])
						return topicC.Publish(c, float64(v))
					}},
				{Name: "pair", Sync: Equal(), Inputs: []Input{Camera("", sensor.StreamDepth, 0), Camera("", sensor.StreamColor, 0)},
					Func: func(c *Context, in []*Msg) error {
						defer enter(2)()
						equalCalls.Add(1)
						if in[0].Stamp != in[1].Stamp {
							bad("equal: stamps %v and %v", in[0].Stamp, in[1].Stamp)
						}
						return nil
					}},
			}},
			Unit{Name: "D", Handlers: []Handler{{Name: "fuse", Sync: Approximate(tol), Inputs: []Input{topicB.In(), topicC.In()}, Outputs: []Output{topicD},
				Func: func(c *Context, in []*Msg) error {
					defer enter(3)()
					approxCalls.Add(1)
					if d := in[0].Stamp - in[1].Stamp; d > tol || d < -tol {
						bad("approximate: stamps %v and %v more than %v apart", in[0].Stamp, in[1].Stamp, tol)
					}
					return topicD.Publish(c, "x")
				}}}},
			Unit{Name: "E", Handlers: []Handler{{Name: "tick", Sync: Rate(100 * time.Millisecond), Inputs: []Input{topicD.In().AsOptional()},
				Func: func(c *Context, in []*Msg) error {
					defer enter(4)()
					rateCalls = append(rateCalls, c.Now())
					return nil
				}}}},
		)
		if err != nil {
			t.Fatal(err)
		}
		l, err := Start(context.Background(), g, []device.Device{cam}, nil)
		if err != nil {
			t.Fatal(err)
		}
		<-cam.Done()
		time.Sleep(50 * time.Millisecond) // let the clock tick past the last frame (bubble time)
		if err := l.Stop(); err != nil {
			t.Fatal(err)
		}
		for _, v := range violations {
			t.Error(v)
		}
		st := l.Stats()
		for k, s := range st {
			if s.Dropped != 0 || s.Errors != 0 {
				t.Errorf("%s: %+v, want no drops and no errors", k, s)
			}
		}
		// The color sensor starts after the depth sensor: the camera may
		// deliver its first color frame before, to nobody (as live).
		if n := st["A.depth"].Calls; n != 30 || allCalls.Load() != 30 || approxCalls.Load() != 30 || equalCalls.Load() < 29 {
			t.Errorf("calls: A %d, all %d, approximate %d, equal %d; want 30 each (equal 29 at least)", n, allCalls.Load(), approxCalls.Load(), equalCalls.Load())
		}
		// The rate handler: once every 100 ms of the clock, none skipped.
		if len(rateCalls) != 10 {
			t.Errorf("rate handler called at %v, want 10 calls", rateCalls)
		}
		for i, at := range rateCalls {
			if want := time.Duration(i+1) * 100 * time.Millisecond; at != want {
				t.Errorf("rate call %d at %v, want %v", i, at, want)
			}
		}
	})
}

// A slow unit drops what its queue cannot hold, counted on its handler;
// the camera and the other units go on at full rate; a handler that panics
// is reported with its unit, handler and input, and its unit keeps
// running.
func TestLiveSlowUnitAndPanic(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		cam := liveCamera(t, "SN1", time.Second)
		var fast atomic.Int64
		var errs []error
		var errMu sync.Mutex
		g, err := NewGraph(
			Unit{Name: "slow", Handlers: []Handler{{Name: "depth", Inputs: []Input{Camera("", sensor.StreamDepth, 0)},
				Func: func(c *Context, in []*Msg) error {
					time.Sleep(200 * time.Millisecond) // a slow algorithm (bubble time)
					return nil
				}}}},
			Unit{Name: "fast", Handlers: []Handler{{Name: "depth", Inputs: []Input{Camera("", sensor.StreamDepth, 0)},
				Func: func(c *Context, in []*Msg) error {
					if fast.Add(1) == 5 {
						panic("boom")
					}
					return nil
				}}}},
		)
		if err != nil {
			t.Fatal(err)
		}
		l, err := Start(context.Background(), g, []device.Device{cam}, &LiveOptions{QueueSize: 2, OnError: func(err error) {
			errMu.Lock()
			errs = append(errs, err)
			errMu.Unlock()
		}})
		if err != nil {
			t.Fatal(err)
		}
		<-cam.Done()
		synctest.Wait()
		err = l.Stop()
		st := l.Stats()
		if s := st["slow.depth"]; s.Dropped == 0 || s.Calls+s.Dropped != 30 {
			t.Errorf("slow: %+v, want drops and calls + drops = 30 frames", s)
		}
		if s := st["fast.depth"]; s.Calls != 30 || s.Dropped != 0 || s.Errors != 1 {
			t.Errorf("fast: %+v, want 30 calls, 1 error, no drop", s)
		}
		if len(errs) != 1 || err == nil || err.Error() != errs[0].Error() {
			t.Fatalf("errors %v, Stop %v: want the one panic", errs, err)
		}
		for _, w := range []string{"unit fast", "handler depth", "/camera/SN1/Depth/0 #5", "panic: boom"} {
			if !contains(err.Error(), w) {
				t.Errorf("error %q does not say %q", err, w)
			}
		}
	})
}

// flushSensor is a depth sensor that delivers a last frame while it stops,
// as a camera does with a frame in flight when Stop is called.
type flushSensor struct {
	p *sensor.StreamProfile
	h sensor.Handler
	n uint64
}

func (s *flushSensor) Info() sensor.Info                   { return sensor.Info{sensor.CameraInfoName: "Stereo Module"} }
func (s *flushSensor) Profiles() []*sensor.StreamProfile   { return []*sensor.StreamProfile{s.p} }
func (s *flushSensor) Open(...*sensor.StreamProfile) error { return nil }
func (s *flushSensor) Start(h sensor.Handler) error        { s.h = h; return nil }
func (s *flushSensor) Close() error                        { return nil }
func (s *flushSensor) Stop() error                         { s.deliver(); s.h = nil; return nil }
func (s *flushSensor) deliver() {
	s.n++
	s.h.HandleFrame(&sensor.Frame{Profile: s.p, Number: s.n, TimestampMs: float64(s.n) * 33, Data: make([]byte, 16*12*2), Width: 16, Height: 12, Stride: 32, BPP: 16})
}

type flushDevice struct{ s *flushSensor }

func (d flushDevice) Info() sensor.Info {
	return sensor.Info{sensor.CameraInfoSerialNumber: "F1", sensor.CameraInfoName: "Flush"}
}
func (d flushDevice) Sensors() []sensor.Sensor { return []sensor.Sensor{d.s} }
func (d flushDevice) Extrinsics(_, _ *sensor.StreamProfile) (sensor.Extrinsics, error) {
	return sensor.Extrinsics{}, device.ErrNotFound
}
func (d flushDevice) Close() error { return nil }

// Every frame a sensor delivers until its Stop returns is handled, as a
// recorder among the devices records it.
func TestLiveHandlesFramesUntilStopped(t *testing.T) {
	s := &flushSensor{p: &sensor.StreamProfile{Stream: sensor.StreamDepth, Format: sensor.FormatZ16, Kind: sensor.KindVideo, Width: 16, Height: 12, FPS: 30, Default: true}}
	l, err := Start(context.Background(), nearGraph(t, 3000, 1), []device.Device{flushDevice{s}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	for range 3 {
		s.deliver()
	}
	if err := l.Stop(); err != nil {
		t.Fatal(err)
	}
	if st := l.Stats()["near.depth"]; st.Calls != 4 || st.Dropped != 0 {
		t.Errorf("near.depth: %+v, want the 4 frames delivered until Stop returned", st)
	}
}

// Live from several cameras (per-camera instances through templates) and
// from real-time playback of a bag.
func TestLiveRigAndPlayback(t *testing.T) {
	pairs := NewTopic[uint64]("{cam}/pairs")
	inst := func(cam string) Unit {
		return Unit{Name: "pair-{cam}", Vars: map[string]string{"cam": cam}, Handlers: []Handler{{
			Name: "sync", Sync: Equal(), Outputs: []Output{pairs},
			Inputs: []Input{Camera("{cam}", sensor.StreamDepth, 0), Camera("{cam}", sensor.StreamColor, 0)},
			Func: func(c *Context, in []*Msg) error {
				if in[0].Device != in[1].Device || in[0].Frame.Number != in[1].Frame.Number {
					return fmt.Errorf("pair of %s #%d and %s #%d", in[0].Device, in[0].Frame.Number, in[1].Device, in[1].Frame.Number)
				}
				return pairs.Publish(c, in[0].Frame.Number)
			}}}}
	}
	synctest.Test(t, func(t *testing.T) {
		a, b := liveCamera(t, "CAM1", time.Second), liveCamera(t, "CAM2", time.Second)
		g, err := NewGraph(inst("CAM1"), inst("CAM2"))
		if err != nil {
			t.Fatal(err)
		}
		var mu sync.Mutex
		got := map[string]int{}
		l, err := Start(context.Background(), g, []device.Device{a, b}, &LiveOptions{OnOutput: func(r Record) {
			mu.Lock()
			got[r.Topic]++
			mu.Unlock()
		}})
		if err != nil {
			t.Fatal(err)
		}
		<-a.Done()
		<-b.Done()
		synctest.Wait() // the last frames handed to the handlers
		if err := l.Stop(); err != nil {
			t.Fatal(err)
		}
		// A camera's color sensor starts after its depth sensor: its first
		// color frame may come before, to nobody (as live).
		if got["CAM1/pairs"] < 29 || got["CAM2/pairs"] < 29 {
			t.Errorf("outputs %v, want 30 pairs per camera (29 at least)", got)
		}
	})
	bag := smallBag(t, "SN1")
	synctest.Test(t, func(t *testing.T) {
		dev, err := playback.Open(bag, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer dev.Close()
		l, err := Start(context.Background(), nearGraph(t, 3000, 1), []device.Device{dev}, nil)
		if err != nil {
			t.Fatal(err)
		}
		time.Sleep(time.Second) // the bag's 300 ms, played in real time (bubble time)
		if err := l.Stop(); err != nil {
			t.Fatal(err)
		}
		if st := l.Stats(); st["near.depth"].Calls != 9 || st["flag.count"].Calls != 9 {
			t.Errorf("stats %v, want the bag's 9 depth frames handled", st)
		}
	})
}

// Live.Trigger fires an external handler with the latest input; other
// handlers and a stopped run refuse it.
func TestLiveTrigger(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		cam := liveCamera(t, "SN1", time.Second)
		var got []uint64
		g, err := NewGraph(Unit{Name: "u", Handlers: []Handler{
			{Name: "snap", Sync: External(), Inputs: []Input{Camera("", sensor.StreamDepth, 0)}, Func: func(c *Context, in []*Msg) error {
				got = append(got, in[0].Frame.Number)
				return nil
			}},
			{Name: "plain", Inputs: []Input{Camera("", sensor.StreamDepth, 0)}, Func: nop},
		}})
		if err != nil {
			t.Fatal(err)
		}
		l, err := Start(context.Background(), g, []device.Device{cam}, nil)
		if err != nil {
			t.Fatal(err)
		}
		time.Sleep(110 * time.Millisecond) // bubble time: frames 1 to 4 (0 to 100 ms)
		synctest.Wait()
		if err := l.Trigger("u", "snap"); err != nil {
			t.Fatal(err)
		}
		if err := l.Trigger("u", "plain"); !errors.Is(err, ErrGraph) {
			t.Errorf("trigger of a handler that is not external: %v", err)
		}
		synctest.Wait()
		if err := l.Stop(); err != nil {
			t.Fatal(err)
		}
		if err := l.Trigger("u", "snap"); !errors.Is(err, ErrStopped) {
			t.Errorf("trigger after Stop: %v", err)
		}
		if len(got) != 1 || got[0] != 4 {
			t.Errorf("external handler called with frames %v, want once with frame 4", got)
		}
	})
}

// Live framesets: the pipeline's syncer's, every frame in one (depth and
// color paired as they arrive, the accelerometer alone) but the last of
// each video stream, which the syncer may still hold for a match at Stop.
func TestLiveFramesets(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		cam := liveCamera(t, "SN1", time.Second)
		var pairs, frames int
		g, err := NewGraph(Unit{Name: "u", Handlers: []Handler{{Name: "fs", Inputs: []Input{Framesets("SN1")}, Func: func(c *Context, in []*Msg) error {
			fs := in[0].Frameset
			frames += fs.Len()
			if fs.Depth() != nil && fs.Color() != nil && fs.Depth().Number == fs.Color().Number {
				pairs++
			}
			return nil
		}}}})
		if err != nil {
			t.Fatal(err)
		}
		l, err := Start(context.Background(), g, []device.Device{cam}, nil)
		if err != nil {
			t.Fatal(err)
		}
		<-cam.Done()
		synctest.Wait()
		if err := l.Stop(); err != nil {
			t.Fatal(err)
		}
		if frames < 30+30+100-2 || frames > 160 || pairs == 0 || l.Stats()["u.fs"].Dropped != 0 {
			t.Errorf("%d frames in framesets (%d depth+color pairs), stats %v; want the 160 frames (158 at least)", frames, pairs, l.Stats())
		}
	})
}

// The end of Start's context stops the run.
func TestLiveContext(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		cam := liveCamera(t, "SN1", time.Second)
		ctx, cancel := context.WithCancel(context.Background())
		g, err := NewGraph(Unit{Name: "u", Handlers: []Handler{{Name: "x", Sync: External(), Func: nop}}})
		if err != nil {
			t.Fatal(err)
		}
		l, err := Start(ctx, g, []device.Device{cam}, nil)
		if err != nil {
			t.Fatal(err)
		}
		if err := l.Trigger("u", "x"); err != nil {
			t.Fatal(err)
		}
		cancel()
		synctest.Wait()
		if err := l.Trigger("u", "x"); !errors.Is(err, ErrStopped) {
			t.Errorf("trigger after the context ended: %v, want ErrStopped", err)
		}
		if n := l.Stats()["u.x"].Calls; n != 1 {
			t.Errorf("%d calls, want 1", n)
		}
	})
}
