package playback

import (
	"fmt"
	"slices"
	"time"

	"github.com/rsbag/rsbag/extensions"
	"github.com/rsbag/rsbag/internal/sensorrt"
	"github.com/rsbag/rsbag/rosbag"
	"github.com/rsbag/rsbag/sensor"
)

func (d *Device) setStatus(s extensions.PlaybackStatus) {
	d.status.Store(int32(s))
	d.ev.post(func() {
		d.statusMu.Lock()
		f := d.statusCb
		d.statusMu.Unlock()
		if f != nil {
			f(s)
		}
		if s == extensions.StatusStopped {
			d.releaseStopWaiters()
		}
	})
}

// releaseStopWaiters closes the channels PlayAll returned.
func (d *Device) releaseStopWaiters() {
	d.statusMu.Lock()
	ws := d.stopWait
	d.stopWait = nil
	d.statusMu.Unlock()
	for _, w := range ws {
		close(w)
	}
}

// playing reports whether the reader reads: some sensor is started, the
// device is not paused and, in non-real-time mode, every opened sensor is
// started (the device waits for all opened sensors to start, so that
// playback is lossless from its first frame).
func (d *Device) playing() bool {
	if d.rs.active == 0 || d.rs.paused {
		return false
	}
	if !d.rs.realTime {
		for _, s := range d.sensors {
			if s.life.IsOpen() && !s.life.Started() {
				return false
			}
		}
	}
	return true
}

func (d *Device) run() {
	defer close(d.readerExited)
	defer d.shutdown()
	defer d.pace.stop()
	for {
		d.starts.runQueued()
		if !d.playing() {
			if _, closed := d.serve(nil); closed {
				return
			}
			continue
		}
		// Serve a pending request, if any, before reading on.
		if ticked, closed := d.serve(ready); closed {
			return
		} else if !ticked {
			continue
		}
		if d.rs.group == nil {
			g, err := d.readGroup()
			if err != nil {
				d.stopAtEnd(err)
				continue
			}
			d.unpicture(g)
			if g != nil && d.end > 0 && g.t >= d.end {
				g = nil // Options.End: the end of the file
				d.rs.reposition, d.rs.pending = true, nil
			}
			if g == nil {
				if d.repeat {
					d.invalidate()
					d.rs.next, d.rs.baseSet = d.start, false
					d.position.Store(d.startPos())
					continue
				}
				d.stopAtEnd(nil)
				continue
			}
			d.rs.group = g
		}
		// A Start that returned before the group is handed out applies to
		// it, and real time begins after the starts queued so far (the
		// base below), as librealsense's playback takes its base time when
		// it reads its first frame, on its reader thread, after the
		// starts queued there (playback_device::try_looping,
		// update_time_base).
		if d.starts.runQueued() {
			continue
		}
		if d.rs.realTime && d.rs.group.hasFrame {
			now := time.Now()
			if !d.rs.baseSet {
				d.rs.base, d.rs.baseBag, d.rs.baseSet = now, d.rs.group.t, true
			}
			var due time.Time
			if d.rs.group.t > d.rs.baseBag {
				due = d.rs.base.Add(time.Duration(float64(d.rs.group.t-d.rs.baseBag) / d.rs.speed))
			} else {
				due = d.rs.base
			}
			if wait := due.Sub(now); wait > 0 {
				if coarse := wait - margin; coarse > 0 {
					ticked, closed := d.serve(d.pace.after(coarse))
					if closed {
						return
					}
					if !ticked {
						continue
					}
				}
				d.pace.until(due)
			}
		}
		// A Start that returned while the group was paced applies to it.
		if d.starts.runQueued() {
			continue
		}
		if !d.dispatchGroup(d.rs.group, false) {
			return
		}
	}
}

// shutdown stops every worker and the bag iterator when the device
// closes.
func (d *Device) shutdown() {
	if d.rs.it != nil {
		d.rs.it.Close()
		d.rs.it = nil
	}
	for _, s := range d.sensors {
		_ = s.life.Shutdown(func() error { s.stopWorkers(false); return nil }, nil)
	}
	if d.rs.active > 0 {
		d.rs.active = 0
		d.setStatus(extensions.StatusStopped)
	}
}

// invalidate drops the iterator and anything read ahead; reading restarts at
// rs.next (or at the undelivered group).
func (d *Device) invalidate() {
	d.rs.reposition = true
	d.rs.pending = nil
	if g := d.rs.group; g != nil {
		if g.cursor == 0 {
			d.rs.next = g.t
			d.rs.group = nil
		} else {
			// Partly delivered (a handler paused): its remaining items
			// are delivered, and reading goes on after it.
			d.rs.next = g.t + 1
		}
	}
}

