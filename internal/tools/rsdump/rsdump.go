// Package rsdump prints what a playback device reports about a bag as JSON
// lines, in the schema of testdata/librealsense/README.md ("rsdump output
// format"): topology, then every frame in delivery order (non-real-time),
// notifications and a summary. `rs-record dump` is a thin wrapper around Run.
package rsdump

import (
	"errors"
	"fmt"
	"github.com/rsbag/rsbag/internal/bagname"
	"hash/fnv"
	"io"
	"maps"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/rsbag/rsbag/internal/layout"
	"github.com/rsbag/rsbag/internal/tools/damage"
	"github.com/rsbag/rsbag/rosbag"

	"github.com/rsbag/rsbag/device"
	"github.com/rsbag/rsbag/extensions"
	"github.com/rsbag/rsbag/playback"
	"github.com/rsbag/rsbag/sensor"
)

// Options selects what Run plays.
type Options struct {
	// Seek, when non-nil, seeks to this bag time (ns) after opening the
	// sensors and before starting them.
	Seek *int64
	// Limit stops after this many frames (0: no limit).
	Limit int
	// Timeout bounds the playback (0: none).
	Timeout time.Duration
}

// Reader is the value of the file line's "librealsense" field.
const Reader = "rsbag"

// extrinsicsUnavailable is librealsense's message for a missing transform.
const extrinsicsUnavailable = "Requested extrinsics are not available!"

type dumper struct {
	w   io.Writer
	err error
	uid map[int]int
}

func (d *dumper) emit(l *line) {
	if d.err == nil {
		_, d.err = d.w.Write(l.bytes())
	}
}

func (d *dumper) fail(stage string, err error) error {
	l := newLine("error")
	l.str("stage", stage)
	l.str("message", err.Error())
	d.emit(l)
	return fmt.Errorf("rsdump: %s: %w", stage, err)
}

// newDumper returns a dumper writing to w, after the file line of the bag
// at path.
func newDumper(w io.Writer, path string) *dumper {
	d := &dumper{w: w, uid: map[int]int{}}
	l := newLine("file")
	l.str("name", bagname.BaseName(path))
	l.str("librealsense", Reader)
	d.emit(l)
	return d
}

// open opens the bag at path for playback in non-real-time mode; a failure
// is printed as an error line and returned.
func (d *dumper) open(path string) (*playback.Device, error) {
	dev, err := playback.Open(path, &playback.Options{NonRealTime: true})
	if err == nil {
		if err = damage.Playable(dev); err != nil {
			dev.Close()
		}
	}
	if err != nil {
		return nil, d.fail("load_device", err)
	}
	return dev, nil
}

// groundTruth writes a line per ground-truth topic of the bag (a synthetic
// camera's, layout.GroundTruthPrefix), which the player does not play: its
// name, message type and number of messages. A bag without them gets none.
// The player has opened the bag: it opens (an error would be the player's,
// already reported).
func (d *dumper) groundTruth(path string) {
	r, err := rosbag.Open(path, nil)
	if err != nil {
		return
	}
	defer r.Close()
	info := r.Info()
	for _, c := range r.Connections() {
		if !strings.HasPrefix(c.Topic, layout.GroundTruthPrefix) {
			continue
		}
		l := newLine("ground_truth")
		l.str("topic", c.Topic)
		l.str("msg_type", c.Type)
		l.uint("messages", info.MessageCounts[c.ID])
		d.emit(l)
	}
}

