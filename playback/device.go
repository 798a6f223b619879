package playback

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"sort"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/rsbag/rsbag/device"
	"github.com/rsbag/rsbag/extensions"
	"github.com/rsbag/rsbag/internal/goid"
	"github.com/rsbag/rsbag/internal/layout"
	"github.com/rsbag/rsbag/msgs"
	"github.com/rsbag/rsbag/rosbag"
	"github.com/rsbag/rsbag/sensor"
)

// Options configures a playback device. The zero value (or nil) plays in
// real time at speed 1 from a wall clock, once.
type Options struct {
	// NonRealTime starts the device in non-real-time (lossless,
	// deterministic) mode; see the package documentation.
	NonRealTime bool
	// Speed is the initial real-time speed factor (0 means 1).
	Speed float64
	// Repeat plays the bag in a loop instead of stopping at its end.
	Repeat bool
	// Start is the position (as Seek takes it) where playback starts, and
	// where each repetition and each start after a Stop begins: the
	// frames before it are not played. 0 is the start of the file.
	Start time.Duration
	// End, when > 0, is the position where playback ends: frames at End or
	// later are not played, and playback stops there (or starts again at
	// Start with Repeat) as at the end of the file, in real time and in
	// non-real-time mode alike. It must be greater than Start.
	End time.Duration
	// Clock paces real-time playback (default: the wall clock).
	Clock Clock
	// Reader is passed to rosbag.Open.
	Reader *rosbag.ReaderOptions
}

// Errors of the playback device.
var (
	// ErrClosed is returned by every method of a closed device.
	ErrClosed = errors.New("playback: device closed")
	// ErrOutOfRange reports a seek target outside [0, Duration].
	ErrOutOfRange = errors.New("playback: requested time is out of playback length")
	// ErrNotPaused is returned by Step when the device is not paused and started.
	ErrNotPaused = errors.New("playback: not paused")
	// ErrEOF is returned by Step at the end of the file.
	ErrEOF = errors.New("playback: end of file")
)

// StreamStats counts the frames of one stream.
type StreamStats struct {
	Profile   *sensor.StreamProfile
	Delivered uint64 // handler calls
	Dropped   uint64 // frames evicted (real time) or discarded by a seek, pause or stop
	// Lost counts the frames of the stream lost to damage (see
	// Device.Losses): in parts of the bag the recovery scan could not read,
	// and in corrupt chunks playback skipped (with a Frame Corrupted
	// notification each time it meets one). Each lost frame counts once,
	// however often playback passes its place.
	Lost uint64
}

type request struct {
	f     func() error
	reply chan error
}

// Device is a playback device. It implements device.Device and
// extensions.Playback.
type Device struct {
	path     string
	bag      *rosbag.Reader
	recovery *rosbag.Recovery
	desc     *description
	info     sensor.Info
	sensors  []*Sensor
	ifaces   []sensor.Sensor
	streams  []*stream // uid order
	extr     map[profilePair]sensor.Extrinsics
	duration time.Duration
	clock    Clock
	pace     pacer // sleeps on clock; owned by the reader goroutine
	repeat   bool
	start    rosbag.Time // Options.Start (at least samplesFrom)
	end      rosbag.Time // Options.End; 0: the end of the file
	allOpts  []*optionState
	optConns []uint32
	ntfConns []uint32
	routes   map[uint32]route
	depthOpt *optionState // Depth Units of the last depth sensor (§5.9)

	reqs         chan request
	later        funcQueue // requests made from handlers, run after they return
	handlers     goid.Set  // the dispatchers' goroutines
	callbacks    goid.Set  // the callback goroutine
	realTime     atomic.Bool
	done         chan struct{}
	readerExited chan struct{}
	closeOnce    sync.Once
	ev           *events

	status   atomic.Int32
	position atomic.Int64
	speed    atomic.Uint64 // float64 bits of rs.speed, for Speed
	lastErr  atomic.Pointer[error]
	lossMu   sync.Mutex
	losses   []Loss // what damage cost, each part once, in the order found
	statusMu sync.Mutex
	statusCb func(extensions.PlaybackStatus)

	rs readerState // owned by the reader goroutine
}

type route struct {
	kind layout.Kind
	st   *stream
	sens *Sensor
	opt  *optionState
	conn *rosbag.Connection
}

type readerState struct {
	active   int // started sensors
	paused   bool
	realTime bool
	speed    float64
	it       *rosbag.Iterator
	itConns  []uint32 // the connections it reads
	skipSeen int      // entries of it.Skipped() already reported
	// reposition makes the next read seek it to next (after a seek, a
	// stop or a change of the opened streams).
	reposition bool
	pending    *rosbag.Message
	group      *group
	next       rosbag.Time // where the next read starts
	startAt    rosbag.Time // set by a seek while stopped
	baseSet    bool
	base       time.Time
	baseBag    rosbag.Time
	// pictured holds the streams whose "current picture" (a seek while
	// paused, P.35) was their frame at exactly pictureT: reading on
	// skips those frames, so that nothing is delivered twice.
	pictured map[*stream]bool
	pictureT rosbag.Time
}

