package playback

import (
	"encoding/binary"
	"fmt"
	"math"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rsbag/rsbag/internal/layout"
	"github.com/rsbag/rsbag/internal/legacymsgs"
	"github.com/rsbag/rsbag/msgs"
	"github.com/rsbag/rsbag/rosbag"
	"github.com/rsbag/rsbag/sensor"
)

// legacyBag describes the version-1 test bag of writeLegacyBag.
const (
	legacyFrames   = 3
	legacyW        = 64
	legacyH        = 48
	legacyT0       = rosbag.Time(1_000_000)
	legacyPeriod   = rosbag.Time(33_333_333)
	legacyExposure = 500
	legacySysTime  = 1_700_000_000_000
	legacyBaseline = float32(0.015)
)

func legacyTopic(k layout.TopicKind, s int, st sensor.Stream, idx int) string {
	t := layout.Topic{Kind: k, Sensor: s, Stream: st, Index: idx}
	if k == layout.KindLegacyFrameInfo {
		t.Category = "camera"
		if st == sensor.StreamAccel || st == sensor.StreamGyro {
			t.Category = "imu"
		}
	}
	return t.String()
}

// writeLegacyBag writes a file-version-1 bag exactly as spec §10 lays it
// out: sensor 0 with DEPTH and COLOR, sensor 1 with ACCLEROMETER,
// GYROMETER and rs_6DoF0, three frames per stream. edit may drop or change
// the static messages (it returns false to drop one).
func writeLegacyBag(t *testing.T, edit func(topic string, m msgs.Message) bool) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "legacy.bag")
	w := newBagWriter(t, path, &rosbag.WriterOptions{Compression: "none"})
	static := func(topic string, m msgs.Message) {
		if edit == nil || edit(topic, m) {
			w.write(topic, rosbag.MinTime, m)
		}
	}
	static(layout.LegacyFileVersionTopic, &msgs.UInt32{Data: layout.VersionLegacy})
	static(layout.Topic{Kind: layout.KindLegacyDeviceInfo}.String(), &legacymsgs.VendorData{Name: "sensor_count", Value: "2"})
	static(layout.Topic{Kind: layout.KindLegacySensorInfo, Sensor: 0}.String(),
		&legacymsgs.VendorData{Name: "{f0e1d2c3-0000-4000-8000-000000000001}", Value: "0x1234"})
	cam := msgs.CameraInfo{Height: legacyH, Width: legacyW, DistortionModel: "Brown Conrady", D: make([]float64, 5),
		K: [9]float64{50, 0, 32, 0, 51, 24, 0, 0, 1}}
	ident := [9]float32{1, 0, 0, 0, 1, 0, 0, 0, 1}
	sinfo := layout.Topic{Kind: layout.KindLegacyStreamInfo, Sensor: 0}.String()
	static(sinfo, &legacymsgs.StreamInfo{StreamType: "DEPTH", Fps: 30, CameraInfo: cam, Width: legacyW, Height: legacyH,
		Encoding: "mono16", StreamExtrinsics: legacymsgs.StreamExtrinsics{Extrinsics: legacymsgs.Extrinsics{Rotation: ident}}})
	static(sinfo, &legacymsgs.StreamInfo{StreamType: "COLOR", Fps: 30, CameraInfo: cam, Width: legacyW, Height: legacyH,
		Encoding: "rgb8", StreamExtrinsics: legacymsgs.StreamExtrinsics{Extrinsics: legacymsgs.Extrinsics{Rotation: ident,
			Translation: [3]float32{legacyBaseline, 0, 0}}}})
	minfo := layout.Topic{Kind: layout.KindLegacyMotionStreamInfo, Sensor: 1}.String()
	var in legacymsgs.MotionIntrinsics
	for i := range in.Data {
		in.Data[i] = float32(i)
	}
	in.NoiseVariances, in.BiasVariances = [3]float32{1, 2, 3}, [3]float32{4, 5, 6}
	motionExtr := legacymsgs.StreamExtrinsics{Extrinsics: legacymsgs.Extrinsics{Rotation: ident}, ReferencePointID: 1}
	static(minfo, &legacymsgs.MotionStreamInfo{MotionType: "ACCLEROMETER", Fps: 250, StreamIntrinsics: in, StreamExtrinsics: motionExtr})
	static(minfo, &legacymsgs.MotionStreamInfo{MotionType: "GYROMETER", Fps: 200, StreamIntrinsics: in, StreamExtrinsics: motionExtr})

	for n := 0; n < legacyFrames; n++ {
		t0 := legacyT0 + rosbag.Time(n)*legacyPeriod
		for i, st := range []sensor.Stream{sensor.StreamDepth, sensor.StreamColor} {
			bpp := 2 + i
			data := make([]byte, legacyW*legacyH*bpp)
			data[0] = byte(n)
			tt := t0 + rosbag.Time(100*i)
			w.write(legacyTopic(layout.KindLegacyImageData, 0, st, 0), tt, &msgs.Image{
				Header: msgs.Header{Seq: uint32(n), Stamp: layout.FrameStamp(float64(1000 + n))}, Height: legacyH,
				Width: legacyW, Encoding: []string{"mono16", "rgb8"}[i], Step: uint32(legacyW * bpp), Data: data})
			w.write(legacyTopic(layout.KindLegacyFrameInfo, 0, st, 0), tt, &legacymsgs.FrameInfo{
				SystemTime: uint64(legacySysTime + n), TimeStampDomain: uint32(2 * i), FrameMetadata: []legacymsgs.Metadata{
					{MetadataType: uint32(sensor.MetadataKeyFrameCounter), Data: []byte{byte(n)}},
					{MetadataType: uint32(sensor.MetadataKeyActualExposure), Data: binary.LittleEndian.AppendUint16(nil, legacyExposure)},
				}})
		}
		w.write(legacyTopic(layout.KindLegacyImuData, 1, sensor.StreamAccel, 0), t0+200, &msgs.Imu{
			Header:             msgs.Header{Seq: uint32(n), Stamp: layout.FrameStamp(float64(1000 + n))},
			LinearAcceleration: msgs.Vector3{Y: -9.75, Z: float64(n)}})
		w.write(legacyTopic(layout.KindLegacyFrameInfo, 1, sensor.StreamAccel, 0), t0+200, &legacymsgs.FrameInfo{
			SystemTime: uint64(legacySysTime + n), TimeStampDomain: 1})
		w.write(legacyTopic(layout.KindLegacyImuData, 1, sensor.StreamGyro, 0), t0+300, &msgs.Imu{
			Header:          msgs.Header{Seq: uint32(n), Stamp: layout.FrameStamp(float64(1000 + n))},
			AngularVelocity: msgs.Vector3{X: 0.5 * float64(n)}})
		w.write(legacyTopic(layout.KindLegacyPoseData, 1, sensor.StreamPose, 0), t0+400, &legacymsgs.Pose{
			Translation: msgs.Vector3{X: float64(n)}, Rotation: msgs.Quaternion{W: 1}, Velocity: msgs.Vector3{Y: 2},
			Timestamp: uint64(2000 + n), SystemTimestamp: uint64(legacySysTime + n)})
	}
	w.close()
	return path
}

