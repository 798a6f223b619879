package playback

import (
	"fmt"
	"github.com/rsbag/rsbag/internal/description"
	"math"
	"slices"
	"strconv"
	"time"

	"github.com/rsbag/rsbag/extensions"
	"github.com/rsbag/rsbag/internal/layout"
	"github.com/rsbag/rsbag/internal/legacymsgs"
	"github.com/rsbag/rsbag/msgs"
	"github.com/rsbag/rsbag/rosbag"
	"github.com/rsbag/rsbag/sensor"
)

type gitem struct {
	kind  layout.TopicKind
	st    *stream
	f     *sensor.Frame
	sens  *bagSensor
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
		if it.f != nil && it.st.sens.life.Started() {
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
			// Nothing to deliver: the chunks are still walked to the end
			// (AllChunks), so that a corrupt one is reported as by every
			// other reader of the bag.
			conns = []uint32{math.MaxUint32}
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
			// AllChunks: a corrupt chunk holding none of these messages
			// is a loss too, as for every other reader of the bag.
			d.rs.it = d.bag.Messages(&rosbag.Query{Connections: conns, KeepData: true, SkipCorrupt: true, AllChunks: true})
			d.rs.itConns, d.rs.skipSeen, d.rs.repSeen = conns, 0, 0
		}
		// From the start, the pass begins at bag time 0, as every reader
		// of the whole bag does, and skips what is before samplesFrom: a
		// damaged chunk's times (its chunk info, its index) may not cover
		// its messages, so only a pass from 0 is sure to meet every chunk.
		from := d.rs.next
		if from <= samplesFrom {
			from = 0
		}
		if err := d.rs.it.Seek(from); err != nil {
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
			if m.Time < samplesFrom {
				continue // the description's, read at Open
			}
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
	if rp := d.rs.it.Repaired(); len(rp) > d.rs.repSeen {
		d.addRepaired(rp[d.rs.repSeen:])
		d.rs.repSeen = len(rp)
	}
	sk := d.rs.it.Skipped()
	for _, c := range sk[d.rs.skipSeen:] {
		d.addLoss(c) // counted once, notified each time playback meets it
		type loss struct{ frames, msgs int }
		per := map[*bagSensor]*loss{}
		var order []*bagSensor
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
		slices.SortFunc(order, func(a, b *bagSensor) int { return a.index - b.index })
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
	if !description.HasType(r.conn, r.kind) {
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
		if err := description.Unmarshal(msg, m.Data); err != nil {
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
		if err := im.CheckRows(); err != nil {
			return bad(new(msgs.Image).Type().Name, fmt.Errorf("step %d × height %d, frame_id %q: %w", im.Step, im.Height, im.Header.FrameID, err))
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
			TimestampMs: layout.FrameTimestampMs(im.Header.Stamp), Motion: mv, Data: layout.AppendMotion(nil, mv)})
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
		var p legacymsgs.Pose
		if err := decode(&p); err != nil {
			return err
		}
		g.addFrame(r.st, legacyPoseFrame(r.st, &p))
	case layout.KindLegacyFrameInfo:
		var fi legacymsgs.FrameInfo
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
		cat, ok := sensor.Parse[sensor.NotificationCategory](n.Category)
		if !ok {
			cat = sensor.NotificationCategoryUnknownError
		}
		sev, _ := sensor.Parse[sensor.Severity](n.Severity)
		g.items = append(g.items, gitem{kind: r.kind, sens: r.sens, ntf: sensor.Notification{Category: cat,
			Severity: sev, Description: n.Description, SerializedData: n.SerializedData,
			TimestampMs: layout.NotificationTimestampMs(n.Timestamp)}})
	}
	return nil
}

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
			if v, ok := sensor.Parse[sensor.TimestampDomain](e.Value); ok {
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
		if k, ok := sensor.Parse[sensor.MetadataKey](e.Key); ok {
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
		f.Data = layout.AppendPose(make([]byte, 0, layout.PoseSize), &f.Pose)
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
	// The mode is the group's: a SetRealTime answered while a handler
	// runs (doPace) applies from the next group.
	offer := d.rs.realTime && !blocking
	var now time.Time // real time: when the frames are queued
	if offer && g.hasFrame {
		now = time.Now()
	}
	if d.rs.offered && !offer {
		d.drainOffered()
	}
	paused := d.rs.paused
	for g.cursor < len(g.items) {
		it := &g.items[g.cursor]
		g.cursor++
		switch it.kind {
		case layout.KindOptionValue:
			if it.opt.value() != it.value {
				it.opt.set(it.value)
				s, c := it.sens, extensions.OptionChange{Option: it.opt.desc.Opt, Value: it.value}
				d.ev.post(func() { s.raiseOptionChange(c) })
			}
		case layout.KindNotification:
			s, n := it.sens, it.ntf
			d.ev.post(func() { s.raiseNotification(n) })
		default:
			w := it.st.w
			if w == nil || !it.st.sens.life.Started() {
				continue
			}
			if offer {
				w.Offer(it.f, time.Duration(g.t), now, d.rs.speed)
				d.rs.offered = true
				continue
			}
			if !w.DeliverServing(it.f, d.done, d.paceReqs) {
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

// drainOffered waits until the frames offered in real time have been
// handed to their handlers and returned, before the first lossless
// delivery after a switch to non-real time (or a step): a frame offered
// earlier then never reaches its handler after one read later, as the
// depth frame read just before SetRealTime(false) reached the pipeline's
// syncer after the color frame read just after it.
func (d *Device) drainOffered() {
	for _, s := range d.sensors {
		for _, st := range s.opened {
			if st.w != nil {
				st.w.Drain()
			}
		}
	}
	d.rs.offered = false
}
