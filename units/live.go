package units

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/rsbag/rsbag/device"
	"github.com/rsbag/rsbag/pipeline"
	"github.com/rsbag/rsbag/record"
	"github.com/rsbag/rsbag/sensor"
)

// defaultQueueSize is the depth of a unit's input queue live when
// LiveOptions.QueueSize is 0: a second of a 30 fps stream and some.
const defaultQueueSize = 64

// LiveOptions configures Start. The zero value (or nil) is usable.
type LiveOptions struct {
	// QueueSize bounds each unit's input queue; a message for a unit whose
	// queue is full is dropped and counted on the handler it was for
	// (HandlerStats.Dropped). 0 means 64.
	QueueSize int
	// OnError, when set, is called (from the unit's goroutine) with every
	// handler error or panic; the unit keeps running. Errors are also
	// counted (HandlerStats.Errors) and the first is kept (Live.Err).
	OnError func(error)
	// OnOutput, when set, is called (from the publishing unit's goroutine)
	// with every output published, in the order each unit publishes them.
	OnOutput func(Record)
	// Record, when set, records every output into this recorder's bag
	// (on BagTopic(topic), as rsbag_units/Output messages with the topic's schema
	// version), beside the camera streams when the recorder is also one
	// of the devices run. The recorder's caller closes it after Stop.
	Record *record.Device
}

// HandlerStats counts what happened to one handler live.
type HandlerStats struct {
	// Calls counts its calls.
	Calls uint64
	// Dropped counts the messages for it dropped because its unit's queue
	// was full.
	Dropped uint64
	// Errors counts its calls that failed (an error or a panic).
	Errors uint64
}

// Live runs a graph from live devices: cameras, the synthetic camera,
// several cameras of a rig, or real-time playback. Each unit has a
// goroutine and a bounded queue: its handlers run one at a time, units run
// concurrently, and a slow unit drops (counted) instead of stalling the
// camera or the other units. Rate handlers tick on the wall clock.
type Live struct {
	g       *Graph
	opts    LiveOptions
	start   time.Time
	units   []*liveUnit
	stats   map[*node]*liveStats
	sensors []sensor.Sensor
	syncers []*pipeline.Syncer // per device, when framesets are used
	serials []string

	pending sync.WaitGroup // messages queued or being handled
	done    chan struct{}
	wg      sync.WaitGroup
	tickers []*time.Ticker
	stopped atomic.Bool
	stopMu  sync.Mutex
	// srcMu orders the clocks' and triggers' messages before Stop's drain.
	srcMu sync.RWMutex

	errMu sync.Mutex
	err   error
}

type liveStats struct{ calls, dropped, errors atomic.Uint64 }

type liveUnit struct {
	l      *Live
	u      *unitNode
	q      chan liveItem
	states map[*node]*state
}

type liveItem struct {
	n   *node
	i   int // input index, -1 for the handler's clock or trigger
	msg *Msg
}

// ErrStopped is returned by the controls of a stopped Live.
var ErrStopped = errors.New("units: live run stopped")

// Start runs the graph live from devs (their serial numbers name their
// camera topics): it opens and starts, on each device, the streams the
// graph subscribes to (every stream of a device whose framesets it uses)
// and returns. A camera topic no device has is an error before anything
// starts (unless every subscriber takes it as optional). Stop ends the
// run; ctx's end stops it too.
func Start(ctx context.Context, g *Graph, devs []device.Device, opts *LiveOptions) (*Live, error) {
	l := &Live{g: g, stats: map[*node]*liveStats{}, done: make(chan struct{})}
	if opts != nil {
		l.opts = *opts
	}
	if l.opts.QueueSize <= 0 {
		l.opts.QueueSize = defaultQueueSize
	}
	for _, n := range g.nodes {
		l.stats[n] = &liveStats{}
	}
	have := map[string]bool{}
	for _, d := range devs {
		serial := d.Info()[sensor.CameraInfoSerialNumber]
		l.serials = append(l.serials, serial)
		have[framesetTopic("")], have[framesetTopic(serial)] = true, true
		for _, sn := range d.Sensors() {
			for _, p := range sn.Profiles() {
				have[cameraTopic("", p.Stream, p.Index)], have[cameraTopic(serial, p.Stream, p.Index)] = true, true
			}
		}
	}
	var periods []time.Duration
	var topics []string
	for t := range g.subs {
		topics = append(topics, t)
	}
	sort.Strings(topics)
	for _, t := range topics {
		switch {
		case strings.HasPrefix(t, cameraPrefix):
			if !have[t] && !allOptional(g.subs[t], t) {
				return nil, fmt.Errorf("%w: %s (needed by %s) is on none of the %d devices %v", ErrMissingStream, t, g.subs[t][0], len(devs), l.serials)
			}
		case strings.HasPrefix(t, clockPrefix):
			p, err := time.ParseDuration(strings.TrimPrefix(t, clockPrefix))
			if err != nil || p <= 0 {
				return nil, fmt.Errorf("%w: clock topic %q (of %s) is not /clock/PERIOD with a period > 0", ErrGraph, t, g.subs[t][0])
			}
			periods = append(periods, p)
		}
	}
	for _, u := range g.units {
		lu := &liveUnit{l: l, u: u, q: make(chan liveItem, l.opts.QueueSize), states: map[*node]*state{}}
		for _, n := range u.nodes {
			lu.states[n] = newState(n)
		}
		l.units = append(l.units, lu)
	}
	l.start = time.Now()
	for _, lu := range l.units {
		l.wg.Add(1)
		go lu.run()
	}
	for _, p := range periods {
		tk := time.NewTicker(p)
		l.tickers = append(l.tickers, tk)
		topic := clockTopic(p)
		l.wg.Add(1)
		go func() {
			defer l.wg.Done()
			for {
				select {
				case <-tk.C:
					l.srcMu.RLock()
					if !l.stopped.Load() {
						now := l.now()
						l.route(&Msg{Topic: topic, Stamp: now, Time: now, Value: now}, topic)
					}
					l.srcMu.RUnlock()
				case <-l.done:
					return
				}
			}
		}()
	}
	for di, d := range devs {
		if err := l.startDevice(di, d); err != nil {
			l.Stop()
			return nil, err
		}
	}
	if ctx.Done() != nil {
		go func() {
			select {
			case <-ctx.Done():
				l.Stop()
			case <-l.done:
			}
		}()
	}
	return l, nil
}

