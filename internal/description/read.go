package description

import (
	"errors"
	"fmt"
	"math"
	"sort"

	"github.com/rsbag/rsbag/internal/layout"
	"github.com/rsbag/rsbag/msgs"
	"github.com/rsbag/rsbag/rosbag"
	"github.com/rsbag/rsbag/sensor"
)

// StaticTime is the bag time of librealsense's static messages, (0 s, 1 ns)
// (spec §3.1); the samples view starts just after it, at SamplesFrom (§6.3).
const (
	StaticTime  = rosbag.Time(layout.StaticTimeNs)
	SamplesFrom = rosbag.Time(layout.SamplesStartNs)
)

// TopicOf parses a topic of a version 2–4 file (spec §4.2). Topics of a
// device other than 0 are not part of the recording.
func TopicOf(name string) layout.Topic {
	t := layout.Parse(name)
	if t.Device != 0 {
		return layout.Topic{}
	}
	return t
}

// Key identifies a recorded stream.
type Key struct {
	Sensor int
	Stream sensor.Stream
	Index  int
}

// KeyOf returns the key of the stream of topic t.
func KeyOf(t layout.Topic) Key { return Key{t.Sensor, t.Stream, t.Index} }

// HasType reports whether c carries the message type of topic kind k: the
// md5sum decides, as in librealsense (spec §1.6).
func HasType(c *rosbag.Connection, k layout.TopicKind) bool {
	t := k.Type()
	return t != nil && c.MD5Sum == t.MD5
}

// Unmarshal decodes data into m. Bytes after the message are accepted, as
// librealsense's reader accepts them.
func Unmarshal(m msgs.Message, data []byte) error {
	if err := msgs.Unmarshal(data, m); err != nil && !errors.Is(err, msgs.ErrTrailingBytes) {
		return err
	}
	return nil
}

// Recommended processing blocks synthesized for v2/v3 files (spec §5.7).
var (
	d400DepthFilters = []string{"Decimation Filter", "Rotation Filter", "HDR Merge", "Filter By Sequence id",
		"Threshold Filter", "Depth to Disparity", "Spatial Filter", "Temporal Filter", "Hole Filling Filter",
		"Disparity to Depth"}
	d400ColorFilters = []string{"Decimation Filter", "Rotation Filter"}
	// knownFilters are the block names a v4 reader instantiates (spec §5.7).
	knownFilters = map[string]bool{"Decimation Filter": true, "Threshold Filter": true, "Depth to Disparity": true,
		"Spatial Filter": true, "Temporal Filter": true, "Hole Filling Filter": true, "Disparity to Depth": true,
		"Rotation Filter": true, "HDR Merge": true, "Filter By Sequence id": true}
)

const disparityLegacy = "Disparity Filter"

// Sensor names that select recommended filters (spec §5.7).
const (
	nameStereo     = layout.SensorStereo
	nameCodedLight = layout.SensorCodedLight
	nameRGB        = layout.SensorRGB
	nameMotion     = layout.SensorMotion
)

// Change is a recorded option value after the static description.
type Change struct {
	T rosbag.Time
	V float32
}

// Option is an option as recorded.
type Option struct {
	Opt       sensor.Option // 0 for an option this module does not know (only in Sensor.Recorded)
	Name      string        // as recorded: the topic's option name, or the version-2 property's key
	Desc      string
	HasDesc   bool    // Desc was recorded
	First     float32 // the first recorded value in bag order, when Count > 0
	Count     int     // the number of recorded values, static ones included
	Static    float32 // the value of the static description, when HasStatic
	HasStatic bool
	Changes   []Change // non-static values in time order
}

// ValueAt returns the value in effect at bag time t (spec §5.6, P.34).
func (o *Option) ValueAt(t rosbag.Time) float32 {
	v := o.Static
	for _, c := range o.Changes {
		if c.T > t {
			break
		}
		v = c.V
	}
	return v
}

// Stream is a recorded stream.
type Stream struct {
	Key      Key
	InfoTime rosbag.Time // bag time of its stream info
	InfoSeq  int         // order of its stream info in the bag
	FPS      uint32
	Format   sensor.Format
	Encoding string // the recorded encoding, when Unparsed
	Unparsed bool   // the recorded encoding names no format (Format is then 0)
	Cam      *msgs.CameraInfo
	IMU      *msgs.ImuIntrinsic
	Pin      *sensor.Extrinsics // extrinsics from the group's reference to the stream
	TFGroup  uint32
	Profile  *sensor.StreamProfile // nil for a stream of no listed sensor
}

