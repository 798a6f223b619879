package description

import (
	"fmt"
	"slices"
	"sort"

	"github.com/rsbag/rsbag/internal/layout"
	"github.com/rsbag/rsbag/msgs"
	"github.com/rsbag/rsbag/rosbag"
	"github.com/rsbag/rsbag/sensor"
)

// Collector interprets the messages of the description topics of a version
// 2–4 bag (spec §6.2) one at a time, in bag order. Read feeds it from its
// own pass over the description; a tool that reads every message anyway
// (rs-record info) feeds it from that pass and reads what was recorded
// (Versions, Fields, Recorded, Stream) without Read's checks.
type Collector struct {
	d             *Description
	sensors       map[int]*Sensor
	hasSensorInfo map[int]bool
	versions      []uint32
	props         []msgsProp
	infoSeq       int
}

// NewCollector returns an empty Collector.
func NewCollector() *Collector {
	return &Collector{d: &Description{Info: sensor.Info{}, Streams: map[Key]*Stream{}},
		sensors: map[int]*Sensor{}, hasSensorInfo: map[int]bool{}}
}

// Describes reports whether messages of topic t (of a version 2–4 bag) are
// part of the device description that Collector.Add interprets: not frames,
// their metadata or pose companions, notifications, nor topics outside the
// RealSense grammar.
func Describes(t layout.Topic) bool {
	switch {
	case t.Kind.IsFrameData(), t.Kind == layout.KindUnknown, t.Kind.IsMetadata(), t.Kind == layout.KindPoseAccel,
		t.Kind == layout.KindPoseTwist, t.Kind == layout.KindNotification:
		return false
	}
	return true
}

func (c *Collector) sensor(i int) *Sensor {
	s := c.sensors[i]
	if s == nil {
		s = &Sensor{Index: i, Options: map[sensor.Option]*Option{}, Recorded: map[string]*Option{}}
		c.sensors[i] = s
	}
	return s
}

func (c *Collector) stream(k Key) *Stream {
	s := c.d.Streams[k]
	if s == nil {
		s = &Stream{Key: k, InfoSeq: -1}
		c.d.Streams[k] = s
	}
	return s
}

// option returns the option of topic t, under its recorded name, and under
// its sensor.Option when it is one this module knows.
func (c *Collector) option(t layout.Topic) *Option {
	s := c.sensor(t.Sensor)
	od := s.Recorded[t.OptionName]
	if od == nil {
		od = &Option{Name: t.OptionName}
		s.Recorded[t.OptionName] = od
		if o, ok := t.Option(); ok {
			od.Opt = o
			s.Options[o] = od
		}
	}
	return od
}

// Add interprets v, the decoded message at bag time at of the topic named
// name, parsed as t. Messages of other topics and of a type other than the
// topic's are ignored, as librealsense ignores them. Its error names the
// topic; the message was interpreted as far as it could be.
func (c *Collector) Add(name string, t layout.Topic, at rosbag.Time, v msgs.Message) error {
	switch t.Kind {
	case layout.KindFileVersion, layout.KindLegacyFileVersion:
		if u, ok := v.(*msgs.UInt32); ok {
			c.versions = append(c.versions, u.Data)
		}
	case layout.KindDeviceInfo, layout.KindSensorInfo:
		kv, ok := v.(*msgs.KeyValue)
		if !ok {
			return nil
		}
		info, fields := c.d.Info, &c.d.Fields
		if t.Kind == layout.KindSensorInfo {
			s := c.sensor(t.Sensor)
			c.hasSensorInfo[t.Sensor] = true
			if s.Info == nil {
				s.Info = sensor.Info{}
			}
			info, fields = s.Info, &s.Fields
		}
		*fields = append(*fields, *kv)
		if ci, ok := sensor.Parse[sensor.CameraInfo](kv.Key); ok {
			info[ci] = kv.Value
		}
	case layout.KindStreamInfo:
		si, ok := v.(*msgs.StreamInfo)
		if !ok {
			return nil
		}
		st := c.stream(KeyOf(t))
		if st.InfoSeq >= 0 {
			return nil // first one wins
		}
		st.FPS, st.InfoTime, st.InfoSeq = si.Fps, at, c.infoSeq
		c.infoSeq++
		f, err := layout.ParseEncoding(si.Encoding)
		if err != nil {
			st.Encoding, st.Unparsed = si.Encoding, true
			return fmt.Errorf("topic %q: %w", name, err)
		}
		st.Format = f
	case layout.KindCameraInfo:
		if ci, ok := v.(*msgs.CameraInfo); ok {
			if st := c.stream(KeyOf(t)); st.Cam == nil {
				cp := *ci // v may be reused for the connection's next message
				cp.D = slices.Clone(ci.D)
				st.Cam = &cp
			}
		}
	case layout.KindImuIntrinsic:
		if ii, ok := v.(*msgs.ImuIntrinsic); ok {
			if st := c.stream(KeyOf(t)); st.IMU == nil {
				cp := *ii
				st.IMU = &cp
			}
		}
	case layout.KindExtrinsics:
		if tf, ok := v.(*msgs.Transform); ok {
			if st := c.stream(KeyOf(t)); st.Pin == nil {
				pin := fromTransform(tf)
				st.Pin, st.TFGroup = &pin, t.Group
			}
		}
	case layout.KindOptionValue:
		x, ok := v.(*msgs.Float32)
		if !ok {
			return nil
		}
		od := c.option(t)
		od.record(x.Data)
		if at <= StaticTime {
			od.Static, od.HasStatic = x.Data, true
		} else {
			od.Changes = append(od.Changes, Change{at, x.Data})
		}
	case layout.KindOptionDescription:
		if x, ok := v.(*msgs.String); ok {
			od := c.option(t)
			od.Desc, od.HasDesc = x.Data, true
		}
	case layout.KindProperty: // file version 2 options
		kv, ok := v.(*msgs.KeyValue)
		if !ok {
			return nil
		}
		c.props = append(c.props, msgsProp{t.Sensor, *kv})
		if f, err := layout.ParseFixed(kv.Value); err == nil {
			s := c.sensor(t.Sensor)
			od := s.Recorded[kv.Key]
			if od == nil {
				od = &Option{Name: kv.Key}
				s.Recorded[kv.Key] = od
			}
			od.record(float32(f))
		}
	case layout.KindPostProcessing:
		if x, ok := v.(*msgs.String); ok {
			s := c.sensor(t.Sensor)
			s.HasPP = true
			s.Filters = append(s.Filters, x.Data)
		}
	}
	return nil
}

