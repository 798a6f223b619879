package rig

import (
	"context"
	"errors"
	"fmt"
	"math"
	"sync"
	"sync/atomic"
	"time"

	"github.com/rsbag/rsbag/extensions"
	"github.com/rsbag/rsbag/internal/rigfiles"
	"github.com/rsbag/rsbag/playback"
	"github.com/rsbag/rsbag/sensor"
)

// Options configures Open. The zero value plays every bag in real time at
// speed 1.
type Options struct {
	// NonRealTime plays losslessly, in common bag-time order.
	NonRealTime bool
	// Speed is the initial real-time speed factor (0 means 1).
	Speed float64
	// Start and End bound the bag times played, [Start, End) (End 0: to
	// the end of every bag), as playback.Options.Start and End.
	Start, End time.Duration
}

// Errors of a Session.
var (
	// ErrSameDevice reports two bags of one device in a session.
	ErrSameDevice = errors.New("rig: two bags of the same device")
	// ErrSameFile reports a recording whose files would be one file: two
	// serial numbers that give one bag name, or a bag named as the
	// manifest.
	ErrSameFile = errors.New("rig: two files of the session have one name")
	// ErrNoOverlap reports bags whose frames do not overlap in time.
	ErrNoOverlap = errors.New("rig: bags do not overlap in time")
	// ErrStarted is returned by a second Start.
	ErrStarted = errors.New("rig: session already started")
)

// Session plays several bags as one: see the package documentation. Its
// control methods are safe for concurrent use but must not be called from
// its handler (they wait for it).
type Session struct {
	files   []string
	devs    []*playback.Device
	serials []string
	m       *merger

	ctl      sync.Mutex // serializes the controls
	realTime atomic.Bool
	speed    float64
	started  bool
	paused   bool
	closed   bool
	sensors  [][]sensor.Sensor // opened sensors per device
	handlers []sensor.Handler  // per device
}

// Open opens the bags at paths as one session. A single path ending in
// ".session.json" is a manifest: its bags are opened, and each must hold the
// serial the manifest names. Two bags of one device (same serial number)
// and bags whose frames do not overlap in bag time are errors.
func Open(paths []string, opts *Options) (*Session, error) {
	if opts == nil {
		opts = &Options{}
	}
	var want []string // serials a manifest names
	if len(paths) == 1 && rigfiles.IsManifest(paths[0]) {
		m, err := ReadManifest(paths[0])
		if err != nil {
			return nil, err
		}
		for _, b := range m.Bags {
			want = append(want, b.Serial)
		}
		paths = m.Paths(paths[0])
	}
	if len(paths) == 0 {
		return nil, errors.New("rig: no bag to play")
	}
	for _, p := range paths {
		if rigfiles.IsManifest(p) {
			return nil, fmt.Errorf("rig: %s: a manifest must be the only file of a session", p)
		}
	}
	s := &Session{files: paths, m: newMerger(len(paths)), speed: opts.Speed}
	if s.speed == 0 {
		s.speed = 1
	}
	s.realTime.Store(!opts.NonRealTime)
	for i, p := range paths {
		dev, err := playback.Open(p, &playback.Options{NonRealTime: opts.NonRealTime, Speed: opts.Speed, Start: opts.Start, End: opts.End})
		if err != nil {
			s.closeDevices()
			return nil, fmt.Errorf("rig: %w", err)
		}
		s.devs = append(s.devs, dev)
		serial := dev.Info()[sensor.CameraInfoSerialNumber]
		if want != nil && serial != want[i] {
			s.closeDevices()
			return nil, fmt.Errorf("rig: %s holds device %q, the manifest names %q", p, serial, want[i])
		}
		for j, other := range s.serials {
			if serial != "" && serial == other {
				s.closeDevices()
				return nil, fmt.Errorf("%w: %s and %s were both recorded from serial %s", ErrSameDevice, paths[j], p, serial)
			}
		}
		s.serials = append(s.serials, serial)
	}
	if err := s.checkOverlap(); err != nil {
		s.closeDevices()
		return nil, err
	}
	s.sensors = make([][]sensor.Sensor, len(s.devs))
	s.handlers = make([]sensor.Handler, len(s.devs))
	for i, d := range s.devs {
		d.OnStatusChange(func(st extensions.PlaybackStatus) {
			if st == extensions.StatusStopped {
				s.m.setEnded(i)
			}
		})
	}
	return s, nil
}

