package record

import (
	"encoding/binary"
	"errors"
	"fmt"
	"maps"
	"math"
	"path"
	"runtime/debug"
	"slices"
	"strconv"
	"syscall"
	"time"
	"unsafe"

	"github.com/rsbag/rsbag/extensions"
	"github.com/rsbag/rsbag/internal/bagref"
	"github.com/rsbag/rsbag/internal/buildinfo"
	"github.com/rsbag/rsbag/internal/layout"
	"github.com/rsbag/rsbag/msgs"
	"github.com/rsbag/rsbag/rosbag"
	"github.com/rsbag/rsbag/sensor"
)

// tickInterval is how often the writer goroutine flushes an idle open chunk
// and the shortest interval between two drop reports of a stream.
const tickInterval = 200 * time.Millisecond

// tfRetryInterval spaces the retries of a stream whose extrinsics are not
// available (spec §5.8: retried on later frames).
const tfRetryInterval = time.Second

// frameIDNoDepthUnits is the Image/Imu header frame_id we write: "0", as
// writers before librealsense 2.49 did. librealsense reads frame_id "1" as
// "a trailing depth_units float follows Image.data", which valid ROS does
// not have (spec §2, §5.9).
const frameIDNoDepthUnits = "0"

// streamOut holds the topics and connections of one stream (writer-owned).
type streamOut struct {
	kind   sensor.ProfileKind // the topic kind of its frames (spec §4.1)
	data   uint32             // image/data, imu/data or pose/transform/data
	accel  uint32             // pose/accel/data
	twist  uint32             // pose/twist/data
	meta   uint32             // <kind>/metadata
	tfDone bool
	tfNext time.Time
}

type optKey struct {
	sensor int
	option sensor.Option
}

// writer is the state of the writer goroutine, which owns the rosbag.Writer.
type writer struct {
	d     *Device
	bag   *rosbag.Writer
	conns map[string]uint32
	batch []event

	descDone bool
	pending  []event // option changes queued before the description
	optDesc  map[optKey]bool
	err      error

	lastTick   time.Time
	wroteSince bool // a message was written since the last tick
	unflushed  bool // messages may sit in the open chunk

	// Reused per-frame messages and scratch (no allocation per frame).
	img msgs.Image
	imu msgs.Imu
	tr  msgs.Transform
	acc msgs.Accel
	tw  msgs.Twist
	kv  msgs.KeyValue
	val []byte // metadata value text

	msg  msgs.Message     // the message fill serializes
	fill func(dst []byte) // serializes msg into the chunk buffer
	head []byte           // an image message but its pixels (writeImage)
}

func newWriter(d *Device) *writer {
	w := &writer{
		d:       d,
		bag:     d.bag,
		conns:   map[string]uint32{},
		optDesc: map[optKey]bool{},
	}
	w.fill = func(dst []byte) { msgs.Append(dst[:0], w.msg) }
	return w
}

// start writes /file_version (R.1).
func (w *writer) start() error {
	w.put(topicFileVersion, rosbag.MinTime, &msgs.UInt32{Data: fileVersion})
	w.d.fileSize.Store(w.bag.Size())
	return w.err
}

// run is the writer goroutine.
func (w *writer) run() {
	defer close(w.d.writerDone)
	q := w.d.q
	ticker := time.NewTicker(tickInterval)
	defer ticker.Stop()
	w.lastTick = time.Now()
	for {
		var closed bool
		w.batch, closed = q.take(w.batch)
		if len(w.batch) == 0 {
			if closed {
				return
			}
			select {
			case <-q.signal:
			case <-ticker.C:
				w.tick()
			}
			continue
		}
		for i := range w.batch {
			w.handle(&w.batch[i])
			w.batch[i] = event{}
		}
		w.d.fileSize.Store(w.bag.Size())
		if time.Since(w.lastTick) >= tickInterval {
			w.tick()
		}
	}
}

func (w *writer) handle(e *event) {
	switch e.kind {
	case evFrame:
		if w.err == nil {
			w.writeFrame(e)
		}
		w.d.q.release(int64(len(e.frame.Data)))
	case evStreams:
		w.writeStreamInfo(e)
	case evOption:
		w.writeOptionChange(e)
	case evNotification:
		w.writeNotification(e)
	case evDescription:
		w.writeDescription(e.desc)
	case evMessage:
		w.writeMessage(e)
	case evBarrier:
		if w.err == nil {
			w.setErr(w.bag.Flush())
			w.unflushed = false
		}
		w.d.fileSize.Store(w.bag.Size())
		close(e.done)
	}
}

