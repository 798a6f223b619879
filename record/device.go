package record

import (
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/rsbag/rsbag/device"
	"github.com/rsbag/rsbag/extensions"
	"github.com/rsbag/rsbag/internal/layout"
	"github.com/rsbag/rsbag/msgs"
	"github.com/rsbag/rsbag/rosbag"
	"github.com/rsbag/rsbag/sensor"
)

// ErrClosed is returned by methods of a record device after Close.
var ErrClosed = errors.New("record: closed")

// minFrameTime is the smallest capture time given to a frame: bag times
// (0 s, 1 ns) and below are static and playback does not deliver them as
// frames (spec §6.3 starts the samples view at (0 s, 2 ns)).
const minFrameTime = 2

// Device is a record device: it behaves like the device it wraps and records
// what streams through it. See the package documentation.
type Device struct {
	inner   device.Device
	opts    Options
	path    string
	file    *os.File // owned, or nil
	bag     *rosbag.Writer
	sensors []*recSensor
	wrapped []sensor.Sensor
	q       *queue
	w       *writer

	mu          sync.Mutex // guards the fields below
	sizeImg     msgs.Image // frameMessageSizeLocked's: on the heap, so that sizing a frame does not allocate
	based       bool       // the time base exists
	base        time.Time  // bag time 0: Options.Origin, or the arrival of the first frame
	paused      bool
	pauseStart  time.Time
	pausedTotal time.Duration
	lastT       int64 // last capture time handed out (never goes backwards)
	frameTime   bool  // bag times come from the frames' timestamps (a source faster than real time)
	domains     map[sensor.TimestampDomain]domainBase
	stopped     bool  // closed or failed: nothing more is recorded
	failErr     error // the write error that stopped recording
	closed      bool
	optSeq      uint64                // option changes so far
	extra       map[string]*msgs.Type // extra message topics and their types

	failed     atomic.Bool // failErr is set
	descMu     sync.Mutex  // serializes taking the description snapshot
	descQueued atomic.Bool

	statsMu sync.Mutex
	streams []*streamState // in order of first frame or open

	fileSize   atomic.Int64
	writerDone chan struct{}
	cancels    []func()
	closeOnce  sync.Once
	closeErr   error
}

var (
	_ device.Device           = (*Device)(nil)
	_ device.ExtrinsicsSource = (*Device)(nil)
	_ extensions.Recorder     = (*Device)(nil)
)

// Create creates (or truncates) the bag file path and returns a record device
// wrapping dev. The record device owns the file and closes it in Close; it
// borrows dev and never closes it.
func Create(dev device.Device, path string, opts *Options) (*Device, error) {
	o, err := opts.withDefaults()
	if err != nil {
		return nil, err
	}
	if err := checkRecordable(dev); err != nil {
		return nil, err // before the file is created: an existing one stays
	}
	f, err := os.Create(path)
	if err != nil {
		return nil, fmt.Errorf("record: %w", err)
	}
	d, err := newDevice(dev, f, o)
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("record %s: %w", path, err)
	}
	d.path = path
	d.file = f
	return d, nil
}

// NewWriter returns a record device wrapping dev that writes the bag to w,
// which must be positioned at its start. It borrows both: Close finalizes the
// bag but closes neither w nor dev. Filename returns "".
func NewWriter(dev device.Device, w io.WriteSeeker, opts *Options) (*Device, error) {
	o, err := opts.withDefaults()
	if err != nil {
		return nil, err
	}
	if err := checkRecordable(dev); err != nil {
		return nil, err
	}
	return newDevice(dev, w, o)
}

// ErrUnplayable reports a device whose recording no reader would play.
var ErrUnplayable = errors.New("record: device cannot be recorded as a playable bag")

