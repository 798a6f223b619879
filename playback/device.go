package playback

import (
	"errors"
	"fmt"
	"github.com/rsbag/rsbag/internal/description"
	"math"
	"slices"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"github.com/rsbag/rsbag/device"
	"github.com/rsbag/rsbag/extensions"
	"github.com/rsbag/rsbag/internal/layout"
	"github.com/rsbag/rsbag/internal/sensorrt"
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
	desc     *description.Description
	snap     *device.Snapshot // the description, as served
	sensors  []*bagSensor
	ifaces   []sensor.Sensor
	streams  []*stream // uid order
	extr     map[profilePair]sensor.Extrinsics
	duration time.Duration
	pace     pacer // owned by the reader goroutine
	repeat   bool
	start    rosbag.Time // Options.Start (at least samplesFrom)
	end      rosbag.Time // Options.End; 0: the end of the file
	allOpts  []*optionState
	optConns []uint32
	ntfConns []uint32
	routes   map[uint32]route
	depthOpt *optionState // Depth Units of the last depth sensor (§5.9)

	reqs      chan request
	paceReqs  chan func()         // SetRealTime and SetSpeed (doPace)
	later     funcQueue           // requests made from handlers, run after they return
	handlers  sensorrt.Goroutines // the workers' goroutines
	callbacks sensorrt.Goroutines // the callback goroutine
	rt        sensorrt.Device     // refuses Close from both, closes once
	realTime  atomic.Bool
	// starts holds the sensors' starts (Sensor.Start) that the reader has
	// not yet applied: it applies them before anything else it does.
	starts       funcQueue
	done         chan struct{}
	readerExited chan struct{}
	ev           *events

	status   atomic.Int32
	position atomic.Int64
	speed    atomic.Uint64 // float64 bits of rs.speed, for Speed
	lastErr  atomic.Pointer[error]
	lossMu   sync.Mutex
	losses   []Loss                 // what damage cost, each part once, in the order found
	repaired []rosbag.RepairedChunk // chunks read from their records, each once
	statusMu sync.Mutex
	statusCb func(extensions.PlaybackStatus)
	stopWait []chan struct{} // PlayAll's, closed at the next Stopped

	rs readerState // owned by the reader goroutine
}