// tick flushes an idle open chunk.
func (w *writer) tick() {
	w.lastTick = time.Now()
	if w.err == nil && w.unflushed && !w.wroteSince {
		w.setErr(w.bag.Flush())
		w.unflushed = false
		w.d.fileSize.Store(w.bag.Size())
	}
	w.wroteSince = false
}

// finish completes the bag after the goroutine has ended (Close).
func (w *writer) finish() error {
	if w.err == nil && !w.descDone {
		// No frame was recorded: the description of now, which holds every
		// option change made so far.
		w.d.mu.Lock()
		seq := w.d.optSeq
		w.d.mu.Unlock()
		desc := w.d.snapshot()
		desc.seq = seq
		w.writeDescription(desc)
	}
	err := w.bag.Close()
	w.d.fileSize.Store(w.bag.Size())
	if w.err != nil {
		if errors.Is(err, rosbag.ErrNoIndex) {
			return err // w.err, and that the index is missing too
		}
		return w.keptIndex(w.err)
	}
	if err != nil {
		w.d.fail(err)
	}
	return err
}

// keptIndex wraps the error that stopped recording with what the bag
// kept: its index, the frames it lists and the time they span.
func (w *writer) keptIndex(err error) error {
	counts, start, end := w.bag.Indexed()
	var kept uint64
	w.d.statsMu.Lock()
	for _, st := range w.d.streams {
		if st.out != nil && int(st.out.data) < len(counts) {
			kept += counts[st.out.data]
		}
	}
	w.d.statsMu.Unlock()
	what := "write error"
	if errors.Is(err, syscall.ENOSPC) {
		what = "disk full"
	}
	return fmt.Errorf("record: %s after %d frames; the bag kept its index (indexed, %d frames, %.3f s): %w",
		what, w.d.Stats().Frames, kept, time.Duration(end-start).Seconds(), err)
}

func (w *writer) setErr(err error) {
	if err != nil && w.err == nil {
		w.err = err
		w.d.fail(err)
	}
}

// conn returns the connection of topic, adding it on first use.
func (w *writer) conn(topic string, typ *msgs.Type) (uint32, bool) {
	if c, ok := w.conns[topic]; ok {
		return c, true
	}
	if w.err != nil {
		return 0, false
	}
	c, err := w.bag.AddConnection(topic, typ.Name, typ.MD5, typ.Definition, nil)
	if err != nil {
		w.setErr(fmt.Errorf("record: topic %s: %w", topic, err))
		return 0, false
	}
	w.conns[topic] = c
	return c, true
}

// write serializes m straight into the bag's chunk buffer
// (rosbag.Writer.WriteMessageFunc), with no scratch copy; an image's
// pixels go by writeImage instead.
func (w *writer) write(c uint32, t rosbag.Time, m msgs.Message) {
	if w.err != nil {
		return
	}
	w.msg = m
	err := w.bag.WriteMessageFunc(c, t, msgs.Size(m), w.fill)
	w.msg = nil
	if err != nil {
		w.setErr(err)
		return
	}
	w.wroteSince, w.unflushed = true, true
}

// writeImage writes img with the pixels data, which the bag may hold by
// reference until their chunk is compressed (bagref.WriteMessageRef)
// rather than copy: a frame's Data never changes once delivered (package
// sensor), and the bag keeps it reachable meanwhile.
func (w *writer) writeImage(c uint32, t rosbag.Time, img *msgs.Image, data []byte) {
	if w.err != nil {
		return
	}
	// An image serializes as its fields up to the data's length, the data,
	// then depth_units when HasDepthUnits (none here): the fields are the
	// serialization of img without data, whose length is patched.
	img.Data = nil
	w.head = msgs.Append(w.head[:0], img)
	img.Data = data
	size := msgs.Size(img)
	if img.HasDepthUnits || len(w.head)+len(data) != size {
		w.write(c, t, img)
		img.Data = nil
		return
	}
	img.Data = nil
	binary.LittleEndian.PutUint32(w.head[len(w.head)-4:], uint32(len(data)))
	if err := bagref.WriteMessageRef(w.bag, c, uint64(t), w.head, data, nil); err != nil {
		w.setErr(err)
		return
	}
	w.wroteSince, w.unflushed = true, true
}