// Open opens the bag at path as a playback device. The device is stopped
// until a sensor is opened and started.
func Open(path string, opts *Options) (*Device, error) {
	if opts == nil {
		opts = &Options{}
	}
	speed := opts.Speed
	if speed == 0 {
		speed = 1
	}
	if !(speed > 0) || math.IsInf(speed, 0) {
		return nil, fmt.Errorf("playback: %s: speed %v must be > 0", path, opts.Speed)
	}
	if opts.Start < 0 || opts.End < 0 || opts.End > 0 && opts.End <= opts.Start {
		return nil, fmt.Errorf("playback: %s: window [%v, %v): want 0 <= Start < End (or End 0)", path, opts.Start, opts.End)
	}
	bag, err := rosbag.Open(path, opts.Reader)
	var recovery *rosbag.Recovery
	if err != nil {
		if bag == nil || !errors.Is(err, rosbag.ErrUnindexed) {
			if bag != nil {
				bag.Close()
			}
			return nil, fmt.Errorf("playback: %s: %w", path, err)
		}
		recovery = bag.Info().Recovery
	}
	desc, err := readDescription(path, bag)
	if err != nil {
		bag.Close()
		return nil, err
	}
	d := &Device{path: path, bag: bag, recovery: recovery, desc: desc, info: desc.info, clock: opts.Clock,
		repeat: opts.Repeat, reqs: make(chan request), later: newFuncQueue(), done: make(chan struct{}), readerExited: make(chan struct{}),
		routes: map[uint32]route{}}
	if d.clock == nil {
		d.clock = wallClock{}
	}
	d.pace.clock = d.clock
	if desc.hasFrame {
		d.duration = time.Duration(desc.last - desc.first)
	}
	d.build()
	for _, l := range recovery.Losses() {
		d.addLoss(l)
	}
	if opts.Start > d.duration {
		bag.Close()
		return nil, fmt.Errorf("playback: %s: start %d ns (duration %d ns): %w", path, int64(opts.Start), int64(d.duration), ErrOutOfRange)
	}
	d.start, d.end = max(samplesFrom, rosbag.Time(opts.Start)), rosbag.Time(opts.End)
	d.rs = readerState{realTime: !opts.NonRealTime, speed: speed, next: d.start}
	d.realTime.Store(d.rs.realTime)
	d.speed.Store(math.Float64bits(speed))
	d.status.Store(int32(extensions.StatusStopped))
	d.ev = newEvents(&d.callbacks)
	go d.run()
	return d, nil
}

// build creates the sensors, streams and routes from the description.
func (d *Device) build() {
	var all []*recStream
	byKey := map[streamKey]*stream{}
	for _, rs := range d.desc.sensors {
		s := &Sensor{dev: d, index: rs.index, info: rs.info, byOption: map[sensor.Option]*optionState{},
			filters: rs.filters}
		if s.filters == nil {
			s.filters = []string{}
		}
		var opts []sensor.Option
		for o := range rs.options {
			opts = append(opts, o)
		}
		sort.Slice(opts, func(a, b int) bool { return opts[a] < opts[b] })
		for _, o := range opts {
			st := &optionState{desc: rs.options[o]}
			st.set(st.desc.static)
			s.options = append(s.options, st)
			s.byOption[o] = st
			d.allOpts = append(d.allOpts, st)
		}
		_, depth := s.byOption[sensor.OptionDepthUnits]
		_, stereo := s.byOption[sensor.OptionStereoBaseline]
		if depth {
			s.kinds = append(s.kinds, extensions.KindDepthSensor)
			d.depthOpt = s.byOption[sensor.OptionDepthUnits]
			if stereo {
				s.kinds = append(s.kinds, extensions.KindDepthStereoSensor)
			}
		}
		switch rs.info[sensor.CameraInfoName] {
		case nameRGB:
			s.kinds = append(s.kinds, extensions.KindColorSensor)
		case nameMotion:
			s.kinds = append(s.kinds, extensions.KindMotionSensor)
		case nameFisheye:
			s.kinds = append(s.kinds, extensions.KindFisheyeSensor)
		}
		for _, r := range rs.streams {
			st := &stream{rec: r, profile: r.profile, sens: s}
			switch r.profile.Kind {
			case sensor.KindVideo:
				st.kind = layout.KindImageData
			case sensor.KindMotion:
				st.kind = layout.KindImuData
			default:
				st.kind = layout.KindPoseTransform
			}
			s.streams = append(s.streams, st)
			s.profiles = append(s.profiles, r.profile)
			d.streams = append(d.streams, st)
			byKey[r.key] = st
			all = append(all, r)
		}
		d.sensors = append(d.sensors, s)
		switch {
		case depth && stereo:
			d.ifaces = append(d.ifaces, stereoSensor{depthSensor{s}})
		case depth:
			d.ifaces = append(d.ifaces, depthSensor{s})
		default:
			d.ifaces = append(d.ifaces, s)
		}
	}
	d.extr = deriveExtrinsics(all)
	for _, c := range d.bag.Connections() {
		ti := d.desc.topic(c.Topic)
		r := route{kind: ti.Kind, conn: c}
		fk := frameKind(ti.Kind)
		switch ti.Kind {
		case layout.KindImageData, layout.KindImuData, layout.KindPoseTransform, layout.KindImageMetadata,
			layout.KindImuMetadata, layout.KindPoseMetadata, layout.KindPoseAccel, layout.KindPoseTwist,
			layout.KindLegacyImageData, layout.KindLegacyImuData, layout.KindLegacyPoseData, layout.KindLegacyFrameInfo:
			st := byKey[keyOf(ti)]
			if st == nil {
				continue
			}
			if fk != layout.KindUnknown && fk != st.kind {
				continue
			}
			if ti.Kind.IsMetadata() && ti.Kind != metadataKind[st.kind] {
				continue
			}
			if (ti.Kind == layout.KindPoseAccel || ti.Kind == layout.KindPoseTwist) && st.kind != layout.KindPoseTransform {
				continue
			}
			r.st, r.sens = st, st.sens
			st.conns = append(st.conns, c.ID)
			if fk != layout.KindUnknown {
				st.data = append(st.data, c.ID)
			}
		case layout.KindOptionValue:
			if !ti.Kind.InVersion(d.desc.version) || ti.Sensor >= len(d.sensors) {
				continue
			}
			s := d.sensors[ti.Sensor]
			o, ok := ti.Option()
			if !ok || s.byOption[o] == nil {
				continue
			}
			r.sens, r.opt = s, s.byOption[o]
			d.optConns = append(d.optConns, c.ID)
		case layout.KindNotification:
			if ti.Sensor >= len(d.sensors) {
				continue
			}
			r.sens = d.sensors[ti.Sensor]
			d.ntfConns = append(d.ntfConns, c.ID)
		default:
			continue
		}
		d.routes[c.ID] = r
	}
}