// Run plays the bag at path in non-real-time mode and writes the dump to w.
// It returns an error (after printing an error line) when the bag cannot be
// played.
func Run(w io.Writer, path string, opts Options) error {
	d := newDumper(w, path)
	dev, err := d.open(path)
	if err != nil {
		return err
	}
	defer dev.Close()

	l := newLine("device")
	writeInfo(l, "info", dev.Info())
	d.emit(l)
	l = newLine("playback")
	l.int("duration_ns", int64(getDuration(dev)))
	l.bool("real_time", false)
	d.emit(l)
	d.groundTruth(path)

	sensors := dev.Sensors()
	var profiles []*sensor.StreamProfile
	sensorOf := map[int]int{}
	for i, s := range sensors {
		d.sensorLines(i, s)
		for _, p := range s.Profiles() {
			d.uid[p.UID] = len(profiles)
			sensorOf[p.UID] = i
			profiles = append(profiles, p)
			d.profileLine(i, p)
		}
	}
	for _, from := range profiles {
		for _, to := range profiles {
			if from == to {
				continue
			}
			l := newLine("extrinsics")
			l.str("from", from.Name())
			l.str("to", to.Name())
			l.int("from_uid", int64(d.uid[from.UID]))
			l.int("to_uid", int64(d.uid[to.UID]))
			e, err := dev.Extrinsics(from, to)
			l.bool("available", err == nil)
			if err == nil {
				l.f32s("rotation", e.Rotation[:])
				l.f32s("translation", e.Translation[:])
			} else {
				msg := err.Error()
				if errors.Is(err, device.ErrNoExtrinsics) {
					msg = extrinsicsUnavailable
				}
				l.str("error", msg)
			}
			d.emit(l)
		}
	}

	// Playback.
	var (
		mu       sync.Mutex
		seq      int
		perSt    = map[string]int{}
		limitHit bool
		notifs   []*line
		lastOpt  = map[[2]int]float32{}
	)
	stopped := extensions.Stopped(dev)
	for i, s := range sensors {
		if n, ok := s.(extensions.Notifier); ok {
			n.OnNotification(func(n sensor.Notification) {
				l := newLine("notification")
				l.int("sensor", int64(i))
				l.str("category", n.Category.String())
				l.str("severity", n.Severity.String())
				l.str("description", n.Description)
				l.f64("timestamp", n.TimestampMs)
				l.str("serialized_data", n.SerializedData)
				mu.Lock()
				notifs = append(notifs, l)
				mu.Unlock()
			})
		}
		if o, ok := s.(extensions.Options); ok {
			for _, opt := range o.SupportedOptions() {
				v, _ := o.Option(opt)
				lastOpt[[2]int{i, int(opt)}] = v
			}
		}
	}
	var opened []sensor.Sensor
	for _, s := range sensors {
		ps := s.Profiles()
		if len(ps) == 0 {
			continue
		}
		if err := s.Open(ps...); err != nil {
			return d.fail("open", err)
		}
		opened = append(opened, s)
	}
	if opts.Seek != nil {
		if err := dev.Seek(time.Duration(*opts.Seek)); err != nil {
			return d.fail("seek", err)
		}
		l := newLine("seek")
		l.int("target_ns", *opts.Seek)
		l.int("position_ns", int64(dev.Position()))
		d.emit(l)
	}
	limitReached := make(chan struct{})
	handler := sensor.HandlerFunc(func(f *sensor.Frame) {
		mu.Lock()
		defer mu.Unlock()
		if limitHit {
			return
		}
		pos := int64(dev.Position())
		for i, s := range sensors {
			o, ok := s.(extensions.Options)
			if !ok {
				continue
			}
			for _, opt := range o.SupportedOptions() {
				v, _ := o.Option(opt)
				k := [2]int{i, int(opt)}
				if prev := lastOpt[k]; prev != v {
					l := newLine("option_change")
					l.int("sensor", int64(i))
					l.int("id", int64(opt))
					l.str("name", opt.String())
					l.f32("value", v)
					l.f32("previous", prev)
					l.int("position_ns", pos)
					d.emit(l)
					lastOpt[k] = v
				}
			}
		}
		d.frameLine(seq, sensorOf[f.Profile.UID], f, pos, "")
		seq++
		perSt[f.Profile.Name()]++
		if opts.Limit > 0 && seq >= opts.Limit {
			limitHit = true
			close(limitReached)
		}
	})
	// Non-real-time playback waits until every opened sensor is started,
	// so starting them one after the other loses no frame.
	for _, s := range opened {
		if err := s.Start(handler); err != nil {
			return d.fail("start", err)
		}
	}
	status := "ok"
	var timeout <-chan time.Time
	if opts.Timeout > 0 {
		timeout = time.After(opts.Timeout)
	}
	if len(opened) > 0 {
		select {
		case <-stopped:
			// The last frame of the bag can also be the limit's: its
			// handler returned before the playback stopped.
			select {
			case <-limitReached:
				status = "limit"
			default:
			}
		case <-limitReached:
			status = "limit"
		case <-timeout:
			status = "timeout"
		}
	}
	for _, s := range opened {
		s.Stop()
	}
	for _, s := range opened {
		s.Close()
	}
	playErr := dev.Err()
	dev.Close() // runs the queued callbacks
	mu.Lock()
	limitHit = true
	for _, l := range notifs {
		d.emit(l)
	}
	mu.Unlock()
	if playErr != nil && status == "ok" {
		status = "error"
	}
	rep := damage.FromPlayback(dev)
	if rep.Damaged() && status == "ok" {
		status = "damaged"
	}
	l = newLine("summary")
	l.str("status", status)
	l.int("frames", int64(seq))
	l.object("frames_per_stream")
	names := make([]string, 0, len(perSt))
	for n := range perSt {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		l.int(n, int64(perSt[n]))
	}
	l.end()
	l.int("duration_ns", int64(getDuration(dev)))
	if rc := rep.Recovered; rc != nil {
		l.object("recovered")
		l.str("reason", rc.Reason)
		l.int("chunks", int64(rc.Chunks))
		l.uint("messages", rc.Messages)
		l.end()
	}
	if rep.Damaged() {
		l.array("lost")
		for _, x := range rep.Lost {
			l.sep()
			l.open('{')
			l.int("offset", x.Offset)
			l.int("bytes", x.Bytes)
			l.uint("start_ns", x.StartNs)
			l.uint("end_ns", x.EndNs)
			l.int("messages", int64(x.Messages))
			l.object("frames")
			for _, k := range slices.Sorted(maps.Keys(x.Frames)) {
				l.int(k, int64(x.Frames[k]))
			}
			l.end()
			l.str("error", x.Error)
			l.end()
		}
		l.endArray()
	}
	if len(rep.Repaired) > 0 {
		l.array("index_repaired")
		for _, x := range rep.Repaired {
			l.sep()
			l.open('{')
			l.int("offset", x.Offset)
			l.int("messages", int64(x.Messages))
			l.str("reason", x.Reason)
			l.end()
		}
		l.endArray()
	}
	d.emit(l)
	if playErr != nil {
		return d.fail("playback", playErr)
	}
	if d.err == nil && rep.Damaged() {
		return &damage.Error{Report: rep}
	}
	return d.err
}