func (d *Device) queryConns() []uint32 {
	var conns []uint32
	for _, s := range d.sensors {
		for _, st := range s.opened {
			conns = append(conns, st.conns...)
		}
	}
	if len(conns) == 0 {
		return nil
	}
	conns = append(conns, d.optConns...)
	return append(conns, d.ntfConns...)
}

// flushAll drops the frames queued for every started stream.
func (d *Device) flushAll() {
	for _, s := range d.sensors {
		for _, st := range s.opened {
			if st.w != nil {
				st.w.Flush()
			}
		}
	}
}

func (d *Device) openSensor(s *bagSensor, profiles []*sensor.StreamProfile, sel []*stream) error {
	return s.life.Open(nil, profiles, func() error {
		s.opened = sel
		d.invalidate()
		return nil
	})
}

func (d *Device) closeSensor(s *bagSensor) error {
	return s.life.Close(func() error { d.stopStreams(s, false); return nil }, func() {
		s.opened = nil
		d.invalidate()
	})
}

func (d *Device) startSensor(s *bagSensor, h sensor.Handler) error {
	return s.life.Start(h, func([]*sensor.StreamProfile) error { d.startStreams(s, h); return nil })
}

// startStreams is a sensor's start step: a worker per opened stream; the
// device plays from its first started sensor.
func (d *Device) startStreams(s *bagSensor, h sensor.Handler) {
	for _, st := range s.opened {
		st.w = sensorrt.Start(h, &d.handlers, sensorrt.PeriodOf(st.profile), &st.Counters)
	}
	d.rs.active++
	if d.rs.active == 1 {
		d.lastErr.Store(nil)
		if d.rs.startAt != 0 {
			d.invalidate()
			d.rs.next, d.rs.startAt = d.rs.startAt, 0
		}
		d.rs.baseSet = false
		if d.rs.paused {
			d.status.Store(int32(extensions.StatusPaused))
		} else {
			d.setStatus(extensions.StatusPlaying)
		}
	}
}

// stopSensor stops s if it is started (delivering the queued frames first
// when drain is set).
func (d *Device) stopSensor(s *bagSensor, drain bool) {
	_ = s.life.Stop(func() error { d.stopStreams(s, drain); return nil })
}

// stopStreams is a sensor's stop step: its workers end (delivering their
// queued frames first when drain is set); the device stops with its last
// sensor.
func (d *Device) stopStreams(s *bagSensor, drain bool) {
	s.stopWorkers(drain)
	d.rs.active--
	if d.rs.active == 0 {
		d.stopDevice()
	}
}

// startPos is the position of Options.Start: 0 at the start of the file.
func (d *Device) startPos() int64 {
	if d.start <= samplesFrom {
		return 0
	}
	return bagNs(d.start)
}

// stopDevice rewinds: position 0, Stopped.
func (d *Device) stopDevice() {
	d.rs.reposition, d.rs.pending, d.rs.group = true, nil, nil
	d.rs.next, d.rs.startAt, d.rs.baseSet = d.start, 0, false
	d.position.Store(d.startPos())
	d.resetOptions(staticTime)
	d.setStatus(extensions.StatusStopped)
}

// stopAtEnd handles the end of the file or a read error (P.38): queued
// frames are delivered, every sensor stops (stays open), Stopped.
func (d *Device) stopAtEnd(err error) {
	d.starts.runQueued() // the end comes after them
	if err != nil {
		d.lastErr.Store(&err)
		n := sensor.Notification{Category: sensor.NotificationCategoryUnknownError, Severity: sensor.SeverityError,
			Description: err.Error()}
		for _, s := range d.sensors {
			if s.life.Started() {
				d.ev.post(func() { s.raiseNotification(n) })
			}
		}
	}
	for _, s := range d.sensors {
		d.stopSensor(s, true)
	}
}

func (d *Device) resetOptions(t rosbag.Time) {
	for _, s := range d.sensors {
		for _, o := range s.options {
			v := o.desc.ValueAt(t)
			if v != o.value() {
				o.set(v)
				s, c := s, extensions.OptionChange{Option: o.desc.Opt, Value: v}
				d.ev.post(func() { s.raiseOptionChange(c) })
			}
		}
	}
}

func (d *Device) seek(target rosbag.Time) error {
	d.flushAll()
	d.invalidate()
	d.rs.group, d.rs.pictured = nil, nil
	t := max(target, samplesFrom)
	d.rs.next, d.rs.baseSet = t, false
	if d.rs.active == 0 {
		d.rs.startAt = t
	}
	d.resetOptions(t)
	var err error
	if d.rs.paused && d.rs.active > 0 {
		err = d.picture(t)
	}
	// The position is the target, also for 0 (P.26, P.33), once the
	// picture is delivered.
	d.position.Store(int64(target))
	return err
}

