// Package ros2 exports a RealSense recording as an MCAP file of the ros2
// profile: the messages the realsense2_camera ROS 2 wrapper (realsense-ros
// 4.55) publishes for a live camera, CDR-encoded, on the topics it names,
// so that `ros2 bag play` and Foxglove show the recording as they show the
// camera.
//
// For every stream of the bag, with "~" the node's name space and name
// (Options.Namespace, "/camera/camera" as the wrapper's launch file makes
// it) and NAME the wrapper's stream name ("depth", "color", "infra1",
// "gyro", "accel"):
//
//   - a video stream: ~/NAME/image_rect_raw (streams of a depth sensor) or
//     ~/NAME/image_raw (sensor_msgs/msg/Image, with the wrapper's encodings:
//     Z16 is "16UC1", scaled to millimeters when the depth units are not
//     1 mm), ~/NAME/camera_info (sensor_msgs/msg/CameraInfo from the
//     intrinsics: "plumb_bob" with 5 coefficients, "equidistant" with 4
//     for Kannala-Brandt; the right infrared camera's projection carries
//     the baseline to the left one) and ~/NAME/metadata;
//   - a motion stream: ~/NAME/sample (sensor_msgs/msg/Imu: the sample in
//     angular_velocity or linear_acceleration, covariances 0.01, no
//     orientation), ~/NAME/imu_info (realsense2_camera_msgs/msg/IMUInfo, the
//     motion intrinsics, latched) and ~/NAME/metadata;
//   - ~/extrinsics/depth_to_NAME for every stream but the base stream
//     (realsense2_camera_msgs/msg/Extrinsics, latched), and /tf_static
//     (tf2_msgs/msg/TFMessage): the base frame camera_link to each stream's
//     frame, and each frame to its optical frame.
//
// Metadata messages (realsense2_camera_msgs/msg/Metadata) carry the frame
// number, clock domain, timestamp and every metadata value as the wrapper's
// JSON text. Header stamps are the frame timestamps when they are system or
// global time (as the wrapper stamps them) and the bag time otherwise; log
// times are bag times. Pose streams and formats the wrapper does not
// publish are left out and named in Result.Skipped.
package ros2

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"sync"

	"github.com/foxglove/mcap/go/mcap"

	"github.com/rsbag/rsbag/extensions"
	"github.com/rsbag/rsbag/internal/mcapwriter"
	"github.com/rsbag/rsbag/internal/yuv"
	"github.com/rsbag/rsbag/mcapbag"
	"github.com/rsbag/rsbag/playback"
	"github.com/rsbag/rsbag/sensor"
)

// Options configures Export. The zero value (or nil) writes zstd chunks
// with the wrapper's default names.
type Options struct {
	Compression mcapbag.Compression // "" means zstd
	ChunkSize   int64               // 0 means 8 MiB, as mcapbag.ExportOptions
	// Namespace is the wrapper node's name space and name, which topics
	// other than /tf_static start with (default "/camera/camera").
	Namespace string
	// CameraName starts every frame id (default "camera":
	// "camera_link", "camera_depth_optical_frame").
	CameraName string
}

// Default names of the wrapper's launch file.
const (
	DefaultNamespace  = "/camera/camera"
	DefaultCameraName = "camera"
)

// Result says what Export wrote.
type Result struct {
	Messages int64
	Channels int
	Bytes    int64 // message bytes
	// Frames counts the exported frames per stream (profile name).
	Frames map[string]int
	// Skipped names the streams of the bag that were not exported, with why.
	Skipped map[string]string
}

// The wrapper's default covariance of accelerometer and gyroscope samples
// (parameters linear_accel_cov and angular_velocity_cov).
const imuCovariance = 0.01