// checkRecordable refuses a device whose bag readers would refuse: a file
// of version 3 holds no post-processing topics, so a reader derives a
// D400's recommended filters from its sensors' names and refuses names it
// does not know (a D400 with a "Tracking Module", say).
func checkRecordable(dev device.Device) error {
	if dev == nil {
		return errors.New("record: nil device")
	}
	if !layout.IsD400(dev.Info()) {
		return nil
	}
	for i, s := range dev.Sensors() {
		if name := s.Info()[sensor.CameraInfoName]; !layout.D400SensorName(name) {
			return fmt.Errorf("%w: sensor %d is named %q, and a version-3 bag of a D400 may hold only its %q, %q, %q and %q sensors",
				ErrUnplayable, i, name, layout.SensorStereo, layout.SensorCodedLight, layout.SensorRGB, layout.SensorMotion)
		}
	}
	return nil
}

func newDevice(dev device.Device, w io.WriteSeeker, o Options) (*Device, error) {
	if dev == nil {
		return nil, errors.New("record: nil device")
	}
	bag, err := rosbag.NewWriter(w, &rosbag.WriterOptions{
		Compression:    o.Compression,
		ChunkThreshold: o.ChunkThreshold,
		FlushInterval:  o.FlushInterval,
		// One LZ4 worker per CPU: the writer goroutine only serializes
		// into the open chunk and hands finished chunks to the workers.
		Workers: runtime.GOMAXPROCS(0),
	})
	if err != nil {
		return nil, err
	}
	d := &Device{
		inner:      dev,
		opts:       o,
		bag:        bag,
		q:          newQueue(o.QueueSize, o.QueueBytes),
		writerDone: make(chan struct{}),
	}
	if !o.Origin.IsZero() {
		d.based, d.base = true, o.Origin
	}
	for i, in := range dev.Sensors() {
		s := &recSensor{rec: d, inner: in, index: i, written: map[int]bool{}, streams: map[streamKey]*streamState{}}
		d.sensors = append(d.sensors, s)
		d.wrapped = append(d.wrapped, wrap(s))
	}
	d.w = newWriter(d)
	if err := d.w.start(); err != nil {
		bag.Close()
		return nil, err
	}
	for _, s := range d.sensors {
		if o, ok := s.inner.(extensions.Options); ok {
			d.cancels = append(d.cancels, o.OnOptionChange(func(c extensions.OptionChange) { d.onOption(s, c) }))
		}
		if n, ok := s.inner.(extensions.Notifier); ok {
			d.cancels = append(d.cancels, n.OnNotification(func(n sensor.Notification) { d.onNotification(s, n) }))
		}
	}
	go d.w.run()
	return d, nil
}

// Info returns the wrapped device's info.
func (d *Device) Info() sensor.Info { return d.inner.Info() }

// Sensors returns the record sensors, one per sensor of the wrapped device,
// in the same order. Each implements exactly the extensions of the sensor it
// wraps, plus extensions.Notifier and Unwrapper.
func (d *Device) Sensors() []sensor.Sensor { return append([]sensor.Sensor(nil), d.wrapped...) }

// Extrinsics returns the wrapped device's extrinsics.
func (d *Device) Extrinsics(from, to *sensor.StreamProfile) (sensor.Extrinsics, error) {
	return d.inner.Extrinsics(from, to)
}

// PinnedExtrinsics returns the wrapped device's extrinsics in the pin→stream
// form the bag's tf topics store (§5.8): the wrapped device's own when it is
// a device.ExtrinsicsSource, groups unchanged; otherwise derived from its
// pairwise Extrinsics with device.Capture's rule, groups numbered from the
// wrapped device's FirstExtrinsicsGroup method if it has one, else from 0
// as for a live camera. Either way device.Capture of the record device
// reports the extrinsics device.Capture of the wrapped device reports. A
// wrapped device whose extrinsics cannot be queried (an error other than
// device.ErrNoExtrinsics) yields nil: no tf is written for now, later
// frames retry.
func (d *Device) PinnedExtrinsics() []extensions.PinnedExtrinsics {
	if src, ok := d.inner.(device.ExtrinsicsSource); ok {
		return src.PinnedExtrinsics()
	}
	snap, err := device.Capture(extrinsicsView{d.inner})
	if err != nil {
		return nil
	}
	return snap.Pinned
}