// put writes m on topic, adding the topic's connection of m's type if it
// is new.
func (w *writer) put(topic string, t rosbag.Time, m msgs.Message) {
	if c, ok := w.conn(topic, m.Type()); ok {
		w.write(c, t, m)
	}
}

// putKV writes a metadata KeyValue.
func (w *writer) putKV(c uint32, t rosbag.Time, k, v string) {
	w.kv.Key, w.kv.Value = k, v
	w.write(c, t, &w.kv)
	w.kv.Value = ""
}

// putKVVal writes a metadata KeyValue whose value is the text in w.val,
// viewed as a string without a copy: KeyValue.AppendTo reads it during the
// write, before w.val is reused, and nothing keeps it.
func (w *writer) putKVVal(c uint32, t rosbag.Time, k string) {
	w.putKV(c, t, k, unsafe.String(unsafe.SliceData(w.val), len(w.val)))
}

// putKVInt writes a metadata KeyValue with a decimal integer value.
func (w *writer) putKVInt(c uint32, t rosbag.Time, k string, v int64) {
	w.val = strconv.AppendInt(w.val[:0], v, 10)
	w.putKVVal(c, t, k)
}

// putKVFixed writes a metadata KeyValue with a printf("%f") value (§5.10).
func (w *writer) putKVFixed(c uint32, t rosbag.Time, k string, v float64) {
	w.val = layout.AppendFixed(w.val[:0], v)
	w.putKVVal(c, t, k)
}

// writeDescription writes the device description at static time (R.9):
// device info, then per sensor its info and options; then the option
// changes queued before it that the snapshot may not hold.
func (w *writer) writeDescription(desc *description) {
	if w.descDone {
		return
	}
	w.descDone = true
	for _, n := range w.additionalInfo() {
		w.put(layout.AdditionalInfoTopic, rosbag.MinTime, &msgs.KeyValue{Key: n.Key, Value: n.Value})
	}
	snap := desc.snap
	for _, k := range slices.Sorted(maps.Keys(snap.Info)) {
		w.put(topicDeviceInfo, rosbag.MinTime, &msgs.KeyValue{Key: k.String(), Value: snap.Info[k]})
	}
	for _, ss := range snap.Sensors {
		topic := layout.SensorInfoTopic(ss.Index)
		for _, k := range slices.Sorted(maps.Keys(ss.Info)) {
			w.put(topic, rosbag.MinTime, &msgs.KeyValue{Key: k.String(), Value: ss.Info[k]})
		}
		// Options whose value cannot be read are not in the snapshot (§5.6).
		for _, o := range ss.Options {
			w.writeOption(ss.Index, o.Option, o.Value, o.Description, rosbag.MinTime)
		}
	}
	for i := range w.pending {
		if e := &w.pending[i]; e.seq > desc.seq {
			w.writeOptionChange(e)
		}
	}
	w.pending = nil
}

// additionalInfo returns what every recording writes to /additional_info:
// the program that recorded it and its version (the main module's, from the
// build information, as rs-record --version gives it), then the user's
// notes.
func (w *writer) additionalInfo() []Note {
	prog, version := "unknown", "unknown"
	if bi, ok := debug.ReadBuildInfo(); ok {
		if bi.Path != "" {
			prog = path.Base(bi.Path)
		}
		version = buildinfo.Version(bi)
	}
	return append([]Note{{"Program", prog}, {"Version", version}}, w.d.opts.Notes...)
}

// writeOption writes an option value and, the first time for that (sensor,
// option), its description at static time (§5.6).
func (w *writer) writeOption(si int, opt sensor.Option, v float32, desc string, t rosbag.Time) {
	w.put(layout.OptionValueTopic(si, opt), t, &msgs.Float32{Data: v})
	k := optKey{si, opt}
	if w.optDesc[k] {
		return
	}
	w.optDesc[k] = true
	if desc == "" {
		desc = layout.ReadOnlyOptionDescription(opt.String())
	}
	w.put(layout.OptionDescriptionTopic(si, opt), rosbag.MinTime, &msgs.String{Data: desc})
}

func (w *writer) writeOptionChange(e *event) {
	if w.err != nil {
		return
	}
	if !w.descDone {
		w.pending = append(w.pending, *e)
		return
	}
	desc := ""
	if o, ok := e.sensor.inner.(extensions.Options); ok {
		desc = o.OptionDescription(e.option.Option)
	}
	w.writeOption(e.sensor.index, e.option.Option, e.option.Value, desc, bagTime(e.t))
}