type route struct {
	kind layout.TopicKind
	st   *stream
	sens *bagSensor
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
	repSeen  int      // entries of it.Repaired() already noted
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
	// offered is set once a frame was offered in real time and not yet
	// drained (drainOffered).
	offered bool
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
	if err != nil {
		return nil, fmt.Errorf("playback: %s: %w", path, err)
	}
	recovery := bag.Info().Recovery
	desc, err := description.Read(path, bag)
	if err != nil {
		bag.Close()
		return nil, fmt.Errorf("playback: %w", err)
	}
	d := &Device{path: path, bag: bag, recovery: recovery, desc: desc,
		repeat: opts.Repeat, reqs: make(chan request), paceReqs: make(chan func()), starts: newFuncQueue(), later: newFuncQueue(), done: make(chan struct{}), readerExited: make(chan struct{}),
		routes: map[uint32]route{}}
	if desc.HasFrame {
		d.duration = time.Duration(desc.Last)
	}
	d.build()
	for _, l := range recovery.Losses() {
		d.addLoss(l)
	}
	d.addRepaired(desc.Repaired)
	if err := d.checkDescriptionChunks(); err != nil {
		bag.Close()
		return nil, err
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
	d.rt.Name = "playback: " + path
	d.rt.Own(&d.handlers, &d.callbacks)
	d.ev = newEvents(&d.callbacks)
	go d.run()
	return d, nil
}

// build creates the sensors, streams and routes from the description.
func (d *Device) build() {
	snap := &device.Snapshot{Info: d.desc.Info.Clone()}
	var all []*description.Stream
	byKey := map[description.Key]*stream{}
	for _, rs := range d.desc.Sensors {
		s := &bagSensor{dev: d, index: rs.Index, byOption: map[sensor.Option]*optionState{}}
		s.life = sensorrt.Lifecycle{Name: fmt.Sprintf("playback: sensor %d", rs.Index), Handlers: &d.handlers}
		ss := device.SensorSnapshot{Index: rs.Index, Info: rs.Info.Clone(), RecommendedFilters: append([]string{}, rs.Filters...)}
		var opts []sensor.Option
		for o := range rs.Options {
			opts = append(opts, o)
		}
		sort.Slice(opts, func(a, b int) bool { return opts[a] < opts[b] })
		for _, o := range opts {
			st := &optionState{desc: rs.Options[o]}
			st.set(st.desc.Static)
			s.options = append(s.options, st)
			s.byOption[o] = st
			d.allOpts = append(d.allOpts, st)
			v := st.desc.Static
			ss.Options = append(ss.Options, extensions.OptionSpec{Option: o, Value: v,
				Range: extensions.Range{Min: v, Max: v, Default: v}, Description: st.desc.Desc, ReadOnly: true})
		}
		_, depth := s.byOption[sensor.OptionDepthUnits]
		_, stereo := s.byOption[sensor.OptionStereoBaseline]
		if depth {
			ss.Kinds = append(ss.Kinds, extensions.KindDepthSensor)
			d.depthOpt = s.byOption[sensor.OptionDepthUnits]
			ss.HasDepthUnits, ss.DepthUnits = true, d.depthOpt.desc.Static
			if stereo {
				ss.Kinds = append(ss.Kinds, extensions.KindDepthStereoSensor)
				ss.HasBaseline, ss.StereoBaselineMM = true, s.byOption[sensor.OptionStereoBaseline].desc.Static
			}
		}
		switch rs.Info[sensor.CameraInfoName] {
		case nameRGB:
			ss.Kinds = append(ss.Kinds, extensions.KindColorSensor)
		case nameMotion:
			ss.Kinds = append(ss.Kinds, extensions.KindMotionSensor)
		case nameFisheye:
			ss.Kinds = append(ss.Kinds, extensions.KindFisheyeSensor)
		}
		for _, r := range rs.Streams {
			st := &stream{rec: r, profile: r.Profile, sens: s, kind: description.DataKind(r.Profile)}
			s.streams = append(s.streams, st)
			ss.Profiles = append(ss.Profiles, r.Profile)
			d.streams = append(d.streams, st)
			byKey[r.Key] = st
			all = append(all, r)
		}
		d.sensors = append(d.sensors, s)
		snap.Sensors = append(snap.Sensors, ss)
		switch {
		case depth && stereo:
			d.ifaces = append(d.ifaces, stereoSensor{depthSensor{s}})
		case depth:
			d.ifaces = append(d.ifaces, depthSensor{s})
		default:
			d.ifaces = append(d.ifaces, s)
		}
	}
	d.extr, snap.Pinned = deriveExtrinsics(all)
	d.snap = snap
	for i, s := range d.sensors {
		s.snap = &snap.Sensors[i]
	}
	for _, c := range d.bag.Connections() {
		ti := d.desc.Topic(c.Topic)
		r := route{kind: ti.Kind, conn: c}
		fk := description.FrameKind(ti.Kind)
		switch ti.Kind {
		case layout.KindImageData, layout.KindImuData, layout.KindPoseTransform, layout.KindImageMetadata,
			layout.KindImuMetadata, layout.KindPoseMetadata, layout.KindPoseAccel, layout.KindPoseTwist,
			layout.KindLegacyImageData, layout.KindLegacyImuData, layout.KindLegacyPoseData, layout.KindLegacyFrameInfo:
			st := byKey[description.KeyOf(ti)]
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
			if !ti.Kind.InVersion(d.desc.Version) || ti.Sensor >= len(d.sensors) {
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
func (d *Device) Info() sensor.Info { return d.snap.Info.Clone() }

// Snapshot returns the device description the bag holds, in the model a
// recording is written from (device.Describe, device.Capture): info, and per
// sensor its info, options with their values at the start of the bag (read
// only, range {v, v, 0, v}), profiles, kinds, depth units, stereo baseline
// and recommended filters, and the recorded extrinsics with their groups.
// It must not be modified.
func (d *Device) Snapshot() *device.Snapshot { return d.snap }

// PinnedExtrinsics returns the recorded pin→stream extrinsics with their
// groups (device.ExtrinsicsSource).
func (d *Device) PinnedExtrinsics() []extensions.PinnedExtrinsics {
	return append([]extensions.PinnedExtrinsics(nil), d.snap.Pinned...)
}

// Sensors returns the recorded sensors in index order.
func (d *Device) Sensors() []sensor.Sensor { return append([]sensor.Sensor(nil), d.ifaces...) }

// Extrinsics returns the transform between two recorded streams of the same
// extrinsics group, derived as librealsense does. A profile that is not one
// of the device's — that of a frame a processing block made (another
// format or size, or a copy) — stands for the recorded stream of its type
// and index, whose extrinsics librealsense gives the profiles it derives.
func (d *Device) Extrinsics(from, to *sensor.StreamProfile) (sensor.Extrinsics, error) {
	if e, ok := d.extr[profilePair{d.recorded(from), d.recorded(to)}]; ok {
		return e, nil
	}
	return sensor.Extrinsics{}, fmt.Errorf("playback: %s: %v → %v: %w", d.path, from, to, device.ErrNoExtrinsics)
}

// recorded returns p if it is a recorded profile, else the recorded
// profile of p's stream type and index (p when there is none).
func (d *Device) recorded(p *sensor.StreamProfile) *sensor.StreamProfile {
	if p == nil {
		return nil
	}
	for _, st := range d.streams {
		if st.profile == p {
			return p
		}
	}
	for _, st := range d.streams {
		if st.profile.Stream == p.Stream && st.profile.Index == p.Index {
			return st.profile
		}
	}
	return p
}

// Filename returns the path of the bag.
func (d *Device) Filename() string { return d.path }

// FileVersion returns the bag's /file_version.
func (d *Device) FileVersion() int { return int(d.desc.Version) }

// Recovery describes the linear scan that opened a bag whose index was
// missing or unusable; nil for an indexed bag. Recovery().Damaged() tells a
// bag that only lacked its index from one that lost data; Losses lists the
// loss.
func (d *Device) Recovery() *rosbag.Recovery { return d.recovery }

// Losses returns the parts of the bag lost to damage, each once, in the
// order they were found: those the recovery scan could not read (known at
// Open: corrupt chunks and a truncated end) and the corrupt chunks of an
// indexed bag skipped by playback so far. Their frames are counted per
// stream in device.StreamStats.Lost, apart from the frames Dropped for a slow
// handler. Empty for an undamaged bag.
func (d *Device) Losses() []Loss {
	d.lossMu.Lock()
	defer d.lossMu.Unlock()
	return slices.Clone(d.losses)
}

// checkDescriptionChunks loads and checks the chunks before the first
// sample that hold nothing the description reads (playback reads frames
// from samplesFrom on): a corrupt one is a loss, as for every reader of the
// whole bag.
func (d *Device) checkDescriptionChunks() error {
	it := d.bag.Messages(&rosbag.Query{Connections: []uint32{math.MaxUint32}, End: samplesFrom, SkipCorrupt: true, AllChunks: true})
	defer it.Close()
	for it.Next() {
	}
	for _, l := range it.Skipped() {
		d.addLoss(l)
	}
	if err := it.Err(); err != nil {
		return fmt.Errorf("playback: %s: checking the chunks of the description: %w", d.path, err)
	}
	d.addRepaired(it.Repaired())
	return nil
}

// Repaired returns the chunks whose index disagreed with their message
// records, each once, in the order found so far: playback read them from
// their records (see rosbag.RepairedChunk); nothing of them was lost.
func (d *Device) Repaired() []rosbag.RepairedChunk {
	d.lossMu.Lock()
	defer d.lossMu.Unlock()
	return slices.Clone(d.repaired)
}

// addRepaired notes repaired chunks once each (by offset).
func (d *Device) addRepaired(rs []rosbag.RepairedChunk) {
	d.lossMu.Lock()
	defer d.lossMu.Unlock()
	for _, c := range rs {
		if !slices.ContainsFunc(d.repaired, func(o rosbag.RepairedChunk) bool { return o.Offset == c.Offset }) {
			d.repaired = append(d.repaired, c)
		}
	}
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
			r.st.Lost.Add(uint64(n))
			if l.Frames == nil {
				l.Frames = map[string]int{}
			}
			l.Frames[r.st.profile.Name()] += n
		}
	}
	d.losses = append(d.losses, l)
	return true
}

// Duration returns the position of the end of the bag: the bag time of its
// last frame, counted, as every position, from bag time 0, where a
// RealSense recording has its first message (0 for a bag without frames).
// librealsense's get_duration is last − first frame instead (see Span); the
// two differ by the first frame's position, which in a part cut by
// rs-record edit is the start of its window.
func (d *Device) Duration() time.Duration { return d.duration }

// Span returns the bag times of the first and the last frame of the bag
// (both 0 for a bag without frames); Duration is last, librealsense's
// get_duration last − first.
func (d *Device) Span() (first, last time.Duration) {
	if !d.desc.HasFrame {
		return 0, 0
	}
	return time.Duration(d.desc.First), time.Duration(d.desc.Last)
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

// Stats returns the frame counters of every recorded stream, in uid order.
// Lost counts the frames of the stream lost to damage (see Losses): in
// parts of the bag the recovery scan could not read, and in corrupt chunks
// playback skipped (with a Frame Corrupted notification each time it meets
// one). Each lost frame counts once, however often playback passes its
// place.
func (d *Device) Stats() []device.StreamStats {
	out := make([]device.StreamStats, len(d.streams))
	for i, st := range d.streams {
		out[i] = device.StreamStats{Profile: st.profile, Delivered: st.Delivered.Load(), Dropped: st.Dropped.Load(),
			Lost: st.Lost.Load()}
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
	return d.doPace(func() error {
		d.rs.speed = x
		d.speed.Store(math.Float64bits(x))
		if d.rs.baseSet {
			d.rs.base, d.rs.baseBag = time.Now(), rosbag.Time(d.position.Load())
		}
		return nil
	})
}

// Speed returns the real-time speed factor.
func (d *Device) Speed() float64 { return math.Float64frombits(d.speed.Load()) }

// SetRealTime switches between real-time (paced, drop-oldest) and
// non-real-time (lossless, deterministic) playback.
func (d *Device) SetRealTime(on bool) error {
	return d.doPace(func() error {
		d.rs.realTime, d.rs.baseSet = on, false
		d.realTime.Store(on)
		return nil
	})
}

// RealTime reports whether the device plays in real time.
func (d *Device) RealTime() bool { return d.realTime.Load() }

// Close stops every sensor and returns after every goroutine of the device
// has ended. It is idempotent and returns the same error every time.
// Called from a frame handler or a callback of the device, which it would
// wait for, it fails with an error wrapping sensor.ErrStopFromHandler and
// closes nothing.
func (d *Device) Close() error {
	return d.rt.Close(func() error {
		close(d.done)
		<-d.readerExited
		d.ev.close()
		d.releaseStopWaiters()
		return d.bag.Close()
	})
}

var (
	_ device.Counting     = (*Device)(nil)
	_ extensions.Playback = (*Device)(nil)
)

// refuseFromHandler returns an error wrapping sensor.ErrStopFromHandler
// (sensorrt.Refuse) when the caller is a frame handler of the device, for
// the requests that would wait for that handler (or, in non-real-time
// mode, for the reader, which waits for it).
func (d *Device) refuseFromHandler(op string) error {
	return sensorrt.Refuse(d.rt.Name, op, &d.handlers)
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

// doPace runs f, a request that only sets the pace of reading (the mode,
// the speed), on the reader goroutine as control does, except that the
// reader answers it also while it waits for a handler in non-real-time
// mode: it must not wait for a handler that waits for its caller (the
// pipeline's syncer waiting for room its reader makes); it applies from
// the next bag time read.
func (d *Device) doPace(f func() error) error {
	if d.handlers.Current() {
		return d.control(f)
	}
	reply := make(chan error, 1)
	select {
	case d.paceReqs <- func() { reply <- f() }:
	case <-d.done:
		return ErrClosed
	}
	return <-reply
}

// ready is a closed channel: serve(ready) does not wait.
var ready = func() chan time.Time { c := make(chan time.Time); close(c); return c }()

// serve waits for a request (from a caller or queued by a handler), the
// end of the device or, when tick is not nil, a tick. It reports whether
// the tick came and whether the device closed.
func (d *Device) serve(tick <-chan time.Time) (ticked, closed bool) {
	select {
	case r := <-d.reqs:
		d.starts.runQueued() // a Start that returned before the request
		r.reply <- r.f()
	case f := <-d.paceReqs:
		d.starts.runQueued()
		f()
	case <-d.later.wake:
		d.later.runQueued()
	case <-d.starts.wake:
		d.starts.runQueued()
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
