package playback_test

import (
	"bytes"
	"encoding/binary"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rsbag/rsbag/extensions"
	"github.com/rsbag/rsbag/internal/layout"
	"github.com/rsbag/rsbag/internal/rsdump"
	"github.com/rsbag/rsbag/msgs"
	"github.com/rsbag/rsbag/playback"
	"github.com/rsbag/rsbag/rosbag"
	"github.com/rsbag/rsbag/sensor"
)

// Limits of one fuzz input's playback.
const (
	fuzzFrameCap = 300             // frames delivered before the input stops playback
	fuzzWatchdog = 8 * time.Second // an input that takes longer hangs
)

// FuzzOpenPlay feeds arbitrary bytes to Open as a bag file and, when it
// opens, queries the whole topology and plays it to the end in
// non-real-time mode with every sensor opened and started. No input may
// panic, hang, or leave a goroutine behind; frames must keep the
// sensor.Frame contract.
func FuzzOpenPlay(f *testing.F) {
	for _, p := range seedPrograms {
		f.Add(bagBytes(f, p))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		path := filepath.Join(t.TempDir(), "fuzz.bag")
		if err := os.WriteFile(path, data, 0o600); err != nil {
			t.Fatal(err)
		}
		exercise(t, path, len(data)%3)
	})
}

// FuzzDescription builds a valid bag whose content (topics, stream infos,
// intrinsics, images, metadata, options, notifications, file version) the
// fuzz input chooses, and plays it like FuzzOpenPlay.
func FuzzDescription(f *testing.F) {
	for _, p := range seedPrograms {
		f.Add(p)
	}
	f.Fuzz(func(t *testing.T, prog []byte) {
		path := filepath.Join(t.TempDir(), "fuzz.bag")
		if !buildBag(t, path, prog) {
			return
		}
		mode := 0
		if len(prog) > 0 {
			mode = int(prog[0]/8) % 3
		}
		exercise(t, path, mode)
	})
}

// Modes of exercise: where playback starts.
const (
	fromStart = iota
	fromMiddle
	fromSecondFrame
)

// exercise opens the bag, plays it (from the start, from the middle or
// from the second frame of the first stream, as mode says) and dumps it,
// under a watchdog, and checks that no goroutine outlives the device.
func exercise(t *testing.T, path string, mode int) {
	before := runtime.NumGoroutine()
	done := make(chan struct{})
	var failure atomic.Pointer[string]
	go func() {
		defer close(done)
		if msg := openPlay(path, mode); msg != "" {
			failure.Store(&msg)
			return
		}
		// The dump must end by itself (end of file, limit or error),
		// never by its timeout.
		var out bytes.Buffer
		_ = rsdump.Run(&out, path, rsdump.Options{Limit: 50, Timeout: fuzzWatchdog / 2})
		if bytes.Contains(out.Bytes(), []byte(`"timeout"`)) {
			msg := "rsdump timed out:\n" + out.String()
			failure.Store(&msg)
		}
	}()
	select {
	case <-done:
	case <-time.After(fuzzWatchdog):
		buf := make([]byte, 1<<20)
		t.Fatalf("playback hangs after %v:\n%s", fuzzWatchdog, buf[:runtime.Stack(buf, true)])
	}
	if msg := failure.Load(); msg != nil {
		t.Fatal(*msg)
	}
	// Close returns after every goroutine of the device has ended.
	deadline := time.Now().Add(2 * time.Second)
	for runtime.NumGoroutine() > before {
		if time.Now().After(deadline) {
			buf := make([]byte, 1<<20)
			t.Fatalf("%d goroutines before, %d after Close:\n%s", before, runtime.NumGoroutine(),
				buf[:runtime.Stack(buf, true)])
		}
		time.Sleep(time.Millisecond)
	}
}