func (w *writer) writeNotification(e *event) {
	n := e.note
	w.put(layout.NotificationTopic(e.sensor.index, n.Category), bagTime(e.t), &msgs.Notification{
		Timestamp:      layout.NotificationStamp(n.TimestampMs), // the ms-as-seconds quirk (§5.13)
		Category:       n.Category.String(),
		Severity:       n.Severity.String(),
		Description:    n.Description,
		SerializedData: n.SerializedData,
	})
}

// writeStreamInfo writes StreamInfo and CameraInfo/ImuIntrinsic (§5.3–§5.5).
func (w *writer) writeStreamInfo(e *event) {
	t := bagTime(e.t)
	for _, p := range e.profiles {
		si := e.sensor.index
		w.put(layout.StreamInfoTopic(si, p.Stream, p.Index), t, &msgs.StreamInfo{
			Fps: uint32(p.FPS), Encoding: layout.Encoding(p.Format), IsRecommended: msgs.BoolOf(p.Default),
		})
		switch p.Kind {
		case sensor.KindVideo:
			in := p.Intrinsics
			ci := &msgs.CameraInfo{
				Height:          uint32(p.Height),
				Width:           uint32(p.Width),
				DistortionModel: in.Model.String(),
				D:               make([]float64, len(in.Coeffs)),
			}
			for i, c := range in.Coeffs {
				ci.D[i] = float64(c)
			}
			ci.K = [9]float64{float64(in.FX), 0, float64(in.PPX), 0, float64(in.FY), float64(in.PPY), 0, 0, 1}
			w.put(layout.CameraInfoTopic(si, p.Stream, p.Index), t, ci)
		case sensor.KindMotion:
			mi := p.MotionIntrinsics
			ii := &msgs.ImuIntrinsic{NoiseVariances: mi.NoiseVariances, BiasVariances: mi.BiasVariances}
			for r := 0; r < 3; r++ {
				copy(ii.Data[r*4:r*4+4], mi.Data[r][:])
			}
			w.put(layout.ImuIntrinsicTopic(si, p.Stream, p.Index), t, ii)
		}
	}
}

// out returns the topics and connections of a frame's stream.
func (w *writer) out(si int, st *streamState) (*streamOut, bool) {
	if st.out != nil {
		return st.out, true
	}
	stream, idx := st.key.stream, st.key.index
	kind, known := layout.StreamKind(stream)
	o := &streamOut{kind: kind}
	var ok1, ok2, ok3, ok4 bool
	switch {
	case known && kind == sensor.KindVideo:
		o.data, ok1 = w.conn(layout.StreamTopic(layout.KindImageData, si, stream, idx), new(msgs.Image).Type())
		o.meta, ok2 = w.conn(layout.StreamTopic(layout.KindImageMetadata, si, stream, idx), new(msgs.KeyValue).Type())
		ok3, ok4 = true, true
	case known && kind == sensor.KindMotion:
		o.data, ok1 = w.conn(layout.StreamTopic(layout.KindImuData, si, stream, idx), new(msgs.Imu).Type())
		o.meta, ok2 = w.conn(layout.StreamTopic(layout.KindImuMetadata, si, stream, idx), new(msgs.KeyValue).Type())
		ok3, ok4 = true, true
	case known && kind == sensor.KindPose:
		tr, ac, tw := layout.PoseTopics(si, stream, idx)
		o.data, ok1 = w.conn(tr, new(msgs.Transform).Type())
		o.accel, ok2 = w.conn(ac, new(msgs.Accel).Type())
		o.twist, ok3 = w.conn(tw, new(msgs.Twist).Type())
		o.meta, ok4 = w.conn(layout.StreamTopic(layout.KindPoseMetadata, si, stream, idx), new(msgs.KeyValue).Type())
	default:
		w.setErr(fmt.Errorf("record: sensor %d: frames of stream %s/%d cannot be written to a bag", si, st.key.stream, st.key.index))
		return nil, false
	}
	if !(ok1 && ok2 && ok3 && ok4) {
		return nil, false
	}
	st.out = o
	return o, true
}

func vec3(v [3]float32) msgs.Vector3 {
	return msgs.Vector3{X: float64(v[0]), Y: float64(v[1]), Z: float64(v[2])}
}

