package pipeline

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/rsbag/rsbag/device"
	"github.com/rsbag/rsbag/extensions"
	"github.com/rsbag/rsbag/internal/outfile"
	"github.com/rsbag/rsbag/playback"
	"github.com/rsbag/rsbag/record"
	"github.com/rsbag/rsbag/sensor"
	"github.com/rsbag/rsbag/software"
)

// Errors of a Pipeline.
var (
	// ErrEndOfStream is returned by WaitForFrames once a file played
	// without repeat has ended and every frameset was taken.
	ErrEndOfStream = errors.New("pipeline: end of stream")
	// ErrNotStarted is returned when the pipeline is not started.
	ErrNotStarted = errors.New("pipeline: not started")
	// ErrStarted is returned by Start on a started pipeline.
	ErrStarted = errors.New("pipeline: already started")
)

// queueSize is the number of framesets a pipeline keeps for its reader.
const queueSize = 16

// fileQueueSize is the number of framesets a pipeline playing a file reads
// ahead of its reader.
const fileQueueSize = 2

// DefaultSynthetic returns the synthetic camera a Pipeline uses when no
// camera is attached and its Config sets none (Config.EnableSynthetic):
// the streams rs-record records by default (a D435i's), filming the
// default scene as rs-record does.
func DefaultSynthetic() software.SyntheticConfig {
	return software.SyntheticConfig{
		Depth:    &software.Video{Width: 848, Height: 480, FPS: 30, Format: sensor.FormatZ16},
		Color:    &software.Video{Width: 1280, Height: 720, FPS: 30, Format: sensor.FormatRGB8},
		AccelFPS: 250,
		GyroFPS:  200,
		Speed:    1,
		Metadata: software.MetadataBasic,
		Scene:    &software.SceneConfig{},
	}
}

// Profile is what a started Pipeline streams: its device and the stream
// profiles the config resolved to.
type Profile struct {
	dev     device.Device
	streams []*sensor.StreamProfile
}

// Device returns the device: a *playback.Device for a file (for
// SetRealTime, Pause, Seek ...), a *record.Device when recording.
func (p *Profile) Device() device.Device { return p.dev }

// Streams returns the selected stream profiles.
func (p *Profile) Streams() []*sensor.StreamProfile { return slices.Clone(p.streams) }

// Stream returns the selected profile of stream s and index i (AnyIndex:
// any), or nil.
func (p *Profile) Stream(s sensor.Stream, i int) *sensor.StreamProfile {
	for _, q := range p.streams {
		if q.Stream == s && (i == AnyIndex || q.Index == i) {
			return q
		}
	}
	return nil
}

// Pipeline streams a device's frames as framesets, as librealsense's
// rs2::pipeline: Start resolves a Config on a device (a file, a camera or
// the synthetic camera), opens and starts its sensors and feeds their
// frames to a Syncer (the color, depth, infrared and fisheye streams'; the
// others pass it); WaitForFrames hands out the framesets, each completed
// as by librealsense's aggregator with the latest frame of every other
// enabled stream, once every enabled stream has delivered a frame (none
// before). It is safe
// for concurrent use. A camera is a live camera of the registered backend
// (device.OpenCamera: a program that imports package usb, built with cgo,
// has one), else, when none is attached and the Config names none, the
// synthetic camera (device.LiveOrSynthetic).
type Pipeline struct {
	mu  sync.Mutex
	run *running
}

// running is the state of a started pipeline.
type running struct {
	profile  *Profile
	sensors  []sensor.Sensor
	syncer   *Syncer
	owned    []func() error // closers, in order
	eos      chan struct{}  // closed at the end of a file played without repeat
	eosOnce  sync.Once
	stopping atomic.Bool
	cbDone   chan struct{}
}

// New returns a stopped Pipeline.
func New() *Pipeline { return &Pipeline{} }

// Start resolves cfg (nil: the default config) and starts streaming.
func (p *Pipeline) Start(ctx context.Context, cfg *Config) (*Profile, error) {
	return p.start(ctx, cfg, nil)
}

// StartWithCallback starts streaming and calls cb with every frameset, on
// one goroutine, until Stop; WaitForFrames is not used then. As
// librealsense's, a callback gets with each match of the syncer the latest
// frames of the synced streams (once every enabled stream has delivered a
// frame) and each motion or pose frame alone.
func (p *Pipeline) StartWithCallback(ctx context.Context, cfg *Config, cb func(*Frameset)) (*Profile, error) {
	if cb == nil {
		return nil, errors.New("pipeline: nil callback")
	}
	return p.start(ctx, cfg, cb)
}

