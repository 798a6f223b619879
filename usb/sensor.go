package usb

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"sync"
	"sync/atomic"
	"time"

	"github.com/rsbag/rsbag/device"
	"github.com/rsbag/rsbag/extensions"
	"github.com/rsbag/rsbag/internal/callbacks"
	"github.com/rsbag/rsbag/internal/sensorrt"
	"github.com/rsbag/rsbag/internal/usbio"
	"github.com/rsbag/rsbag/internal/uvc"
	"github.com/rsbag/rsbag/internal/yuv"
	"github.com/rsbag/rsbag/sensor"
)

// nextUID hands out stream-profile UIDs, unique within the process.
var nextUID atomic.Int64

func newUID() int { return int(nextUID.Add(1)) + 1000 }

// nowMs is the host clock for system timestamps, in milliseconds.
func nowMs() float64 { return float64(time.Now().UnixNano()) / 1e6 }

// mode is how to stream one profile: which VideoStreaming interface, format
// and frame descriptor and interval.
type mode struct {
	vs       *uvc.StreamingInterface
	format   int
	frame    int
	interval uint32
	bpp      int
	expect   int // bytes per frame, 0 if variable
	split    int // splitY8I or splitY12I for interleaved stereo formats, else 0
	// from and to, when to is not 0: the camera's YUYV or UYVY frames are
	// converted to format to on the host (librealsense's color sensor
	// profiles RGB8, BGR8, RGBA8, BGRA8 and Y8 backed by the native one).
	from, to sensor.Format
}

// Interleaved stereo formats: Y8I carries left and right 8-bit pixels in
// two bytes; Y12I packs two 12-bit pixels in three bytes (librealsense
// src/proc/y8i-to-y8y8.cpp and src/proc/y12i-to-y16y16.cpp).
const (
	splitY8I  = 1
	splitY12I = 2
)

// plan is how one VideoStreaming interface streams the opened profiles: a
// mode and the profiles it feeds (outs[0] for a plain format, outs[1] and
// outs[2] for the left and right images of an interleaved one).
type plan struct {
	m    mode
	outs [3]*sensor.StreamProfile
}

// first returns the first profile the plan feeds.
func (p *plan) first() *sensor.StreamProfile {
	for _, o := range p.outs {
		if o != nil {
			return o
		}
	}
	return nil
}

// base holds what UVC and HID sensors share: info, life cycle, the
// goroutines that read and deliver, notification callbacks and the sticky
// error.
type base struct {
	dev  *Device
	name string
	info sensor.Info
	kind []extensions.SensorKind
	opts *options // the sensor's options (extensions.Options)

	life     sensorrt.Lifecycle
	handlers sensorrt.Goroutines // the reading goroutines (callbacks) and workers (h)

	mu      sync.Mutex
	cancel  context.CancelFunc
	wg      sync.WaitGroup
	workers []*sensorrt.Worker
	count   sensorrt.Tally // per stream: delivered, dropped for a slow handler, lost on the wire
	err     error          // sticky streaming error
	stats   Stats

	notes callbacks.Callbacks[sensor.Notification]
}

// init names the sensor and sets up its life cycle.
func (b *base) init(dev *Device, name string) {
	b.dev, b.name = dev, name
	b.life = sensorrt.Lifecycle{Name: "usb " + name, Handlers: &b.handlers}
	dev.rt.Own(&b.handlers)
}

// Info returns the sensor's camera info.
func (b *base) Info() sensor.Info { return b.info.Clone() }

// Kinds returns the sensor's kind extensions.
func (b *base) Kinds() []extensions.SensorKind {
	return append([]extensions.SensorKind(nil), b.kind...)
}

// String returns the sensor name, e.g. "Stereo Module".
func (b *base) String() string { return b.name }

// OnNotification registers f for the sensor's notifications, delivered in
// registration order on the goroutine that raised them (a reading
// goroutine while streaming). cancel unregisters f; it is safe to call more
// than once.
func (b *base) OnNotification(f func(sensor.Notification)) (cancel func()) { return b.notes.Add(f) }

func (b *base) notify(cat sensor.NotificationCategory, sev sensor.Severity, desc string) {
	b.notes.Call(sensor.Notification{Category: cat, Severity: sev, Description: desc, TimestampMs: nowMs()})
}