// extrinsicsView presents a device to device.Capture with bare sensors, so
// that only profiles and extrinsics are read (no option values), and never
// closes it.
type extrinsicsView struct{ d device.Device }

// bareSensor hides every extension of a sensor.
type bareSensor struct{ sensor.Sensor }

func (v extrinsicsView) Info() sensor.Info { return v.d.Info() }
func (v extrinsicsView) Close() error      { return nil }
func (v extrinsicsView) Sensors() []sensor.Sensor {
	ss := v.d.Sensors()
	out := make([]sensor.Sensor, len(ss))
	for i, s := range ss {
		out[i] = bareSensor{s}
	}
	return out
}
func (v extrinsicsView) Extrinsics(from, to *sensor.StreamProfile) (sensor.Extrinsics, error) {
	return v.d.Extrinsics(from, to)
}
func (v extrinsicsView) FirstExtrinsicsGroup() uint32 { return layout.FirstExtrinsicsGroup(v.d) }

// Unwrap returns the wrapped device.
func (d *Device) Unwrap() device.Device { return d.inner }

// Filename returns the path given to Create, or "" for NewWriter.
func (d *Device) Filename() string { return d.path }

// Pause stops recording frames until Resume: frames arriving while paused
// reach the user's handlers but not the bag, and the paused span is excluded
// from bag time. Frames queued before Pause are still written; option
// changes and notifications are still recorded. Pausing a paused device is a
// no-op.
func (d *Device) Pause() error {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.closed {
		return ErrClosed
	}
	if !d.paused {
		d.paused = true
		d.pauseStart = time.Now()
	}
	return nil
}

// Resume resumes recording after Pause; it is a no-op when not paused.
func (d *Device) Resume() error {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.closed {
		return ErrClosed
	}
	if d.paused {
		d.paused = false
		if d.based {
			from := d.pauseStart
			if from.Before(d.base) {
				from = d.base
			}
			if p := time.Since(from); p > 0 {
				d.pausedTotal += p
			}
		}
		// With the frames' own timing, the paused span is left out by
		// tying each domain's timestamps to bag time anew.
		d.domains = nil
	}
	return nil
}

// captureLocked returns the capture time of an event happening at now, in
// nanoseconds since the time base minus pauses; 0 before the base exists.
// While paused the time stays at the pause start. d.mu must be held.
func (d *Device) captureLocked(now time.Time) int64 {
	if !d.based {
		return 0
	}
	if d.paused {
		now = d.pauseStart
		if now.Before(d.base) {
			now = d.base
		}
	}
	t := int64(now.Sub(d.base) - d.pausedTotal)
	if t < d.lastT {
		t = d.lastT
	}
	d.lastT = t
	return t
}

// domainBase ties the frame timestamps of one timestamp domain to bag
// time: the frame of timestamp ts (ms) is at bag time t (ns).
type domainBase struct {
	ts float64
	t  int64
}

// wallPaced reports whether dev delivers its frames at the pace of the
// wall clock: not a playback in non-real-time mode or at a speed other than
// 1, nor a synthetic camera delivering as fast as possible (a source that
// says nothing of its pace is a live one). Wrapping devices are looked
// through.
func wallPaced(dev device.Device) bool {
	for dev != nil {
		if rt, ok := dev.(interface{ RealTime() bool }); ok && !rt.RealTime() {
			return false
		}
		if sp, ok := dev.(interface{ Speed() float64 }); ok && sp.Speed() != 1 {
			return false
		}
		u, ok := dev.(interface{ Unwrap() device.Device })
		if !ok {
			break
		}
		dev = u.Unwrap()
	}
	return true
}