// Info returns the recorded device info.
func (d *Device) Info() sensor.Info { return d.info.Clone() }

// Sensors returns the recorded sensors in index order.
func (d *Device) Sensors() []sensor.Sensor { return append([]sensor.Sensor(nil), d.ifaces...) }

// Extrinsics returns the transform between two recorded streams of the same
// extrinsics group, derived as librealsense does.
func (d *Device) Extrinsics(from, to *sensor.StreamProfile) (sensor.Extrinsics, error) {
	if e, ok := d.extr[profilePair{from, to}]; ok {
		return e, nil
	}
	return sensor.Extrinsics{}, fmt.Errorf("playback: %s: %v → %v: %w", d.path, from, to, device.ErrNoExtrinsics)
}

// Filename returns the path of the bag.
func (d *Device) Filename() string { return d.path }

// FileVersion returns the bag's /file_version.
func (d *Device) FileVersion() int { return int(d.desc.version) }

// Recovery describes the linear scan that opened a bag whose index was
// missing or unusable; nil for an indexed bag. Recovery().Damaged() tells a
// bag that only lacked its index from one that lost data; Losses lists the
// loss.
func (d *Device) Recovery() *rosbag.Recovery { return d.recovery }

// Losses returns the parts of the bag lost to damage, each once, in the
// order they were found: those the recovery scan could not read (known at
// Open: corrupt chunks and a truncated end) and the corrupt chunks of an
// indexed bag skipped by playback so far. Their frames are counted per
// stream in StreamStats.Lost, apart from the frames Dropped for a slow
// handler. Empty for an undamaged bag.
func (d *Device) Losses() []Loss {
	d.lossMu.Lock()
	defer d.lossMu.Unlock()
	return slices.Clone(d.losses)
}

// Loss is a part of the bag lost to damage.
type Loss struct {
	// Where it is, its bag-time range, its messages per connection and
	// the cause.
	rosbag.SkippedChunk
	// Frames counts the frames lost in it per stream of the device, by
	// profile name (e.g. "Depth/0"); nil when none of them is known.
	Frames map[string]int
}

// addLoss records a lost part of the bag once (by offset) and adds its
// frames to the Lost counters of their streams. It reports whether the part
// is new.
func (d *Device) addLoss(c rosbag.SkippedChunk) bool {
	d.lossMu.Lock()
	defer d.lossMu.Unlock()
	for _, l := range d.losses {
		if l.Offset == c.Offset {
			return false
		}
	}
	l := Loss{SkippedChunk: c}
	for id, n := range c.ByConnection {
		if r, ok := d.routes[id]; ok && r.st != nil && slices.Contains(r.st.data, id) {
			r.st.lost.Add(uint64(n))
			if l.Frames == nil {
				l.Frames = map[string]int{}
			}
			l.Frames[r.st.profile.Name()] += n
		}
	}
	d.losses = append(d.losses, l)
	return true
}

// Duration returns the time between the first and the last frame.
func (d *Device) Duration() time.Duration { return d.duration }

// Span returns the bag times of the first and the last frame of the bag
// (both 0 for a bag without frames); Duration is last − first.
func (d *Device) Span() (first, last time.Duration) {
	if !d.desc.hasFrame {
		return 0, 0
	}
	return time.Duration(d.desc.first), time.Duration(d.desc.last)
}

// Position returns the bag time of the last message read (0 when stopped,
// the target right after a seek). In non-real-time mode, while a frame
// handler of the device runs, it is the bag time of that handler's frame:
// the reader waits for the handler before it reads on.
func (d *Device) Position() time.Duration { return time.Duration(d.position.Load()) }

// Status returns Stopped, Paused or Playing.
func (d *Device) Status() extensions.PlaybackStatus {
	return extensions.PlaybackStatus(d.status.Load())
}

// OnStatusChange registers f, replacing any previous function. It is called
// in order on a goroutine of the device, never with a lock held.
func (d *Device) OnStatusChange(f func(extensions.PlaybackStatus)) {
	d.statusMu.Lock()
	d.statusCb = f
	d.statusMu.Unlock()
}

// Err returns the error that stopped playback last (a bad message or a read
// error), or nil.
func (d *Device) Err() error {
	if p := d.lastErr.Load(); p != nil {
		return *p
	}
	return nil
}

// Stats returns the frame counters of every stream, in uid order.
func (d *Device) Stats() []StreamStats {
	out := make([]StreamStats, len(d.streams))
	for i, st := range d.streams {
		out[i] = StreamStats{Profile: st.profile, Delivered: st.delivered.Load(), Dropped: st.dropped.Load(),
			Lost: st.lost.Load()}
	}
	return out
}

// Seek moves playback to bag time t: the next frames are the first ones at
// or after t, and no frame read before the seek is delivered after Seek
// returns. Seeking while stopped sets where the next start begins. t must be
// within [0, Duration].
func (d *Device) Seek(t time.Duration) error {
	if t < 0 || t > d.duration {
		return fmt.Errorf("playback: %s: seek to %d ns (duration %d ns): %w", d.path, int64(t), int64(d.duration), ErrOutOfRange)
	}
	return d.control(func() error { return d.seek(rosbag.Time(t)) })
}