// fail records a streaming error once and reports it.
func (b *base) fail(err error) {
	b.mu.Lock()
	first := b.err == nil
	if first {
		b.err = err
	}
	b.mu.Unlock()
	if first {
		cat := sensor.NotificationCategoryUnknownError
		if errors.Is(err, device.ErrDisconnected) {
			cat = sensor.NotificationCategoryHardwareError
		}
		b.notify(cat, sensor.SeverityError, err.Error())
	}
}

// Stats returns the sensor's streaming counters.
func (b *base) Stats() Stats {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.stats
}

// streamStats appends the counters of every stream the sensor has started,
// in the order they were opened.
func (b *base) streamStats(out []device.StreamStats) []device.StreamStats {
	b.count.Each(func(p *sensor.StreamProfile, c *sensorrt.Counters) {
		out = append(out, device.StreamStats{Profile: p, Delivered: c.Delivered.Load(), Dropped: c.Dropped.Load(), Lost: c.Lost.Load()})
	})
	return out
}

// track adds the streams of ps to the sensor's counters (Device.Stats lists
// them, frames or not).
func (b *base) track(ps []*sensor.StreamProfile) {
	for _, p := range ps {
		b.count.Of(p)
	}
}

// run starts, for each reading function, a worker that calls h and a
// reading goroutine that hands it frames; cancel ends the reading.
func (b *base) run(cancel context.CancelFunc, h sensor.Handler, periods []time.Duration, read func(i int, w *sensorrt.Worker)) {
	b.cancel, b.err = cancel, nil
	b.workers = b.workers[:0]
	for i, p := range periods {
		w := sensorrt.Start(h, &b.handlers, p, &b.count)
		b.workers = append(b.workers, w)
		b.wg.Add(1)
		go func() {
			defer b.wg.Done()
			defer b.handlers.Enter()()
			read(i, w)
		}()
	}
}

// halt ends the reading goroutines, then the workers (frames still queued
// are dropped): when it returns h is not running and will not be called
// again.
func (b *base) halt() {
	b.cancel()
	b.wg.Wait()
	for _, w := range b.workers {
		w.Stop()
	}
	b.workers = nil
}

// offer queues a frame for the handler: a live camera does not wait for it
// (sensorrt.Worker.Offer), so a handler slower than the stream sees its
// latest frames.
func offer(w *sensorrt.Worker, f *sensor.Frame) {
	now := time.Now()
	w.Offer(f, time.Duration(now.UnixNano()), now, 1)
}

// Sensor is a UVC sensor of a live camera: the Stereo Module (depth and
// infrared) or the RGB Camera.
type videoSensor struct {
	base
	vc       uvc.ControlInterface
	profiles []*sensor.StreamProfile
	modes    map[*sensor.StreamProfile]mode // plain formats
	ilv      map[*sensor.StreamProfile]mode // infrared profiles an interleaved format can produce
	plans    []*plan
	global   atomic.Bool   // Global Time Enabled
	units    atomic.Uint32 // float32 bits of the depth units (Stereo Module)
	keeping  bool          // started the device's time keeper
	depth    bool
	running  []*vsRun
}

var (
	_ sensor.Sensor                = (*videoSensor)(nil)
	_ extensions.Options           = (*videoSensor)(nil)
	_ extensions.Notifier          = (*videoSensor)(nil)
	_ extensions.Kinded            = (*videoSensor)(nil)
	_ extensions.DepthSensor       = (*videoSensor)(nil)
	_ extensions.DepthStereoSensor = (*videoSensor)(nil)
)

// Profiles returns every profile the sensor's descriptors advertise.
func (s *videoSensor) Profiles() []*sensor.StreamProfile {
	return append([]*sensor.StreamProfile(nil), s.profiles...)
}

// Open reserves profiles for streaming: at most one per VideoStreaming
// interface, except that Infrared/1 and Infrared/2 of the same format,
// resolution and rate are streamed together as one interleaved format
// (Y8I for Y8, Y12I for Y16) and split. Infrared/1 Y8 alone uses the plain
// GREY format when the camera offers it.
func (s *videoSensor) Open(ps ...*sensor.StreamProfile) error {
	plans, err := s.resolve(ps)
	if err != nil {
		return err
	}
	return s.life.Open(s.profiles, ps, func() error { s.plans = plans; return nil })
}