// Versions returns the values recorded on the file version topic, in bag
// order.
func (c *Collector) Versions() []uint32 { return c.versions }

// Fields returns the device info messages in bag order, keys that name no
// camera info included.
func (c *Collector) Fields() []msgs.KeyValue { return c.d.Fields }

// Recorded returns, in index order, every sensor a message of its info or
// option topics names, whether or not the player lists it (a player lists
// the sensors with an info topic, indices 0..n-1).
func (c *Collector) Recorded() []*Sensor {
	var out []*Sensor
	for _, s := range c.sensors {
		if len(s.Fields) > 0 || len(s.Recorded) > 0 {
			out = append(out, s)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Index < out[j].Index })
	return out
}

// HasSensorInfo reports whether a message on sensor i's info topic was
// added.
func (c *Collector) HasSensorInfo(i int) bool { return c.hasSensorInfo[i] }

// Stream returns what was recorded of the stream k: its stream info (when
// InfoSeq >= 0), camera info, IMU intrinsics and extrinsics; nil when
// nothing was.
func (c *Collector) Stream(k Key) *Stream { return c.d.Streams[k] }

// finish checks what was collected as librealsense's reader checks it and
// completes the description: the file version, the options of the static
// description, the sensors and their stream profiles in uid order, the
// recommended processing blocks and the span of the frames of frameConns.
func (c *Collector) finish(path string, r *rosbag.Reader, frameConns []uint32) (*Description, error) {
	d, versions, sensors := c.d, c.versions, c.sensors
	if len(versions) == 0 {
		if rc := r.Info().Recovery; rc.Damaged() {
			// Cut or corrupt before its description: say so, not that
			// it is not a RealSense bag.
			cause := fmt.Errorf("%d messages dropped with their lost connection records", rc.Orphans)
			if l := rc.Losses(); len(l) > 0 && l[0].Err != nil {
				cause = l[0].Err
			}
			return nil, loadError(path, "damaged bag: the device description (topic %q) is lost: %w",
				layout.FileVersionTopic, cause)
		}
		return nil, loadError(path, "invalid file format: file does not contain topic %q nor %q",
			layout.FileVersionTopic, layout.LegacyFileVersionTopic)
	}
	if len(versions) > 1 {
		return nil, loadError(path, "%d messages on %q, want exactly one", len(versions), layout.FileVersionTopic)
	}
	d.Version = versions[0]
	if !layout.ReadableVersion(layout.KindFileVersion, d.Version) || d.Version > layout.VersionLatest {
		return nil, loadError(path, "file version %d is not supported, want %d to %d", d.Version,
			layout.VersionMin, layout.VersionLatest)
	}

	if !layout.KindOptionValue.InVersion(d.Version) {
		// v2 options: property KeyValue with "%f" text.
		for _, p := range c.props {
			o, ok := sensor.Parse[sensor.Option](p.kv.Key)
			if !ok {
				continue
			}
			f, err := layout.ParseFixed(p.kv.Value)
			if err != nil {
				return nil, loadError(path, "sensor %d property %q: %w", p.Sensor, p.kv.Key, err)
			}
			c.sensor(p.Sensor).Options[o] = &Option{Opt: o, Name: p.kv.Key, Desc: layout.ReadOnlyOptionDescription(o.String()),
				Static: float32(f), HasStatic: true}
		}
	} else {
		for _, s := range sensors {
			for o, od := range s.Options {
				if !od.HasStatic {
					// Options only recorded later are not part of
					// the static description.
					delete(s.Options, o)
				} else if !od.HasDesc {
					od.Desc = layout.MissingOptionDescription
				}
			}
		}
	}
	if err := d.build(path, sensors, c.hasSensorInfo); err != nil {
		return nil, err
	}
	if err := d.recommendFilters(path); err != nil {
		return nil, err
	}
	if err := d.readDuration(r, frameConns); err != nil {
		return nil, loadError(path, "%w", err)
	}
	return d, nil
}

// record counts a recorded value, keeping the first.
func (o *Option) record(v float32) {
	if o.Count == 0 {
		o.First = v
	}
	o.Count++
}