// openPlay opens and plays the bag; it returns a description of a broken
// contract, or "".
func openPlay(path string, mode int) string {
	dev, err := playback.Open(path, &playback.Options{NonRealTime: true})
	if err != nil {
		return ""
	}
	closed := false
	defer func() {
		if !closed {
			dev.Close()
		}
	}()
	_ = dev.Info()
	_ = dev.Duration()
	_ = dev.FileVersion()
	var profiles []*sensor.StreamProfile
	for _, s := range dev.Sensors() {
		_ = s.Info()
		if k, ok := s.(extensions.Kinded); ok {
			_ = k.Kinds()
		}
		if r, ok := s.(extensions.RecommendedFilters); ok {
			_ = r.RecommendedFilters()
		}
		if o, ok := s.(extensions.Options); ok {
			for _, opt := range o.SupportedOptions() {
				_, _ = o.Option(opt)
				_, _ = o.OptionRange(opt)
				_ = o.OptionDescription(opt)
			}
		}
		if d, ok := s.(extensions.DepthStereoSensor); ok {
			_ = d.StereoBaselineMM()
		}
		if d, ok := s.(extensions.DepthSensor); ok {
			_ = d.DepthUnits()
		}
		for _, p := range s.Profiles() {
			if p == nil {
				return "nil stream profile"
			}
			_ = p.String()
			profiles = append(profiles, p)
		}
	}
	for _, a := range profiles {
		for _, b := range profiles {
			_, _ = dev.Extrinsics(a, b)
		}
	}

	stopped := make(chan struct{})
	var once sync.Once
	dev.OnStatusChange(func(s extensions.PlaybackStatus) {
		if s == extensions.StatusStopped {
			once.Do(func() { close(stopped) })
		}
	})
	var (
		mu     sync.Mutex
		frames int
		broken string
	)
	h := sensor.HandlerFunc(func(f *sensor.Frame) {
		msg := checkFrame(f)
		mu.Lock()
		defer mu.Unlock()
		frames++
		if msg != "" && broken == "" {
			broken = msg
		}
		if frames == fuzzFrameCap {
			go dev.Stop()
		}
	})
	var opened []sensor.Sensor
	for _, s := range dev.Sensors() {
		if len(s.Profiles()) == 0 {
			continue
		}
		if err := s.Open(s.Profiles()...); err != nil {
			continue
		}
		opened = append(opened, s)
	}
	switch mode {
	case fromMiddle:
		if err := dev.Seek(dev.Duration() / 2); err != nil {
			return "Seek to the middle: " + err.Error()
		}
	case fromSecondFrame:
		if len(opened) > 0 {
			_ = dev.SeekFrame(opened[0].Profiles()[0], 1)
		}
	}
	started := 0
	for _, s := range opened {
		if s.Start(h) == nil {
			started++
		} else {
			s.Close()
		}
	}
	if started > 0 {
		<-stopped
	}
	_ = dev.Stats()
	_ = dev.Err()
	closed = true
	if err := dev.Close(); err != nil {
		return "Close: " + err.Error()
	}
	mu.Lock()
	defer mu.Unlock()
	return broken
}

// checkFrame checks the sensor.Frame contract.
func checkFrame(f *sensor.Frame) string {
	if f.Profile == nil {
		return "frame without a profile"
	}
	if f.Profile.Kind == sensor.KindVideo {
		if f.Width < 0 || f.Height < 0 || f.Stride < 0 || f.BPP < 0 {
			return "negative frame geometry " + strconv.Itoa(f.Width) + "x" + strconv.Itoa(f.Height)
		}
		if uint64(f.Stride)*uint64(f.Height) > uint64(len(f.Data)) {
			return "video frame " + strconv.Itoa(f.Width) + "x" + strconv.Itoa(f.Height) + " stride " +
				strconv.Itoa(f.Stride) + " has " + strconv.Itoa(len(f.Data)) + " data bytes"
		}
		if uint64(f.Width)*uint64(f.BPP) > 8*uint64(f.Stride) {
			return "video frame row wider than its stride"
		}
	}
	return ""
}

// fz reads a fuzz program; reads past its end give zeros.
type fz struct{ b []byte }

func (z *fz) more() bool { return len(z.b) > 0 }

func (z *fz) u8() byte {
	if len(z.b) == 0 {
		return 0
	}
	v := z.b[0]
	z.b = z.b[1:]
	return v
}