func (s *videoSensor) resolve(ps []*sensor.StreamProfile) ([]*plan, error) {
	var plans []*plan
	byIntf := map[int]*plan{}
	conflict := func(p *sensor.StreamProfile, intf int) error {
		return fmt.Errorf("usb %s: open %v: VideoStreaming interface %d already streams %v", s.name, p, intf, byIntf[intf].first())
	}
	// Profiles only an interleaved format produces come first, so that an
	// Infrared/1 Y8 request can join its Infrared/2 partner.
	for pass := 0; pass < 2; pass++ {
		for _, p := range ps {
			m, plain := s.modes[p]
			im, inter := s.ilv[p]
			if !plain && !inter {
				return nil, fmt.Errorf("usb %s: open %v: %w", s.name, p, sensor.ErrNoProfile)
			}
			if (pass == 0) != !plain {
				continue
			}
			var intf int
			if plain {
				intf = m.vs.Interface
			} else {
				intf = im.vs.Interface
			}
			pl, busy := byIntf[intf]
			switch {
			case inter && busy && pl.m.split != 0:
				if pl.m != im || pl.outs[p.Index] != nil {
					return nil, fmt.Errorf("usb %s: open %v: Infrared/1 and Infrared/2 must share format, resolution and rate (have %v)",
						s.name, p, pl.first())
				}
				pl.outs[p.Index] = p
				continue
			case busy:
				return nil, conflict(p, intf)
			}
			pl = &plan{m: m}
			if plain {
				pl.outs[0] = p
			} else {
				pl.m = im
				pl.outs[p.Index] = p
			}
			byIntf[intf] = pl
			plans = append(plans, pl)
		}
	}
	return plans, nil
}

// DepthUnits returns the meters per depth unit of the Stereo Module: the
// Depth Units option — read from advanced mode at open and changed by
// SetOption when the camera has advanced mode, else librealsense's default
// (0.001, 0.0001 on the D405). It is 0 for the RGB camera.
func (s *videoSensor) DepthUnits() float32 {
	if !s.depth {
		return 0
	}
	return math.Float32frombits(s.units.Load())
}

// initialDepthUnits returns the depth units known at open.
func (s *videoSensor) initialDepthUnits() float32 {
	switch {
	case s.dev.fw != nil:
		return s.dev.fw.depthUnits
	case s.dev.cam.desc.Product == pidD405:
		return defaultDepthUnitsD405
	}
	return defaultDepthUnits
}

// StereoBaselineMM returns the distance between the stereo imagers in
// millimeters, |baseline| of the depth coefficients table as librealsense
// reports it; 0 when the table is unknown or for the RGB camera.
func (s *videoSensor) StereoBaselineMM() float32 {
	if !s.depth || s.dev.fw == nil || s.dev.fw.coeff == nil {
		return 0
	}
	return float32(math.Abs(float64(s.dev.fw.coeff.BaselineMM)))
}

// intrinsics returns the factory intrinsics of a video profile as
// librealsense reports them: rectified depth/infrared intrinsics for every
// depth-sensor format except Y16 (unrectified, none), color intrinsics from
// the RGB table (the D405, whose color comes from the depth module, by its
// own derivation); only the size when the calibration is unknown.
func (s *videoSensor) intrinsics(p *sensor.StreamProfile) sensor.Intrinsics {
	none := sensor.Intrinsics{Width: p.Width, Height: p.Height}
	fw := s.dev.fw
	switch {
	case fw == nil:
		return none
	case p.Stream == sensor.StreamColor && fw.rgb != nil && s.dev.cam.desc.Product == pidD405:
		// Color from the depth module (d400_depth_sensor::get_color_intrinsics).
		in, _ := fw.rgb.D405Intrinsics(p.Width, p.Height)
		return in
	case p.Stream == sensor.StreamColor && fw.rgb != nil:
		return fw.rgb.Intrinsics(p.Width, p.Height)
	case s.depth && p.Stream != sensor.StreamColor && p.Format != sensor.FormatY16:
		if in, ok := fw.depthIntrinsics(p.Width, p.Height); ok {
			return in
		}
	case !s.depth && fw.rgb != nil:
		return fw.rgb.Intrinsics(p.Width, p.Height)
	}
	return none
}

