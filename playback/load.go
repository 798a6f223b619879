package playback

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

// staticTime is the bag time of librealsense's static messages, (0 s, 1 ns)
// (spec §3.1); the samples view starts just after it (§6.3).
const (
	staticTime  = rosbag.Time(layout.StaticTimeNs)
	samplesFrom = rosbag.Time(layout.SamplesStartNs)
)

// bagNs converts a bag time to the nanoseconds playback reports: the static
// time is 0 (spec §3.1).
func bagNs(t rosbag.Time) int64 {
	if t <= staticTime {
		return 0
	}
	return int64(t)
}

// topicOf parses a topic of a version 2–4 file (spec §4.2). Topics of a
// device other than 0 are not part of the recording.
func topicOf(name string) layout.Topic {
	t := layout.Parse(name)
	if t.Device != 0 {
		return layout.Topic{}
	}
	return t
}

// streamKey identifies a recorded stream.
type streamKey struct {
	sensor int
	stream sensor.Stream
	index  int
}

func keyOf(t layout.Topic) streamKey { return streamKey{t.Sensor, t.Stream, t.Index} }

// metadataKind is the metadata topic kind of each frame data kind.
var metadataKind = map[layout.TopicKind]layout.TopicKind{
	layout.KindImageData:     layout.KindImageMetadata,
	layout.KindImuData:       layout.KindImuMetadata,
	layout.KindPoseTransform: layout.KindPoseMetadata,
}

// hasType reports whether c carries the message type of topic kind k: the
// md5sum decides, as in librealsense (spec §1.6).
func hasType(c *rosbag.Connection, k layout.TopicKind) bool {
	t := k.Type()
	return t != nil && c.MD5Sum == t.MD5
}

