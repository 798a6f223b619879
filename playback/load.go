package playback

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/rsbag/rsbag/rosbag"
	"github.com/rsbag/rsbag/sensor"
)

// staticTime is the bag time of librealsense's static messages, (0 s, 1 ns)
// (spec §3.1); the samples view starts just after it (§6.3).
const (
	staticTime  = rosbag.MinTime
	samplesFrom = rosbag.MinTime + 1
)

// bagNs converts a bag time to the nanoseconds playback reports: the static
// time is 0 (spec §3.1).
func bagNs(t rosbag.Time) int64 {
	if t <= staticTime {
		return 0
	}
	return int64(t)
}

// Supported file versions (spec §0): 2 to 4 on /file_version. librealsense
// reads larger values as 4; we refuse them with an error naming the version.
const (
	minFileVersion = 2
	maxFileVersion = 4
	optionsVersion = 3 // options as option/<name>/value topics
	filtersVersion = 4 // recorded post_processing lists
)

// Text of librealsense descriptions synthesized on playback (spec §5.6).
const (
	noDescription       = "N/A"
	readOnlyDescription = "Read only option of "
)

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
	// d400ProductIDs are the D400 product ids seen in the reference bags
	// (real/single_depth_color_640x480.bag: 0B07; the D435I of the
	// synthetic bags: 0B3A). A "Product Line" of "D400" also counts.
	d400ProductIDs = map[string]bool{"0B07": true, "0B3A": true}
)

const (
	d400ProductLine = "D400"
	disparityLegacy = "Disparity Filter"
)

// Sensor names that select sensor kinds (spec §6.2, §5.7).
const (
	nameStereo     = "Stereo Module"
	nameCodedLight = "Coded-Light Depth Sensor"
	nameRGB        = "RGB Camera"
	nameMotion     = "Motion Module"
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
	cam      *cameraInfoMsg
	imu      *imuIntrinsicMsg
	tf       *transformMsg
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
	info     sensor.Info
	sensors  []*recSensor
	streams  map[streamKey]*recStream
	first    rosbag.Time // first frame bag time
	last     rosbag.Time
	hasFrame bool
}

func loadError(path, format string, a ...any) error {
	return fmt.Errorf("playback: %s: %s", path, fmt.Sprintf(format, a...))
}