// vsRun is one streaming VideoStreaming interface.
type vsRun struct {
	p      *sensor.StreamProfile // first profile fed (names errors)
	outs   [3]*sensor.StreamProfile
	m      mode
	probe  uvc.Probe
	stream usbio.Stream
	size   int
	frames uint64
}

// Start negotiates every opened profile (probe/commit), starts its IN
// stream and delivers frames to h.
func (s *videoSensor) Start(h sensor.Handler) error {
	return s.life.Start(h, func(opened []*sensor.StreamProfile) error {
		s.track(opened)
		return s.start(h)
	})
}

// start is Start's step, with the life cycle locked.
func (s *videoSensor) start(h sensor.Handler) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	o := s.dev.opts
	ctx, cancel := context.WithCancel(context.Background())
	var runs []*vsRun
	undo := func() {
		cancel()
		for _, r := range runs {
			if r.stream != nil {
				r.stream.Close()
			}
			s.dev.h.Release(r.m.vs.Interface)
		}
	}
	for _, pl := range s.plans {
		p, m := pl.first(), pl.m
		r := &vsRun{p: p, outs: pl.outs, m: m}
		runs = append(runs, r)
		if err := s.dev.h.SetInterface(m.vs.Interface, 0); err != nil {
			undo()
			return fmt.Errorf("usb %s: claim interface %d: %w", s.name, m.vs.Interface, err)
		}
		pr, err := negotiate(ctx, s.dev.h, m.vs.Interface, s.vc.UVCVersion,
			uvc.Probe{FormatIndex: uint8(m.format), FrameIndex: uint8(m.frame), FrameInterval: m.interval})
		if err != nil {
			undo()
			return fmt.Errorf("usb %s: %v: %w", s.name, p, err)
		}
		r.probe = pr
		// One transfer holds a whole frame plus the payload header (at most
		// 255 bytes, bHeaderLength is one byte), rounded to 1 KiB; the
		// device's dwMaxPayloadTransferSize wins when larger.
		r.size = (m.expect + 255 + 1023) &^ 1023
		if m.expect == 0 && int(pr.MaxVideoFrameSize) > 0 {
			r.size = (int(pr.MaxVideoFrameSize) + 255 + 1023) &^ 1023
		}
		if int(pr.MaxPayloadSize) > r.size {
			r.size = int(pr.MaxPayloadSize)
		}
		r.stream, err = s.dev.h.InStream(m.vs.Interface, m.vs.Endpoint, r.size, o.Transfers)
		if err != nil {
			undo()
			return fmt.Errorf("usb %s: stream endpoint %#02x: %w", s.name, m.vs.Endpoint, err)
		}
	}
	if s.dev.tk != nil {
		s.dev.tk.start(o.ControlTimeout)
		s.keeping = true
	}
	s.running = runs
	periods := make([]time.Duration, len(runs))
	for i, r := range runs {
		periods[i] = sensorrt.PeriodOf(r.p)
	}
	s.run(cancel, h, periods, func(i int, w *sensorrt.Worker) { s.read(ctx, runs[i], w) })
	return nil
}