// checkOverlap requires one bag time that lies within every bag's frames.
func (s *Session) checkOverlap() error {
	late, early := -1, -1
	var lateT, earlyT time.Duration
	for i, d := range s.devs {
		first, last := d.Span()
		if first == 0 && last == 0 && d.Duration() == 0 {
			continue // no frames: nothing to compare
		}
		if late < 0 || first > lateT {
			late, lateT = i, first
		}
		if early < 0 || last < earlyT {
			early, earlyT = i, last
		}
	}
	if late >= 0 && lateT > earlyT {
		f1, l1 := s.devs[early].Span()
		f2, l2 := s.devs[late].Span()
		return fmt.Errorf("%w: %s has frames from %v to %v, %s from %v to %v", ErrNoOverlap,
			s.files[early], f1, l1, s.files[late], f2, l2)
	}
	return nil
}

func (s *Session) closeDevices() {
	for _, d := range s.devs {
		d.Close()
	}
}

// Devices returns the playback devices, in the order of the bags.
func (s *Session) Devices() []*playback.Device { return append([]*playback.Device(nil), s.devs...) }

// Serials returns the devices' serial numbers, in device order.
func (s *Session) Serials() []string { return append([]string(nil), s.serials...) }

// Duration returns the latest of the bags' durations: the position of the
// last frame of the session (playback.Device.Duration), so that every
// position lies in [0, Duration].
func (s *Session) Duration() time.Duration {
	var d time.Duration
	for _, dev := range s.devs {
		d = max(d, dev.Duration())
	}
	return d
}

// Position returns the bag time of the last frame delivered in
// non-real-time mode, the furthest device position in real time.
func (s *Session) Position() time.Duration {
	if !s.realTime.Load() {
		return s.m.lastTime()
	}
	var p time.Duration
	for _, d := range s.devs {
		p = max(p, d.Position())
	}
	return p
}

// Start opens, on every device, the recorded profiles that sel selects
// (nil: all) and starts them with h. Devices without a selected profile
// take no part.
//
// The handler h receives the frames of the session: dev is the index of the
// frame's device in Session.Devices and t its bag time. In non-real-time
// mode calls come one at a time in common bag-time order and t is exact; in
// real time frames of different devices and streams may be delivered
// concurrently and t is the device's position when the frame was handed
// out.
func (s *Session) Start(sel func(dev int, p *sensor.StreamProfile) bool, h func(dev int, t time.Duration, f *sensor.Frame)) error {
	s.ctl.Lock()
	defer s.ctl.Unlock()
	switch {
	case s.closed:
		return playback.ErrClosed
	case s.started:
		return ErrStarted
	}
	for i, d := range s.devs {
		dev := d
		s.handlers[i] = sensor.HandlerFunc(func(f *sensor.Frame) {
			t := dev.Position()
			if s.realTime.Load() {
				h(i, t, f)
				return
			}
			if s.m.enter(i, t) {
				h(i, t, f)
				s.m.leave()
			}
		})
		for _, sn := range d.Sensors() {
			var ps []*sensor.StreamProfile
			for _, p := range sn.Profiles() {
				if sel == nil || sel(i, p) {
					ps = append(ps, p)
				}
			}
			if len(ps) == 0 {
				continue
			}
			if err := sn.Open(ps...); err != nil {
				s.stopSensors()
				return fmt.Errorf("rig: %s: open %s: %w", s.files[i], sn.Info()[sensor.CameraInfoName], err)
			}
			s.sensors[i] = append(s.sensors[i], sn)
		}
		if len(s.sensors[i]) == 0 {
			s.m.setEnded(i)
		}
	}
	s.started = true
	for i := range s.devs {
		if err := s.startDevice(i); err != nil {
			s.stopSensors()
			return err
		}
	}
	return nil
}