func (z *fz) u16() uint16 { return uint16(z.u8()) | uint16(z.u8())<<8 }
func (z *fz) u32() uint32 { return uint32(z.u16()) | uint32(z.u16())<<16 }

// f64 picks a float: small values, edge values or raw bits.
func (z *fz) f64() float64 {
	switch b := z.u8(); b % 12 {
	case 0:
		return 0
	case 1:
		return 1
	case 2:
		return -1
	case 3:
		return math.NaN()
	case 4:
		return math.Inf(1)
	case 5:
		return math.Inf(-1)
	case 6:
		return 1e300
	case 7:
		return float64(math.MaxFloat32) * 2
	case 8:
		return math.Float64frombits(uint64(z.u32())<<32 | uint64(z.u32()))
	default:
		return float64(int8(z.u8())) / 4
	}
}

func (z *fz) f32() float32 { return float32(z.f64()) }

// str picks one of the names or, past them, a fuzzed string.
func (z *fz) str(names ...string) string {
	i := int(z.u8())
	if i < len(names) {
		return names[i]
	}
	if i < 2*len(names) || i < 128 {
		if len(names) == 0 {
			return ""
		}
		return names[i%len(names)]
	}
	n := int(z.u8() % 24)
	s := make([]byte, 0, n)
	for j := 0; j < n; j++ {
		s = append(s, z.u8())
	}
	return string(s)
}

// dim picks a width, height or step.
func (z *fz) dim() uint32 {
	switch z.u8() % 8 {
	case 0:
		return 0
	case 1:
		return 1
	case 2:
		return 4
	case 3:
		return 8
	case 4:
		return math.MaxUint32
	case 5:
		return 65535
	case 6:
		return z.u32()
	default:
		return uint32(z.u8())
	}
}

func (z *fz) vec() msgs.Vector3 { return msgs.Vector3{X: z.f64(), Y: z.f64(), Z: z.f64()} }

// sensorIndex picks a small index mostly, a large one sometimes.
func (z *fz) sensorIndex() int {
	b := z.u8()
	if b < 248 {
		return int(b % 4)
	}
	return int(z.u32() % 1_000_000)
}

func (z *fz) stream() sensor.Stream {
	all := []sensor.Stream{sensor.StreamDepth, sensor.StreamColor, sensor.StreamInfrared, sensor.StreamAccel,
		sensor.StreamGyro, sensor.StreamPose, sensor.StreamFisheye, sensor.StreamConfidence}
	b := z.u8()
	if int(b) < 4*len(all) {
		return all[int(b)%len(all)]
	}
	return sensor.Stream(b)
}

var (
	encodings = []string{"mono16", "rgb8", "bgr8", "rgba8", "bgra8", "yuv422", "mono8", "16UC1", "8UC1",
		"MOTION_XYZ32F", "6DOF", "RAW10", "Y8", "Z16", "UYVY", "disparity32", ""}
	sensorNames = []string{"Stereo Module", "RGB Camera", "Motion Module", "Wide FOV Camera",
		"Coded-Light Depth Sensor", "Tracking Module", ""}
	optionNames = []string{"Depth Units", "Stereo Baseline", "Exposure", "Enable Auto Exposure", "Gain",
		"Laser Power", "Frames Queue Size", "Nonexistent Option"}
	filterNames = []string{"Decimation Filter", "Disparity Filter", "Spatial Filter", "Temporal Filter",
		"Hole Filling Filter", "Threshold Filter", "Unknown Filter"}
	distortions = []string{"Brown Conrady", "Inverse Brown Conrady", "Kannala Brandt4", "None", "plumb_bob", ""}
	legacyTypes = []string{"DEPTH", "COLOR", "INFRARED", "INFRARED2", "FISHEYE", "ACCLEROMETER", "GYROMETER", "GPIO"}
	fixedVals   = []string{"0.001000", "1700000000000.000000", "1", "-1", "nan", "inf", "1e999", "18446744073709551616",
		"Hardware Clock", "System Time", "Global Time", "abc", ""}
)