// writeFrame writes a frame's data, metadata and, for the first frame of its
// stream, its extrinsics (R.12, §5.8–§5.12).
func (w *writer) writeFrame(e *event) {
	if !w.descDone {
		w.writeDescription(w.d.snapshot()) // not reached: queued ahead of the first frame
	}
	f, st := e.frame, e.stream
	o, ok := w.out(e.sensor.index, st)
	if !ok {
		return
	}
	t := bagTime(e.t)
	switch o.kind {
	case sensor.KindVideo:
		img := &w.img
		img.Header = msgs.Header{Seq: uint32(f.Number), Stamp: stamp(f.TimestampMs), FrameID: frameIDNoDepthUnits}
		img.Height, img.Width = uint32(f.Height), uint32(f.Width)
		img.Encoding = layout.Encoding(f.Profile.Format)
		img.IsBigendian = 0
		img.Step = uint32(f.Stride)
		w.writeImage(o.data, t, img, f.Data)
		w.writeMetadata(o.meta, t, f)
	case sensor.KindMotion:
		imu := &w.imu
		*imu = msgs.Imu{Header: msgs.Header{Seq: uint32(f.Number), Stamp: stamp(f.TimestampMs), FrameID: frameIDNoDepthUnits}}
		switch f.Profile.Stream {
		case sensor.StreamAccel:
			imu.LinearAcceleration = vec3(motionOf(f))
		case sensor.StreamGyro:
			imu.AngularVelocity = vec3(motionOf(f))
		case sensor.StreamMotion:
			combinedMotion(imu, f.Data)
		}
		w.write(o.data, t, imu)
		w.writeMetadata(o.meta, t, f)
	case sensor.KindPose:
		p := f.Pose
		if len(f.Data) == layout.PoseSize {
			if dp, err := layout.DecodePose(f.Data); err == nil {
				p = dp
			}
		}
		w.tr = msgs.Transform{
			Translation: vec3(p.Translation),
			Rotation: msgs.Quaternion{X: float64(p.Rotation[0]), Y: float64(p.Rotation[1]),
				Z: float64(p.Rotation[2]), W: float64(p.Rotation[3])},
		}
		w.write(o.data, t, &w.tr)
		w.acc = msgs.Accel{Linear: vec3(p.Acceleration), Angular: vec3(p.AngularAcceleration)}
		w.write(o.accel, t, &w.acc)
		w.tw = msgs.Twist{Linear: vec3(p.Velocity), Angular: vec3(p.AngularVelocity)}
		w.write(o.twist, t, &w.tw)
		w.putKVInt(o.meta, t, layout.KeyTrackerConfidence, int64(p.TrackerConfidence))
		w.putKVInt(o.meta, t, layout.KeyMapperConfidence, int64(p.MapperConfidence))
		w.putKVFixed(o.meta, t, layout.KeyFrameTimestamp, f.TimestampMs)
		w.val = strconv.AppendUint(w.val[:0], f.Number, 10)
		w.putKVVal(o.meta, t, layout.KeyFrameNumber)
		w.writeMetadata(o.meta, t, f)
	}
	for _, c := range e.extra {
		if layout.Parse(c.Topic).Kind != layout.KindUnknown || c.Topic == layout.AdditionalInfoTopic {
			w.setErr(fmt.Errorf("record: companion topic %s: a topic of the RealSense layout, want one of its own", c.Topic))
			break
		}
		w.put(c.Topic, t, c.Msg)
	}
	if w.err != nil {
		return
	}
	if !o.tfDone {
		w.writeTF(e.sensor, f.Profile, o)
	}
	st.frames.Add(1)
	st.bytes.Add(uint64(len(f.Data)))
}

// motionOf returns a motion frame's sample, from Data when it holds one.
func motionOf(f *sensor.Frame) [3]float32 {
	if len(f.Data) == 12 {
		var v [3]float32
		for i := range v {
			v[i] = math.Float32frombits(binary.LittleEndian.Uint32(f.Data[4*i:]))
		}
		return v
	}
	return f.Motion
}

// combinedMotion fills an Imu from a COMBINED_MOTION payload of ten
// little-endian float64: orientation (x, y, z, w), angular velocity (x, y,
// z), linear acceleration (x, y, z) (§5.11). Other payloads leave it zero.
func combinedMotion(imu *msgs.Imu, b []byte) {
	if len(b) != 80 {
		return
	}
	var v [10]float64
	for i := range v {
		v[i] = math.Float64frombits(binary.LittleEndian.Uint64(b[8*i:]))
	}
	imu.Orientation = msgs.Quaternion{X: v[0], Y: v[1], Z: v[2], W: v[3]}
	imu.AngularVelocity = msgs.Vector3{X: v[4], Y: v[5], Z: v[6]}
	imu.LinearAcceleration = msgs.Vector3{X: v[7], Y: v[8], Z: v[9]}
}

