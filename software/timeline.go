package software

import (
	"fmt"
	"time"

	"github.com/rsbag/rsbag/sensor"
)

// Done returns a channel closed when the current timeline (or, before the
// first start, the next one) has delivered its last frame or was stopped.
func (y *Synthetic) Done() <-chan struct{} {
	y.mu.Lock()
	defer y.mu.Unlock()
	return y.doneCh
}

// sensorStarted starts a timeline when every sensor with opened profiles is
// started and none is running.
func (y *Synthetic) sensorStarted(*Sensor) {
	y.mu.Lock()
	defer y.mu.Unlock()
	if y.closing {
		return
	}
	if y.gen != nil {
		select {
		case <-y.gen.quit:
			<-y.gen.done // stopping: wait, then start a new timeline
		case <-y.gen.done:
		default:
			return // running: the sensor joins it
		}
	}
	opened := 0
	for _, s := range y.softwareSensors() {
		if len(s.OpenProfiles()) == 0 {
			continue
		}
		opened++
		if !s.life.Started() {
			return
		}
	}
	if opened == 0 {
		return
	}
	if y.gen != nil {
		y.doneCh = make(chan struct{}) // the last timeline closes its own
	}
	g := &timeline{quit: make(chan struct{}), done: make(chan struct{})}
	y.gen = g
	go y.run(g, y.doneCh)
}

func (y *Synthetic) sensorStopped(*Sensor) {
	y.mu.Lock()
	defer y.mu.Unlock()
	for _, s := range y.softwareSensors() {
		if s.life.Started() {
			return
		}
	}
	g := y.gen
	if g != nil {
		g.once.Do(func() { close(g.quit) })
	}
}

func (y *Synthetic) closeTimeline() {
	y.mu.Lock()
	y.closing = true
	g := y.gen
	y.mu.Unlock()
	if g != nil {
		g.once.Do(func() { close(g.quit) })
		<-g.done
	}
}

// event kinds at equal stream times, in the order rsgen applies them.
const (
	evStart = iota
	evChange
	evNotify
	evHook
	evPause
)

type event struct {
	ms   float64
	kind int
	seq  int
	do   func()
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

func (y *Synthetic) events() []event {
	var evs []event
	cfg := &y.cfg
	add := func(at float64, kind int, f func()) {
		evs = append(evs, event{ms: at, kind: kind, seq: len(evs), do: f})
	}
	byName := map[string]*Sensor{}
	for _, s := range y.softwareSensors() {
		byName[s.String()] = s
	}
	for name, at := range cfg.SensorStart {
		s := byName[cfg.sensorFor(name)]
		if at > 0 && s != nil {
			add(ms(at), evStart, func() {
				if s.life.Started() {
					s.streaming.Store(true)
				}
			})
		}
	}
	for _, c := range cfg.script.Changes {
		s := byName[cfg.sensorFor(c.Sensor)]
		add(ms(c.At), evChange, func() { _ = s.opts.Update(c.Option, c.Value) })
	}
	for _, n := range cfg.script.Notifications {
		s := byName[cfg.sensorFor(n.Sensor)]
		add(ms(n.At), evNotify, func() {
			s.Notify(sensor.Notification{
				Category: sensor.NotificationCategoryHardwareEvent, Severity: sensor.SeverityInfo,
				Description:    n.Description,
				TimestampMs:    float64(time.Now().UnixNano()) / 1e6,
				SerializedData: fmt.Sprintf(`{"rsgen_t_ms":%d}`, n.At.Milliseconds()),
			})
		})
	}
	for _, h := range cfg.script.Hooks {
		if h.Func != nil {
			add(ms(h.At), evHook, h.Func)
		}
	}
	if cfg.script.PauseAt > 0 && cfg.script.OnPause != nil {
		add(ms(cfg.script.PauseAt), evPause, cfg.script.OnPause)
	}
	if cfg.script.ResumeAt > 0 && cfg.script.OnResume != nil {
		add(ms(cfg.script.ResumeAt), evPause, cfg.script.OnResume)
	}
	// Stable order: time, kind, configuration order.
	for i := 1; i < len(evs); i++ {
		for j := i; j > 0 && evLess(evs[j], evs[j-1]); j-- {
			evs[j], evs[j-1] = evs[j-1], evs[j]
		}
	}
	return evs
}

func evLess(a, b event) bool {
	if a.ms != b.ms {
		return a.ms < b.ms
	}
	if a.kind != b.kind {
		return a.kind < b.kind
	}
	return a.seq < b.seq
}

// tickMs returns the stream time of tick k.
func tickMs(k, fps int) float64 { return float64(k) * 1000.0 / float64(fps) }

func (y *Synthetic) limit(k, fps int) bool {
	if y.cfg.Frames > 0 && k >= y.cfg.Frames {
		return false
	}
	if y.cfg.Duration > 0 && !(tickMs(k, fps) < ms(y.cfg.Duration)) {
		return false
	}
	return true
}

// run is the timeline goroutine.
func (y *Synthetic) run(g *timeline, done chan struct{}) {
	defer close(done)
	defer close(g.done)
	defer y.running.Enter()() // before g.done: the next timeline enters after
	evs := y.events()
	ticks := make([]int, len(y.streams))
	epoch := time.Now()
	flush := func() {
		for _, s := range y.softwareSensors() {
			s.Flush()
		}
	}
	pace := func(t float64) bool {
		if y.cfg.Speed <= 0 {
			select {
			case <-g.quit:
				return false
			default:
				return true
			}
		}
		target := epoch.Add(time.Duration(t / y.cfg.Speed * float64(time.Millisecond)))
		if d := time.Until(target); d > 0 {
			return sleep(d, g.quit)
		}
		select {
		case <-g.quit:
			return false
		default:
			return true
		}
	}
	for {
		// Next frame: smallest tick time, ties in device order.
		best := -1
		var bestMs float64
		for i, st := range y.streams {
			k := ticks[i]
			if !y.limit(k, st.p.FPS) {
				continue
			}
			t := tickMs(k, st.p.FPS)
			if best < 0 || t < bestMs {
				best, bestMs = i, t
			}
		}
		if len(evs) > 0 && (best < 0 || evs[0].ms <= bestMs) {
			if !pace(evs[0].ms) {
				return
			}
			flush()
			evs[0].do()
			evs = evs[1:]
			continue
		}
		if best < 0 {
			flush()
			return
		}
		if !pace(bestMs) {
			return
		}
		st := y.streams[best]
		k := ticks[best]
		ticks[best]++
		if bestMs < st.startMs || !st.s.life.Started() || !st.s.life.Reserved(st.p) {
			continue
		}
		f := y.frame(st, k, bestMs)
		_ = st.s.Inject(f) // a stopped sensor skips its ticks
	}
}

func (y *Synthetic) frameNumber(k int) uint64 {
	n := y.cfg.FirstFrameNumber + uint64(k)
	if y.cfg.GapEvery > 0 {
		n += uint64(k / y.cfg.GapEvery)
	}
	return n
}

// RealTime reports whether the camera paces its frames by the wall clock
// (Speed > 0); at Speed 0 it delivers them as fast as the handlers take
// them, and a recorder keeps the frames' own timing (package record).
func (y *Synthetic) RealTime() bool { return y.cfg.Speed > 0 }