func cameraInfoNames() []string {
	var out []string
	for i := 0; i < 24; i++ {
		if s := sensor.CameraInfo(i).String(); s != "" {
			out = append(out, s)
		}
	}
	return out
}

func metadataNames() []string {
	out := []string{layout.KeySystemTime, layout.KeyTimestampDomain, layout.KeyFrameTimestamp, layout.KeyFrameNumber,
		layout.KeyTrackerConfidence, layout.KeyMapperConfidence}
	for i := 0; i < sensor.MetadataKeyCount; i += 3 {
		out = append(out, sensor.MetadataKey(i).String())
	}
	return out
}

func notificationCategories() []string {
	var out []string
	for i := 0; i < 16; i++ {
		out = append(out, sensor.NotificationCategory(i).String())
	}
	return out
}

// fuzzWriter writes a bag: one connection per topic and type.
type fuzzWriter struct {
	w     *rosbag.Writer
	conns map[string]uint32
	err   error
}

func (b *fuzzWriter) write(topic string, t rosbag.Time, m msgs.Message) {
	if b.err != nil || topic == "" {
		return
	}
	typ := m.Type()
	key := topic + "\x00" + typ.Name
	id, ok := b.conns[key]
	if !ok {
		if id, b.err = b.w.AddConnection(topic, typ.Name, typ.MD5, typ.Definition); b.err != nil {
			return
		}
		b.conns[key] = id
	}
	b.err = b.w.WriteMessage(id, t, m.AppendTo(nil))
}

// buildBag writes the bag that prog describes; false if the writer
// refused it.
func buildBag(tb testing.TB, path string, prog []byte) bool {
	w, err := rosbag.Create(path, &rosbag.WriterOptions{Compression: "none"})
	if err != nil {
		tb.Fatal(err)
	}
	b := &fuzzWriter{w: w, conns: map[string]uint32{}}
	z := &fz{b: prog}
	versions := []uint32{4, 3, 2, layout.VersionLegacy, 0, 5, math.MaxUint32}
	v := versions[int(z.u8())%len(versions)]
	legacy := v == layout.VersionLegacy
	if legacy {
		b.write(layout.LegacyFileVersionTopic, rosbag.MinTime, &msgs.UInt32{Data: v})
	} else {
		b.write(layout.FileVersionTopic, rosbag.MinTime, &msgs.UInt32{Data: v})
	}
	infos, metas, cats := cameraInfoNames(), metadataNames(), notificationCategories()
	now := rosbag.Time(1_000_000_000)
	for ops := 0; z.more() && ops < 64; ops++ {
		op := z.u8()
		flags := z.u8()
		t := rosbag.MinTime
		if flags&1 != 0 {
			now += rosbag.Time(z.u16()) * 1000
			t = now
		}
		top := layout.Topic{Sensor: z.sensorIndex(), Stream: z.stream(), Index: int(z.u8() % 3)}
		var m msgs.Message
		if legacy {
			top.Kind, m = legacyOp(z, op, &top, infos, metas)
		} else {
			top.Kind, m = modernOp(z, op, &top, infos, metas, cats)
		}
		if m == nil {
			continue
		}
		topic := top.String()
		if flags&2 != 0 {
			// The right topic with the wrong message type.
			m = &msgs.String{Data: z.str(fixedVals...)}
		}
		b.write(topic, t, m)
	}
	if b.err != nil {
		w.Close()
		return false
	}
	return w.Close() == nil
}