// readDescription reads the static description of the bag r.
func readDescription(path string, r *rosbag.Reader) (*description, error) {
	conns := r.Connections()
	var want []uint32
	var frameConns []uint32
	parsed := make(map[uint32]topicInfo, len(conns))
	byID := make(map[uint32]*rosbag.Connection, len(conns))
	legacy := false
	for _, c := range conns {
		ti := parseTopic(c.Topic)
		parsed[c.ID] = ti
		byID[c.ID] = c
		switch ti.kind {
		case topicImageData, topicImuData, topicPoseTransform:
			frameConns = append(frameConns, c.ID)
		case topicMetadata, topicPoseAccel, topicPoseTwist, topicNotification, topicOther:
		case topicLegacyVersion:
			legacy = true
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
	hasSensorInfo := map[int]bool{}
	var versions []uint32
	type propVal struct {
		sensor int
		name   string
		value  string
	}
	var props []propVal
	infoSeq := 0
	if len(want) > 0 {
		it := r.Messages(&rosbag.Query{Connections: want})
		for it.Next() {
			m := it.Message()
			c := byID[m.Conn.ID]
			if c == nil {
				c = m.Conn
			}
			ti := parsed[m.Conn.ID]
			md5 := c.MD5Sum
			bad := func(what string, err error) error {
				return loadError(path, "topic %q at %v: decoding %s: %v", c.Topic, m.Time, what, err)
			}
			switch ti.kind {
			case topicFileVersion:
				if md5 != md5UInt32 {
					return nil, loadError(path, "topic %q has type %s, want std_msgs/UInt32", c.Topic, c.Type)
				}
				v, err := decodeUInt32(m.Data)
				if err != nil {
					return nil, bad("std_msgs/UInt32", err)
				}
				versions = append(versions, v)
			case topicDeviceInfo, topicSensorInfo:
				if md5 != md5KeyValue {
					continue
				}
				k, v, err := decodeKeyValue(m.Data)
				if err != nil {
					return nil, bad("diagnostic_msgs/KeyValue", err)
				}
				ci, ok := sensor.ParseCameraInfo(k)
				if ti.kind == topicDeviceInfo {
					if ok {
						d.info[ci] = v
					}
					continue
				}
				s := getSensor(ti.sensor)
				hasSensorInfo[ti.sensor] = true
				if s.info == nil {
					s.info = sensor.Info{}
				}
				if ok {
					s.info[ci] = v
				}
			case topicStreamInfo:
				if md5 != md5StreamInfo {
					continue
				}
				si, err := decodeStreamInfo(m.Data)
				if err != nil {
					return nil, bad("realsense_msgs/StreamInfo", err)
				}
				st := getStream(ti.key())
				if st.infoSeq >= 0 {
					continue // first one wins
				}
				f, ok := parseEncoding(si.Encoding)
				if !ok {
					return nil, loadError(path, "topic %q: unknown encoding %q", c.Topic, si.Encoding)
				}
				st.fps, st.format, st.infoTime, st.infoSeq = si.FPS, f, m.Time, infoSeq
				infoSeq++
			case topicCameraInfo:
				if md5 != md5CameraInfo {
					continue
				}
				ci, err := decodeCameraInfo(m.Data)
				if err != nil {
					return nil, bad("sensor_msgs/CameraInfo", err)
				}
				st := getStream(ti.key())
				if st.cam == nil {
					st.cam = &ci
				}
			case topicImuIntrinsic:
				if md5 != md5ImuIntrinsic {
					continue
				}
				ii, err := decodeImuIntrinsic(m.Data)
				if err != nil {
					return nil, bad("realsense_msgs/ImuIntrinsic", err)
				}
				st := getStream(ti.key())
				if st.imu == nil {
					st.imu = &ii
				}
			case topicTF:
				if md5 != md5Transform {
					continue
				}
				tf, err := decodeTransform(m.Data)
				if err != nil {
					return nil, bad("geometry_msgs/Transform", err)
				}
				st := getStream(ti.key())
				if st.tf == nil {
					st.tf = &tf
					st.tfGroup = ti.group
				}
			case topicOptionValue:
				o, ok := sensor.ParseOption(ti.name)
				if !ok || md5 != md5Float32 {
					continue
				}
				v, err := decodeFloat32(m.Data)
				if err != nil {
					return nil, bad("std_msgs/Float32", err)
				}
				s := getSensor(ti.sensor)
				od := s.options[o]
				if od == nil {
					od = &optionDesc{opt: o, desc: noDescription}
					s.options[o] = od
				}
				if m.Time <= staticTime {
					od.static, od.hasStatic = v, true
				} else {
					od.changes = append(od.changes, optVal{m.Time, v})
				}
			case topicOptionDescription:
				o, ok := sensor.ParseOption(ti.name)
				if !ok || md5 != md5String {
					continue
				}
				v, err := decodeString(m.Data)
				if err != nil {
					return nil, bad("std_msgs/String", err)
				}
				s := getSensor(ti.sensor)
				od := s.options[o]
				if od == nil {
					od = &optionDesc{opt: o}
					s.options[o] = od
				}
				od.desc = v
			case topicProperty:
				if md5 != md5KeyValue {
					continue
				}
				k, v, err := decodeKeyValue(m.Data)
				if err != nil {
					return nil, bad("diagnostic_msgs/KeyValue", err)
				}
				props = append(props, propVal{ti.sensor, k, v})
			case topicPostProcessing:
				if md5 != md5String {
					continue
				}
				v, err := decodeString(m.Data)
				if err != nil {
					return nil, bad("std_msgs/String", err)
				}
				s := getSensor(ti.sensor)
				s.hasPP = true
				s.filters = append(s.filters, v)
			}
		}
		if err := it.Err(); err != nil {
			return nil, fmt.Errorf("playback: %s: reading the device description: %w", path, err)
		}
	}
	if len(versions) == 0 {
		if legacy {
			return nil, loadError(path, "file version 1 (legacy /FILE_VERSION layout) is not supported; want /file_version 2, 3 or 4")
		}
		return nil, loadError(path, "invalid file format: file does not contain topic %q nor %q", fileVersionTopic, legacyVersionTopic)
	}
	if len(versions) > 1 {
		return nil, loadError(path, "%d messages on %q, want exactly one", len(versions), fileVersionTopic)
	}
	d.version = versions[0]
	if d.version < minFileVersion || d.version > maxFileVersion {
		return nil, loadError(path, "file version %d is not supported, want 2, 3 or 4", d.version)
	}

	// v2 options: property KeyValue with "%f" text.
	if d.version < optionsVersion {
		for _, p := range props {
			o, ok := sensor.ParseOption(p.name)
			if !ok {
				continue
			}
			f, err := strconv.ParseFloat(strings.TrimSpace(p.value), 32)
			if err != nil {
				return nil, loadError(path, "sensor %d property %q: value %q is not a number", p.sensor, p.name, p.value)
			}
			getSensor(p.sensor).options[o] = &optionDesc{opt: o, desc: readOnlyDescription + o.String(),
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

	// Sensors: those with an info message, indices 0..n-1.
	var idx []int
	for i := range hasSensorInfo {
		idx = append(idx, i)
	}
	sort.Ints(idx)
	for n, i := range idx {
		if n != i {
			return nil, loadError(path, "sensor indices %v are not 0..%d", idx, len(idx)-1)
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
			model, ok := sensor.ParseDistortion(c.Model)
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
			var mi sensor.MotionIntrinsics
			for r := 0; r < 3; r++ {
				for c := 0; c < 4; c++ {
					mi.Data[r][c] = st.imu.Data[r*4+c]
				}
			}
			mi.NoiseVariances, mi.BiasVariances = st.imu.Noise, st.imu.Bias
			p.MotionIntrinsics = mi
		case st.key.stream == sensor.StreamPose:
			p.Kind = sensor.KindPose
		default:
			return nil, loadError(path, "stream %s/%d of sensor %d: every StreamInfo is expected to have a complementary video/imu message",
				st.key.stream, st.key.index, st.key.sensor)
		}
		st.profile = p
		s := d.sensors[st.key.sensor]
		s.streams = append(s.streams, st)
	}
	// uid order (README "uid order"): per sensor, static stream infos in
	// reverse bag order, then later ones in bag order.
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

	// Recommended filters.
	for _, s := range d.sensors {
		if d.version >= filtersVersion {
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
		if !isD400(d.info) {
			continue
		}
		switch s.info[sensor.CameraInfoName] {
		case nameStereo, nameCodedLight:
			s.filters = append([]string(nil), d400DepthFilters...)
		case nameRGB:
			s.filters = append([]string(nil), d400ColorFilters...)
		case nameMotion:
		default:
			return nil, loadError(path, "sensor %d: unrecognized sensor name %q for a D400 device (file version %d)",
				s.index, s.info[sensor.CameraInfoName], d.version)
		}
	}

	// Duration over frame topics (spec §6.1).
	if len(frameConns) > 0 {
		it := r.Messages(&rosbag.Query{Connections: frameConns, Start: samplesFrom})
		if it.Next() {
			d.first, d.hasFrame = it.Message().Time, true
		}
		if err := it.Err(); err != nil {
			return nil, fmt.Errorf("playback: %s: reading the first frame: %w", path, err)
		}
		if d.hasFrame {
			last, err := lastTime(r, frameConns, d.first)
			if err != nil {
				return nil, fmt.Errorf("playback: %s: reading the last frame: %w", path, err)
			}
			d.last = last
		}
	}
	return d, nil
}

// lastTime finds the bag time of the last message of conns without reading
// the whole bag: it reads windows of growing size before the bag's end.
func lastTime(r *rosbag.Reader, conns []uint32, first rosbag.Time) (rosbag.Time, error) {
	end := r.Info().End
	for w := rosbag.Time(50_000_000); ; w *= 4 {
		start := first
		if end > w && end-w > first {
			start = end - w
		}
		it := r.Messages(&rosbag.Query{Connections: conns, Start: start})
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

func isD400(info sensor.Info) bool {
	return info[sensor.CameraInfoProductLine] == d400ProductLine || d400ProductIDs[info[sensor.CameraInfoProductId]]
}