// Quality of service offered on the topics, as rosbag2 stores it in the
// channel metadata "offered_qos_profiles" (rmw enum values: history
// KEEP_LAST = 1; reliability RELIABLE = 1; durability TRANSIENT_LOCAL = 1,
// VOLATILE = 2). Frame topics get rmw's default profile (keep last 10,
// reliable, volatile); latched topics the wrapper's and tf2's latched
// profile (keep last 1, reliable, transient local), so that a subscriber
// that asks for transient local, as tf2 does for /tf_static, is served.
const (
	qosFrames  = "- history: 1\n  depth: 10\n  reliability: 1\n  durability: 2\n  deadline:\n    sec: 0\n    nsec: 0\n  lifespan:\n    sec: 0\n    nsec: 0\n  liveliness: 0\n  liveliness_lease_duration:\n    sec: 0\n    nsec: 0\n  avoid_ros_namespace_conventions: false"
	qosLatched = "- history: 1\n  depth: 1\n  reliability: 1\n  durability: 1\n  deadline:\n    sec: 0\n    nsec: 0\n  lifespan:\n    sec: 0\n    nsec: 0\n  liveliness: 0\n  liveliness_lease_duration:\n    sec: 0\n    nsec: 0\n  avoid_ros_namespace_conventions: false"
)

// stream is one exported stream.
type stream struct {
	p       *sensor.StreamProfile
	name    string // wrapper's stream name
	frame   string // body frame id
	optical string // optical frame id
	depth   bool   // of a depth sensor
	// Channels.
	image, info, meta, sample, imuInfo, extr uint16
	hasExtr                                  bool
	// Camera info: the intrinsics and, for the right infrared camera,
	// its frame id and the baseline terms of P.
	infoFrame string
	tx, ty    float64
}

// exporter holds one export's state; frame runs on the playback's delivery,
// one frame at a time (mu).
type exporter struct {
	ctx    context.Context
	cancel context.CancelFunc
	dev    *playback.Device
	w      *mcapwriter.Writer
	opts   Options
	base   *stream

	mu      sync.Mutex
	streams map[int]*stream // by profile UID
	order   []*stream
	seq     map[uint16]uint32
	started bool
	enc     cdr
	json    []byte
	scaled  []byte
	res     Result
	err     error
}

// ErrNoStreams is returned by Export for a recording without a stream the
// ROS 2 wrapper publishes (a pose-only recording).
var ErrNoStreams = errors.New("ros2: export: the recording has no stream the ROS 2 wrapper publishes")