func modernOp(z *fz, op byte, top *layout.Topic, infos, metas, cats []string) (layout.Kind, msgs.Message) {
	switch op % 20 {
	case 0:
		return layout.KindDeviceInfo, &msgs.KeyValue{Key: z.str(infos...), Value: z.str("0B07", "0B3A", "D400", "Intel RealSense D435I")}
	case 1:
		return layout.KindSensorInfo, &msgs.KeyValue{Key: z.str("Name"), Value: z.str(sensorNames...)}
	case 2:
		fps := uint32(z.u8())
		if fps > 240 {
			fps = z.u32()
		}
		return layout.KindStreamInfo, &msgs.StreamInfo{Fps: fps, Encoding: z.str(encodings...), IsRecommended: msgs.Bool(z.u8())}
	case 3:
		ci := &msgs.CameraInfo{Width: z.dim(), Height: z.dim(), DistortionModel: z.str(distortions...)}
		for i := range ci.K {
			ci.K[i] = z.f64()
		}
		ci.D = make([]float64, z.u8()%8)
		for i := range ci.D {
			ci.D[i] = z.f64()
		}
		return layout.KindCameraInfo, ci
	case 4:
		var ii msgs.ImuIntrinsic
		for i := range ii.Data {
			ii.Data[i] = z.f32()
		}
		ii.NoiseVariances[0], ii.BiasVariances[2] = z.f32(), z.f32()
		return layout.KindImuIntrinsic, &ii
	case 5:
		top.Group = uint32(z.u8() % 3)
		return layout.KindExtrinsics, &msgs.Transform{Translation: z.vec(), Rotation: msgs.Quaternion{X: z.f64(), W: z.f64()}}
	case 6, 7:
		return layout.KindImageData, image(z)
	case 8:
		return layout.KindImageMetadata, &msgs.KeyValue{Key: z.str(metas...), Value: z.str(fixedVals...)}
	case 9:
		return layout.KindImuData, &msgs.Imu{Header: msgs.Header{Seq: z.u32(), Stamp: msgs.Time{Sec: z.u32(), Nsec: z.u32()}},
			AngularVelocity: z.vec(), LinearAcceleration: z.vec()}
	case 10:
		return layout.KindImuMetadata, &msgs.KeyValue{Key: z.str(metas...), Value: z.str(fixedVals...)}
	case 11:
		return layout.KindPoseTransform, &msgs.Transform{Translation: z.vec(), Rotation: msgs.Quaternion{X: z.f64(), Y: z.f64(), Z: z.f64(), W: z.f64()}}
	case 12:
		return layout.KindPoseAccel, &msgs.Accel{Linear: z.vec(), Angular: z.vec()}
	case 13:
		return layout.KindPoseTwist, &msgs.Twist{Linear: z.vec(), Angular: z.vec()}
	case 14:
		return layout.KindPoseMetadata, &msgs.KeyValue{Key: z.str(metas...), Value: z.str(fixedVals...)}
	case 15:
		top.OptionName = z.str(optionNames...)
		return layout.KindOptionValue, &msgs.Float32{Data: z.f32()}
	case 16:
		top.OptionName = z.str(optionNames...)
		return layout.KindOptionDescription, &msgs.String{Data: z.str("Number of meters represented by a single depth unit")}
	case 17:
		return layout.KindProperty, &msgs.KeyValue{Key: z.str(optionNames...), Value: z.str(fixedVals...)}
	case 18:
		return layout.KindPostProcessing, &msgs.String{Data: z.str(filterNames...)}
	default:
		top.Category = z.str(cats...)
		return layout.KindNotification, &msgs.Notification{Timestamp: msgs.Time{Sec: z.u32(), Nsec: z.u32()},
			Category: z.str(cats...), Severity: z.str("Info", "Warn", "Error", "Fatal", "None"), Description: z.str("d"),
			SerializedData: z.str("{}")}
	}
}

func image(z *fz) *msgs.Image {
	im := &msgs.Image{Header: msgs.Header{Seq: z.u32(), Stamp: msgs.Time{Sec: z.u32(), Nsec: z.u32()}, FrameID: z.str("0", "1")},
		Width: z.dim(), Height: z.dim(), Encoding: z.str(encodings...), Step: z.dim()}
	n := uint64(im.Step) * uint64(im.Height)
	switch z.u8() % 4 {
	case 0:
	case 1:
		n = uint64(z.u8())
	case 2:
		n = uint64(z.u16())
	default:
		if n > 0 {
			n--
		}
	}
	if n > 1<<14 {
		n = 1 << 14
	}
	im.Data = make([]byte, n)
	im.HasDepthUnits = im.Header.FrameID == msgs.DepthUnitsFrameID && z.u8()&1 == 0
	im.DepthUnits = z.f32()
	return im
}