// Sensor is a recorded sensor.
type Sensor struct {
	Index   int
	Info    sensor.Info
	Fields  []msgs.KeyValue // its info messages in bag order, keys that name no camera info included
	Options map[sensor.Option]*Option
	// Recorded holds every option recorded for the sensor by its recorded
	// name: those this module does not know, and those only recorded after
	// the static description, too.
	Recorded map[string]*Option
	Filters  []string  // recommended processing blocks
	HasPP    bool      // it has post-processing topics
	Streams  []*Stream // in uid order
}

// Description is the static device description of a bag (spec §6.2), with
// the span of its frames.
type Description struct {
	Version  uint32
	Legacy   bool // file version 1 (spec §10)
	Info     sensor.Info
	Fields   []msgs.KeyValue // the device info messages in bag order
	Sensors  []*Sensor
	Streams  map[Key]*Stream
	First    rosbag.Time // first frame bag time, when HasFrame
	Last     rosbag.Time
	HasFrame bool
	// Repaired lists the chunks read from their records because their
	// index disagreed with them (rosbag.Iterator.Repaired).
	Repaired []rosbag.RepairedChunk
}

// loadError returns an error naming the bag; format may wrap with %w.
// Playback adds its package to it.
func loadError(path, format string, a ...any) error {
	return fmt.Errorf("%s: "+format, append([]any{path}, a...)...)
}

// Read reads the static description of the bag r at path, and the bag times
// of its first and last frames. Its errors name path.
func Read(path string, r *rosbag.Reader) (*Description, error) {
	conns := r.Connections()
	if isLegacy(conns) {
		return readLegacy(path, r)
	}
	var want []uint32
	var frameConns []uint32
	parsed := make(map[uint32]layout.Topic, len(conns))
	for _, c := range conns {
		ti := TopicOf(c.Topic)
		parsed[c.ID] = ti
		switch {
		case ti.Kind.IsFrameData():
			// Its frames would be refused as they are played: the bag is
			// refused now, as info and export refuse it.
			if kt := ti.Kind.Type(); kt != nil && c.MD5Sum != kt.MD5 {
				return nil, loadError(path, "topic %q: message type %s with md5sum %s, want %s with %s",
					c.Topic, c.Type, c.MD5Sum, kt.Name, kt.MD5)
			}
			frameConns = append(frameConns, c.ID)
		case Describes(ti):
			want = append(want, c.ID)
		}
	}
	c := NewCollector()
	err := readStatic(r, want, parsed, &c.d.Repaired, func(sm *staticMessage) error {
		kt := sm.topic.Kind.Type()
		if kt == nil {
			return nil
		}
		v := msgs.New(kt.Name)
		if v == nil {
			return nil
		}
		if err := sm.decode(v); err != nil {
			return err
		}
		return c.Add(sm.msg.Conn.Topic, sm.topic, sm.msg.Time, v)
	})
	if err != nil {
		return nil, loadError(path, "%w", err)
	}
	return c.finish(path, r, frameConns)
}

// staticMessage is one message of the description pass.
type staticMessage struct {
	topic layout.Topic
	msg   rosbag.Message
}

// decode decodes the message into m; the error names the topic and time.
func (sm *staticMessage) decode(m msgs.Message) error {
	if err := Unmarshal(m, sm.msg.Data); err != nil {
		return fmt.Errorf("topic %q at %v: decoding %s: %w", sm.msg.Conn.Topic, sm.msg.Time, m.Type().Name, err)
	}
	return nil
}