// frameTimeLocked returns the bag time of frame f arriving at now. From a
// source paced by the wall clock it is the capture time (as librealsense's
// recorder stamps every frame). From a faster or slower one (frameTime) the
// frames' own timing is kept: the first frame of each timestamp domain gets
// the capture time (never earlier than the times already handed out), and
// each later frame of the domain that time plus its timestamp's distance
// from the first's. d.mu must be held.
func (d *Device) frameTimeLocked(f *sensor.Frame, now time.Time) int64 {
	if !d.frameTime {
		return d.captureLocked(now)
	}
	b, ok := d.domains[f.Domain]
	if !ok {
		b = domainBase{ts: f.TimestampMs, t: d.captureLocked(now)}
		d.domains[f.Domain] = b
	}
	return b.t + int64(math.Round((f.TimestampMs-b.ts)*1e6))
}

// onFrame records f (called on the sensor's delivery goroutine, before the
// user's handler).
func (d *Device) onFrame(s *recSensor, f *sensor.Frame) {
	if f == nil || f.Profile == nil {
		return
	}
	st := s.stream(f.Profile.Stream, f.Profile.Index)
	if !d.descQueued.Load() {
		d.queueDescription()
	}
	defer d.afterFrame(s, st)
	var extra []Companion
	if d.opts.Companions != nil { // user code: not under the lock
		extra = d.opts.Companions(f)
	}
	d.mu.Lock()
	if d.stopped {
		d.mu.Unlock()
		return
	}
	now := time.Now()
	if !d.based {
		d.based, d.base = true, now
	}
	if d.domains == nil {
		// Decided at the first frame (and again after a Resume).
		d.frameTime = !wallPaced(d.inner)
		d.domains = map[sensor.TimestampDomain]domainBase{}
	}
	if d.paused {
		d.mu.Unlock()
		st.paused.Add(1)
		return
	}
	if size := d.frameMessageSizeLocked(f); size > rosbag.MaxMessageSize {
		d.mu.Unlock()
		d.refuse(s, st, f, size)
		return
	}
	t := d.frameTimeLocked(f, now)
	if t < minFrameTime {
		t = minFrameTime
	}
	// Frames of one stream get strictly increasing bag times: playback
	// finds a frame's metadata (and a pose's accel and twist) by equal
	// bag time on the sibling topics.
	if t <= st.lastT {
		t = st.lastT + 1
	}
	st.lastT = t
	if t > d.lastT {
		d.lastT = t
	}
	e := event{kind: evFrame, t: t, sensor: s, stream: st, frame: f, extra: extra}
	if !d.opts.Lossless {
		ok := d.q.pushFrame(e, false)
		d.mu.Unlock()
		if !ok {
			st.dropped.Add(1)
			st.droppedBytes.Add(uint64(len(f.Data)))
		}
		return
	}
	d.mu.Unlock()
	if !d.q.pushFrame(e, true) {
		st.dropped.Add(1)
		st.droppedBytes.Add(uint64(len(f.Data)))
	}
}

// frameMessageSizeLocked returns the size of the message that would hold
// the frame's data: the Image of a video frame; other frames are small.
func (d *Device) frameMessageSizeLocked(f *sensor.Frame) int {
	if f.Profile.Kind != sensor.KindVideo {
		return len(f.Data)
	}
	d.sizeImg = msgs.Image{Header: msgs.Header{FrameID: frameIDNoDepthUnits}, Encoding: layout.Encoding(f.Profile.Format), Data: f.Data}
	n := msgs.Size(&d.sizeImg)
	d.sizeImg.Data = nil // the frame is the caller's
	return n
}

// refuse counts a frame too large for a bag (Stats: Refused) and says so
// on the sensor's notification callbacks, on the frame's own delivery
// goroutine: recording goes on with the next frame.
func (d *Device) refuse(s *recSensor, st *streamState, f *sensor.Frame, size int) {
	st.refused.Add(1)
	s.notify(sensor.Notification{
		Category: sensor.NotificationCategoryUnknownError,
		Severity: sensor.SeverityError,
		Description: fmt.Sprintf("Recording refused frame %d of %s/%d (%dx%d): its message of %d bytes exceeds the largest a bag may hold (%d bytes); recording continues",
			f.Number, st.key.stream, st.key.index, f.Width, f.Height, size, rosbag.MaxMessageSize),
		TimestampMs: float64(time.Now().UnixNano()) / 1e6,
	})
}