func (l *Live) now() time.Duration { return time.Since(l.start) }

func (l *Live) startDevice(di int, d device.Device) error {
	serial := l.serials[di]
	all := l.g.subs[framesetTopic("")] != nil || l.g.subs[framesetTopic(serial)] != nil
	var sy *pipeline.Syncer
	if all {
		var ps []*sensor.StreamProfile
		for _, sn := range d.Sensors() {
			ps = append(ps, sn.Profiles()...)
		}
		sy = pipeline.NewSyncer(ps, syncQueue)
		l.syncers = append(l.syncers, sy)
	}
	ft := framesetTopic(serial)
	for _, sn := range d.Sensors() {
		var ps []*sensor.StreamProfile
		for _, p := range sn.Profiles() {
			if all || l.g.subs[cameraTopic("", p.Stream, p.Index)] != nil || l.g.subs[cameraTopic(serial, p.Stream, p.Index)] != nil {
				if !slices.ContainsFunc(ps, func(q *sensor.StreamProfile) bool { return q.Stream == p.Stream && q.Index == p.Index }) {
					ps = append(ps, p)
				}
			}
		}
		if len(ps) == 0 {
			continue
		}
		if err := sn.Open(pickDefaults(sn, ps)...); err != nil {
			return fmt.Errorf("units: device %s: open %s: %w", serial, sn.Info()[sensor.CameraInfoName], err)
		}
		l.sensors = append(l.sensors, sn)
		// Every frame delivered until Stop has stopped the sensor is
		// handled: a recorder among the devices recorded it.
		err := sn.Start(sensor.HandlerFunc(func(f *sensor.Frame) {
			now := l.now()
			topic := cameraTopic(serial, f.Profile.Stream, f.Profile.Index)
			l.route(&Msg{Topic: topic, Stamp: stampMs(f.TimestampMs), Time: now, Device: serial, Frame: f}, topic, anyDevice(topic, l.serials))
			if sy == nil {
				return
			}
			sy.HandleFrame(f)
			for {
				fs, ok := sy.PollForFrames()
				if !ok {
					return
				}
				l.route(&Msg{Topic: ft, Stamp: stampMs(fs.At(0).TimestampMs), Time: now, Device: serial, Frameset: fs}, ft, framesetTopic(""))
			}
		}))
		if err != nil {
			return fmt.Errorf("units: device %s: start %s: %w", serial, sn.Info()[sensor.CameraInfoName], err)
		}
	}
	return nil
}

// pickDefaults keeps, per stream, the default profile among ps (the first
// when none is marked default).
func pickDefaults(sn sensor.Sensor, ps []*sensor.StreamProfile) []*sensor.StreamProfile {
	var out []*sensor.StreamProfile
	for _, p := range ps {
		best := p
		for _, q := range sn.Profiles() {
			if q.Stream == p.Stream && q.Index == p.Index && q.Default {
				best = q
				break
			}
		}
		out = append(out, best)
	}
	return out
}

