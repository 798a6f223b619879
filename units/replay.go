package units

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/rsbag/rsbag/internal/jsonl"
	"github.com/rsbag/rsbag/pipeline"
	"github.com/rsbag/rsbag/playback"
	"github.com/rsbag/rsbag/replay"
	"github.com/rsbag/rsbag/rig"
	"github.com/rsbag/rsbag/sensor"
)

// ReplayOptions selects what Replay replays. The zero value (or nil)
// replays the whole bags.
type ReplayOptions struct {
	// Start and End bound the bag times replayed, [Start, End) (End 0: to
	// the end).
	Start, End time.Duration
	// Triggers fire external handlers at bag times.
	Triggers []Trigger
}

// Trigger fires the external handler Unit.Handler at bag time Time, before
// the frames of that time (after the clock ticks of that time).
type Trigger struct {
	Time          time.Duration
	Unit, Handler string
}

// Record is one published output.
type Record struct {
	// Time is the bag time at which it was published, Stamp its stamp.
	Time, Stamp time.Duration
	// Topic, Unit and Handler say where it was published.
	Topic, Unit, Handler string
	// Input describes the inputs of the call that published it.
	Input string
	// Value is its JSON encoding.
	Value json.RawMessage
}

// recordLine is the JSON form of a Record.
type recordLine struct {
	T       int64           `json:"t_ns"`
	Stamp   int64           `json:"stamp_ns"`
	Topic   string          `json:"topic"`
	Unit    string          `json:"unit"`
	Handler string          `json:"handler"`
	Input   string          `json:"input"`
	Value   json.RawMessage `json:"value"`
}

// MarshalJSON encodes r as one object with times in nanoseconds.
func (r Record) MarshalJSON() ([]byte, error) {
	return json.Marshal(recordLine{int64(r.Time), int64(r.Stamp), r.Topic, r.Unit, r.Handler, r.Input, r.Value})
}

// UnmarshalJSON decodes what MarshalJSON encodes.
func (r *Record) UnmarshalJSON(b []byte) error {
	var l recordLine
	if err := json.Unmarshal(b, &l); err != nil {
		return err
	}
	*r = Record{time.Duration(l.T), time.Duration(l.Stamp), l.Topic, l.Unit, l.Handler, l.Input, l.Value}
	return nil
}

// Result is what a deterministic replay produced.
type Result struct {
	Bags []replay.Bag
	// Events counts the recorded messages, framesets, ticks and triggers
	// processed.
	Events int
	// Calls counts the handler calls per handler ("unit.handler").
	Calls map[string]int
	// Outputs are the published outputs, in the order fixed by the graph:
	// by input event, then by handler in the graph's order, then in the
	// order each call published them.
	Outputs []Record
	// Losses lists, per bag, the parts lost to damage: their frames were
	// not replayed.
	Losses [][]playback.Loss
}

// Damaged reports whether a bag lost frames to damage.
func (r *Result) Damaged() bool { return (&replay.Result{Losses: r.Losses}).Damaged() }

// Replay returns the result in the form of package replay's, for golden
// files (replaytest.GoldenResult): each output named by its topic, its
// input prefixed with the unit and handler that published it (the inputs
// name their devices, so Device is empty).
func (r *Result) Replay() *replay.Result {
	out := &replay.Result{Bags: r.Bags, Frames: r.Events, Losses: r.Losses}
	for _, o := range r.Outputs {
		out.Outputs = append(out.Outputs, replay.Output{Time: o.Time, Input: o.Unit + "." + o.Handler + " " + o.Input, Name: o.Topic, Value: o.Value})
	}
	return out
}

// WriteLog writes the outputs as JSON lines: the same replay writes the
// same bytes.
func (r *Result) WriteLog(w io.Writer) error { return WriteRecords(w, r.Outputs) }

// WriteRecords writes outputs as JSON lines, one per output.
func WriteRecords(w io.Writer, rs []Record) error { return jsonl.Write(w, rs) }

// ErrMissingStream reports a recording without a stream the graph needs.
var ErrMissingStream = errors.New("units: the recording lacks a stream the graph needs")