func legacyOp(z *fz, op byte, top *layout.Topic, infos, metas []string) (layout.Kind, msgs.Message) {
	switch op % 9 {
	case 0:
		return layout.KindLegacyDeviceInfo, &msgs.LegacyVendorData{Name: z.str("sensor_count"), Value: z.str("0", "1", "2", "3", "65535", "-1", "99999")}
	case 1:
		return layout.KindLegacySensorInfo, &msgs.LegacyVendorData{Name: z.str(infos...), Value: z.str("x")}
	case 2:
		cam := msgs.CameraInfo{Width: z.dim(), Height: z.dim(), DistortionModel: z.str(distortions...), D: make([]float64, z.u8()%7)}
		for i := range cam.K {
			cam.K[i] = z.f64()
		}
		return layout.KindLegacyStreamInfo, &msgs.LegacyStreamInfo{StreamType: z.str(legacyTypes...), Fps: z.u32(),
			CameraInfo: cam, Width: z.dim(), Height: z.dim(), Encoding: z.str(encodings...),
			StreamExtrinsics: msgs.LegacyStreamExtrinsics{Extrinsics: msgs.LegacyExtrinsics{Rotation: [9]float32{z.f32(), 0, 0, 0, 1, 0, 0, 0, z.f32()},
				Translation: [3]float32{z.f32()}}, ReferencePointID: uint64(z.u8() % 3)}}
	case 3:
		var in msgs.LegacyMotionIntrinsics
		for i := range in.Data {
			in.Data[i] = z.f32()
		}
		return layout.KindLegacyMotionStreamInfo, &msgs.LegacyMotionStreamInfo{MotionType: z.str(legacyTypes...), Fps: z.u32(),
			StreamIntrinsics: in, StreamExtrinsics: msgs.LegacyStreamExtrinsics{ReferencePointID: uint64(z.u8() % 3)}}
	case 4, 5:
		return layout.KindLegacyImageData, image(z)
	case 6:
		return layout.KindLegacyImuData, &msgs.Imu{Header: msgs.Header{Seq: z.u32()}, AngularVelocity: z.vec(), LinearAcceleration: z.vec()}
	case 7:
		return layout.KindLegacyPoseData, &msgs.LegacyPose{Translation: z.vec(), Rotation: msgs.Quaternion{W: z.f64()},
			Timestamp: uint64(z.u32()), SystemTimestamp: uint64(z.u32())}
	default:
		top.Category = z.str("camera", "imu")
		fi := &msgs.LegacyFrameInfo{SystemTime: uint64(z.u32()), TimeStampDomain: uint32(z.u8() % 4)}
		for i := 0; i < int(z.u8()%4); i++ {
			d := make([]byte, z.u8()%12)
			for j := range d {
				d[j] = z.u8()
			}
			typ := uint32(z.u8())
			if typ > 200 {
				typ = z.u32()
			}
			fi.FrameMetadata = append(fi.FrameMetadata, msgs.LegacyMetadata{MetadataType: typ, Data: d})
		}
		_ = metas
		return layout.KindLegacyFrameInfo, fi
	}
}

// bagBytes returns the bytes of the bag prog describes.
func bagBytes(tb testing.TB, prog []byte) []byte {
	path := filepath.Join(tb.TempDir(), "seed.bag")
	if !buildBag(tb, path, prog) {
		tb.Fatalf("seed program %x: the writer refused the bag", prog)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		tb.Fatal(err)
	}
	return b
}

// prog assembles a fuzz program: a version selector then ops.
type prog struct{ bytes.Buffer }

func (p *prog) op(b ...byte) *prog { p.Write(b); return p }

func (p *prog) u32(v uint32) *prog {
	p.Write(binary.LittleEndian.AppendUint32(nil, v))
	return p
}