// read is the goroutine of one VideoStreaming interface: it reads
// payloads, assembles frames and hands them to w. A read that sees no data
// for the watchdog period, or a stall, resets the endpoint and restarts the
// stream.
func (s *videoSensor) read(ctx context.Context, r *vsRun, w *sensorrt.Worker) {
	o := s.dev.opts
	var local Stats
	asm := &assembler{expect: r.m.expect, maxSize: r.size, stats: &local}
	asm.emit = func(data []byte, hdr uvc.PayloadHeader, m *frameMeta) bool {
		return s.deliver(r, data, hdr, m, w)
	}
	buf := make([]byte, r.size)
	publish := func() {
		s.mu.Lock()
		s.stats = addStats(s.stats, local)
		s.mu.Unlock()
		// A payload set that never made a frame loses a frame of every
		// stream the interface carries.
		if lost := local.ErrorFrames + local.ShortFrames + local.OversizedFrames + local.CorruptFrames; lost > 0 {
			for _, p := range r.outs {
				if p != nil {
					s.count.Of(p).Lost.Add(lost)
				}
			}
		}
		local = Stats{}
	}
	defer publish()
	for {
		rctx, cancel := context.WithTimeout(ctx, o.Watchdog)
		n, err := r.stream.ReadContext(rctx, buf)
		cancel()
		if err == nil {
			asm.push(buf[:n])
			publish()
			continue
		}
		if ctx.Err() != nil {
			return
		}
		if errors.Is(err, device.ErrDisconnected) {
			s.fail(fmt.Errorf("usb %s: %v: %w", s.name, r.p, err))
			return
		}
		// Watchdog: no payload in time, a stall, or a failed transfer.
		s.notify(sensor.NotificationCategoryFramesTimeout, sensor.SeverityWarn,
			fmt.Sprintf("%s: %v: resetting endpoint %#02x after: %v", s.name, r.p, r.m.vs.Endpoint, err))
		local.Resets++
		publish()
		r.stream.Close()
		r.stream = nil
		if err := s.dev.h.ClearHalt(r.m.vs.Endpoint); err != nil {
			s.fail(fmt.Errorf("usb %s: reset endpoint %#02x: %w", s.name, r.m.vs.Endpoint, err))
			return
		}
		st, err := s.dev.h.InStream(r.m.vs.Interface, r.m.vs.Endpoint, r.size, o.Transfers)
		if err != nil {
			s.fail(fmt.Errorf("usb %s: restart endpoint %#02x: %w", s.name, r.m.vs.Endpoint, err))
			return
		}
		r.stream = st
		asm.active = false
	}
}

func addStats(a, b Stats) Stats {
	a.Frames += b.Frames
	a.ErrorFrames += b.ErrorFrames
	a.ShortFrames += b.ShortFrames
	a.OversizedFrames += b.OversizedFrames
	a.CorruptFrames += b.CorruptFrames
	a.BadPayloads += b.BadPayloads
	a.Resets += b.Resets
	return a
}

// deliver builds the sensor.Frame for a complete payload set. Timestamps
// follow librealsense's ds_timestamp_reader_from_metadata
// (src/ds/ds-timestamp.cpp): with metadata, the UVC header timestamp in
// microseconds on the hardware clock and the capture-timing frame counter;
// without, the host clock (system time) and a running counter. It returns
// false, delivering nothing, for an MJPEG frame that does not decode.
func (s *videoSensor) deliver(r *vsRun, data []byte, hdr uvc.PayloadHeader, m *frameMeta, w *sensorrt.Worker) bool {
	r.frames++
	now := nowMs()
	f := &sensor.Frame{
		Profile:      r.p,
		Number:       r.frames,
		SystemTimeMs: now,
		Metadata:     m.md,
		Data:         data,
		Width:        r.p.Width,
		Height:       r.p.Height,
		BPP:          r.m.bpp,
		Stride:       r.p.Width * r.m.bpp / 8,
	}
	if s.depth && r.p.Stream == sensor.StreamDepth {
		f.DepthUnits = s.DepthUnits()
	}
	if m.captureValid && hdr.HasPTS {
		f.TimestampMs = float64(hdr.PTS) * 0.001
		f.Domain = sensor.TimestampDomainHardwareClock
		f.Metadata.Set(sensor.MetadataKeyFrameTimestamp, int64(hdr.PTS))
		if s.dev.tk != nil && s.global.Load() {
			if v, ok := s.dev.tk.toHost(f.TimestampMs); ok {
				f.TimestampMs, f.Domain = v, sensor.TimestampDomainGlobalTime
			}
		}
	} else {
		f.TimestampMs = now
		f.Domain = sensor.TimestampDomainSystemTime
	}
	if m.hasCounter {
		f.Number = uint64(m.counter)
	}
	f.Metadata.Set(sensor.MetadataKeyTimeOfArrival, int64(now))
	f.Metadata.Set(sensor.MetadataKeyBackendTimestamp, int64(now))
	if r.m.to != 0 {
		ob := yuv.OutBytes(r.m.to)
		out := make([]byte, f.Width*f.Height*ob)
		// YUYV and UYVY do not fail (the assembler delivers only payload
		// sets of the mode's size); an MJPEG frame that does not decode is
		// dropped and counted (Stats.CorruptFrames).
		if err := yuv.Convert(out, r.m.to, data, r.m.from, f.Width, f.Height, f.Width*2); err != nil {
			r.frames--
			return false
		}
		f.Data, f.BPP, f.Stride = out, 8*ob, f.Width*ob
	}
	if r.m.split == 0 {
		offer(w, f)
		return true
	}
	left, right := splitStereo(r.m.split, data, r.outs[1] != nil, r.outs[2] != nil)
	for i, img := range [][]byte{nil, left, right} {
		p := r.outs[i]
		if p == nil {
			continue
		}
		g := *f
		g.Profile, g.Data = p, img
		g.BPP = p.Format.BitsPerPixel()
		g.Stride = p.Width * g.BPP / 8
		offer(w, &g)
	}
	return true
}