// afterFrame delivers the pending notifications of s on its frame delivery
// goroutine when there are any (two atomic loads per frame otherwise).
func (d *Device) afterFrame(s *recSensor, st *streamState) {
	if st.dropped.Load() != st.reported.Load() || (d.failed.Load() && !s.failNotified.Load()) {
		d.notifyPending(s, false)
	}
}

// pushControl queues a non-frame event stamped with the current capture time.
func (d *Device) pushControl(e event) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.stopped {
		return
	}
	e.t = d.captureLocked(time.Now())
	d.q.push(e)
}

func (d *Device) onOption(s *recSensor, c extensions.OptionChange) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.stopped {
		return
	}
	d.optSeq++
	d.q.push(event{kind: evOption, sensor: s, option: c, seq: d.optSeq, t: d.captureLocked(time.Now())})
}

// queueDescription snapshots the device description (R.9) when the first
// frame to be recorded arrives, so that it holds the option values of that
// moment, and queues it ahead of the frame. Option changes made while the
// snapshot is taken are written after it (see writer.writeDescription).
func (d *Device) queueDescription() {
	d.descMu.Lock()
	defer d.descMu.Unlock()
	if d.descQueued.Load() {
		return
	}
	d.mu.Lock()
	seq, skip := d.optSeq, d.stopped || d.paused
	d.mu.Unlock()
	if skip {
		return
	}
	desc := d.snapshot()
	desc.seq = seq
	d.mu.Lock()
	if !d.stopped {
		d.q.push(event{kind: evDescription, desc: desc})
		d.descQueued.Store(true)
	}
	d.mu.Unlock()
}

// description is the device description a bag starts with: the wrapped
// device as device.Describe sees it when the first frame is recorded (its
// info, and per sensor its info and options with their values then).
type description struct {
	snap *device.Snapshot
	seq  uint64 // option changes up to this one are in the snapshot
}

// snapshot reads the description from the wrapped device.
func (d *Device) snapshot() *description { return &description{snap: device.Describe(d.inner)} }

func (d *Device) onNotification(s *recSensor, n sensor.Notification) {
	d.pushControl(event{kind: evNotification, sensor: s, note: n})
	s.notify(n)
}

// fail stops recording after a write error (R.16). The error is reported to
// each record sensor's notification callbacks by notifyPending.
func (d *Device) fail(err error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.failErr == nil {
		d.failErr = err
		d.stopped = true
		d.failed.Store(true)
	}
}

// notifyPending delivers the recorder's own notifications that s has not
// delivered yet, on the calling goroutine: the drops of its streams (at most
// one report per stream per tickInterval unless force) and the write error
// that stopped recording. The recorder calls it from the sensor's frame
// delivery goroutine, and with force from Sensor.Stop and Device.Close, so
// no goroutine of the recorder ever runs user callbacks: a callback may call
// any method of the record device (Flush, Close) without deadlocking.
func (d *Device) notifyPending(s *recSensor, force bool) {
	s.smu.RLock()
	streams := s.ordered
	s.smu.RUnlock()
	for _, st := range streams {
		d.reportDrops(s, st, force)
	}
	d.mu.Lock()
	err := d.failErr
	d.mu.Unlock()
	if err != nil && s.failNotified.CompareAndSwap(false, true) {
		s.notify(sensor.Notification{
			Category:    sensor.NotificationCategoryUnknownError,
			Severity:    sensor.SeverityError,
			Description: fmt.Sprintf("Stopping recording for sensor (streaming will continue). (Error: %v)", err),
			TimestampMs: float64(time.Now().UnixNano()) / 1e6,
		})
	}
}