// SeekFrame seeks to the n-th frame (0-based) of the stream of profile p.
func (d *Device) SeekFrame(p *sensor.StreamProfile, n int) error {
	var st *stream
	for _, s := range d.streams {
		if p != nil && s.profile.UID == p.UID {
			st = s
		}
	}
	if st == nil {
		return fmt.Errorf("playback: %s: seek frame: profile %v: %w", d.path, p, sensor.ErrNoProfile)
	}
	if n < 0 || len(st.data) == 0 {
		return fmt.Errorf("playback: %s: seek frame %d of %v: %w", d.path, n, p, ErrOutOfRange)
	}
	// Frames of corrupt chunks are skipped, as in playback.
	it := d.bag.Messages(&rosbag.Query{Connections: st.data, Start: samplesFrom, SkipCorrupt: true})
	defer it.Close()
	i := 0
	for it.Next() {
		if i == n {
			t := it.Message().Time
			return d.control(func() error { return d.seek(t) })
		}
		i++
	}
	if err := it.Err(); err != nil {
		return fmt.Errorf("playback: %s: seek frame: %w", d.path, err)
	}
	return fmt.Errorf("playback: %s: seek frame %d of %v (stream has %d frames): %w", d.path, n, p, i, ErrOutOfRange)
}

// Stop stops playback (librealsense's playback stop, P.40): reading halts,
// the frames queued for delivery are dropped, the position rewinds to 0, the
// device is no longer paused and its status becomes Stopped. Unlike
// librealsense, Stop also stops every started sensor, as Sensor.Stop does
// (they report stopped and their handlers are not called after Stop
// returns; they stay open), so that a later Start plays again, from the
// start or from the position set by a Seek made while stopped. Stopping a
// device that is not playing does nothing. Called from a frame handler of
// the device it fails with an error wrapping sensor.ErrStopFromHandler.
func (d *Device) Stop() error {
	if err := d.refuseFromHandler("stop"); err != nil {
		return err
	}
	return d.do(func() error {
		if d.rs.active == 0 {
			return nil
		}
		d.rs.paused = false
		for _, s := range d.sensors {
			d.stopSensor(s, false) // the last one rewinds and raises Stopped
		}
		return nil
	})
}

// Pause stops reading; frames queued for delivery are dropped. Pausing a
// stopped device makes the next start wait for Resume.
func (d *Device) Pause() error { return d.control(func() error { d.pause(); return nil }) }

// Resume continues from the first message not yet delivered.
func (d *Device) Resume() error { return d.control(func() error { d.resume(); return nil }) }

// Step delivers the frames of the next bag time that has a frame of a
// started stream while paused, and returns after their handlers returned.
// It does not wait for opened sensors that are not started: their frames at
// that bag time are skipped. Called from a frame handler of the device it
// fails with an error wrapping sensor.ErrStopFromHandler.
func (d *Device) Step() error {
	if err := d.refuseFromHandler("step"); err != nil {
		return err
	}
	return d.do(d.step)
}

// SetSpeed sets the real-time speed factor x > 0.
func (d *Device) SetSpeed(x float64) error {
	if !(x > 0) || math.IsInf(x, 0) {
		return fmt.Errorf("playback: %s: speed %v must be > 0", d.path, x)
	}
	return d.control(func() error {
		d.rs.speed = x
		d.speed.Store(math.Float64bits(x))
		if d.rs.baseSet {
			d.rs.base, d.rs.baseBag = d.clock.Now(), rosbag.Time(d.position.Load())
		}
		return nil
	})
}

// Speed returns the real-time speed factor.
func (d *Device) Speed() float64 { return math.Float64frombits(d.speed.Load()) }

// SetRealTime switches between real-time (paced, drop-oldest) and
// non-real-time (lossless, deterministic) playback.
func (d *Device) SetRealTime(on bool) error {
	return d.control(func() error {
		d.rs.realTime, d.rs.baseSet = on, false
		d.realTime.Store(on)
		return nil
	})
}

// RealTime reports whether the device plays in real time.
func (d *Device) RealTime() bool { return d.realTime.Load() }

// Close stops every sensor and returns after every goroutine of the device
// has ended. It is idempotent. Called from a frame handler or a callback of
// the device, which it would wait for, it fails with an error wrapping
// sensor.ErrStopFromHandler and closes nothing.
func (d *Device) Close() error {
	if err := d.refuseFromHandler("close"); err != nil {
		return err
	}
	if d.callbacks.Current() {
		return fmt.Errorf("playback: %s: close from a callback: %w", d.path, sensor.ErrStopFromHandler)
	}
	var err error
	d.closeOnce.Do(func() {
		close(d.done)
		<-d.readerExited
		d.ev.close()
		err = d.bag.Close()
	})
	return err
}

var (
	_ device.Device       = (*Device)(nil)
	_ extensions.Playback = (*Device)(nil)
)

// refuseFromHandler returns an error wrapping sensor.ErrStopFromHandler
// when the caller is a frame handler of the device, for the requests that
// would wait for that handler (or, in non-real-time mode, for the reader,
// which waits for it).
func (d *Device) refuseFromHandler(what string) error {
	if d.handlers.Current() {
		return fmt.Errorf("playback: %s: %s from a frame handler: %w", d.path, what, sensor.ErrStopFromHandler)
	}
	return nil
}

// control runs a playback request (pause, resume, seek, speed, mode) on
// the reader goroutine. From a frame handler of the device it cannot wait:
// the request is queued, and the reader applies it once the handler has
// returned, before it hands out another frame in non-real-time mode.
func (d *Device) control(f func() error) error {
	if !d.handlers.Current() {
		return d.do(f)
	}
	select {
	case <-d.done:
		return ErrClosed
	default:
	}
	d.later.post(func() { f() })
	return nil
}