// Replay runs the graph over the bags (one bag, several bags of one
// session, or a session manifest; see rig.Open; an MCAP file of the ros1
// profile that `rs-record export --mcap` wrote counts as the bag it was
// exported from) deterministically: every
// recorded message is processed, and every handler it triggers through the
// graph runs, before bag time moves on; clock ticks and rate handlers run on
// bag time; the handlers' calls, inputs and outputs are a function of the
// recording alone. Units that do not depend on each other run in parallel.
// A handler error or panic stops the replay with that error (the first in
// the graph's order). The camera topics the graph subscribes to must be in
// the recording (unless every subscriber takes them as optional).
func Replay(ctx context.Context, g *Graph, bags []string, opts *ReplayOptions) (*Result, error) {
	if opts == nil {
		opts = &ReplayOptions{}
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	paths, cleanup, err := fromMCAP(bags)
	defer cleanup()
	if err != nil {
		return nil, err
	}
	s, err := rig.Open(paths, &rig.Options{NonRealTime: true, Start: opts.Start, End: opts.End})
	if err != nil {
		return nil, fmt.Errorf("units: %w", err)
	}
	defer s.Close()
	e, err := newEngine(g, s, opts)
	if err != nil {
		return nil, err
	}
	e.start()
	if err := s.Start(e.selected, e.frame); err != nil {
		e.finish()
		return nil, fmt.Errorf("units: %w", err)
	}
	var cancelled, closeErr error
	played := false
	select {
	case <-s.Done():
		played = true
	case <-e.failed:
	case <-ctx.Done():
		cancelled = ctx.Err()
		e.stopped.Store(true)
	}
	if !played { // stop the deliveries before the units end
		closeErr = s.Close()
	}
	if cancelled == nil && e.err() == nil {
		e.tickUntil(e.end())
	}
	e.finish()
	if played { // the units' handlers read the bags to the end (Msg.GroundTruth)
		closeErr = s.Close()
	}
	if cancelled == nil {
		cancelled = ctx.Err() // ended while the units finished
	}
	if cancelled != nil {
		return nil, cancelled
	}
	if err := e.err(); err != nil {
		return nil, err
	}
	if closeErr != nil {
		return nil, fmt.Errorf("units: %w", closeErr)
	}
	if err := s.Err(); err != nil {
		return nil, fmt.Errorf("units: %w", err)
	}
	res := e.result()
	res.Losses = s.Losses()
	for i := range res.Bags {
		if i < len(bags) && paths[i] != bags[i] {
			res.Bags[i].Path = bags[i] // the MCAP file, not its temporary bag
		}
	}
	return res, nil
}

// engine runs a graph over the events of a recording. The dispatcher (the
// session's handler, one call at a time) numbers the events and hands each
// to the units its route reaches; each unit's goroutine handles its events
// in that order and, for each, its handlers in the graph's order, taking
// the outputs of the handlers before them through one channel per edge.
// Every handler therefore sees exactly the messages, in exactly the order,
// of a sequential run, while units work on different events (or on
// different branches of one event) at the same time.
type engine struct {
	g       *Graph
	s       *rig.Session
	devs    []*playback.Device // s.Devices()
	opts    *ReplayOptions
	serials []string
	bags    []replay.Bag

	units  []*unitRun
	routes map[string]*route
	edges  map[[2]int]chan []*Msg
	// sync holds a frameset syncer per device when the graph subscribes
	// to framesets.
	sync []*pipeline.Syncer
	want map[string]bool // camera topics the graph subscribes to

	// clocks: the periods ticking, their next tick; triggers sorted.
	periods  []time.Duration
	next     []time.Duration
	triggers []Trigger
	trig     int
	last     time.Duration
	seq      int

	wg      sync.WaitGroup
	stopped atomic.Bool
	failed  chan struct{}
	mu      sync.Mutex
	first   *failure
}

type failure struct {
	ev, node int
	err      error
}

// unitRun is a unit's goroutine and state.
type unitRun struct {
	e      *engine
	u      *unitNode
	in     chan []event // batches of events
	batch  []event      // events not sent yet (dispatcher-owned)
	states map[*node]*state
	log    []keyed
	calls  map[*node]int
	failed bool
}

type keyed struct {
	ev, node, seq int
	rec           Record
}

// event is one recorded message (or tick, or trigger) to process.
type event struct {
	idx   int
	route *route
	msg   *Msg
}

// route is where an event's source topic leads: per unit, its handlers
// reached (transitively), in the graph's order.
type route struct {
	units []*unitRun
	steps map[*unitRun][]step
}

type step struct {
	n      *node
	direct int // the input subscribed to the source topic, or -1 (or -1 with trigger)
	self   bool
	ins    []chan []*Msg // from the publishers reached, in the graph's order
	outs   []chan []*Msg // to the subscribers reached
}

func newEngine(g *Graph, s *rig.Session, opts *ReplayOptions) (*engine, error) {
	e := &engine{g: g, s: s, opts: opts, serials: s.Serials(), routes: map[string]*route{}, edges: map[[2]int]chan []*Msg{},
		failed: make(chan struct{}), want: map[string]bool{}, devs: s.Devices()}
	have := map[string]bool{}
	var files []string
	for i, d := range e.devs {
		files = append(files, d.Filename())
		e.bags = append(e.bags, replay.Bag{Path: d.Filename(), Serial: e.serials[i], FileVersion: d.FileVersion()})
		have[framesetTopic("")], have[framesetTopic(e.serials[i])] = true, true
		for _, sn := range d.Sensors() {
			for _, p := range sn.Profiles() {
				have[cameraTopic("", p.Stream, p.Index)] = true
				have[cameraTopic(e.serials[i], p.Stream, p.Index)] = true
			}
		}
	}
	var topics []string
	for t := range g.subs {
		topics = append(topics, t)
	}
	sort.Strings(topics)
	periods := map[time.Duration]bool{}
	framesets := false
	for _, t := range topics {
		switch {
		case strings.HasPrefix(t, cameraPrefix):
			if !have[t] && !allOptional(g.subs[t], t) {
				return nil, fmt.Errorf("%w: %s (needed by %s) is not in %s", ErrMissingStream, t, g.subs[t][0], strings.Join(files, ", "))
			}
			e.want[t] = true
			framesets = framesets || strings.HasSuffix(t, "/frameset")
		case strings.HasPrefix(t, clockPrefix):
			p, err := time.ParseDuration(strings.TrimPrefix(t, clockPrefix))
			if err != nil || p <= 0 {
				return nil, fmt.Errorf("%w: clock topic %q (of %s) is not /clock/PERIOD with a period > 0", ErrGraph, t, g.subs[t][0])
			}
			periods[p] = true
		}
	}
	for p := range periods {
		e.periods = append(e.periods, p)
	}
	slices.Sort(e.periods)
	for _, p := range e.periods {
		// Ticks at the multiples of the period from the window's start on.
		k := (opts.Start + p - 1) / p
		e.next = append(e.next, max(k, 1)*p)
	}
	e.triggers = slices.Clone(opts.Triggers)
	sort.SliceStable(e.triggers, func(i, j int) bool { return e.triggers[i].Time < e.triggers[j].Time })
	for _, tr := range e.triggers {
		n := g.node(tr.Unit, tr.Handler)
		if n == nil || n.sync.kind != syncExternal {
			return nil, fmt.Errorf("%w: trigger at %v: %s.%s is not an external handler of the graph", ErrGraph, tr.Time, tr.Unit, tr.Handler)
		}
	}
	if framesets {
		for _, d := range s.Devices() {
			var ps []*sensor.StreamProfile
			for _, sn := range d.Sensors() {
				ps = append(ps, sn.Profiles()...)
			}
			e.sync = append(e.sync, pipeline.NewSyncer(ps, syncQueue))
		}
	}
	for _, u := range g.units {
		ur := &unitRun{e: e, u: u, in: make(chan []event, unitQueue), states: map[*node]*state{}, calls: map[*node]int{}}
		for _, n := range u.nodes {
			ur.states[n] = newState(n)
		}
		e.units = append(e.units, ur)
	}
	return e, nil
}

// Queue depths of the replay: batches of events waiting per unit, batches
// of outputs per edge. They only bound how far the dispatcher runs ahead
// of the units. Events go to a unit in batches (a replay's latency does
// not matter; waking its goroutine for every frame costs more CPU than
// the call). An edge holds more batches than a unit's events can hold
// back (eventBatch), so a unit never waits for one that waits for it.
const (
	unitQueue  = 16
	eventBatch = 64
	edgeQueue  = 256
	// syncQueue bounds the framesets one frame can release: they are
	// taken right after each frame, so none is dropped.
	syncQueue = 64
)

func allOptional(ns []*node, t string) bool {
	for _, n := range ns {
		i := slices.Index(n.topics, t)
		if i < 0 || !n.inputs[i].Optional {
			return false
		}
	}
	return true
}

// node returns the handler unit.handler.
func (g *Graph) node(unit, handler string) *node {
	for _, n := range g.nodes {
		if n.unit.name == unit && n.name == handler {
			return n
		}
	}
	return nil
}

// selected selects the recorded streams the graph uses (all of a device
// whose framesets it uses).
func (e *engine) selected(dev int, p *sensor.StreamProfile) bool {
	if e.sync != nil && (e.want[framesetTopic("")] || e.want[framesetTopic(e.serials[dev])]) {
		return true
	}
	return e.want[cameraTopic("", p.Stream, p.Index)] || e.want[cameraTopic(e.serials[dev], p.Stream, p.Index)]
}

func (e *engine) start() {
	for _, u := range e.units {
		e.wg.Add(1)
		go u.run()
	}
}

// finish lets the units handle every event dispatched and waits for them.
func (e *engine) finish() {
	for _, u := range e.units {
		if len(u.batch) > 0 {
			u.in <- u.batch
		}
		close(u.in)
	}
	e.wg.Wait()
}

func (e *engine) err() error {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.first == nil {
		return nil
	}
	return e.first.err
}

// fail keeps the error first in the graph's order: every event up to the
// failing one is handled by every unit before the replay returns, so the
// error kept is the same on every run.
func (e *engine) fail(ev, node int, err error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.first == nil {
		close(e.failed)
	}
	if e.first == nil || ev < e.first.ev || ev == e.first.ev && node < e.first.node {
		e.first = &failure{ev, node, err}
	}
	e.stopped.Store(true)
}

// end is the bag time up to which the clocks tick after the last frame:
// the last frame of any bag (within the window).
func (e *engine) end() time.Duration {
	end := e.s.Duration() // the last frame of any bag
	if e.opts.End > 0 {
		end = min(end, e.opts.End-1)
	}
	return max(end, e.last)
}

// frame is the session's handler: the dispatcher.
func (e *engine) frame(dev int, t time.Duration, f *sensor.Frame) {
	if e.stopped.Load() {
		return
	}
	e.tickUntil(t)
	e.last = t
	serial := e.serials[dev]
	topic := cameraTopic(serial, f.Profile.Stream, f.Profile.Index)
	e.dispatch(topic, &Msg{Topic: topic, Stamp: stampMs(f.TimestampMs), Time: t, Device: serial, Frame: f, dev: e.devs[dev]})
	if e.sync == nil {
		return
	}
	sy := e.sync[dev]
	sy.HandleFrame(f)
	ft := framesetTopic(serial)
	for {
		fs, ok := sy.PollForFrames()
		if !ok {
			break
		}
		e.dispatch(ft, &Msg{Topic: ft, Stamp: stampMs(fs.At(0).TimestampMs), Time: t, Device: serial, Frameset: fs})
	}
}

// stampMs converts a frame timestamp in milliseconds to a stamp.
func stampMs(ms float64) time.Duration { return time.Duration(math.Round(ms * 1e6)) }

// tickUntil dispatches the clock ticks and triggers due at or before t, in
// time order (ticks of shorter periods first, then triggers).
func (e *engine) tickUntil(t time.Duration) {
	for !e.stopped.Load() {
		best := -1
		for i, d := range e.next {
			if d <= t && (best < 0 || d < e.next[best]) {
				best = i
			}
		}
		trig := e.trig < len(e.triggers) && e.triggers[e.trig].Time <= t && (best < 0 || e.triggers[e.trig].Time < e.next[best])
		switch {
		case trig:
			tr := e.triggers[e.trig]
			e.trig++
			n := e.g.node(tr.Unit, tr.Handler)
			topic := triggerTopic(n)
			e.dispatch(topic, &Msg{Topic: topic, Stamp: tr.Time, Time: tr.Time, Value: tr.Time})
		case best >= 0:
			d := e.next[best]
			e.next[best] += e.periods[best]
			topic := clockTopic(e.periods[best])
			e.dispatch(topic, &Msg{Topic: topic, Stamp: d, Time: d, Value: d})
		default:
			return
		}
	}
}

// dispatch numbers the event and hands it to the units its route reaches.
func (e *engine) dispatch(src string, m *Msg) {
	r := e.route(src)
	if len(r.units) == 0 {
		return
	}
	e.seq++
	ev := event{idx: e.seq, route: r, msg: m}
	for _, u := range r.units {
		u.batch = append(u.batch, ev)
		if len(u.batch) == eventBatch {
			u.in <- u.batch
			u.batch = make([]event, 0, eventBatch)
		}
	}
}

// route returns (and computes once) where the source topic leads.
func (e *engine) route(src string) *route {
	if r, ok := e.routes[src]; ok {
		return r
	}
	g := e.g
	// The topics the source's messages are delivered on.
	names := []string{src}
	if strings.HasPrefix(src, cameraPrefix) {
		names = append(names, anyDevice(src, e.serials))
	}
	reach := map[*node]bool{}
	var direct []*node
	if strings.HasPrefix(src, "/trigger/") {
		for _, n := range g.nodes {
			if triggerTopic(n) == src {
				direct = append(direct, n)
			}
		}
	}
	for _, t := range names {
		direct = append(direct, g.subs[t]...)
	}
	work := slices.Clone(direct)
	for len(work) > 0 {
		n := work[len(work)-1]
		work = work[:len(work)-1]
		if reach[n] {
			continue
		}
		reach[n] = true
		for _, t := range n.outList {
			work = append(work, g.subs[t]...)
		}
	}
	r := &route{steps: map[*unitRun][]step{}}
	for _, n := range g.nodes {
		if !reach[n] {
			continue
		}
		st := step{n: n, direct: -1}
		for _, t := range names {
			if i := slices.Index(n.topics, t); i >= 0 {
				st.direct = i
			}
		}
		st.self = st.direct < 0 && slices.Contains(direct, n)
		var pubs []*node
		for _, t := range n.topics {
			if p := g.pub[t]; p != nil && reach[p] {
				pubs = appendOnce(pubs, p)
			}
		}
		slices.SortFunc(pubs, func(a, b *node) int { return a.index - b.index })
		for _, p := range pubs {
			st.ins = append(st.ins, e.edge(p, n))
		}
		var subs []*node
		for _, t := range n.outList {
			for _, s := range g.subs[t] {
				if reach[s] {
					subs = appendOnce(subs, s)
				}
			}
		}
		for _, s := range subs {
			st.outs = append(st.outs, e.edge(n, s))
		}
		u := e.units[n.unit.index]
		if _, ok := r.steps[u]; !ok {
			r.units = append(r.units, u)
		}
		r.steps[u] = append(r.steps[u], st)
	}
	e.routes[src] = r
	return r
}

// anyDevice returns the device-less form of a device's camera topic.
func anyDevice(topic string, serials []string) string {
	rest := strings.TrimPrefix(topic, cameraPrefix)
	for _, s := range serials {
		if r, ok := strings.CutPrefix(rest, s+"/"); ok {
			return cameraPrefix + r
		}
	}
	return topic
}

func (e *engine) edge(from, to *node) chan []*Msg {
	k := [2]int{from.index, to.index}
	ch, ok := e.edges[k]
	if !ok {
		ch = make(chan []*Msg, edgeQueue)
		e.edges[k] = ch
	}
	return ch
}

// run handles the unit's events in order.
func (u *unitRun) run() {
	defer u.e.wg.Done()
	var c Context
	for evs := range u.in {
		for _, ev := range evs {
			u.handle(&c, ev)
		}
	}
}

// handle runs the unit's handlers that the event reaches, in the graph's
// order.
func (u *unitRun) handle(c *Context, ev event) {
	for _, st := range ev.route.steps[u] {
		var batch []*Msg
		s := u.states[st.n]
		deliver := func(m *Msg) {
			i := -1
			if m != ev.msg || st.direct >= 0 {
				i = slices.Index(st.n.topics, m.Topic)
				if m == ev.msg {
					i = st.direct
				}
				if i < 0 {
					return // a topic of the publisher this handler does not take
				}
			}
			if u.failed {
				return
			}
			for _, in := range s.add(i, m) {
				var tick *Msg
				if i < 0 || st.n.sync.kind == syncRate || st.n.sync.kind == syncExternal {
					tick = m
				}
				if err := st.n.call(c, m.Time, in, tick); err != nil {
					u.failed = true
					u.e.fail(ev.idx, st.n.index, err)
					return
				}
				u.calls[st.n]++
				var desc string
				for _, o := range c.out {
					if desc == "" {
						desc = describe(in)
					}
					u.log = append(u.log, keyed{ev.idx, st.n.index, len(u.log), Record{Time: o.Time, Stamp: o.Stamp, Topic: o.Topic, Unit: u.u.name, Handler: st.n.name, Input: desc, Value: o.raw}})
				}
				batch = append(batch, c.out...)
			}
		}
		if st.direct >= 0 || st.self {
			deliver(ev.msg)
		}
		for _, ch := range st.ins {
			for _, m := range <-ch {
				deliver(m)
			}
		}
		for _, ch := range st.outs {
			ch <- batch
		}
	}
}

func (e *engine) result() *Result {
	res := &Result{Bags: e.bags, Events: e.seq, Calls: map[string]int{}}
	var all []keyed
	for _, u := range e.units {
		all = append(all, u.log...)
		for n, c := range u.calls {
			res.Calls[n.String()] = c
		}
	}
	sort.Slice(all, func(i, j int) bool {
		a, b := all[i], all[j]
		if a.ev != b.ev {
			return a.ev < b.ev
		}
		if a.node != b.node {
			return a.node < b.node
		}
		return a.seq < b.seq
	})
	res.Outputs = make([]Record, len(all))
	for i, k := range all {
		res.Outputs[i] = k.rec
	}
	return res
}