// reportDrops notifies the drops of st not reported yet (category Unknown
// Error, severity Warn), at most once per tickInterval unless force.
func (d *Device) reportDrops(s *recSensor, st *streamState, force bool) {
	n, r := st.dropped.Load(), st.reported.Load()
	if n == r {
		return
	}
	now := time.Now().UnixNano()
	if !force && now-st.lastReport.Load() < int64(tickInterval) {
		return
	}
	if !st.reported.CompareAndSwap(r, n) {
		return // another goroutine reports them
	}
	st.lastReport.Store(now)
	s.notify(sensor.Notification{
		Category: sensor.NotificationCategoryUnknownError,
		Severity: sensor.SeverityWarn,
		Description: fmt.Sprintf("Recording dropped %d frame(s) of %s/%d (%d in total): the recording queue is full (the disk does not keep up); streaming continues",
			n-r, st.key.stream, st.key.index, n),
		TimestampMs: float64(time.Now().UnixNano()) / 1e6,
	})
}

// Err returns the error that stopped recording, if any.
func (d *Device) Err() error {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.failErr
}

// Flush waits until everything recorded before the call is written and has
// reached the file (the open chunk is finalized). It returns the error that
// stopped recording, if any.
func (d *Device) Flush() error {
	done := make(chan struct{})
	d.mu.Lock()
	if d.closed {
		d.mu.Unlock()
		return ErrClosed
	}
	ok := d.q.push(event{kind: evBarrier, done: done})
	d.mu.Unlock()
	if ok {
		<-done
	}
	return d.Err()
}

// Close finalizes the bag: it stops recording, writes every queued frame,
// the index and the bag header, and closes the file if Create created it; then
// it delivers, on the calling goroutine, the drop reports and the write
// error not notified yet. It
// never stops or closes the wrapped device or its sensors: streaming through
// the record sensors goes on, unrecorded. It returns the first error of the
// recording (a write error that stopped it, or one finalizing the file).
// Close is idempotent.
func (d *Device) Close() error {
	d.closeOnce.Do(func() {
		d.mu.Lock()
		d.closed = true
		d.stopped = true
		d.mu.Unlock()
		for _, c := range d.cancels {
			c()
		}
		d.q.close()
		<-d.writerDone
		err := d.w.finish()
		if d.file != nil {
			if cerr := d.file.Close(); cerr != nil && err == nil {
				err = fmt.Errorf("record %s: %w", d.path, cerr)
			}
		}
		d.mu.Lock()
		ferr := d.failErr
		d.mu.Unlock()
		if ferr != nil && (err == nil || !errors.Is(err, ferr)) {
			err = errors.Join(ferr, err)
		}
		d.closeErr = err
	})
	for _, s := range d.sensors {
		d.notifyPending(s, true)
	}
	return d.closeErr
}

// Stats returns a snapshot of the recording. It may be called at any time,
// from any goroutine.
func (d *Device) Stats() Stats {
	var s Stats
	d.statsMu.Lock()
	for _, st := range d.streams {
		ss := st.snapshot()
		s.Streams = append(s.Streams, ss)
		s.Frames += ss.Frames
		s.Bytes += ss.Bytes
		s.Dropped += ss.Dropped
		s.DroppedBytes += ss.DroppedBytes
		s.Refused += ss.Refused
	}
	d.statsMu.Unlock()
	d.mu.Lock()
	if d.based {
		s.Elapsed = time.Since(d.base)
	}
	s.Err = d.failErr
	d.mu.Unlock()
	if s.Elapsed > 0 {
		s.MBPerSec = float64(s.Bytes) / 1e6 / s.Elapsed.Seconds()
	}
	s.FileSize = d.fileSize.Load()
	s.Queued = d.q.len()
	return s
}

func (d *Device) addStream(st *streamState) {
	d.statsMu.Lock()
	d.streams = append(d.streams, st)
	d.statsMu.Unlock()
}
