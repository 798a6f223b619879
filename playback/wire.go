package playback

import (
	"encoding/binary"
	"errors"
	"math"
)

// The md5sums by which librealsense recognises message types (spec §1.6;
// values from realsense-msgdefs.json, pinned by TestMD5Constants).
const (
	md5UInt32       = "304a39449588c7f8ce2df6e8001c5fce"
	md5KeyValue     = "cf57fdc6617a881a88c16e768132149c"
	md5Float32      = "73fcbf46b49191e672908e50842a83d4"
	md5String       = "992ce8a1687cec8c8bd883ec73ca41d1"
	md5StreamInfo   = "311d7e24eac31bb87271d041bf70ff7d"
	md5CameraInfo   = "c9a58c1b0b154e0e6da7578cb991d214"
	md5ImuIntrinsic = "aebdc2f8f9726f1c3ca823ab56e47429"
	md5Transform    = "ac9eff44abf714214112b05d54a3cf9b"
	md5AccelTwist   = "9f195f881246fdfa2798d1d3eebca84a" // geometry_msgs/Accel and geometry_msgs/Twist
	md5Image        = "060021388200f6f0f447d0fcd9c64743"
	md5Imu          = "6a62c6daae103f4ff57a132d6f95cec2"
	md5Notification = "cdb7a97a510446301f8e6fb67d8cccb0"
)

var errShort = errors.New("message too short")

// dec reads ROS1-serialized fields (little endian, no alignment). The first
// error sticks; every later read returns zero values.
type dec struct {
	b   []byte
	err error
}

func (d *dec) take(n int) []byte {
	if d.err != nil {
		return nil
	}
	if n < 0 || n > len(d.b) {
		d.err = errShort
		d.b = nil
		return nil
	}
	v := d.b[:n:n]
	d.b = d.b[n:]
	return v
}

func (d *dec) u8() uint8 {
	if b := d.take(1); b != nil {
		return b[0]
	}
	return 0
}

func (d *dec) u32() uint32 {
	if b := d.take(4); b != nil {
		return binary.LittleEndian.Uint32(b)
	}
	return 0
}

func (d *dec) f32() float32 { return math.Float32frombits(d.u32()) }

func (d *dec) f64() float64 {
	if b := d.take(8); b != nil {
		return math.Float64frombits(binary.LittleEndian.Uint64(b))
	}
	return 0
}

func (d *dec) bytes() []byte {
	n := d.u32()
	if d.err != nil {
		return nil
	}
	if uint64(n) > uint64(len(d.b)) {
		d.err = errShort
		return nil
	}
	return d.take(int(n))
}

func (d *dec) str() string { return string(d.bytes()) }

func (d *dec) vec3() [3]float64 { return [3]float64{d.f64(), d.f64(), d.f64()} }

func (d *dec) skip(n int) { d.take(n) }

// rosHeader is std_msgs/Header.
type rosHeader struct {
	Seq       uint32
	Sec, Nsec uint32
	FrameID   string
}

func (d *dec) header() rosHeader {
	return rosHeader{Seq: d.u32(), Sec: d.u32(), Nsec: d.u32(), FrameID: d.str()}
}

// stampMs converts a ROS stamp to milliseconds as librealsense does (§3.2).
func stampMs(sec, nsec uint32) float64 {
	return (float64(sec) + 1e-9*float64(nsec)) * 1000
}

type imageMsg struct {
	Header        rosHeader
	Height, Width uint32
	Encoding      string
	Step          uint32
	Data          []byte
	DepthUnits    float32
	HasDepthUnits bool
}

func decodeImage(b []byte) (imageMsg, error) {
	d := dec{b: b}
	var m imageMsg
	m.Header = d.header()
	m.Height = d.u32()
	m.Width = d.u32()
	m.Encoding = d.str()
	d.u8() // is_bigendian
	m.Step = d.u32()
	m.Data = d.bytes()
	if d.err == nil && m.Header.FrameID == "1" {
		// librealsense ≥ 2.49 appends the depth units (spec §2, §5.9).
		m.DepthUnits = d.f32()
		m.HasDepthUnits = d.err == nil
		if d.err != nil {
			return m, errors.New("image with frame_id \"1\" lacks the trailing depth_units float32")
		}
	}
	return m, d.err
}