func writeInfo(l *line, key string, info sensor.Info) {
	l.object(key)
	for _, k := range slices.Sorted(maps.Keys(info)) {
		l.str(k.String(), info[k])
	}
	l.end()
}

func (d *dumper) sensorLines(i int, s sensor.Sensor) {
	l := newLine("sensor")
	l.int("index", int64(i))
	writeInfo(l, "info", s.Info())
	var kinds []string
	if k, ok := s.(extensions.Kinded); ok {
		for _, x := range k.Kinds() {
			kinds = append(kinds, x.String())
		}
	}
	l.strs("extensions", kinds)
	if ds, ok := s.(extensions.DepthSensor); ok {
		l.f32("depth_scale", ds.DepthUnits())
	}
	if ss, ok := s.(extensions.DepthStereoSensor); ok {
		l.f32("stereo_baseline_mm", ss.StereoBaselineMM())
	}
	var filters []string
	if rf, ok := s.(extensions.RecommendedFilters); ok {
		filters = rf.RecommendedFilters()
	}
	l.strs("recommended_filters", filters)
	d.emit(l)
	o, ok := s.(extensions.Options)
	if !ok {
		return
	}
	for _, opt := range o.SupportedOptions() {
		v, _ := o.Option(opt)
		l := newLine("option")
		l.int("sensor", int64(i))
		l.int("id", int64(opt))
		l.str("name", opt.String())
		l.f32("value", v)
		l.str("description", o.OptionDescription(opt))
		l.bool("read_only", o.OptionReadOnly(opt))
		d.emit(l)
	}
}

