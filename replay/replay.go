// Package replay runs user code over recordings deterministically, for
// tests: record on the robot, then replay the bag through the processing
// code in CI and compare what it produces with a known-good baseline
// (package replaytest).
//
// Run plays one bag, or several bags of one session (package rig), in
// non-real-time mode and calls the user's handlers directly: one call at a
// time, in bag order (equal bag times in file order, then in the order the
// bags are given), as fast as they return. The handlers get a Context whose
// clock is virtual: it stands at the bag time of the frame being handled,
// and timers and tickers made from it fire in bag time, between the frames
// they fall between. Code that uses time — rate limiters, timeouts, "the
// last 100 ms" windows — therefore behaves as during the recording, and
// identically on every run, whatever the machine's load.
//
// Handlers publish their results through Context.Publish; Run returns them
// with the bag time and the input frame that produced them.
package replay

import (
	"container/heap"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"time"

	"github.com/rsbag/rsbag/internal/jsonl"
	"github.com/rsbag/rsbag/pipeline"
	"github.com/rsbag/rsbag/playback"
	"github.com/rsbag/rsbag/rig"
	"github.com/rsbag/rsbag/sensor"
)

// StreamKey names a stream of a device: its type and index.
type StreamKey struct {
	Stream sensor.Stream
	Index  int
}

func (k StreamKey) String() string { return fmt.Sprintf("%s/%d", k.Stream, k.Index) }

// FrameFunc handles one frame.
type FrameFunc func(*Context, *sensor.Frame) error

// Handlers are the user code a replay drives. For each frame, in this
// order: the handler of its stream, then Frame, then Frameset with each
// frameset the frame completes. A handler that returns an error ends the
// replay: Run returns that error, wrapped with where it happened.
type Handlers struct {
	// Streams holds a handler per stream.
	Streams map[StreamKey]FrameFunc
	// Frame, when set, is called with every frame.
	Frame FrameFunc
	// Frameset, when set, is called with the framesets the pipeline's
	// syncer (one per device) makes of the frames: video frames matched
	// by timestamp, motion and pose frames alone.
	Frameset func(*Context, *pipeline.Frameset) error
}

// Options selects what Run replays. The zero value (or nil) replays every
// stream of the whole bags.
type Options struct {
	// Start and End bound the bag times replayed, [Start, End) (End 0:
	// to the end).
	Start, End time.Duration
	// Streams, when not empty, are the only streams replayed (of every
	// device that has them).
	Streams []StreamKey
}

// Bag describes a replayed bag.
type Bag struct {
	Path        string
	Serial      string
	FileVersion int
}

// Output is one published result.
type Output struct {
	// Time is the bag time at which it was published.
	Time time.Duration
	// Device is the serial number of the device of the input.
	Device string
	// Input describes what was being handled: a frame ("Depth/0 #12"),
	// a frameset ("frameset [Depth/0 #12 Color/0 #12]") or a timer
	// ("timer").
	Input string
	// Name is the name it was published under.
	Name string
	// Value is its JSON encoding; bytes are published as their SHA-256 and
	// size.
	Value json.RawMessage
}

// Result is what a replay produced.
type Result struct {
	Bags []Bag
	// Frames and Framesets count the frames and framesets handled.
	Frames, Framesets int
	// Outputs are the published results, in the order they were published.
	Outputs []Output
	// Losses lists, per bag, the parts lost to damage (see
	// playback.Device.Losses): their frames were not replayed.
	Losses [][]playback.Loss
}

// Damaged reports whether a bag lost frames to damage.
func (r *Result) Damaged() bool {
	for _, l := range r.Losses {
		if len(l) > 0 {
			return true
		}
	}
	return false
}

// outputLine is the JSON form of an Output.
type outputLine struct {
	T      int64           `json:"t_ns"`
	Device string          `json:"device"`
	Input  string          `json:"input"`
	Name   string          `json:"name"`
	Value  json.RawMessage `json:"value"`
}

// MarshalJSON encodes o as one object with the bag time in nanoseconds.
func (o Output) MarshalJSON() ([]byte, error) {
	return json.Marshal(outputLine{int64(o.Time), o.Device, o.Input, o.Name, o.Value})
}

// UnmarshalJSON decodes what MarshalJSON encodes.
func (o *Output) UnmarshalJSON(b []byte) error {
	var l outputLine
	if err := json.Unmarshal(b, &l); err != nil {
		return err
	}
	*o = Output{time.Duration(l.T), l.Device, l.Input, l.Name, l.Value}
	return nil
}

// WriteOutputs writes the outputs as JSON lines, one per output: the same
// replay writes the same bytes.
func (r *Result) WriteOutputs(w io.Writer) error { return jsonl.Write(w, r.Outputs) }