type imuMsg struct {
	Header             rosHeader
	Orientation        [4]float64
	AngularVelocity    [3]float64
	LinearAcceleration [3]float64
}

func decodeImu(b []byte) (imuMsg, error) {
	d := dec{b: b}
	var m imuMsg
	m.Header = d.header()
	m.Orientation = [4]float64{d.f64(), d.f64(), d.f64(), d.f64()}
	d.skip(9 * 8)
	m.AngularVelocity = d.vec3()
	d.skip(9 * 8)
	m.LinearAcceleration = d.vec3()
	d.skip(9 * 8)
	return m, d.err
}

func decodeKeyValue(b []byte) (key, value string, err error) {
	d := dec{b: b}
	key = d.str()
	value = d.str()
	return key, value, d.err
}

func decodeString(b []byte) (string, error) {
	d := dec{b: b}
	s := d.str()
	return s, d.err
}

func decodeFloat32(b []byte) (float32, error) {
	d := dec{b: b}
	v := d.f32()
	return v, d.err
}

func decodeUInt32(b []byte) (uint32, error) {
	d := dec{b: b}
	v := d.u32()
	return v, d.err
}

type streamInfoMsg struct {
	FPS      uint32
	Encoding string
}

func decodeStreamInfo(b []byte) (streamInfoMsg, error) {
	d := dec{b: b}
	m := streamInfoMsg{FPS: d.u32(), Encoding: d.str()}
	d.u8() // is_recommended: ignored (P.4)
	return m, d.err
}

type cameraInfoMsg struct {
	Height, Width uint32
	Model         string
	D             []float64
	K             [9]float64
}

func decodeCameraInfo(b []byte) (cameraInfoMsg, error) {
	d := dec{b: b}
	var m cameraInfoMsg
	d.header()
	m.Height = d.u32()
	m.Width = d.u32()
	m.Model = d.str()
	n := d.u32()
	if d.err == nil && uint64(n)*8 > uint64(len(d.b)) {
		d.err = errShort
	}
	if d.err == nil {
		m.D = make([]float64, n)
		for i := range m.D {
			m.D[i] = d.f64()
		}
	}
	for i := range m.K {
		m.K[i] = d.f64()
	}
	return m, d.err
}

type imuIntrinsicMsg struct {
	Data  [12]float32
	Noise [3]float32
	Bias  [3]float32
}

func decodeImuIntrinsic(b []byte) (imuIntrinsicMsg, error) {
	d := dec{b: b}
	var m imuIntrinsicMsg
	for i := range m.Data {
		m.Data[i] = d.f32()
	}
	for i := range m.Noise {
		m.Noise[i] = d.f32()
	}
	for i := range m.Bias {
		m.Bias[i] = d.f32()
	}
	return m, d.err
}

type transformMsg struct {
	Translation [3]float64
	Rotation    [4]float64 // x, y, z, w
}

func decodeTransform(b []byte) (transformMsg, error) {
	d := dec{b: b}
	m := transformMsg{Translation: d.vec3(), Rotation: [4]float64{d.f64(), d.f64(), d.f64(), d.f64()}}
	return m, d.err
}

// decodeVec6 decodes geometry_msgs/Accel or geometry_msgs/Twist.
func decodeVec6(b []byte) (linear, angular [3]float64, err error) {
	d := dec{b: b}
	linear = d.vec3()
	angular = d.vec3()
	return linear, angular, d.err
}

type notificationMsg struct {
	Sec, Nsec      uint32
	Category       string
	Severity       string
	Description    string
	SerializedData string
}

func decodeNotification(b []byte) (notificationMsg, error) {
	d := dec{b: b}
	m := notificationMsg{Sec: d.u32(), Nsec: d.u32()}
	m.Category = d.str()
	m.Severity = d.str()
	m.Description = d.str()
	m.SerializedData = d.str()
	return m, d.err
}