// picture delivers, for every started video and motion stream, its last
// frame at or before t — the "current picture" a viewer shows after a seek
// while paused (P.35) — and returns once their handlers have returned.
// Reading on skips those of them that are at exactly t. While a frame's
// handler runs, Position is that frame's bag time.
func (d *Device) picture(t rosbag.Time) error {
	var want []*stream
	for _, s := range d.sensors {
		if !s.life.Started() {
			continue
		}
		for _, st := range s.opened {
			if st.w != nil && (st.profile.Kind == sensor.KindVideo || st.profile.Kind == sensor.KindMotion) {
				want = append(want, st)
			}
		}
	}
	// Each stream's latest frame time at or before t, from the index.
	var conns []uint32
	for _, st := range want {
		conns = append(conns, st.data...)
	}
	latest, err := d.bag.Latest(&rosbag.Query{Connections: conns, Start: samplesFrom, End: t + 1, SkipCorrupt: true})
	if err != nil {
		return fmt.Errorf("playback: %s: finding the frames at %v: %w", d.path, t, err)
	}
	at := map[*stream]rosbag.Time{}
	for id, tm := range latest {
		if st := d.routes[id].st; tm > at[st] {
			at[st] = tm
		}
	}
	// Read each bag time that holds a picture with every message of those
	// streams (metadata included), as the reader assembles frames.
	byTime := map[rosbag.Time][]*stream{}
	var times []rosbag.Time
	for _, st := range want {
		if tp, ok := at[st]; ok {
			if byTime[tp] == nil {
				times = append(times, tp)
			}
			byTime[tp] = append(byTime[tp], st)
		}
	}
	slices.Sort(times)
	d.rs.pictured, d.rs.pictureT = map[*stream]bool{}, t
	for _, tp := range times {
		var conns []uint32
		for _, st := range byTime[tp] {
			conns = append(conns, st.conns...)
		}
		g := &group{t: tp}
		it := d.bag.Messages(&rosbag.Query{Connections: conns, Start: tp, End: tp + 1, KeepData: true, SkipCorrupt: true})
		for it.Next() {
			m := it.Message()
			if err := d.addMessage(g, &m); err != nil {
				it.Close()
				return err
			}
		}
		err := it.Err()
		it.Close()
		if err != nil {
			return fmt.Errorf("playback: %s: reading the frames at %v: %w", d.path, tp, err)
		}
		g.finishAll()
		for _, item := range g.items {
			if item.f == nil || item.st.w == nil || !slices.Contains(byTime[tp], item.st) {
				continue
			}
			if tp == t {
				d.rs.pictured[item.st] = true
			}
			d.position.Store(bagNs(tp))
			if !item.st.w.Deliver(item.f, d.done) {
				return ErrClosed
			}
		}
	}
	return nil
}

// unpicture drops from g the frames already delivered as the current
// picture of a seek while paused.
func (d *Device) unpicture(g *group) {
	if g == nil || d.rs.pictured == nil {
		return
	}
	if g.t > d.rs.pictureT {
		d.rs.pictured = nil
		return
	}
	if g.t < d.rs.pictureT {
		return
	}
	g.items = slices.DeleteFunc(g.items, func(it gitem) bool { return it.f != nil && d.rs.pictured[it.st] })
}

func (d *Device) pause() {
	if d.rs.paused {
		return
	}
	d.rs.paused = true
	d.flushAll()
	if d.rs.active > 0 {
		d.setStatus(extensions.StatusPaused)
	} else {
		// P.25: raised even when stopped; the status stays Stopped.
		d.ev.post(func() {
			d.statusMu.Lock()
			f := d.statusCb
			d.statusMu.Unlock()
			if f != nil {
				f(extensions.StatusPaused)
			}
		})
	}
}

func (d *Device) resume() {
	if !d.rs.paused {
		return
	}
	d.rs.paused = false
	d.rs.baseSet = false
	if d.rs.active > 0 {
		d.setStatus(extensions.StatusPlaying)
	}
}

func (d *Device) step() error {
	if !d.rs.paused || d.rs.active == 0 {
		return fmt.Errorf("playback: %s: step: %w", d.path, ErrNotPaused)
	}
	for {
		g := d.rs.group
		if g == nil {
			var err error
			g, err = d.readGroup()
			if err != nil {
				d.stopAtEnd(err)
				return err
			}
			if g == nil {
				return fmt.Errorf("playback: %s: step: %w", d.path, ErrEOF)
			}
			d.unpicture(g)
			d.rs.group = g
		}
		n := g.deliverable()
		if !d.dispatchGroup(g, true) {
			return ErrClosed
		}
		if n > 0 {
			return nil
		}
	}
}