// ready is a closed channel: serve(ready) does not wait.
var ready = func() chan time.Time { c := make(chan time.Time); close(c); return c }()

// serve waits for a request (from a caller or queued by a handler), the
// end of the device or, when tick is not nil, a tick. It reports whether
// the tick came and whether the device closed.
func (d *Device) serve(tick <-chan time.Time) (ticked, closed bool) {
	select {
	case r := <-d.reqs:
		r.reply <- r.f()
	case <-d.later.wake:
		d.later.runQueued()
	case <-tick:
		return true, false
	case <-d.done:
		return false, true
	}
	return false, false
}

// do runs f on the reader goroutine and returns its result.
func (d *Device) do(f func() error) error {
	r := request{f: f, reply: make(chan error, 1)}
	select {
	case d.reqs <- r:
	case <-d.done:
		return ErrClosed
	}
	select {
	case err := <-r.reply:
		return err
	case <-d.readerExited:
		return ErrClosed
	}
}

// ---- reader goroutine ----

func (d *Device) setStatus(s extensions.PlaybackStatus) {
	d.status.Store(int32(s))
	d.ev.post(func() {
		d.statusMu.Lock()
		f := d.statusCb
		d.statusMu.Unlock()
		if f != nil {
			f(s)
		}
	})
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
			if len(s.opened) > 0 && !s.started {
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
		if d.rs.realTime && d.rs.group.hasFrame {
			now := d.clock.Now()
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
				if coarse := wait - d.pace.margin(); coarse > 0 {
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
		if !d.dispatchGroup(d.rs.group, false) {
			return
		}
	}
}

// shutdown stops every dispatcher and the bag iterator when the device
// closes.
func (d *Device) shutdown() {
	if d.rs.it != nil {
		d.rs.it.Close()
		d.rs.it = nil
	}
	for _, s := range d.sensors {
		for _, st := range s.opened {
			if st.disp != nil {
				st.disp.stop()
				st.disp = nil
			}
		}
		s.started = false
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

func (d *Device) flushAll(k ctlKind) {
	for _, s := range d.sensors {
		for _, st := range s.opened {
			if st.disp != nil {
				st.disp.control(k)
			}
		}
	}
}

func (d *Device) openSensor(s *Sensor, sel []*stream) error {
	if len(s.opened) > 0 {
		return fmt.Errorf("playback: sensor %d: %w", s.index, sensor.ErrAlreadyOpen)
	}
	s.opened = sel
	d.invalidate()
	return nil
}

func (d *Device) closeSensor(s *Sensor) error {
	if len(s.opened) == 0 {
		return fmt.Errorf("playback: sensor %d: %w", s.index, sensor.ErrNotOpen)
	}
	d.stopSensor(s, false)
	s.opened = nil
	d.invalidate()
	return nil
}

func (d *Device) startSensor(s *Sensor, h sensor.Handler) error {
	if len(s.opened) == 0 {
		return fmt.Errorf("playback: sensor %d: %w", s.index, sensor.ErrNotOpen)
	}
	if s.started {
		return fmt.Errorf("playback: sensor %d: %w", s.index, sensor.ErrAlreadyStarted)
	}
	for _, st := range s.opened {
		st.disp = startDispatcher(st, h, d.clock, &d.handlers)
	}
	s.started = true
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
	return nil
}

// stopSensor stops s's dispatchers (delivering their queued frames first
// when drain is set); the device stops with its last sensor.
func (d *Device) stopSensor(s *Sensor, drain bool) {
	if !s.started {
		return
	}
	for _, st := range s.opened {
		if st.disp != nil {
			if drain {
				st.disp.control(ctlDrain)
			}
			st.disp.stop()
			st.disp = nil
		}
	}
	s.started = false
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
	if err != nil {
		d.lastErr.Store(&err)
		n := sensor.Notification{Category: sensor.NotificationCategoryUnknownError, Severity: sensor.SeverityError,
			Description: err.Error()}
		for _, s := range d.sensors {
			if s.started {
				s := s
				d.ev.post(func() { s.raiseNotification(n) })
			}
		}
	}
	for _, s := range d.sensors {
		if s.started {
			d.stopSensor(s, true)
		}
	}
}

func (d *Device) resetOptions(t rosbag.Time) {
	for _, s := range d.sensors {
		for _, o := range s.options {
			v := o.desc.valueAt(t)
			if v != o.value() {
				o.set(v)
				s, c := s, extensions.OptionChange{Option: o.desc.opt, Value: v}
				d.ev.post(func() { s.raiseOptionChange(c) })
			}
		}
	}
}

func (d *Device) seek(target rosbag.Time) error {
	d.flushAll(ctlFlush)
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

// pictureLookback is how far before a seek target the reader first looks
// for each stream's current picture; it looks further back only for the
// streams it did not find.
var pictureLookback = []rosbag.Time{rosbag.Time(time.Second), rosbag.Time(30 * time.Second), 0}

// picture delivers, for every started video and motion stream, its last
// frame at or before t — the "current picture" a viewer shows after a seek
// while paused (P.35) — and returns once their handlers have returned.
// Reading on skips those of them that are at exactly t. While a frame's
// handler runs, Position is that frame's bag time.
func (d *Device) picture(t rosbag.Time) error {
	var want []*stream
	for _, s := range d.sensors {
		if !s.started {
			continue
		}
		for _, st := range s.opened {
			if st.disp != nil && (st.profile.Kind == sensor.KindVideo || st.profile.Kind == sensor.KindMotion) {
				want = append(want, st)
			}
		}
	}
	at := map[*stream]rosbag.Time{}
	for _, back := range pictureLookback {
		var conns []uint32
		for _, st := range want {
			if _, ok := at[st]; !ok {
				conns = append(conns, st.data...)
			}
		}
		if len(conns) == 0 {
			break
		}
		from := samplesFrom
		if back > 0 && t > samplesFrom+back {
			from = t - back
		}
		it := d.bag.Messages(&rosbag.Query{Connections: conns, Start: from, End: t + 1, SkipCorrupt: true})
		for it.Next() {
			m := it.Message()
			at[d.routes[m.Conn.ID].st] = m.Time
		}
		err := it.Err()
		it.Close()
		if err != nil {
			return fmt.Errorf("playback: %s: reading the frames at %v: %w", d.path, t, err)
		}
		if from == samplesFrom {
			break
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
			if item.f == nil || item.st.disp == nil || !slices.Contains(byTime[tp], item.st) {
				continue
			}
			if tp == t {
				d.rs.pictured[item.st] = true
			}
			d.position.Store(bagNs(tp))
			item.st.disp.pushWait(item.f)
			select {
			case <-item.st.disp.ack:
			case <-d.done:
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
	d.flushAll(ctlFlush)
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

// ---- reading and dispatching ----

type gitem struct {
	kind  layout.Kind
	st    *stream
	f     *sensor.Frame
	sens  *Sensor
	opt   *optionState
	value float32
	ntf   sensor.Notification
}

// group is every selected message at one bag time.
type group struct {
	t        rosbag.Time
	items    []gitem
	meta     map[*stream][]msgs.KeyValue
	accel    map[*stream]msgs.Accel
	twist    map[*stream]msgs.Accel
	legacy   map[*stream]legacyInfo // version-1 frame_info
	hasFrame bool
	cursor   int // items before it have been handed out
}

func (g *group) deliverable() int {
	n := 0
	for _, it := range g.items[g.cursor:] {
		if it.f != nil && it.st.sens.started {
			n++
		}
	}
	return n
}

// readGroup reads the next bag time's messages; nil, nil at the end.
func (d *Device) readGroup() (*group, error) {
	if d.rs.it == nil || d.rs.reposition {
		conns := d.queryConns()
		if len(conns) == 0 {
			return nil, nil
		}
		if d.rs.it == nil || !slices.Equal(conns, d.rs.itConns) {
			// A new iterator allocates its chunk buffers: only when the
			// selection changed; seeks reuse the iterator.
			if d.rs.it != nil {
				d.rs.it.Close() // ends its read-ahead goroutines
			}
			// KeepData: frames keep their pixels in the chunk buffer the
			// iterator loaded them into, with no copy of their own.
			// SkipCorrupt: a corrupt chunk costs its frames, not the rest
			// of the file (see reportSkipped).
			d.rs.it = d.bag.Messages(&rosbag.Query{Connections: conns, Start: samplesFrom, KeepData: true, SkipCorrupt: true})
			d.rs.itConns, d.rs.skipSeen = conns, 0
		}
		if err := d.rs.it.Seek(d.rs.next); err != nil {
			return nil, fmt.Errorf("playback: %s: seeking to %v: %w", d.path, d.rs.next, err)
		}
		d.rs.reposition, d.rs.pending = false, nil
	}
	var g *group
	for {
		var m rosbag.Message
		if d.rs.pending != nil {
			m = *d.rs.pending
			d.rs.pending = nil
		} else {
			more := d.rs.it.Next()
			d.reportSkipped()
			if !more {
				if err := d.rs.it.Err(); err != nil {
					return nil, fmt.Errorf("playback: %s: reading at %v: %w", d.path, d.rs.next, err)
				}
				if g != nil {
					d.rs.next = g.t + 1
					g.finishAll()
				}
				return g, nil
			}
			m = d.rs.it.Message()
		}
		if g != nil && m.Time != g.t {
			d.rs.pending = &m
			d.rs.next = g.t + 1
			g.finishAll()
			return g, nil
		}
		if g == nil {
			g = &group{t: m.Time}
		}
		if err := d.addMessage(g, &m); err != nil {
			return nil, err
		}
	}
}

// reportSkipped handles the corrupt chunks the iterator skipped since the
// last call: each sensor that lost messages in one gets a Frame Corrupted
// notification, and each stream's Lost counter grows by its lost frames.
func (d *Device) reportSkipped() {
	sk := d.rs.it.Skipped()
	for _, c := range sk[d.rs.skipSeen:] {
		d.addLoss(c) // counted once, notified each time playback meets it
		type loss struct{ frames, msgs int }
		per := map[*Sensor]*loss{}
		var order []*Sensor
		for id, n := range c.ByConnection {
			r, ok := d.routes[id]
			if !ok {
				continue
			}
			s := r.sens
			if r.st != nil {
				s = r.st.sens
			}
			if s == nil {
				continue
			}
			l := per[s]
			if l == nil {
				l = &loss{}
				per[s] = l
				order = append(order, s)
			}
			l.msgs += n
			if r.st != nil && slices.Contains(r.st.data, id) {
				l.frames += n
			}
		}
		slices.SortFunc(order, func(a, b *Sensor) int { return a.index - b.index })
		now := float64(time.Now().UnixNano()) / 1e6
		for _, s := range order {
			l := per[s]
			n := sensor.Notification{Category: sensor.NotificationCategoryFrameCorrupted, Severity: sensor.SeverityWarn,
				TimestampMs: now,
				Description: fmt.Sprintf("%s: corrupt chunk at file offset %d (%d bytes) skipped, bag time %v to %v: %d frames (%d messages) of this sensor lost: %v",
					d.path, c.Offset, c.Bytes, c.Start, c.End, l.frames, l.msgs, c.Err)}
			d.ev.post(func() { s.raiseNotification(n) })
		}
	}
	d.rs.skipSeen = len(sk)
}

func (d *Device) addMessage(g *group, m *rosbag.Message) error {
	r, ok := d.routes[m.Conn.ID]
	if !ok {
		return nil
	}
	if !hasType(r.conn, r.kind) {
		if r.kind.IsMetadata() || r.kind == layout.KindPoseAccel || r.kind == layout.KindPoseTwist ||
			r.kind == layout.KindLegacyFrameInfo {
			return nil // optional parts of a frame: skipped, as librealsense does
		}
		return fmt.Errorf("playback: %s: topic %q at bag time %v: message type %s, want %s",
			d.path, r.conn.Topic, m.Time, r.conn.Type, r.kind.Type().Name)
	}
	bad := func(typ string, err error) error {
		return fmt.Errorf("playback: %s: topic %q at bag time %v: decoding %s: %w", d.path, r.conn.Topic, m.Time, typ, err)
	}
	decode := func(msg msgs.Message) error {
		if err := unmarshal(msg, m.Data); err != nil {
			return bad(msg.Type().Name, err)
		}
		return nil
	}
	switch r.kind {
	case layout.KindImageData, layout.KindLegacyImageData:
		var im msgs.Image
		if err := decode(&im); err != nil {
			return err
		}
		if im.Header.FrameID == msgs.DepthUnitsFrameID && !im.HasDepthUnits {
			return bad(msgs.ImageType.Name, errNoDepthUnits)
		}
		if need := uint64(im.Step) * uint64(im.Height); need > uint64(len(im.Data)) {
			return bad(msgs.ImageType.Name, fmt.Errorf("%w: step %d × height %d needs %d data bytes, the message has %d",
				errShortImage, im.Step, im.Height, need, len(im.Data)))
		}
		g.addFrame(r.st, d.imageFrame(r.st, &im))
	case layout.KindImuData, layout.KindLegacyImuData:
		var im msgs.Imu
		if err := decode(&im); err != nil {
			return err
		}
		v := im.AngularVelocity
		if r.st.profile.Stream == sensor.StreamAccel {
			v = im.LinearAcceleration
		}
		mv := [3]float32{float32(v.X), float32(v.Y), float32(v.Z)}
		g.addFrame(r.st, &sensor.Frame{Profile: r.st.profile, Number: uint64(im.Header.Seq),
			TimestampMs: layout.FrameTimestampMs(im.Header.Stamp), Motion: mv, Data: sensor.AppendMotion(nil, mv)})
	case layout.KindPoseTransform:
		var tf msgs.Transform
		if err := decode(&tf); err != nil {
			return err
		}
		f := &sensor.Frame{Profile: r.st.profile}
		f.Pose.Translation = f32x3(tf.Translation)
		q := tf.Rotation
		f.Pose.Rotation = [4]float32{float32(q.X), float32(q.Y), float32(q.Z), float32(q.W)}
		g.addFrame(r.st, f)
	case layout.KindLegacyPoseData:
		var p msgs.LegacyPose
		if err := decode(&p); err != nil {
			return err
		}
		g.addFrame(r.st, legacyPoseFrame(r.st, &p))
	case layout.KindLegacyFrameInfo:
		var fi msgs.LegacyFrameInfo
		if err := decode(&fi); err != nil {
			return err
		}
		if g.legacy == nil {
			g.legacy = map[*stream]legacyInfo{}
		}
		g.legacy[r.st] = decodeLegacyInfo(&fi)
	case layout.KindImageMetadata, layout.KindImuMetadata, layout.KindPoseMetadata:
		var kv msgs.KeyValue
		if err := decode(&kv); err != nil {
			return err
		}
		if g.meta == nil {
			g.meta = map[*stream][]msgs.KeyValue{}
		}
		g.meta[r.st] = append(g.meta[r.st], kv)
	case layout.KindPoseAccel, layout.KindPoseTwist:
		// geometry_msgs/Accel and Twist have the same layout.
		var v msgs.Accel
		if err := decode(&v); err != nil {
			return err
		}
		mp := &g.accel
		if r.kind == layout.KindPoseTwist {
			mp = &g.twist
		}
		if *mp == nil {
			*mp = map[*stream]msgs.Accel{}
		}
		(*mp)[r.st] = v
	case layout.KindOptionValue:
		var v msgs.Float32
		if err := decode(&v); err != nil {
			return err
		}
		g.items = append(g.items, gitem{kind: r.kind, sens: r.sens, opt: r.opt, value: v.Data})
	case layout.KindNotification:
		var n msgs.Notification
		if err := decode(&n); err != nil {
			return err
		}
		cat, ok := sensor.ParseNotificationCategory(n.Category)
		if !ok {
			cat = sensor.NotificationCategoryUnknownError
		}
		sev, _ := sensor.ParseSeverity(n.Severity)
		g.items = append(g.items, gitem{kind: r.kind, sens: r.sens, ntf: sensor.Notification{Category: cat,
			Severity: sev, Description: n.Description, SerializedData: n.SerializedData,
			TimestampMs: layout.NotificationTimestampMs(n.Timestamp)}})
	}
	return nil
}

// errNoDepthUnits reports an Image with header.frame_id "1" that lacks the
// depth_units float32 librealsense ≥ 2.49 appends (spec §2, §5.9).
var errNoDepthUnits = errors.New(`header.frame_id is "1" but the trailing depth_units float32 is missing`)

// errShortImage reports an Image whose data is shorter than step × height:
// a frame's Data holds Stride×Height bytes (sensor.Frame).
var errShortImage = errors.New("image data shorter than its rows")

func (g *group) addFrame(st *stream, f *sensor.Frame) {
	g.items = append(g.items, gitem{kind: st.kind, st: st, f: f})
	g.hasFrame = true
}

// imageFrame builds the frame of a decoded Image. Its pixels are not
// copied: the reader's iterator is a KeepData one, so im.Data points into a
// chunk buffer that the iterator never reuses and that stays alive for as
// long as a handler keeps the frame (package sensor; frames are
// immutable). Loading the chunk (decompressing it, or reading it for
// uncompressed bags) is the only copy of the pixels on the playback path.
func (d *Device) imageFrame(st *stream, im *msgs.Image) *sensor.Frame {
	f := &sensor.Frame{Profile: st.profile, Number: uint64(im.Header.Seq),
		TimestampMs: layout.FrameTimestampMs(im.Header.Stamp), Width: int(im.Width), Height: int(im.Height),
		Stride: int(im.Step), Data: im.Data[:len(im.Data):len(im.Data)]}
	if im.Width > 0 {
		f.BPP = int(im.Step/im.Width) * 8
	}
	if st.profile.Stream == sensor.StreamDepth {
		if im.HasDepthUnits && im.DepthUnits != 0 {
			f.DepthUnits = im.DepthUnits
		} else if d.depthOpt != nil {
			f.DepthUnits = d.depthOpt.value()
		}
	}
	return f
}

// finishAll completes every frame of the group. The reader calls it before
// it waits for the group's deadline, so that none of this work delays a
// frame that is due.
func (g *group) finishAll() {
	for i := range g.items {
		if g.items[i].f != nil {
			g.finish(&g.items[i])
		}
	}
}

// finish completes a frame with its metadata and pose parts.
func (g *group) finish(it *gitem) {
	f := it.f
	pose := it.st.kind == layout.KindPoseTransform
	if li, ok := g.legacy[it.st]; ok {
		f.SystemTimeMs, f.Domain, f.Metadata = li.systemTimeMs, li.domain, li.metadata
	}
	for _, e := range g.meta[it.st] {
		switch e.Key {
		case layout.KeySystemTime:
			if v, err := layout.ParseFixed(e.Value); err == nil {
				f.SystemTimeMs = v
			}
			continue
		case layout.KeyTimestampDomain:
			if v, ok := sensor.ParseTimestampDomain(e.Value); ok {
				f.Domain = v
			}
			continue
		}
		if pose {
			switch e.Key {
			case layout.KeyTrackerConfidence:
				if v, err := strconv.ParseUint(e.Value, 10, 32); err == nil {
					f.Pose.TrackerConfidence = uint32(v)
				}
				continue
			case layout.KeyMapperConfidence:
				if v, err := strconv.ParseUint(e.Value, 10, 32); err == nil {
					f.Pose.MapperConfidence = uint32(v)
				}
				continue
			case layout.KeyFrameTimestamp:
				if v, err := layout.ParseFixed(e.Value); err == nil {
					f.TimestampMs = v
				}
				continue
			case layout.KeyFrameNumber:
				if v, err := strconv.ParseUint(e.Value, 10, 64); err == nil {
					f.Number = v
				}
				continue
			}
		}
		if k, ok := sensor.ParseMetadataKey(e.Key); ok {
			if v, err := strconv.ParseInt(e.Value, 10, 64); err == nil {
				f.Metadata.Set(k, v)
			}
		}
	}
	if pose {
		if a, ok := g.accel[it.st]; ok {
			f.Pose.Acceleration = f32x3(a.Linear)
			f.Pose.AngularAcceleration = f32x3(a.Angular)
		}
		if t, ok := g.twist[it.st]; ok {
			f.Pose.Velocity = f32x3(t.Linear)
			f.Pose.AngularVelocity = f32x3(t.Angular)
		}
		f.Data = sensor.AppendPose(make([]byte, 0, sensor.PoseSize), &f.Pose)
	}
}

func f32x3(v msgs.Vector3) [3]float32 { return [3]float32{float32(v.X), float32(v.Y), float32(v.Z)} }

// dispatchGroup hands the group's items out; blocking forces the
// non-real-time handoff. It reports false when the device closed.
//
// In non-real-time mode the requests that a handler queued (control) run
// as soon as it has returned; when one of them paused, stopped or moved
// playback, the rest of the group waits (or is dropped by the seek).
func (d *Device) dispatchGroup(g *group, blocking bool) bool {
	d.position.Store(bagNs(g.t))
	var now time.Time // real time: when the frames are queued
	if d.rs.realTime && !blocking && g.hasFrame {
		now = d.clock.Now()
	}
	paused := d.rs.paused
	for g.cursor < len(g.items) {
		it := &g.items[g.cursor]
		g.cursor++
		switch it.kind {
		case layout.KindOptionValue:
			if it.opt.value() != it.value {
				it.opt.set(it.value)
				s, c := it.sens, extensions.OptionChange{Option: it.opt.desc.opt, Value: it.value}
				d.ev.post(func() { s.raiseOptionChange(c) })
			}
		case layout.KindNotification:
			s, n := it.sens, it.ntf
			d.ev.post(func() { s.raiseNotification(n) })
		default:
			disp := it.st.disp
			if disp == nil || !it.st.sens.started {
				continue
			}
			if d.rs.realTime && !blocking {
				disp.pushLatest(it.f, g.t, now, d.rs.speed)
				continue
			}
			disp.pushWait(it.f)
			select {
			case <-disp.ack:
			case <-d.done:
				return false
			}
			if d.later.runQueued() && (d.rs.group != g || d.rs.active == 0 || d.rs.paused != paused) {
				return true
			}
		}
	}
	d.rs.group = nil
	d.rs.next = g.t + 1
	return true
}