func TestLegacyTopology(t *testing.T) {
	d := open(t, writeLegacyBag(t, nil), nil)
	if v := d.FileVersion(); v != layout.VersionLegacy {
		t.Errorf("FileVersion() = %d", v)
	}
	info := d.Info()
	if info[sensor.CameraInfoName] != "Intel RealSense TM2" || info[sensor.CameraInfoProductId] != "2150" ||
		info[sensor.CameraInfoSerialNumber] != "N/A" || len(info) != 3 {
		t.Errorf("device info %v", info)
	}
	if want := time.Duration(legacyT0 + legacyPeriod*(legacyFrames-1) + 400); d.Duration() != want { // the last frame's position
		t.Errorf("Duration() = %v, want %v", d.Duration(), want)
	}
	ss := d.Sensors()
	if len(ss) != 2 {
		t.Fatalf("%d sensors, want 2", len(ss))
	}
	var got []string
	profiles := map[string]*sensor.StreamProfile{}
	for i, s := range ss {
		if name := s.Info()[sensor.CameraInfoName]; name != "Sensor "+string(rune('0'+i)) {
			t.Errorf("sensor %d name %q", i, name)
		}
		for _, p := range s.Profiles() {
			got = append(got, p.String())
			profiles[p.Name()] = p
		}
	}
	// uid order: static stream infos in reverse bag order (README "uid
	// order"), the pose stream (no stream info) last in bag order.
	if s := strings.Join(got, ", "); s != "Color/0 RGB8 64x48@30, Depth/0 Z16 64x48@30, "+
		"Pose/0 6DOF @0, Gyro/0 MOTION_XYZ32F @200, Accel/0 MOTION_XYZ32F @250" {
		t.Errorf("profiles %s", s)
	}
	depth, color, accel := profiles["Depth/0"], profiles["Color/0"], profiles["Accel/0"]
	if depth == nil || color == nil || accel == nil {
		t.Fatalf("missing profiles: %v", got)
	}
	if in := depth.Intrinsics; in.FX != 50 || in.FY != 51 || in.PPX != 32 || in.PPY != 24 || in.Width != legacyW ||
		in.Model != sensor.DistortionBrownConrady {
		t.Errorf("depth intrinsics %+v", in)
	}
	if mi := accel.MotionIntrinsics; mi.Data[1][2] != 6 || mi.NoiseVariances[2] != 3 || mi.BiasVariances[0] != 4 {
		t.Errorf("accel intrinsics %+v", mi)
	}
	e, err := d.Extrinsics(depth, color)
	if err != nil || float32(math.Abs(float64(e.Translation[0]))) != legacyBaseline || e.Rotation[0] != 1 {
		t.Errorf("depth→color extrinsics %+v, %v", e, err)
	}
	if _, err := d.Extrinsics(depth, accel); err == nil {
		t.Error("depth→accel extrinsics across reference points")
	}
}

