package playback_test

import (
	"bytes"
	"encoding/binary"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/rsbag/rsbag/internal/layout"
	"github.com/rsbag/rsbag/internal/legacymsgs"
	"github.com/rsbag/rsbag/msgs"
	"github.com/rsbag/rsbag/rosbag"
)

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
		if id, b.err = b.w.AddConnection(topic, typ.Name, typ.MD5, typ.Definition, nil); b.err != nil {
			return
		}
		b.conns[key] = id
	}
	b.err = b.w.WriteMessage(id, t, msgs.Append(nil, m))
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

func modernOp(z *fz, op byte, top *layout.Topic, infos, metas, cats []string) (layout.TopicKind, msgs.Message) {
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

func legacyOp(z *fz, op byte, top *layout.Topic, infos, metas []string) (layout.TopicKind, msgs.Message) {
	switch op % 9 {
	case 0:
		return layout.KindLegacyDeviceInfo, &legacymsgs.VendorData{Name: z.str("sensor_count"), Value: z.str("0", "1", "2", "3", "65535", "-1", "99999")}
	case 1:
		return layout.KindLegacySensorInfo, &legacymsgs.VendorData{Name: z.str(infos...), Value: z.str("x")}
	case 2:
		cam := msgs.CameraInfo{Width: z.dim(), Height: z.dim(), DistortionModel: z.str(distortions...), D: make([]float64, z.u8()%7)}
		for i := range cam.K {
			cam.K[i] = z.f64()
		}
		return layout.KindLegacyStreamInfo, &legacymsgs.StreamInfo{StreamType: z.str(legacyTypes...), Fps: z.u32(),
			CameraInfo: cam, Width: z.dim(), Height: z.dim(), Encoding: z.str(encodings...),
			StreamExtrinsics: legacymsgs.StreamExtrinsics{Extrinsics: legacymsgs.Extrinsics{Rotation: [9]float32{z.f32(), 0, 0, 0, 1, 0, 0, 0, z.f32()},
				Translation: [3]float32{z.f32()}}, ReferencePointID: uint64(z.u8() % 3)}}
	case 3:
		var in legacymsgs.MotionIntrinsics
		for i := range in.Data {
			in.Data[i] = z.f32()
		}
		return layout.KindLegacyMotionStreamInfo, &legacymsgs.MotionStreamInfo{MotionType: z.str(legacyTypes...), Fps: z.u32(),
			StreamIntrinsics: in, StreamExtrinsics: legacymsgs.StreamExtrinsics{ReferencePointID: uint64(z.u8() % 3)}}
	case 4, 5:
		return layout.KindLegacyImageData, image(z)
	case 6:
		return layout.KindLegacyImuData, &msgs.Imu{Header: msgs.Header{Seq: z.u32()}, AngularVelocity: z.vec(), LinearAcceleration: z.vec()}
	case 7:
		return layout.KindLegacyPoseData, &legacymsgs.Pose{Translation: z.vec(), Rotation: msgs.Quaternion{W: z.f64()},
			Timestamp: uint64(z.u32()), SystemTimestamp: uint64(z.u32())}
	default:
		top.Category = z.str("camera", "imu")
		fi := &legacymsgs.FrameInfo{SystemTime: uint64(z.u32()), TimeStampDomain: uint32(z.u8() % 4)}
		for i := 0; i < int(z.u8()%4); i++ {
			d := make([]byte, z.u8()%12)
			for j := range d {
				d[j] = z.u8()
			}
			typ := uint32(z.u8())
			if typ > 200 {
				typ = z.u32()
			}
			fi.FrameMetadata = append(fi.FrameMetadata, legacymsgs.Metadata{MetadataType: typ, Data: d})
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