// readStatic calls fn for every message of conns (parsed as topics says)
// whose connection has the message type of its topic kind. A file version
// topic of another type is an error; other topics of an unexpected type are
// skipped, as librealsense skips them. The chunks read from their records
// are appended to repaired.
func readStatic(r *rosbag.Reader, conns []uint32, topics map[uint32]layout.Topic, repaired *[]rosbag.RepairedChunk, fn func(*staticMessage) error) error {
	if len(conns) == 0 {
		return nil
	}
	it := r.Messages(&rosbag.Query{Connections: conns})
	defer func() {
		*repaired = append(*repaired, it.Repaired()...)
		it.Close()
	}()
	for it.Next() {
		sm := staticMessage{topic: topics[it.Message().Conn.ID], msg: it.Message()}
		c := sm.msg.Conn
		if !HasType(c, sm.topic.Kind) {
			// The type's name with another md5sum: a corrupt connection
			// record, refused as info refuses it (not a foreign type).
			if kt := sm.topic.Kind.Type(); kt != nil && c.Type == kt.Name {
				return fmt.Errorf("topic %q: type %s has md5sum %s, want %s", c.Topic, c.Type, c.MD5Sum, kt.MD5)
			}
			if sm.topic.Kind == layout.KindFileVersion || sm.topic.Kind == layout.KindLegacyFileVersion {
				if c.Type == new(msgs.UInt32).Type().Name {
					return fmt.Errorf("topic %q: type %s has md5sum %s, want %s", c.Topic, c.Type, c.MD5Sum, new(msgs.UInt32).Type().MD5)
				}
				return fmt.Errorf("topic %q has type %s, want %s", c.Topic, c.Type, new(msgs.UInt32).Type().Name)
			}
			continue
		}
		if err := fn(&sm); err != nil {
			return err
		}
	}
	if err := it.Err(); err != nil {
		return fmt.Errorf("reading the device description: %w", err)
	}
	return nil
}

// msgsProp is a version-2 property of a sensor.
type msgsProp struct {
	Sensor int
	kv     msgs.KeyValue
}

// build lists the sensors (those with an info message, indices 0..n-1) and
// their stream profiles in uid order.
func (d *Description) build(path string, sensors map[int]*Sensor, hasSensorInfo map[int]bool) error {
	var idx []int
	for i := range hasSensorInfo {
		idx = append(idx, i)
	}
	sort.Ints(idx)
	for n, i := range idx {
		if n != i {
			return loadError(path, "sensor indices %v are not 0..%d", idx, len(idx)-1)
		}
		d.Sensors = append(d.Sensors, sensors[i])
	}

	// Stream profiles.
	var recs []*Stream
	for _, st := range d.Streams {
		if st.InfoSeq >= 0 {
			recs = append(recs, st)
		}
	}
	sort.Slice(recs, func(a, b int) bool { return recs[a].InfoSeq < recs[b].InfoSeq })
	for _, st := range recs {
		if st.Key.Sensor >= len(d.Sensors) {
			continue // a stream of a sensor that does not exist
		}
		p := &sensor.StreamProfile{Stream: st.Key.Stream, Index: st.Key.Index, Format: st.Format,
			FPS: int(st.FPS), Default: true}
		switch {
		case st.Cam != nil:
			p.Kind = sensor.KindVideo
			c := st.Cam
			p.Width, p.Height = int(c.Width), int(c.Height)
			model, ok := sensor.Parse[sensor.Distortion](c.DistortionModel)
			if !ok {
				model = sensor.Distortion(0)
			}
			in := sensor.Intrinsics{Width: p.Width, Height: p.Height, FX: float32(c.K[0]), PPX: float32(c.K[2]),
				FY: float32(c.K[4]), PPY: float32(c.K[5]), Model: model}
			for i := 0; i < len(c.D) && i < len(in.Coeffs); i++ {
				in.Coeffs[i] = float32(c.D[i])
			}
			p.Intrinsics = in
		case st.IMU != nil:
			p.Kind = sensor.KindMotion
			p.MotionIntrinsics = motionIntrinsics(st.IMU.Data, st.IMU.NoiseVariances, st.IMU.BiasVariances)
		case st.Key.Stream == sensor.StreamPose:
			p.Kind = sensor.KindPose
		default:
			return loadError(path, "stream %s/%d of sensor %d: every StreamInfo is expected to have a complementary video/imu message",
				st.Key.Stream, st.Key.Index, st.Key.Sensor)
		}
		st.Profile = p
		s := d.Sensors[st.Key.Sensor]
		s.Streams = append(s.Streams, st)
	}
	d.orderStreams()
	return nil
}