func (p *Pipeline) start(ctx context.Context, cfg *Config, cb func(*Frameset)) (*Profile, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.run != nil {
		return nil, ErrStarted
	}
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("pipeline: start: %w", err)
	}
	if cfg == nil {
		cfg = &Config{}
	}
	r := &running{eos: make(chan struct{})}
	var undo func() // after a failed Start: leave the record file as it was
	fail := func(err error) (*Profile, error) {
		r.close()
		if undo != nil {
			undo()
		}
		return nil, err
	}
	dev, pb, err := openDevice(ctx, cfg, r)
	if err != nil {
		return fail(err)
	}
	cfg.mu.Lock()
	recordPath := cfg.record
	cfg.mu.Unlock()
	var aside *outfile.Aside
	if recordPath != "" {
		// Nothing is created before the config is known to resolve, and
		// an existing file is only moved aside until Start succeeds.
		if _, err := cfg.Resolve(dev); err != nil {
			return fail(err)
		}
		_, statErr := os.Lstat(recordPath)
		if aside, err = outfile.SetAside(recordPath); err != nil {
			return fail(fmt.Errorf("pipeline: record to %s: %w", recordPath, err))
		}
		undo = func() {
			if aside != nil {
				aside.Restore()
			} else if errors.Is(statErr, fs.ErrNotExist) {
				os.Remove(recordPath) // made by this Start
			}
		}
		rec, err := record.Create(dev, recordPath, nil)
		if err != nil {
			return fail(fmt.Errorf("pipeline: record to %s: %w", recordPath, err))
		}
		r.owned = append([]func() error{rec.Close}, r.owned...)
		dev = rec
	}
	streams, err := cfg.Resolve(dev)
	if err != nil {
		return fail(err)
	}
	// As librealsense's pipeline: the frames of the color, depth, infrared
	// and fisheye streams go through the syncer, the others (motion,
	// pose) past it, and the aggregator completes each frameset with the
	// latest frame of every other stream.
	var synced []*sensor.StreamProfile
	for _, s := range dev.Sensors() {
		for _, q := range s.Profiles() {
			if syncedStream(q.Stream) {
				synced = append(synced, q)
			}
		}
	}
	r.syncer = NewSyncer(synced, queueSize)
	r.syncer.agg = newAggregator(streams, cb != nil)
	if pb != nil {
		// A file is read as fast as its reader takes the framesets when
		// real time is off: nothing is dropped, and the player waits for
		// the reader once fileQueueSize framesets are waiting (frames not
		// yet taken keep their memory).
		r.syncer.queue.blocking = true
		r.syncer.queue.cap = fileQueueSize
		pb.OnStatusChange(func(s extensions.PlaybackStatus) {
			if s == extensions.StatusStopped {
				r.endOfStream()
			}
		})
	}
	r.profile = &Profile{dev: dev, streams: streams}
	// Open every sensor with its profiles first (the playback device reads
	// once every opened sensor is started), in reverse sensor order as
	// librealsense, then start them.
	bySensor := map[sensor.Sensor][]*sensor.StreamProfile{}
	for _, s := range dev.Sensors() {
		for _, q := range s.Profiles() {
			if slices.Contains(streams, q) {
				bySensor[s] = append(bySensor[s], q)
			}
		}
	}
	sensors := dev.Sensors()
	for i := len(sensors) - 1; i >= 0; i-- {
		s := sensors[i]
		if len(bySensor[s]) == 0 {
			continue
		}
		if err := s.Open(bySensor[s]...); err != nil {
			return fail(fmt.Errorf("pipeline: open %s: %w", s.Info()[sensor.CameraInfoName], err))
		}
		r.sensors = append(r.sensors, s)
	}
	// A file in real time plays from its first started sensor: the
	// device is paused until every sensor is started, so that no frame of
	// the others is skipped (the first depth frame was, and the syncer
	// grouped the file's framesets otherwise).
	if pb != nil && pb.RealTime() {
		if err := pb.Pause(); err != nil {
			return fail(fmt.Errorf("pipeline: %w", err))
		}
	}
	for _, s := range r.sensors {
		if err := s.Start(r.syncer); err != nil {
			return fail(fmt.Errorf("pipeline: start %s: %w", s.Info()[sensor.CameraInfoName], err))
		}
	}
	if pb != nil && pb.RealTime() {
		if err := pb.Resume(); err != nil {
			return fail(fmt.Errorf("pipeline: %w", err))
		}
	}
	if cb != nil {
		r.cbDone = make(chan struct{})
		go func() {
			defer close(r.cbDone)
			for {
				fs, err := r.wait(context.Background())
				if err != nil {
					return
				}
				cb(fs)
			}
		}()
	}
	aside.Drop() // the file EnableRecordToFile replaces
	p.run = r
	return r.profile, nil
}