func TestLegacyFrames(t *testing.T) {
	d := open(t, writeLegacyBag(t, nil), &Options{NonRealTime: true})
	var mu sync.Mutex
	var frames []*sensor.Frame
	c := newCollector(d)
	startAll(t, d, sensor.HandlerFunc(func(f *sensor.Frame) {
		mu.Lock()
		frames = append(frames, f)
		mu.Unlock()
		c.HandleFrame(f)
	}))
	c.waitStopped(t)
	mu.Lock()
	defer mu.Unlock()
	if len(frames) != 5*legacyFrames {
		t.Fatalf("%d frames, want %d", len(frames), 5*legacyFrames)
	}
	order := []string{"Depth/0", "Color/0", "Accel/0", "Gyro/0", "Pose/0"}
	for i, f := range frames {
		n := i / len(order)
		stampMs := layout.FrameTimestampMs(layout.FrameStamp(float64(1000 + n)))
		name := f.Profile.Name()
		desc := fmt.Sprintf("#%d t=%v domain=%v sys=%v md=%+v size=%d motion=%v pose=%+v", f.Number, f.TimestampMs,
			f.Domain, f.SystemTimeMs, f.Metadata, len(f.Data), f.Motion, f.Pose)
		if name != order[i%len(order)] {
			t.Fatalf("frame %d is %s, want %s", i, name, order[i%len(order)])
		}
		switch name {
		case "Depth/0", "Color/0":
			bpp := 2
			wantDomain := sensor.TimestampDomainHardwareClock
			if name == "Color/0" {
				bpp, wantDomain = 3, sensor.TimestampDomainSystemTime
			}
			fc, _ := f.Metadata.Get(sensor.MetadataKeyFrameCounter)
			exp, _ := f.Metadata.Get(sensor.MetadataKeyActualExposure)
			if f.Number != uint64(n) || f.TimestampMs != stampMs || len(f.Data) != legacyW*legacyH*bpp ||
				f.Data[0] != byte(n) || f.BPP != 8*bpp || fc != int64(n) || exp != legacyExposure ||
				f.Domain != wantDomain || f.SystemTimeMs != float64(legacySysTime+n) {
				t.Errorf("frame %d %s: %s", i, name, desc)
			}
		case "Accel/0":
			if f.Motion != [3]float32{0, -9.75, float32(n)} || f.SystemTimeMs != float64(legacySysTime+n) ||
				f.Domain != sensor.TimestampDomainHardwareClock {
				t.Errorf("frame %d accel: %s", i, desc)
			}
		case "Gyro/0":
			if f.Motion != [3]float32{0.5 * float32(n), 0, 0} || f.TimestampMs != stampMs {
				t.Errorf("frame %d gyro: %s", i, desc)
			}
		case "Pose/0":
			p := f.Pose
			if p.Translation[0] != float32(n) || p.Rotation[3] != 1 || p.Velocity[1] != 2 ||
				f.TimestampMs != float64(2000+n) || len(f.Data) != layout.PoseSize {
				t.Errorf("frame %d pose: %s", i, desc)
			}
		}
	}
	recs := c.snapshot()
	if want := int64(legacyT0 + 2*legacyPeriod + 400); recs[len(recs)-1].pos != want {
		t.Errorf("position of the last frame %d, want %d", recs[len(recs)-1].pos, want)
	}
}

func TestLegacyBadFiles(t *testing.T) {
	for _, c := range []struct {
		name string
		edit func(topic string, m msgs.Message) bool
		want string
	}{
		{"no sensor_count", func(topic string, m msgs.Message) bool {
			v, ok := m.(*legacymsgs.VendorData)
			return !ok || v.Name != "sensor_count"
		}, `no "sensor_count" entry on "/info/4294967295"`},
		{"version 2 on /FILE_VERSION", func(topic string, m msgs.Message) bool {
			if v, ok := m.(*msgs.UInt32); ok {
				v.Data = 2
			}
			return true
		}, "file version 2"},
		{"unknown stream type", func(topic string, m msgs.Message) bool {
			if v, ok := m.(*legacymsgs.StreamInfo); ok && v.StreamType == "COLOR" {
				v.StreamType = "THERMAL"
			}
			return true
		}, `unknown stream type "THERMAL"`},
	} {
		t.Run(c.name, func(t *testing.T) {
			path := writeLegacyBag(t, c.edit)
			d, err := Open(path, nil)
			if err == nil {
				d.Close()
			}
			if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), path) {
				t.Errorf("Open = %v, want an error naming the file and %q", err, c.want)
			}
		})
	}
}
