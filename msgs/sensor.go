package msgs

import (
	"errors"
	"io"

	"github.com/rsbag/rsbag/internal/rosmsg"
)

// Image is sensor_msgs/Image (video frames).
//
// librealsense (since v2.49) writes header.frame_id "1" and then appends one
// little-endian float32 depth_units after data. Unmarshal decodes it when
// frame_id is "1" and the 4 bytes are present (HasDepthUnits); an Image with
// frame_id "1" but without them decodes with HasDepthUnits false. Append
// writes the trailing float32 only when HasDepthUnits is set, whatever the
// frame_id, so leaving it unset gives a standard ROS message.
type Image struct {
	Header        Header  `ros:"header"`
	Height        uint32  `ros:"height"`
	Width         uint32  `ros:"width"`
	Encoding      string  `ros:"encoding"`
	IsBigendian   uint8   `ros:"is_bigendian"`
	Step          uint32  `ros:"step"`
	Data          []byte  `ros:"data"` // a view of the input after Unmarshal
	DepthUnits    float32 `ros:"-"`    // librealsense trailing depth_units
	HasDepthUnits bool    `ros:"-"`    // DepthUnits is (to be) stored
}

// DepthUnitsFrameID is the header.frame_id under which librealsense appends
// depth_units to an Image.
const DepthUnitsFrameID = "1"

// The librealsense exception of Image, called by the generated codec after
// the fields of the definition.

// sizeTrailer is the size of the trailing depth_units: 4 when stored.
func (m *Image) sizeTrailer() int {
	if m.HasDepthUnits {
		return 4
	}
	return 0
}

// appendTrailer appends depth_units when HasDepthUnits is set.
func (m *Image) appendTrailer(b []byte) []byte {
	if m.HasDepthUnits {
		b = rosmsg.AppendF32(b, m.DepthUnits)
	}
	return b
}

// decodeTrailer decodes depth_units when frame_id is "1" and 4 bytes
// follow data.
func (m *Image) decodeTrailer(d *decoder) {
	m.DepthUnits, m.HasDepthUnits = 0, false
	if !d.Failed() && m.Header.FrameID == DepthUnitsFrameID && d.Remaining() >= 4 {
		m.DepthUnits = d.F32("depth_units")
		m.HasDepthUnits = true
	}
}

// RegionOfInterest is sensor_msgs/RegionOfInterest.
type RegionOfInterest struct {
	XOffset   uint32 `ros:"x_offset"`
	YOffset   uint32 `ros:"y_offset"`
	Height    uint32 `ros:"height"`
	Width     uint32 `ros:"width"`
	DoRectify Bool   `ros:"do_rectify"`
}

// CameraInfo is sensor_msgs/CameraInfo (video stream intrinsics).
type CameraInfo struct {
	Header          Header           `ros:"header"`
	Height          uint32           `ros:"height"`
	Width           uint32           `ros:"width"`
	DistortionModel string           `ros:"distortion_model"`
	D               []float64        `ros:"D"`
	K               [9]float64       `ros:"K"`
	R               [9]float64       `ros:"R"`
	P               [12]float64      `ros:"P"`
	BinningX        uint32           `ros:"binning_x"`
	BinningY        uint32           `ros:"binning_y"`
	ROI             RegionOfInterest `ros:"roi"`
}

// Imu is sensor_msgs/Imu (motion frames).
type Imu struct {
	Header                       Header     `ros:"header"`
	Orientation                  Quaternion `ros:"orientation"`
	OrientationCovariance        [9]float64 `ros:"orientation_covariance"`
	AngularVelocity              Vector3    `ros:"angular_velocity"`
	AngularVelocityCovariance    [9]float64 `ros:"angular_velocity_covariance"`
	LinearAcceleration           Vector3    `ros:"linear_acceleration"`
	LinearAccelerationCovariance [9]float64 `ros:"linear_acceleration_covariance"`
}

// TimeReference is sensor_msgs/TimeReference (documented, never written).
type TimeReference struct {
	Header  Header `ros:"header"`
	TimeRef Time   `ros:"time_ref"`
	Source  string `ros:"source"`
}

// errNoPixels is the cause of the *DecodeError of an image whose width or
// height is 0: a frame of a video stream always has pixels.
var errNoPixels = errors.New("msgs: an image without pixels")

// CheckRows returns a *DecodeError when the bytes of a decoded image do not
// hold the frame they describe: a width or height of 0 (field width or height), data
// shorter than its step × height bytes (field data), or header.frame_id "1" without the depth_units float32
// that librealsense appends under it (field depth_units, spec §2, §5.9).
// Every reader of frames checks it, so that such a message is damage to
// all of them alike.
func (m *Image) CheckRows() error {
	switch {
	case m.Width == 0:
		return &DecodeError{Type: imageType.Name, Field: "width", Have: len(m.Data), Err: errNoPixels}
	case m.Height == 0:
		return &DecodeError{Type: imageType.Name, Field: "height", Have: len(m.Data), Err: errNoPixels}
	}
	if need := uint64(m.Step) * uint64(m.Height); need > uint64(len(m.Data)) {
		return &DecodeError{Type: imageType.Name, Field: "data", Need: int(min(need, 1<<62)), Have: len(m.Data), Err: io.ErrUnexpectedEOF}
	}
	if m.Header.FrameID == DepthUnitsFrameID && !m.HasDepthUnits {
		return &DecodeError{Type: imageType.Name, Field: "depth_units", Need: 4, Err: io.ErrUnexpectedEOF}
	}
	return nil
}