// openDevice opens the device cfg asks for; its closer is added to r.
func openDevice(ctx context.Context, cfg *Config, r *running) (device.Device, *playback.Device, error) {
	cfg.mu.Lock()
	file, repeat, serial, synthetic, syncfg, nonRT := cfg.file, cfg.repeat, cfg.serial, cfg.synthetic, cfg.syncfg, cfg.nonRT
	cfg.mu.Unlock()
	if file != "" {
		pb, err := playback.Open(file, &playback.Options{Repeat: repeat, NonRealTime: nonRT})
		if err != nil {
			return nil, nil, fmt.Errorf("pipeline: device from file: %w", err)
		}
		r.owned = append(r.owned, pb.Close)
		if serial != "" && pb.Info()[sensor.CameraInfoSerialNumber] != serial {
			return nil, nil, fmt.Errorf("pipeline: %s holds camera %q, not the requested %q: %w", file, pb.Info()[sensor.CameraInfoSerialNumber], serial, ErrUnresolvable)
		}
		return pb, pb, nil
	}
	dev, isSynthetic, err := device.LiveOrSynthetic(synthetic, serial != "",
		func() (device.Device, error) { return device.OpenCamera(ctx, serial) },
		func(error) (device.Device, error) {
			if syncfg == nil {
				d := DefaultSynthetic()
				syncfg = &d
			}
			syn, err := software.NewSynthetic(*syncfg)
			if err != nil {
				return nil, err
			}
			return syn, nil
		})
	switch {
	case err != nil && isSynthetic:
		return nil, nil, fmt.Errorf("pipeline: synthetic camera: %w", err)
	case err != nil:
		return nil, nil, fmt.Errorf("pipeline: camera: %w", err)
	}
	r.owned = append(r.owned, dev.Close)
	return dev, nil, nil
}

func (r *running) endOfStream() {
	r.eosOnce.Do(func() {
		close(r.eos)
		r.syncer.queue.Close()
	})
}

// wait returns the next frameset of a running pipeline.
func (r *running) wait(ctx context.Context) (*Frameset, error) {
	fs, err := r.syncer.WaitForFrames(ctx)
	if errors.Is(err, ErrStopped) {
		select {
		case <-r.eos:
			if !r.stopping.Load() {
				return nil, ErrEndOfStream
			}
		default:
		}
	}
	return fs, err
}

// close stops and closes everything r opened.
func (r *running) close() error {
	var errs []error
	if r.syncer != nil {
		r.syncer.Stop() // unblocks a handler waiting for room
	}
	for _, s := range r.sensors {
		if err := s.Stop(); err != nil && !errors.Is(err, sensor.ErrNotStarted) {
			errs = append(errs, err)
		}
		if err := s.Close(); err != nil && !errors.Is(err, sensor.ErrNotOpen) {
			errs = append(errs, err)
		}
	}
	for _, c := range r.owned {
		if err := c(); err != nil {
			errs = append(errs, err)
		}
	}
	if r.cbDone != nil {
		<-r.cbDone
	}
	return errors.Join(errs...)
}

// Stop stops streaming and closes the device the pipeline opened (a
// recording is finished and indexed). Framesets not taken are dropped.
func (p *Pipeline) Stop() error {
	p.mu.Lock()
	r := p.run
	p.run = nil
	p.mu.Unlock()
	if r == nil {
		return ErrNotStarted
	}
	r.stopping.Store(true)
	return r.close()
}

func (p *Pipeline) running() (*running, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.run == nil {
		return nil, ErrNotStarted
	}
	return p.run, nil
}

// ActiveProfile returns the profile of the started pipeline.
func (p *Pipeline) ActiveProfile() (*Profile, error) {
	r, err := p.running()
	if err != nil {
		return nil, err
	}
	return r.profile, nil
}

// WaitForFrames returns the next frameset, waiting until there is one or
// ctx is done. After the end of a file played without repeat it returns
// ErrEndOfStream, on a stopped pipeline ErrNotStarted.
func (p *Pipeline) WaitForFrames(ctx context.Context) (*Frameset, error) {
	r, err := p.running()
	if err != nil {
		return nil, err
	}
	fs, err := r.wait(ctx)
	if errors.Is(err, ErrStopped) {
		return nil, ErrNotStarted
	}
	return fs, err
}

// PollForFrames returns the next frameset if there is one.
func (p *Pipeline) PollForFrames() (*Frameset, bool) {
	r, err := p.running()
	if err != nil {
		return nil, false
	}
	return r.syncer.PollForFrames()
}

// TryWaitForFrames waits up to timeout for a frameset.
func (p *Pipeline) TryWaitForFrames(timeout time.Duration) (*Frameset, bool) {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	fs, err := p.WaitForFrames(ctx)
	return fs, err == nil
}