// motionIntrinsics converts the recorded 3x4 row-major matrix and variances.
func motionIntrinsics(data [12]float32, noise, bias [3]float32) sensor.MotionIntrinsics {
	var mi sensor.MotionIntrinsics
	for r := 0; r < 3; r++ {
		for c := 0; c < 4; c++ {
			mi.Data[r][c] = data[r*4+c]
		}
	}
	mi.NoiseVariances, mi.BiasVariances = noise, bias
	return mi
}

// orderStreams puts each sensor's streams in uid order (README "uid
// order": per sensor, static stream infos in reverse bag order, then later
// ones in bag order) and numbers them.
func (d *Description) orderStreams() {
	for _, s := range d.Sensors {
		var static, later []*Stream
		for _, st := range s.Streams {
			if st.InfoTime <= StaticTime {
				static = append(static, st)
			} else {
				later = append(later, st)
			}
		}
		for i, j := 0, len(static)-1; i < j; i, j = i+1, j-1 {
			static[i], static[j] = static[j], static[i]
		}
		s.Streams = append(static, later...)
	}
	// Assign UIDs in listing order so that they ascend with it.
	for _, s := range d.Sensors {
		for _, st := range s.Streams {
			st.Profile.UID = sensor.NextUID()
		}
	}
}

// recommendFilters sets each sensor's recommended processing blocks: the
// recorded ones (version 4) or those librealsense synthesizes for a D400.
func (d *Description) recommendFilters(path string) error {
	for _, s := range d.Sensors {
		if layout.KindPostProcessing.InVersion(d.Version) {
			var out []string
			disp := 0
			for _, f := range s.Filters {
				if f == disparityLegacy {
					if disp == 0 {
						f = "Depth to Disparity"
					} else {
						f = "Disparity to Depth"
					}
					disp++
				}
				if knownFilters[f] {
					out = append(out, f)
				}
			}
			s.Filters = out
			continue
		}
		s.Filters = nil
		if !layout.IsD400(d.Info) {
			continue
		}
		switch s.Info[sensor.CameraInfoName] {
		case nameStereo, nameCodedLight:
			s.Filters = append([]string(nil), d400DepthFilters...)
		case nameRGB:
			s.Filters = append([]string(nil), d400ColorFilters...)
		case nameMotion:
		default:
			return loadError(path, "sensor %d: unrecognized sensor name %q for a D400 device (file version %d)",
				s.Index, s.Info[sensor.CameraInfoName], d.Version)
		}
	}
	return nil
}

// readDuration finds the first and last frame times (spec §6.1).
func (d *Description) readDuration(r *rosbag.Reader, frameConns []uint32) error {
	if len(frameConns) == 0 {
		return nil
	}
	// A corrupt chunk holding the first or last frame does not stop the
	// bag from opening: the duration spans the readable frames.
	it := r.Messages(&rosbag.Query{Connections: frameConns, Start: SamplesFrom, SkipCorrupt: true})
	defer func() {
		d.Repaired = append(d.Repaired, it.Repaired()...)
		it.Close()
	}()
	if it.Next() {
		d.First, d.HasFrame = it.Message().Time, true
	}
	if err := it.Err(); err != nil {
		return fmt.Errorf("reading the first frame: %w", err)
	}
	if d.HasFrame {
		last, err := lastTime(it, r.Info().End, d.First)
		if err != nil {
			return fmt.Errorf("reading the last frame: %w", err)
		}
		d.Last = last
	}
	return nil
}

// lastTime finds the bag time of the last message of it without reading
// the whole bag: it reads windows of growing size before the bag's end.
func lastTime(it *rosbag.Iterator, end, first rosbag.Time) (rosbag.Time, error) {
	for w := rosbag.Time(50_000_000); ; w *= 4 {
		start := first
		if end > w && end-w > first {
			start = end - w
		}
		if err := it.Seek(start); err != nil {
			return 0, err
		}
		last, found := rosbag.Time(0), false
		for it.Next() {
			last, found = it.Message().Time, true
		}
		if err := it.Err(); err != nil {
			return 0, err
		}
		if found || start == first {
			if !found {
				return first, nil
			}
			return last, nil
		}
		if w > math.MaxUint64/8 {
			return first, nil
		}
	}
}