// Run replays the bags (one bag, several bags of one session, or a single
// session manifest; see rig.Open) through h. It returns when the bags
// end, a handler fails, or ctx is done (with ctx's error). A bag whose
// playback stops on a bad message is an error; parts lost to damage are in
// Result.Losses.
func Run(ctx context.Context, bags []string, h Handlers, opts *Options) (*Result, error) {
	if opts == nil {
		opts = &Options{}
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	s, err := rig.Open(bags, &rig.Options{NonRealTime: true, Start: opts.Start, End: opts.End})
	if err != nil {
		return nil, fmt.Errorf("replay: %w", err)
	}
	defer s.Close()
	r := newRunner(s, h, opts)
	var sel func(int, *sensor.StreamProfile) bool
	if len(opts.Streams) > 0 {
		want := map[StreamKey]bool{}
		for _, k := range opts.Streams {
			want[k] = true
		}
		sel = func(_ int, p *sensor.StreamProfile) bool { return want[StreamKey{p.Stream, p.Index}] }
	}
	if err := s.Start(sel, r.handle); err != nil {
		return nil, fmt.Errorf("replay: %w", err)
	}
	select {
	case <-s.Done():
	case <-r.failed:
	case <-ctx.Done():
		s.Close()
		return nil, ctx.Err()
	}
	if err := s.Close(); err != nil {
		return nil, fmt.Errorf("replay: %w", err)
	}
	if r.err == nil {
		r.fire(r.end())
	}
	if r.err != nil {
		return nil, r.err
	}
	if err := s.Err(); err != nil {
		return nil, fmt.Errorf("replay: %w", err)
	}
	res := r.res
	res.Losses = s.Losses()
	return &res, nil
}

// runner is the state of one replay. Its handler calls are serialized by
// the session (non-real-time, one frame at a time), so it takes no lock.
type runner struct {
	s      *rig.Session
	devs   []*playback.Device // s.Devices()
	h      Handlers
	opts   *Options
	ctx    Context
	sync   []*pipeline.Syncer
	timers timerHeap
	seq    uint64
	res    Result
	err    error
	failed chan struct{}
	last   time.Duration
}

func newRunner(s *rig.Session, h Handlers, opts *Options) *runner {
	r := &runner{s: s, h: h, opts: opts, failed: make(chan struct{})}
	r.ctx.r = r
	serials := s.Serials()
	r.devs = s.Devices()
	for i, d := range r.devs {
		r.res.Bags = append(r.res.Bags, Bag{Path: d.Filename(), Serial: serials[i], FileVersion: d.FileVersion()})
		if h.Frameset != nil {
			var ps []*sensor.StreamProfile
			for _, sn := range d.Sensors() {
				ps = append(ps, sn.Profiles()...)
			}
			r.sync = append(r.sync, pipeline.NewSyncer(ps, syncQueue))
		}
	}
	return r
}

// syncQueue bounds the framesets one frame can release: they are taken
// right after each frame, so none is ever dropped.
const syncQueue = 64

// end is the bag time up to which the timers fire after the last frame:
// the last frame of any bag (within the window).
func (r *runner) end() time.Duration {
	end := r.s.Duration() // the last frame of any bag
	if r.opts.End > 0 {
		end = min(end, r.opts.End-1)
	}
	return max(end, r.last)
}

func (r *runner) fail(err error) {
	if r.err == nil {
		r.err = err
		close(r.failed)
	}
}

func (r *runner) handle(dev int, t time.Duration, f *sensor.Frame) {
	if r.err != nil {
		return
	}
	r.fire(t)
	if r.err != nil {
		return
	}
	r.last = t
	c := &r.ctx
	c.now, c.dev, c.frame, c.fs = t, dev, f, nil
	r.res.Frames++
	key := StreamKey{f.Profile.Stream, f.Profile.Index}
	if fn := r.h.Streams[key]; fn != nil {
		if err := fn(c, f); err != nil {
			r.fail(c.wrap(err))
			return
		}
	}
	if r.h.Frame != nil {
		if err := r.h.Frame(c, f); err != nil {
			r.fail(c.wrap(err))
			return
		}
	}
	if r.sync == nil {
		return
	}
	sy := r.sync[dev]
	sy.HandleFrame(f)
	for {
		fs, ok := sy.PollForFrames()
		if !ok {
			break
		}
		r.res.Framesets++
		c.fs = fs
		if err := r.h.Frameset(c, fs); err != nil {
			r.fail(c.wrap(err))
			return
		}
	}
}

// fire runs the timers due at or before t, in due order.
func (r *runner) fire(t time.Duration) {
	for len(r.timers) > 0 && r.timers[0].due <= t && r.err == nil {
		tm := heap.Pop(&r.timers).(*Timer)
		tm.queued = false
		if tm.stopped {
			continue
		}
		c := &r.ctx
		c.now, c.frame, c.fs, c.timer = tm.due, nil, nil, true
		err := tm.f(c)
		c.timer = false
		if err != nil {
			r.fail(c.wrap(err))
			return
		}
		if tm.period > 0 && !tm.stopped {
			tm.due += tm.period
			r.schedule(tm)
		}
	}
}

func (r *runner) schedule(tm *Timer) {
	r.seq++
	tm.seq, tm.queued = r.seq, true
	heap.Push(&r.timers, tm)
}

// Context is what a handler gets: the virtual clock, the input being
// handled and the output sink. It is valid only during the call.
type Context struct {
	r     *runner
	now   time.Duration
	dev   int
	frame *sensor.Frame
	fs    *pipeline.Frameset
	timer bool
}

// BagTime returns the current bag time: that of the frame being handled,
// or the due time of the timer that fires.
func (c *Context) BagTime() time.Duration { return c.now }

// Now returns the virtual time: the Unix epoch plus the bag time, the same
// on every run.
func (c *Context) Now() time.Time { return time.Unix(0, int64(c.now)).UTC() }

// Since returns the virtual time elapsed since t.
func (c *Context) Since(t time.Time) time.Duration { return c.Now().Sub(t) }

// Device returns the serial number of the device whose frame is handled.
func (c *Context) Device() string { return c.r.res.Bags[c.dev].Serial }

// GroundTruth returns the ground truth that the bag of a synthetic
// recording (rs-record record --ground-truth) holds for the frame being
// handled: its stream's pose in the filmed scene and, for depth, the exact
// depth (playback.Device.GroundTruth). The error wraps
// playback.ErrNoGroundTruth when the bag holds none for it, or when a
// timer fires.
func (c *Context) GroundTruth() (playback.GroundTruth, error) {
	if c.timer || c.frame == nil {
		return playback.GroundTruth{}, fmt.Errorf("replay: ground truth of a timer: %w", playback.ErrNoGroundTruth)
	}
	return c.r.devs[c.dev].GroundTruth(c.frame, c.now)
}

// input describes what is being handled.
func (c *Context) input() string {
	switch {
	case c.timer:
		return "timer"
	case c.fs != nil:
		return "frameset " + c.fs.String()
	case c.frame != nil:
		return c.frame.Profile.Name() + " #" + strconv.FormatUint(c.frame.Number, 10)
	}
	return ""
}

func (c *Context) wrap(err error) error {
	return fmt.Errorf("replay: %s at bag time %v, %s: %w", c.r.res.Bags[c.dev].Path, c.now, c.input(), err)
}

// Publish records v, encoded as JSON, under name. Values that JSON cannot
// encode (NaN, infinities, channels ...) are an error.
func (c *Context) Publish(name string, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("publish %q: %w", name, err)
	}
	c.add(name, b)
	return nil
}