// unmarshal decodes data into m. Bytes after the message are accepted, as
// librealsense's reader accepts them.
func unmarshal(m msgs.Message, data []byte) error {
	if err := m.Unmarshal(data); err != nil && !errors.Is(err, msgs.ErrTrailingBytes) {
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

// Sensor names that select sensor kinds (spec §6.2, §5.7).
const (
	nameStereo     = layout.SensorStereo
	nameCodedLight = layout.SensorCodedLight
	nameRGB        = layout.SensorRGB
	nameMotion     = layout.SensorMotion
	nameFisheye    = "Wide FOV Camera"
)

type optVal struct {
	t rosbag.Time
	v float32
}

// optionDesc is an option as recorded.
type optionDesc struct {
	opt       sensor.Option
	desc      string
	static    float32
	hasStatic bool
	changes   []optVal // non-static values in time order
}

// valueAt returns the value in effect at bag time t (spec §5.6, P.34).
func (o *optionDesc) valueAt(t rosbag.Time) float32 {
	v := o.static
	for _, c := range o.changes {
		if c.t > t {
			break
		}
		v = c.v
	}
	return v
}

// recStream is a recorded stream.
type recStream struct {
	key      streamKey
	infoTime rosbag.Time
	infoSeq  int
	fps      uint32
	format   sensor.Format
	cam      *msgs.CameraInfo
	imu      *msgs.ImuIntrinsic
	pin      *sensor.Extrinsics // extrinsics from the group's reference to the stream
	tfGroup  uint32
	profile  *sensor.StreamProfile
}

type recSensor struct {
	index   int
	info    sensor.Info
	options map[sensor.Option]*optionDesc
	filters []string
	hasPP   bool
	streams []*recStream
}

// description is the static device description of a bag (spec §6.2).
type description struct {
	version  uint32
	legacy   bool // file version 1 (spec §10)
	info     sensor.Info
	sensors  []*recSensor
	streams  map[streamKey]*recStream
	first    rosbag.Time // first frame bag time
	last     rosbag.Time
	hasFrame bool
	// repaired: chunks read from their records because their index
	// disagreed with them (rosbag.Iterator.Repaired).
	repaired []rosbag.RepairedChunk
}

// loadError returns an error naming the bag; format may wrap with %w.
func loadError(path, format string, a ...any) error {
	return fmt.Errorf("playback: %s: "+format, append([]any{path}, a...)...)
}

// readDescription reads the static description of the bag r.
func readDescription(path string, r *rosbag.Reader) (*description, error) {
	conns := r.Connections()
	if isLegacy(conns) {
		return readLegacy(path, r)
	}
	var want []uint32
	var frameConns []uint32
	parsed := make(map[uint32]layout.Topic, len(conns))
	for _, c := range conns {
		ti := topicOf(c.Topic)
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
		case ti.Kind == layout.KindUnknown, ti.Kind.IsMetadata(), ti.Kind == layout.KindPoseAccel,
			ti.Kind == layout.KindPoseTwist, ti.Kind == layout.KindNotification:
		default:
			want = append(want, c.ID)
		}
	}
	d := &description{info: sensor.Info{}, streams: map[streamKey]*recStream{}}
	sensors := map[int]*recSensor{}
	getSensor := func(i int) *recSensor {
		s := sensors[i]
		if s == nil {
			s = &recSensor{index: i, options: map[sensor.Option]*optionDesc{}}
			sensors[i] = s
		}
		return s
	}
	getStream := func(k streamKey) *recStream {
		s := d.streams[k]
		if s == nil {
			s = &recStream{key: k, infoSeq: -1}
			d.streams[k] = s
		}
		return s
	}
	getOption := func(sens int, o sensor.Option, desc string) *optionDesc {
		s := getSensor(sens)
		od := s.options[o]
		if od == nil {
			od = &optionDesc{opt: o, desc: desc}
			s.options[o] = od
		}
		return od
	}
	hasSensorInfo := map[int]bool{}
	var versions []uint32
	var props []msgsProp
	infoSeq := 0
	err := readStatic(r, want, parsed, &d.repaired, func(sm *staticMessage) error {
		ti, m, c, decode := sm.topic, sm.msg, sm.msg.Conn, sm.decode
		switch ti.Kind {
		case layout.KindFileVersion:
			var v msgs.UInt32
			if err := decode(&v); err != nil {
				return err
			}
			versions = append(versions, v.Data)
		case layout.KindDeviceInfo, layout.KindSensorInfo:
			var kv msgs.KeyValue
			if err := decode(&kv); err != nil {
				return err
			}
			info := d.info
			if ti.Kind == layout.KindSensorInfo {
				s := getSensor(ti.Sensor)
				hasSensorInfo[ti.Sensor] = true
				if s.info == nil {
					s.info = sensor.Info{}
				}
				info = s.info
			}
			if ci, ok := sensor.ParseCameraInfo(kv.Key); ok {
				info[ci] = kv.Value
			}
		case layout.KindStreamInfo:
			var si msgs.StreamInfo
			if err := decode(&si); err != nil {
				return err
			}
			st := getStream(keyOf(ti))
			if st.infoSeq >= 0 {
				return nil // first one wins
			}
			f, err := layout.ParseEncoding(si.Encoding)
			if err != nil {
				return fmt.Errorf("topic %q: %w", c.Topic, err)
			}
			st.fps, st.format, st.infoTime, st.infoSeq = si.Fps, f, m.Time, infoSeq
			infoSeq++
		case layout.KindCameraInfo:
			var ci msgs.CameraInfo
			if err := decode(&ci); err != nil {
				return err
			}
			if st := getStream(keyOf(ti)); st.cam == nil {
				st.cam = &ci
			}
		case layout.KindImuIntrinsic:
			var ii msgs.ImuIntrinsic
			if err := decode(&ii); err != nil {
				return err
			}
			if st := getStream(keyOf(ti)); st.imu == nil {
				st.imu = &ii
			}
		case layout.KindExtrinsics:
			var tf msgs.Transform
			if err := decode(&tf); err != nil {
				return err
			}
			if st := getStream(keyOf(ti)); st.pin == nil {
				pin := fromTransform(&tf)
				st.pin, st.tfGroup = &pin, ti.Group
			}
		case layout.KindOptionValue:
			o, ok := ti.Option()
			if !ok {
				return nil
			}
			var v msgs.Float32
			if err := decode(&v); err != nil {
				return err
			}
			od := getOption(ti.Sensor, o, layout.MissingOptionDescription)
			if m.Time <= staticTime {
				od.static, od.hasStatic = v.Data, true
			} else {
				od.changes = append(od.changes, optVal{m.Time, v.Data})
			}
		case layout.KindOptionDescription:
			o, ok := ti.Option()
			if !ok {
				return nil
			}
			var v msgs.String
			if err := decode(&v); err != nil {
				return err
			}
			getOption(ti.Sensor, o, "").desc = v.Data
		case layout.KindProperty:
			var kv msgs.KeyValue
			if err := decode(&kv); err != nil {
				return err
			}
			props = append(props, msgsProp{ti.Sensor, kv})
		case layout.KindPostProcessing:
			var v msgs.String
			if err := decode(&v); err != nil {
				return err
			}
			s := getSensor(ti.Sensor)
			s.hasPP = true
			s.filters = append(s.filters, v.Data)
		}
		return nil
	})
	if err != nil {
		return nil, loadError(path, "%w", err)
	}
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
	d.version = versions[0]
	if !layout.ReadableVersion(layout.KindFileVersion, d.version) || d.version > layout.VersionLatest {
		return nil, loadError(path, "file version %d is not supported, want %d to %d", d.version,
			layout.VersionMin, layout.VersionLatest)
	}

	if !layout.KindOptionValue.InVersion(d.version) {
		// v2 options: property KeyValue with "%f" text.
		for _, p := range props {
			o, ok := sensor.ParseOption(p.kv.Key)
			if !ok {
				continue
			}
			f, err := layout.ParseFixed(p.kv.Value)
			if err != nil {
				return nil, loadError(path, "sensor %d property %q: %w", p.sensor, p.kv.Key, err)
			}
			getSensor(p.sensor).options[o] = &optionDesc{opt: o, desc: layout.ReadOnlyOptionDescription(o.String()),
				static: float32(f), hasStatic: true}
		}
	} else {
		// Options only recorded later are not part of the static description.
		for _, s := range sensors {
			for o, od := range s.options {
				if !od.hasStatic {
					delete(s.options, o)
				}
			}
		}
	}
	if err := d.build(path, sensors, hasSensorInfo); err != nil {
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

// staticMessage is one message of the description pass.
type staticMessage struct {
	topic layout.Topic
	msg   rosbag.Message
}

// decode decodes the message into m; the error names the topic and time.
func (sm *staticMessage) decode(m msgs.Message) error {
	if err := unmarshal(m, sm.msg.Data); err != nil {
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
		if !hasType(c, sm.topic.Kind) {
			// The type's name with another md5sum: a corrupt connection
			// record, refused as info refuses it (not a foreign type).
			if kt := sm.topic.Kind.Type(); kt != nil && c.Type == kt.Name {
				return fmt.Errorf("topic %q: type %s has md5sum %s, want %s", c.Topic, c.Type, c.MD5Sum, kt.MD5)
			}
			if sm.topic.Kind == layout.KindFileVersion || sm.topic.Kind == layout.KindLegacyFileVersion {
				if c.Type == msgs.UInt32Type.Name {
					return fmt.Errorf("topic %q: type %s has md5sum %s, want %s", c.Topic, c.Type, c.MD5Sum, msgs.UInt32Type.MD5)
				}
				return fmt.Errorf("topic %q has type %s, want %s", c.Topic, c.Type, msgs.UInt32Type.Name)
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
	sensor int
	kv     msgs.KeyValue
}

// build lists the sensors (those with an info message, indices 0..n-1) and
// their stream profiles in uid order.
func (d *description) build(path string, sensors map[int]*recSensor, hasSensorInfo map[int]bool) error {
	var idx []int
	for i := range hasSensorInfo {
		idx = append(idx, i)
	}
	sort.Ints(idx)
	for n, i := range idx {
		if n != i {
			return loadError(path, "sensor indices %v are not 0..%d", idx, len(idx)-1)
		}
		d.sensors = append(d.sensors, sensors[i])
	}

	// Stream profiles.
	var recs []*recStream
	for _, st := range d.streams {
		if st.infoSeq >= 0 {
			recs = append(recs, st)
		}
	}
	sort.Slice(recs, func(a, b int) bool { return recs[a].infoSeq < recs[b].infoSeq })
	for _, st := range recs {
		if st.key.sensor >= len(d.sensors) {
			continue // a stream of a sensor that does not exist
		}
		p := &sensor.StreamProfile{Stream: st.key.stream, Index: st.key.index, Format: st.format,
			FPS: int(st.fps), Default: true}
		switch {
		case st.cam != nil:
			p.Kind = sensor.KindVideo
			c := st.cam
			p.Width, p.Height = int(c.Width), int(c.Height)
			model, ok := sensor.ParseDistortion(c.DistortionModel)
			if !ok {
				model = sensor.Distortion(0)
			}
			in := sensor.Intrinsics{Width: p.Width, Height: p.Height, FX: float32(c.K[0]), PPX: float32(c.K[2]),
				FY: float32(c.K[4]), PPY: float32(c.K[5]), Model: model}
			for i := 0; i < len(c.D) && i < len(in.Coeffs); i++ {
				in.Coeffs[i] = float32(c.D[i])
			}
			p.Intrinsics = in
		case st.imu != nil:
			p.Kind = sensor.KindMotion
			p.MotionIntrinsics = motionIntrinsics(st.imu.Data, st.imu.NoiseVariances, st.imu.BiasVariances)
		case st.key.stream == sensor.StreamPose:
			p.Kind = sensor.KindPose
		default:
			return loadError(path, "stream %s/%d of sensor %d: every StreamInfo is expected to have a complementary video/imu message",
				st.key.stream, st.key.index, st.key.sensor)
		}
		st.profile = p
		s := d.sensors[st.key.sensor]
		s.streams = append(s.streams, st)
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
func (d *description) orderStreams() {
	for _, s := range d.sensors {
		var static, later []*recStream
		for _, st := range s.streams {
			if st.infoTime <= staticTime {
				static = append(static, st)
			} else {
				later = append(later, st)
			}
		}
		for i, j := 0, len(static)-1; i < j; i, j = i+1, j-1 {
			static[i], static[j] = static[j], static[i]
		}
		s.streams = append(static, later...)
	}
	// Assign UIDs in listing order so that they ascend with it.
	for _, s := range d.sensors {
		for _, st := range s.streams {
			st.profile.UID = nextUID()
		}
	}
}

// recommendFilters sets each sensor's recommended processing blocks: the
// recorded ones (version 4) or those librealsense synthesizes for a D400.
func (d *description) recommendFilters(path string) error {
	for _, s := range d.sensors {
		if layout.KindPostProcessing.InVersion(d.version) {
			var out []string
			disp := 0
			for _, f := range s.filters {
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
			s.filters = out
			continue
		}
		s.filters = nil
		if !layout.IsD400(d.info) {
			continue
		}
		switch s.info[sensor.CameraInfoName] {
		case nameStereo, nameCodedLight:
			s.filters = append([]string(nil), d400DepthFilters...)
		case nameRGB:
			s.filters = append([]string(nil), d400ColorFilters...)
		case nameMotion:
		default:
			return loadError(path, "sensor %d: unrecognized sensor name %q for a D400 device (file version %d)",
				s.index, s.info[sensor.CameraInfoName], d.version)
		}
	}
	return nil
}

// readDuration finds the first and last frame times (spec §6.1).
func (d *description) readDuration(r *rosbag.Reader, frameConns []uint32) error {
	if len(frameConns) == 0 {
		return nil
	}
	// A corrupt chunk holding the first or last frame does not stop the
	// bag from opening: the duration spans the readable frames.
	it := r.Messages(&rosbag.Query{Connections: frameConns, Start: samplesFrom, SkipCorrupt: true})
	defer func() {
		d.repaired = append(d.repaired, it.Repaired()...)
		it.Close()
	}()
	if it.Next() {
		d.first, d.hasFrame = it.Message().Time, true
	}
	if err := it.Err(); err != nil {
		return fmt.Errorf("reading the first frame: %w", err)
	}
	if d.hasFrame {
		last, err := lastTime(it, r.Info().End, d.first)
		if err != nil {
			return fmt.Errorf("reading the last frame: %w", err)
		}
		d.last = last
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