// splitStereo splits an interleaved stereo frame into the left and right
// images that are wanted: Y8I bytes alternate left, right; a Y12I pixel is
// three bytes holding right bits 0-7, right bits 8-11 and left bits 0-3 (low
// and high nibble), then left bits 4-11, and each 12-bit value v becomes
// the 16-bit v<<6 | v>>4 (librealsense y12i_to_y16y16), little-endian.
func splitStereo(kind int, src []byte, wantL, wantR bool) (left, right []byte) {
	switch kind {
	case splitY8I:
		n := len(src) / 2
		if wantL {
			left = make([]byte, n)
		}
		if wantR {
			right = make([]byte, n)
		}
		for i := 0; i < n; i++ {
			if wantL {
				left[i] = src[2*i]
			}
			if wantR {
				right[i] = src[2*i+1]
			}
		}
	case splitY12I:
		n := len(src) / 3
		if wantL {
			left = make([]byte, 2*n)
		}
		if wantR {
			right = make([]byte, 2*n)
		}
		for i := 0; i < n; i++ {
			b0, b1, b2 := uint16(src[3*i]), uint16(src[3*i+1]), uint16(src[3*i+2])
			if wantL {
				l := b2<<4 | b1>>4
				binary.LittleEndian.PutUint16(left[2*i:], l<<6|l>>4)
			}
			if wantR {
				r := (b1&0x0F)<<8 | b0
				binary.LittleEndian.PutUint16(right[2*i:], r<<6|r>>4)
			}
		}
	}
	return left, right
}

// Stop stops streaming and waits for the reading goroutines; h is not
// called after it returns. It returns the streaming error, if any (one that
// wraps device.ErrDisconnected after an unplug). Called from the sensor's
// own handler or notification callbacks, which it would wait for, it
// returns an error wrapping sensor.ErrStopFromHandler and the sensor keeps
// streaming.
func (s *videoSensor) Stop() error { return s.life.Stop(s.stop) }

// stop is Stop's step.
func (s *videoSensor) stop() error {
	s.halt()
	s.mu.Lock()
	defer s.mu.Unlock()
	streamErr := s.err
	var errs []error
	for _, r := range s.running {
		if r.stream != nil {
			r.stream.Close()
		}
		if streamErr != nil && errors.Is(streamErr, device.ErrDisconnected) {
			continue
		}
		if err := s.dev.h.ClearHalt(r.m.vs.Endpoint); err != nil {
			errs = append(errs, fmt.Errorf("usb %s: stop endpoint %#02x: %w", s.name, r.m.vs.Endpoint, err))
		}
		if err := s.dev.h.Release(r.m.vs.Interface); err != nil {
			errs = append(errs, fmt.Errorf("usb %s: release interface %d: %w", s.name, r.m.vs.Interface, err))
		}
	}
	s.running = nil
	if s.keeping {
		s.dev.tk.stop()
		s.keeping = false
	}
	return errors.Join(append([]error{streamErr}, errs...)...)
}

// Close stops the sensor if needed and releases its profiles. Like Stop, it
// fails with an error wrapping sensor.ErrStopFromHandler (and changes
// nothing) when called from the sensor's own handler.
func (s *videoSensor) Close() error {
	return s.life.Close(s.stop, func() { s.plans = nil })
}

// shutdown closes the sensor for good (device Close).
func (s *videoSensor) shutdown() error { return s.life.Shutdown(s.stop, func() { s.plans = nil }) }