// PublishBytes records b under name as its SHA-256 and size.
func (c *Context) PublishBytes(name string, b []byte) {
	sum := sha256.Sum256(b)
	c.add(name, []byte(`{"sha256":"`+hex.EncodeToString(sum[:])+`","size":`+strconv.Itoa(len(b))+`}`))
}

func (c *Context) add(name string, v []byte) {
	c.r.res.Outputs = append(c.r.res.Outputs, Output{Time: c.now, Device: c.Device(), Input: c.input(), Name: name, Value: v})
}

// ErrBadPeriod reports a timer period or delay that is not positive.
var ErrBadPeriod = errors.New("replay: timer interval must be > 0")

// AfterFunc calls f once, when the bag time reaches now + d (d ≥ 0): before
// the first frame at or after that time, or after the last frame if the
// bags end before it but not before that time.
func (c *Context) AfterFunc(d time.Duration, f func(*Context) error) *Timer {
	tm := &Timer{r: c.r, due: c.now + max(d, 0), f: f}
	c.r.schedule(tm)
	return tm
}

// Every calls f every period of bag time (period > 0), the first time at
// now + period, until the timer is stopped or the bags end.
func (c *Context) Every(period time.Duration, f func(*Context) error) (*Timer, error) {
	if period <= 0 {
		return nil, fmt.Errorf("%w: every %v", ErrBadPeriod, period)
	}
	tm := &Timer{r: c.r, due: c.now + period, period: period, f: f}
	c.r.schedule(tm)
	return tm, nil
}

// Timer is a timer or ticker of the virtual clock.
type Timer struct {
	r       *runner
	due     time.Duration
	period  time.Duration
	seq     uint64
	f       func(*Context) error
	stopped bool
	queued  bool
}

// Stop stops the timer; it reports whether the timer was still to fire.
func (t *Timer) Stop() bool {
	was := !t.stopped && t.queued
	t.stopped = true
	return was
}

// timerHeap orders timers by due time, then by creation.
type timerHeap []*Timer

func (h timerHeap) Len() int { return len(h) }
func (h timerHeap) Less(i, j int) bool {
	return h[i].due < h[j].due || h[i].due == h[j].due && h[i].seq < h[j].seq
}
func (h timerHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *timerHeap) Push(x any)   { *h = append(*h, x.(*Timer)) }
func (h *timerHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	old[len(old)-1] = nil
	*h = old[:len(old)-1]
	return x
}