func (s *Session) startDevice(i int) error {
	for _, sn := range s.sensors[i] {
		if err := sn.Start(s.handlers[i]); err != nil {
			return fmt.Errorf("rig: %s: start %s: %w", s.files[i], sn.Info()[sensor.CameraInfoName], err)
		}
	}
	return nil
}

// stopSensors stops and closes every opened sensor, dropping the frames
// the merger holds.
func (s *Session) stopSensors() {
	s.m.setDiscard(true)
	for i := range s.sensors {
		for _, sn := range s.sensors[i] {
			sn.Stop()
		}
		for _, sn := range s.sensors[i] {
			sn.Close()
		}
		s.sensors[i] = nil
		s.m.setEnded(i)
	}
}

// Wait waits until every device has played to its end (or was stopped),
// or ctx is done.
func (s *Session) Wait(ctx context.Context) error {
	select {
	case <-s.m.done():
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Done returns a channel closed once every device has played to its end.
func (s *Session) Done() <-chan struct{} { return s.m.done() }

// Pause pauses every device: no frame is delivered after it returns until
// Resume.
func (s *Session) Pause() error {
	s.ctl.Lock()
	defer s.ctl.Unlock()
	if s.closed {
		return playback.ErrClosed
	}
	if s.paused {
		return nil
	}
	s.paused = true
	if !s.realTime.Load() {
		s.m.setGate(false)
		return nil
	}
	return s.each(func(d *playback.Device) error { return d.Pause() })
}

// Resume resumes every device.
func (s *Session) Resume() error {
	s.ctl.Lock()
	defer s.ctl.Unlock()
	if s.closed {
		return playback.ErrClosed
	}
	if !s.paused {
		return nil
	}
	s.paused = false
	if !s.realTime.Load() {
		s.m.setGate(true)
		return nil
	}
	return s.each(func(d *playback.Device) error { return d.Resume() })
}

// Status returns Stopped before Start and once every device has played to
// its end (or was stopped), Paused while paused, Playing otherwise.
func (s *Session) Status() extensions.PlaybackStatus {
	s.ctl.Lock()
	defer s.ctl.Unlock()
	select {
	case <-s.m.done():
		return extensions.StatusStopped
	default:
	}
	switch {
	case !s.started || s.closed:
		return extensions.StatusStopped
	case s.paused:
		return extensions.StatusPaused
	}
	return extensions.StatusPlaying
}

// SetSpeed sets the real-time speed factor x > 0 of every device. In
// non-real-time mode it takes effect when real time resumes.
func (s *Session) SetSpeed(x float64) error {
	s.ctl.Lock()
	defer s.ctl.Unlock()
	if s.closed {
		return playback.ErrClosed
	}
	if !(x > 0) || math.IsInf(x, 0) {
		return fmt.Errorf("rig: speed %v: want a finite factor > 0", x)
	}
	s.speed = x
	if !s.realTime.Load() {
		// The devices' readers may be waiting for the merger: a device
		// call now would wait for them.
		return nil
	}
	return s.each(func(d *playback.Device) error { return d.SetSpeed(x) })
}

// RealTime reports whether the session plays in real time.
func (s *Session) RealTime() bool { return s.realTime.Load() }

// SetRealTime switches every device between real-time and non-real-time
// playback; the frames waiting for their turn when real time begins are
// delivered at once.
func (s *Session) SetRealTime(on bool) error {
	s.ctl.Lock()
	defer s.ctl.Unlock()
	if s.closed {
		return playback.ErrClosed
	}
	if on == s.realTime.Load() {
		return nil
	}
	if on {
		if s.paused {
			// The devices themselves pause, each from its handler; the
			// frame each had ready is dropped, as a pause drops the
			// frames queued for delivery.
			var idx, stopped []int
			for i := range s.devs {
				if s.m.isEnded(i) || !s.started {
					stopped = append(stopped, i)
				} else {
					idx = append(idx, i)
				}
			}
			ended, err := s.m.run(idx, func(i int) func() error { return s.devs[i].Pause })
			for _, i := range append(stopped, ended...) {
				err = errors.Join(err, s.devs[i].Pause())
			}
			if err != nil {
				return err
			}
		}
		s.realTime.Store(true)
		s.m.setBypass(true)
		return s.each(func(d *playback.Device) error {
			return errors.Join(d.SetRealTime(true), d.SetSpeed(s.speed))
		})
	}
	if err := s.each(func(d *playback.Device) error { return d.SetRealTime(false) }); err != nil {
		return err
	}
	s.m.setGate(!s.paused)
	s.m.setBypass(false)
	s.realTime.Store(false)
	if s.paused {
		return s.each(func(d *playback.Device) error { return d.Resume() })
	}
	return nil
}

// Seek moves every device to bag time t, within [0, Duration]: the next
// frames are those at or after t, and none read before is delivered after
// Seek returns. A device whose frames end before t has nothing more to
// play; a device that had played to its end plays again from t. While the
// session is paused in real time, the devices are paused and each
// delivers its current picture at t (see package playback); in
// non-real-time mode the session pauses by holding the frames back, and a
// seek while paused delivers nothing until Resume.
func (s *Session) Seek(t time.Duration) error {
	s.ctl.Lock()
	defer s.ctl.Unlock()
	if s.closed {
		return playback.ErrClosed
	}
	if t < 0 || t > s.Duration() {
		return fmt.Errorf("rig: seek to %v (duration %v): %w", t, s.Duration(), playback.ErrOutOfRange)
	}
	nrt := !s.realTime.Load()
	if nrt {
		s.m.setGate(false)
		defer s.m.setGate(!s.paused)
	}
	var errs []error
	var held []int
	for i, d := range s.devs {
		if s.started && len(s.sensors[i]) == 0 {
			continue
		}
		// Frames before t are never delivered, also from a bag whose
		// duration (the bound of its own seek) is shorter than t.
		s.m.setFloor(i, t)
		x := min(t, d.Duration())
		if s.started && d.Status() == extensions.StatusStopped {
			// Played to its end: its status callback is on its way.
			s.m.waitEnded(i)
		}
		switch {
		case !s.started || !nrt:
			errs = append(errs, d.Seek(x))
		case s.m.isEnded(i):
			errs = append(errs, s.replay(i, x))
		default:
			held = append(held, i)
		}
	}
	if len(held) > 0 {
		// The device's reader waits for its handler: the handler seeks.
		ended, err := s.m.run(held, func(i int) func() error {
			d, x := s.devs[i], min(t, s.devs[i].Duration())
			return func() error { return d.Seek(x) }
		})
		errs = append(errs, err)
		for _, i := range ended {
			errs = append(errs, s.replay(i, min(t, s.devs[i].Duration())))
		}
	}
	return errors.Join(errs...)
}

// replay plays device i, which played to its end, again from x.
func (s *Session) replay(i int, x time.Duration) error {
	err := s.devs[i].Seek(x)
	s.m.restart(i)
	return errors.Join(err, s.startDevice(i))
}

// Stop stops every device; Wait returns.
func (s *Session) Stop() error {
	s.ctl.Lock()
	defer s.ctl.Unlock()
	if s.closed {
		return playback.ErrClosed
	}
	s.stopSensors()
	return nil
}

// Err returns the errors that stopped the devices' playback (see
// playback.Device.Err), joined, or nil.
func (s *Session) Err() error {
	var errs []error
	for _, d := range s.devs {
		errs = append(errs, d.Err())
	}
	return errors.Join(errs...)
}

// Losses returns the parts of each bag lost to damage (see
// playback.Device.Losses), in device order.
func (s *Session) Losses() [][]playback.Loss {
	ls := make([][]playback.Loss, len(s.devs))
	for i, d := range s.devs {
		ls[i] = d.Losses()
	}
	return ls
}

// Close stops and closes every device.
func (s *Session) Close() error {
	s.ctl.Lock()
	defer s.ctl.Unlock()
	if s.closed {
		return nil
	}
	s.closed = true
	s.stopSensors()
	var errs []error
	for _, d := range s.devs {
		errs = append(errs, d.Close())
	}
	return errors.Join(errs...)
}

func (s *Session) each(f func(*playback.Device) error) error {
	var errs []error
	for _, d := range s.devs {
		errs = append(errs, f(d))
	}
	return errors.Join(errs...)
}