// Export plays dev, a playback device just opened and not yet started,
// in non-real-time mode from start to end and writes what the ROS 2 wrapper
// would publish to dst as an MCAP file of the ros2 profile. It returns when
// the file is complete, the context is cancelled or writing failed. Frames
// lost to damage in the bag are what dev.Losses reports afterwards.
func Export(ctx context.Context, dst io.Writer, dev *playback.Device, opts *Options) (*Result, error) {
	var o Options
	if opts != nil {
		o = *opts
	}
	if o.Namespace == "" {
		o.Namespace = DefaultNamespace
	}
	if o.CameraName == "" {
		o.CameraName = DefaultCameraName
	}
	if err := o.CheckNames(); err != nil {
		return nil, err
	}
	if err := dev.SetRealTime(false); err != nil {
		return nil, fmt.Errorf("ros2: export: %w", err)
	}
	w, err := mcapwriter.New(dst, "ros2", mcapwriter.Compression(o.Compression), o.ChunkSize)
	if err != nil {
		return nil, fmt.Errorf("ros2: export: %w", err)
	}
	defer w.Close() // stops its goroutines on every early return
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	x := &exporter{ctx: ctx, cancel: cancel, dev: dev, w: w, opts: o, streams: map[int]*stream{}, seq: map[uint16]uint32{}}
	x.res.Frames = map[string]int{}
	x.res.Skipped = map[string]string{}
	opened, err := x.plan()
	if err != nil {
		return nil, err
	}
	if len(x.order) == 0 {
		return nil, fmt.Errorf("%w (%d skipped)", ErrNoStreams, len(x.res.Skipped))
	}
	if err := x.channels(); err != nil {
		return nil, err
	}

	ended := extensions.Stopped(dev)
	var startErr error
	for _, s := range opened {
		if startErr = s.Start(sensor.HandlerFunc(x.frame)); startErr != nil {
			break
		}
	}
	if startErr == nil && len(opened) > 0 {
		select {
		case <-ended:
		case <-ctx.Done():
		}
	}
	for _, s := range opened {
		s.Stop()
		s.Close()
	}
	x.mu.Lock()
	defer x.mu.Unlock()
	if err := errors.Join(startErr, x.err, dev.Err()); err != nil {
		return nil, fmt.Errorf("ros2: export: %w", err)
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if !x.started {
		// A recording without frames still gets its static topics.
		if err := x.statics(0); err != nil {
			return nil, fmt.Errorf("ros2: export: %w", err)
		}
	}
	if err := w.Close(); err != nil {
		return nil, fmt.Errorf("ros2: export: %w", err)
	}
	res := x.res
	return &res, nil
}

// plan chooses the streams to export and opens their sensors.
func (x *exporter) plan() ([]sensor.Sensor, error) {
	var opened []sensor.Sensor
	for _, s := range x.dev.Sensors() {
		depth := false
		if k, ok := s.(extensions.Kinded); ok {
			depth = slices.Contains(k.Kinds(), extensions.KindDepthSensor)
		}
		var open []*sensor.StreamProfile
		for _, p := range s.Profiles() {
			switch {
			case p.Kind == sensor.KindPose:
				x.res.Skipped[p.Name()] = "the ROS 2 wrapper publishes no pose streams"
				continue
			case p.Kind == sensor.KindVideo && rosEncoding[imageFormat(p.Format)] == "":
				x.res.Skipped[p.Name()] = fmt.Sprintf("the ROS 2 wrapper publishes no images of format %v", p.Format)
				continue
			}
			name := streamName(p.Stream, p.Index)
			st := &stream{
				p: p, name: name, depth: depth,
				frame:   x.opts.CameraName + "_" + name + "_frame",
				optical: x.opts.CameraName + "_" + name + "_optical_frame",
			}
			st.infoFrame = st.optical
			x.streams[p.UID] = st
			x.order = append(x.order, st)
			open = append(open, p)
		}
		if len(open) == 0 {
			continue
		}
		if err := s.Open(open...); err != nil {
			for _, o := range opened {
				o.Close()
			}
			return nil, fmt.Errorf("ros2: export: open %v: %w", open, err)
		}
		opened = append(opened, s)
	}
	// The base of the transforms is the depth stream (the wrapper's only
	// base stream); a recording without depth uses its first stream.
	for _, st := range x.order {
		if st.p.Stream == sensor.StreamDepth && st.p.Index == 0 {
			x.base = st
			break
		}
	}
	if x.base == nil && len(x.order) > 0 {
		x.base = x.order[0]
	}
	// The right infrared camera's info is in the left one's frame, with
	// the baseline in P (the wrapper's updateExtrinsicsCalibData).
	var left, right *stream
	for _, st := range x.order {
		if st.p.Kind == sensor.KindVideo && st.p.Index == 1 {
			left = st
		}
		if st.p.Kind == sensor.KindVideo && st.p.Index == 2 {
			right = st
		}
	}
	if left != nil && right != nil {
		if ex, err := x.dev.Extrinsics(right.p, left.p); err == nil {
			in := right.p.Intrinsics
			right.infoFrame = left.optical
			right.tx = -float64(in.FX)*float64(ex.Translation[0]) + 0
			right.ty = -float64(in.FY)*float64(ex.Translation[1]) + 0
		}
	}
	return opened, nil
}

// channels registers the schemas and channels: /tf_static, then each
// stream's topics in sensor and profile order.
func (x *exporter) channels() error {
	schemas := map[string]uint16{}
	var next uint16
	add := func(topic, typ, qos string) (uint16, error) {
		sid, ok := schemas[typ]
		if !ok {
			sid = uint16(len(schemas) + 1)
			schemas[typ] = sid
			if err := x.w.WriteSchema(&mcap.Schema{ID: sid, Name: typ, Encoding: "ros2msg", Data: []byte(schemaText(typ))}); err != nil {
				return 0, fmt.Errorf("ros2: export: schema %s: %w", typ, err)
			}
		}
		id := next
		next++
		ch := &mcap.Channel{ID: id, SchemaID: sid, Topic: topic, MessageEncoding: "cdr", Metadata: map[string]string{"offered_qos_profiles": qos}}
		if err := x.w.WriteChannel(ch); err != nil {
			return 0, fmt.Errorf("ros2: export: channel %s: %w", topic, err)
		}
		x.res.Channels++
		return id, nil
	}
	var err error
	if _, err = add("/tf_static", tfMessageType, qosLatched); err != nil {
		return err
	}
	ns := x.opts.Namespace
	for _, st := range x.order {
		prefix := ns + "/" + st.name
		if st.p.Kind == sensor.KindVideo {
			img := prefix + "/image_raw"
			if st.depth {
				img = prefix + "/image_rect_raw"
			}
			if st.image, err = add(img, imageType, qosFrames); err != nil {
				return err
			}
			if st.info, err = add(prefix+"/camera_info", cameraInfoType, qosFrames); err != nil {
				return err
			}
		} else {
			if st.sample, err = add(prefix+"/sample", imuType, qosFrames); err != nil {
				return err
			}
			if st.imuInfo, err = add(prefix+"/imu_info", imuInfoType, qosLatched); err != nil {
				return err
			}
		}
		if st.meta, err = add(prefix+"/metadata", metadataType, qosFrames); err != nil {
			return err
		}
		if st != x.base {
			topic := ns + "/extrinsics/" + graphName(rosName(x.base.p.Stream.String())+"_to_"+st.name)
			if st.extr, err = add(topic, extrinsicsType, qosLatched); err != nil {
				return err
			}
			st.hasExtr = true
		}
	}
	return nil
}

// write writes the message in x.enc on channel ch at log time t.
func (x *exporter) write(ch uint16, t int64) error {
	if t < 0 {
		t = 0
	}
	m := mcap.Message{ChannelID: ch, Sequence: x.seq[ch], LogTime: uint64(t), PublishTime: uint64(t), Data: x.enc.b}
	x.seq[ch]++
	if err := x.w.WriteMessage(&m); err != nil {
		return err
	}
	x.res.Messages++
	x.res.Bytes += int64(len(x.enc.b))
	return nil
}

// statics writes the latched topics at time t: /tf_static, the extrinsics
// and the IMU infos.
func (x *exporter) statics(t int64) error {
	x.started = true
	baseLink := x.opts.CameraName + "_link"
	var tfs []transform
	for _, st := range x.order {
		ex := sensor.Extrinsics{Rotation: [9]float32{1, 0, 0, 0, 1, 0, 0, 0, 1}}
		if st != x.base {
			if e, err := x.dev.Extrinsics(st.p, x.base.p); err == nil {
				ex = e
			}
		}
		tfs = append(tfs, bodyTransform(baseLink, st.frame, ex))
		tfs = append(tfs, transform{st.frame, st.optical, [3]float64{}, opticalRotation})
		if st.p.Kind == sensor.KindVideo && st.p.Stream != sensor.StreamDepth && st.p.Index == 1 {
			aligned := x.opts.CameraName + "_aligned_depth_to_" + st.name + "_frame"
			tfs = append(tfs, bodyTransform(baseLink, aligned, ex))
			tfs = append(tfs, transform{aligned, st.optical, [3]float64{}, opticalRotation})
		}
	}
	c := &x.enc
	c.reset()
	c.u32(uint32(len(tfs)))
	for _, tf := range tfs {
		c.header(t, tf.parent)
		c.str(tf.child)
		c.f64array(tf.translation[:])
		c.f64(tf.rotation.x)
		c.f64(tf.rotation.y)
		c.f64(tf.rotation.z)
		c.f64(tf.rotation.w)
	}
	if err := x.write(0, t); err != nil {
		return fmt.Errorf("/tf_static: %w", err)
	}
	for _, st := range x.order {
		if st.hasExtr {
			ex := sensor.Extrinsics{Rotation: [9]float32{1, 0, 0, 0, 1, 0, 0, 0, 1}}
			if e, err := x.dev.Extrinsics(x.base.p, st.p); err == nil {
				ex = e
			}
			c.reset()
			for _, v := range ex.Rotation {
				c.f64(float64(v))
			}
			for _, v := range ex.Translation {
				c.f64(float64(v))
			}
			if err := x.write(st.extr, t); err != nil {
				return fmt.Errorf("extrinsics of %s: %w", st.name, err)
			}
		}
		if st.p.Kind == sensor.KindMotion {
			mi := st.p.MotionIntrinsics
			c.reset()
			c.header(t, st.optical)
			for _, row := range mi.Data {
				for _, v := range row {
					c.f64(float64(v))
				}
			}
			for _, v := range mi.NoiseVariances {
				c.f64(float64(v))
			}
			for _, v := range mi.BiasVariances {
				c.f64(float64(v))
			}
			if err := x.write(st.imuInfo, t); err != nil {
				return fmt.Errorf("imu_info of %s: %w", st.name, err)
			}
		}
	}
	return nil
}

// frame writes the messages of one delivered frame.
func (x *exporter) frame(f *sensor.Frame) {
	x.mu.Lock()
	defer x.mu.Unlock()
	if x.err != nil || x.ctx.Err() != nil {
		return
	}
	st := x.streams[f.Profile.UID]
	if st == nil {
		return
	}
	t := int64(x.dev.Position())
	if !x.started {
		if err := x.statics(t); err != nil {
			x.fail(err)
			return
		}
	}
	stamp := t
	if f.Domain == sensor.TimestampDomainSystemTime || f.Domain == sensor.TimestampDomainGlobalTime {
		stamp = int64(math.Round(f.TimestampMs * 1e6))
	}
	var err error
	if f.IsVideo() {
		err = x.video(st, f, t, stamp)
	} else if f.IsMotion() {
		err = x.imu(st, f, t, stamp)
	}
	if err == nil {
		err = x.metadata(st, f, t, stamp)
	}
	if err != nil {
		x.fail(fmt.Errorf("%s frame %d at %d ns: %w", f.Profile.Name(), f.Number, t, err))
		return
	}
	x.res.Frames[f.Profile.Name()]++
}

func (x *exporter) fail(err error) {
	x.err = err
	x.cancel()
}

// video writes a video frame's Image and CameraInfo.
func (x *exporter) video(st *stream, f *sensor.Frame, t, stamp int64) error {
	if f.Profile.Format == sensor.FormatMJPEG {
		rgb, err := yuv.Frame(f, imageFormat(sensor.FormatMJPEG))
		if err != nil {
			return err
		}
		f = rgb
	}
	data := f.Data
	if n := f.Stride * f.Height; n < len(data) {
		data = data[:n]
	}
	if f.Profile.Format == sensor.FormatZ16 && f.DepthUnits > 0 && math.Abs(float64(f.DepthUnits)-0.001) >= 1e-6 {
		data = x.toMillimeters(data, f.DepthUnits)
	}
	c := &x.enc
	c.reset()
	c.header(stamp, st.optical)
	c.u32(uint32(f.Height))
	c.u32(uint32(f.Width))
	c.str(rosEncoding[f.Profile.Format])
	c.u8(0) // little endian
	c.u32(uint32(f.Stride))
	c.bytes(data)
	if err := x.write(st.image, t); err != nil {
		return err
	}

	in := f.Profile.Intrinsics
	c.reset()
	c.header(stamp, st.infoFrame)
	c.u32(uint32(in.Height))
	c.u32(uint32(in.Width))
	n := 5
	if in.Model == sensor.DistortionKannalaBrandt4 {
		c.str("equidistant")
		n = 4
	} else {
		c.str("plumb_bob")
	}
	c.u32(uint32(n))
	for _, v := range in.Coeffs[:n] {
		c.f64(float64(v))
	}
	fx, fy, ppx, ppy := float64(in.FX), float64(in.FY), float64(in.PPX), float64(in.PPY)
	c.f64array([]float64{fx, 0, ppx, 0, fy, ppy, 0, 0, 1})                  // K
	c.f64array([]float64{1, 0, 0, 0, 1, 0, 0, 0, 1})                        // R
	c.f64array([]float64{fx, 0, ppx, st.tx, 0, fy, ppy, st.ty, 0, 0, 1, 0}) // P
	c.u32(0)                                                                // binning
	c.u32(0)
	c.u32(0) // roi
	c.u32(0)
	c.u32(0)
	c.u32(0)
	c.u8(0)
	return x.write(st.info, t)
}

// toMillimeters scales Z16 depth in units of u meters to millimeters, as
// the wrapper does (in float32, truncated; values past 65535 saturate).
func (x *exporter) toMillimeters(data []byte, u float32) []byte {
	x.scaled = slices.Grow(x.scaled[:0], len(data))[:len(data)&^1]
	for i := 0; i+1 < len(data); i += 2 {
		v := float32(uint16(data[i])|uint16(data[i+1])<<8) * u / 0.001
		mm := uint16(math.MaxUint16)
		if v < math.MaxUint16 {
			mm = uint16(v)
		}
		x.scaled[i], x.scaled[i+1] = byte(mm), byte(mm>>8)
	}
	return x.scaled
}

// imu writes a motion frame's Imu message.
func (x *exporter) imu(st *stream, f *sensor.Frame, t, stamp int64) error {
	c := &x.enc
	c.reset()
	c.header(stamp, st.optical)
	c.f64array([]float64{0, 0, 0, 0}) // no orientation
	c.f64array([]float64{-1, 0, 0, 0, 0, 0, 0, 0, 0})
	var gyro, accel [3]float64
	if st.p.Stream == sensor.StreamGyro {
		gyro = [3]float64{float64(f.Motion[0]), float64(f.Motion[1]), float64(f.Motion[2])}
	} else {
		accel = [3]float64{float64(f.Motion[0]), float64(f.Motion[1]), float64(f.Motion[2])}
	}
	cov := []float64{imuCovariance, 0, 0, 0, imuCovariance, 0, 0, 0, imuCovariance}
	c.f64array(gyro[:])
	c.f64array(cov)
	c.f64array(accel[:])
	c.f64array(cov)
	return x.write(st.sample, t)
}

// metadata writes a frame's Metadata message: JSON with the frame number,
// clock domain, timestamp (6 decimals) and every metadata value in
// rs2_frame_metadata_value order, named as the wrapper names them
// (lower case with '_'; the frame timestamp is "hw_timestamp").
func (x *exporter) metadata(st *stream, f *sensor.Frame, t, stamp int64) error {
	j := append(x.json[:0], `{"frame_number":`...)
	j = strconv.AppendUint(j, f.Number, 10)
	j = append(j, `,"clock_domain":"`...)
	if d := int(f.Domain); d >= 0 && d < len(domainNames) {
		j = append(j, domainNames[d]...)
	} else {
		j = append(j, graphName(f.Domain.String())...)
	}
	j = append(j, `","frame_timestamp":`...)
	j = strconv.AppendFloat(j, f.TimestampMs, 'f', 6, 64)
	f.Metadata.Range(func(k sensor.MetadataKey, v int64) bool {
		j = append(j, `,"`...)
		if int(k) < len(metadataNames) {
			j = append(j, metadataNames[k]...)
		} else {
			j = append(j, graphName(k.String())...)
		}
		j = append(j, `":`...)
		j = strconv.AppendInt(j, v, 10)
		return true
	})
	j = append(j, '}')
	x.json = j
	c := &x.enc
	c.reset()
	c.header(stamp, st.optical)
	c.u32(uint32(len(j) + 1))
	c.b = append(c.b, j...)
	c.b = append(c.b, 0)
	return x.write(st.meta, t)
}