// route queues m for the subscribers of its topics; a full queue drops it
// for that subscriber.
func (l *Live) route(m *Msg, topics ...string) {
	for _, t := range topics {
		for _, n := range l.g.subs[t] {
			i := slices.Index(n.topics, t)
			l.enqueue(n, i, m)
		}
	}
}

func (l *Live) enqueue(n *node, i int, m *Msg) {
	l.pending.Add(1)
	select {
	case l.units[n.unit.index].q <- liveItem{n, i, m}:
	default:
		l.pending.Done()
		l.stats[n].dropped.Add(1)
	}
}

// Trigger fires the external handler unit.handler.
func (l *Live) Trigger(unit, handler string) error {
	n := l.g.node(unit, handler)
	if n == nil || n.sync.kind != syncExternal {
		return fmt.Errorf("%w: %s.%s is not an external handler of the graph", ErrGraph, unit, handler)
	}
	l.srcMu.RLock()
	defer l.srcMu.RUnlock()
	if l.stopped.Load() {
		return ErrStopped
	}
	now := l.now()
	l.enqueue(n, -1, &Msg{Topic: triggerTopic(n), Stamp: now, Time: now, Value: now})
	return nil
}

func (lu *liveUnit) run() {
	l := lu.l
	defer l.wg.Done()
	var c Context
	for {
		select {
		case it := <-lu.q:
			lu.handle(&c, it)
			l.pending.Done()
		case <-l.done:
			return
		}
	}
}

func (lu *liveUnit) handle(c *Context, it liveItem) {
	for _, in := range lu.states[it.n].add(it.i, it.msg) {
		lu.call(c, it, in)
	}
}

// call runs a handler call, then records and routes its outputs.
func (lu *liveUnit) call(c *Context, it liveItem, in []*Msg) {
	l := lu.l
	n := it.n
	var tick *Msg
	if it.i < 0 || n.sync.kind == syncRate || n.sync.kind == syncExternal {
		tick = it.msg
	}
	st := l.stats[n]
	st.calls.Add(1)
	if err := n.call(c, l.now(), in, tick); err != nil {
		st.errors.Add(1)
		l.report(err)
		return
	}
	var desc string
	for _, o := range c.out {
		if desc == "" && (l.opts.OnOutput != nil || l.opts.Record != nil) {
			desc = describe(in)
		}
		if l.opts.OnOutput != nil {
			l.opts.OnOutput(Record{Time: o.Time, Stamp: o.Stamp, Topic: o.Topic, Unit: lu.u.name, Handler: n.name, Input: desc, Value: o.raw})
		}
		if l.opts.Record != nil {
			m := &outputMsg{Version: uint32(l.g.specs[o.Topic].version), StampNs: int64(o.Stamp), Unit: lu.u.name, Handler: n.name, Input: desc, Value: string(o.raw)}
			if err := l.opts.Record.WriteMessage(BagTopic(o.Topic), m); err != nil {
				l.report(fmt.Errorf("units: recording %s of %s: %w", o.Topic, n, err))
			}
		}
		l.route(o, o.Topic)
	}
}

// report keeps the first error and hands every error to OnError.
func (l *Live) report(err error) {
	l.errMu.Lock()
	if l.err == nil {
		l.err = err
	}
	l.errMu.Unlock()
	if l.opts.OnError != nil {
		l.opts.OnError(err)
	}
}

// Stats returns the counts per handler ("unit.handler").
func (l *Live) Stats() map[string]HandlerStats {
	m := make(map[string]HandlerStats, len(l.stats))
	for n, s := range l.stats {
		m[n.String()] = HandlerStats{Calls: s.calls.Load(), Dropped: s.dropped.Load(), Errors: s.errors.Load()}
	}
	return m
}

// Err returns the first handler error or panic, or nil.
func (l *Live) Err() error {
	l.errMu.Lock()
	defer l.errMu.Unlock()
	return l.err
}

// Stop stops the devices' streams and the clocks, lets the units handle
// what their queues hold (and what that publishes), and stops them. It
// returns the first handler error, as Err. It may be called more than
// once, but not from a handler (it waits for the handlers).
func (l *Live) Stop() error {
	l.stopMu.Lock()
	defer l.stopMu.Unlock()
	l.srcMu.Lock()
	was := l.stopped.Swap(true)
	l.srcMu.Unlock()
	if was {
		return l.Err()
	}
	var errs []error
	for _, sn := range l.sensors {
		if err := sn.Stop(); err != nil {
			errs = append(errs, err)
		}
	}
	for _, sn := range l.sensors {
		sn.Close()
	}
	for _, tk := range l.tickers {
		tk.Stop()
	}
	for _, sy := range l.syncers {
		sy.Stop()
	}
	l.pending.Wait()
	close(l.done)
	l.wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("units: stop: %w", err)
	}
	return l.Err()
}