// writeMetadata writes system_time, timestamp_domain and the frame's
// metadata in key order (§5.10).
func (w *writer) writeMetadata(c uint32, t rosbag.Time, f *sensor.Frame) {
	w.putKVFixed(c, t, layout.KeySystemTime, f.SystemTimeMs)
	w.putKV(c, t, layout.KeyTimestampDomain, f.Domain.String())
	f.Metadata.Range(func(k sensor.MetadataKey, v int64) bool {
		w.putKVInt(c, t, k.String(), v)
		return w.err == nil
	})
}

// writeTF writes the stream's extrinsics from its group's reference stream
// at static time (§5.8). Without extrinsics nothing is written and the next
// frames retry, at most once per tfRetryInterval.
func (w *writer) writeTF(s *recSensor, p *sensor.StreamProfile, o *streamOut) {
	now := time.Now()
	if now.Before(o.tfNext) {
		return
	}
	o.tfNext = now.Add(tfRetryInterval)
	group, ext, ok := w.tfOf(s.index, p)
	if !ok {
		return
	}
	tfTopic := layout.ExtrinsicsTopic(s.index, p.Stream, p.Index, uint32(group))
	o.tfDone = true
	tr := &msgs.Transform{
		Translation: msgs.Vector3{X: float64(ext.Translation[0]), Y: float64(ext.Translation[1]), Z: float64(ext.Translation[2])},
		Rotation:    quaternion(ext.Rotation),
	}
	w.put(tfTopic, rosbag.MinTime, tr)
}

// tfOf returns the group and pin→stream transform of p (§5.8), from the
// record device's PinnedExtrinsics (the wrapped device's).
func (w *writer) tfOf(si int, p *sensor.StreamProfile) (group int, e sensor.Extrinsics, ok bool) {
	for _, pe := range w.d.PinnedExtrinsics() {
		if pe.Key.Sensor == si && pe.Key.Stream == p.Stream && pe.Key.Index == p.Index {
			return int(pe.Group), pe.FromPin, true
		}
	}
	return 0, e, false
}

// quaternion converts a column-major rotation matrix to the quaternion
// librealsense ≥ 2.23 writes (§5.8): computed in float32 on the transposed
// matrix, then w negated.
func quaternion(r [9]float32) msgs.Quaternion {
	var m [3][3]float32
	for a := 0; a < 3; a++ {
		for b := 0; b < 3; b++ {
			m[a][b] = r[3*a+b]
		}
	}
	sqrtf := func(v float32) float32 { return float32(math.Sqrt(float64(v))) }
	t0 := m[0][0] + m[1][1] + m[2][2]
	t1 := m[0][0] - m[1][1] - m[2][2]
	t2 := -m[0][0] + m[1][1] - m[2][2]
	t3 := -m[0][0] - m[1][1] + m[2][2]
	var x, y, z, qw float32
	switch {
	case t0 >= t1 && t0 >= t2 && t0 >= t3:
		s := 2 * sqrtf(t0+1)
		qw = s / 4
		x = (m[2][1] - m[1][2]) / s
		y = (m[0][2] - m[2][0]) / s
		z = (m[1][0] - m[0][1]) / s
	case t1 >= t2 && t1 >= t3:
		s := 2 * sqrtf(t1+1)
		qw = (m[2][1] - m[1][2]) / s
		x = s / 4
		y = (m[1][0] + m[0][1]) / s
		z = (m[2][0] + m[0][2]) / s
	case t2 >= t3:
		s := 2 * sqrtf(t2+1)
		qw = (m[0][2] - m[2][0]) / s
		x = (m[1][0] + m[0][1]) / s
		y = s / 4
		z = (m[1][2] + m[2][1]) / s
	default:
		s := 2 * sqrtf(t3+1)
		qw = (m[1][0] - m[0][1]) / s
		x = (m[0][2] + m[2][0]) / s
		y = (m[1][2] + m[2][1]) / s
		z = s / 4
	}
	qw = -qw
	return msgs.Quaternion{X: float64(x), Y: float64(y), Z: float64(z), W: float64(qw)}
}