func (d *dumper) profileLine(i int, p *sensor.StreamProfile) {
	l := newLine("stream_profile")
	l.int("sensor", int64(i))
	l.str("stream", p.Stream.String())
	l.int("stream_type", int64(p.Stream))
	l.int("index", int64(p.Index))
	l.int("uid", int64(d.uid[p.UID]))
	l.str("format", p.Format.String())
	l.int("format_id", int64(p.Format))
	l.int("fps", int64(p.FPS))
	l.bool("default", p.Default)
	switch p.Kind {
	case sensor.KindVideo:
		in := p.Intrinsics
		l.int("width", int64(p.Width))
		l.int("height", int64(p.Height))
		l.object("intrinsics")
		l.int("width", int64(in.Width))
		l.int("height", int64(in.Height))
		l.f32("ppx", in.PPX)
		l.f32("ppy", in.PPY)
		l.f32("fx", in.FX)
		l.f32("fy", in.FY)
		l.str("model", in.Model.String())
		l.int("model_id", int64(in.Model))
		l.f32s("coeffs", in.Coeffs[:])
		l.end()
	case sensor.KindMotion:
		mi := p.MotionIntrinsics
		l.object("motion_intrinsics")
		l.array("data")
		for r := range mi.Data {
			l.sep()
			l.open('[')
			for _, x := range mi.Data[r] {
				l.sep()
				l.b = appendFloat(l.b, float64(x), 32)
			}
			l.close(']')
		}
		l.endArray()
		l.f32s("noise_variances", mi.NoiseVariances[:])
		l.f32s("bias_variances", mi.BiasVariances[:])
		l.end()
	case sensor.KindPose:
		l.str("profile_kind", "pose")
	}
	d.emit(l)
}

// frameLine writes a frame; dev, when not empty, names its device (the
// serial number, in a session dump).
func (d *dumper) frameLine(seq, sens int, f *sensor.Frame, pos int64, dev string) {
	p := f.Profile
	l := newLine("frame")
	l.int("seq", int64(seq))
	if dev != "" {
		l.str("device", dev)
	}
	l.int("sensor", int64(sens))
	l.str("stream", p.Stream.String())
	l.int("index", int64(p.Index))
	l.int("uid", int64(d.uid[p.UID]))
	l.str("format", p.Format.String())
	l.uint("frame_number", f.Number)
	l.f64("timestamp", f.TimestampMs)
	l.str("domain", f.Domain.String())
	l.int("position_ns", pos)
	l.object("metadata")
	f.Metadata.Range(func(k sensor.MetadataKey, v int64) bool {
		l.int(k.String(), v)
		return true
	})
	l.end()
	l.int("size", int64(len(f.Data)))
	h := fnv.New64a()
	h.Write(f.Data)
	l.str("fnv1a64", fmt.Sprintf("%016x", h.Sum64()))
	switch p.Kind {
	case sensor.KindVideo:
		l.int("width", int64(f.Width))
		l.int("height", int64(f.Height))
		l.int("stride", int64(f.Stride))
		l.int("bpp", int64(f.BPP))
		if p.Stream == sensor.StreamDepth {
			l.f32("depth_units", f.DepthUnits)
		}
	case sensor.KindMotion:
		l.f32s("motion_data", f.Motion[:])
	case sensor.KindPose:
		ps := &f.Pose
		l.object("pose")
		l.f32s("translation", ps.Translation[:])
		l.f32s("velocity", ps.Velocity[:])
		l.f32s("acceleration", ps.Acceleration[:])
		l.f32s("rotation", ps.Rotation[:])
		l.f32s("angular_velocity", ps.AngularVelocity[:])
		l.f32s("angular_acceleration", ps.AngularAcceleration[:])
		l.uint("tracker_confidence", uint64(ps.TrackerConfidence))
		l.uint("mapper_confidence", uint64(ps.MapperConfidence))
		l.end()
	}
	d.emit(l)
}

// getDuration is librealsense's get_duration, which its reference dumps
// print: the time between the first and the last frame (the device's
// Duration is the position of the last frame, from bag time 0).
func getDuration(dev *playback.Device) time.Duration {
	first, last := dev.Span()
	return last - first
}