// seedPrograms are small valid recordings: versions 4, 3, 2 and 1 with
// video, motion, pose, options and notifications.
var seedPrograms = func() [][]byte {
	// Each op: op, flags (1: at a later time, then a u16 step in µs),
	// sensor, stream, index, then the op's fields (see modernOp, legacyOp).
	const static, later = 0, 1
	video := func(p *prog, sens, stream byte) {
		p.op(2, static, sens, stream, 0, 30, 0, 0)                              // stream info: 30 fps, mono16
		p.op(3, static, sens, stream, 0, 2, 2, 0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0) // camera info 4x4, K all 1
	}
	frame := func(p *prog, sens, stream byte) {
		// image: seq, stamp, frame id "0", 4x4, mono16, step 8, exact data, depth units 0
		p.op(6, later, 0x40, 0x9c, sens, stream, 0).u32(1).u32(1).u32(0).op(0, 2, 2, 0, 3, 0, 0)
	}
	var out [][]byte
	for _, v := range []byte{0, 1, 2} { // versions 4, 3, 2
		p := &prog{}
		p.op(v)
		p.op(0, static, 0, 0, 0, 0, 0) // device Name: 0B07
		p.op(1, static, 0, 0, 0, 0, 0) // sensor 0: Stereo Module
		p.op(1, static, 1, 0, 0, 0, 1) // sensor 1: RGB Camera
		video(p, 0, 0)
		video(p, 1, 1)
		p.op(15, static, 0, 0, 0, 0, 1) // option Depth Units = 1
		p.op(17, static, 0, 0, 0, 0, 0) // property Depth Units "0.001000"
		p.op(18, static, 0, 0, 0, 1)    // post-processing Disparity Filter
		for i := 0; i < 3; i++ {
			frame(p, 0, 0)
			p.op(8, later, 0, 0, 0, 0, 0, 6, 0) // depth metadata
			frame(p, 1, 1)
		}
		out = append(out, p.Bytes())
	}
	// Version 3 motion and pose with options and notifications.
	p := &prog{}
	p.op(1)
	p.op(1, static, 0, 0, 0, 0, 2)                                                // sensor 0: Motion Module
	p.op(2, static, 0, 3, 0, 200, 9, 0)                                           // Accel stream info, MOTION_XYZ32F
	p.op(4, static, 0, 3, 0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1)            // imu intrinsic
	p.op(2, static, 0, 5, 0, 0, 10, 0)                                            // Pose stream info, 6DOF
	p.op(15, static, 0, 0, 0, 1, 1)                                               // option Stereo Baseline = 1
	p.op(9, later, 0x10, 0x27, 0, 3, 0).u32(1).u32(0).u32(0).op(0, 0, 0, 1, 2, 1) // imu frame
	p.op(11, later, 0x10, 0x27, 0, 5, 0, 1, 0, 0, 0, 0, 0, 1)                     // pose frame
	p.op(14, later, 0, 0, 0, 5, 0, 4, 2)                                          // pose metadata
	p.op(12, later, 0, 0, 0, 5, 0, 1, 1, 1, 0, 0, 0)                              // pose accel
	p.op(15, later, 0x10, 0x00, 0, 0, 0, 1, 2)                                    // option change
	p.op(19, later, 0x10, 0x00, 0, 0, 0, 1).u32(1).u32(0).op(2, 1, 0, 0)          // notification
	out = append(out, p.Bytes())
	// Version 1.
	p = &prog{}
	p.op(3)
	p.op(0, static, 0, 0, 0, 0, 2)                                                 // sensor_count 2
	p.op(2, static, 0, 0, 0, 2, 2, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0).u32(30).op( // DEPTH stream info, 30 fps
		2, 2, 0, 1, 1, 0, 0) // 4x4 mono16, extrinsics
	p.op(4, later, 0x10, 0x27, 0, 0, 0).u32(1).u32(1).u32(0).op(0, 2, 2, 0, 3, 0, 0) // image
	p.op(8, later, 0, 0, 0, 0, 0, 0).u32(5).op(1, 1, 1, 7, 0)                        // frame info
	p.op(7, later, 0x10, 0x27, 1, 5, 0, 1, 0, 0, 1).u32(7).u32(8)                    // pose
	out = append(out, p.Bytes())
	return out
}()
