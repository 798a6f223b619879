package msgs

// Image is sensor_msgs/Image (video frames).
//
// librealsense (since v2.49) writes header.frame_id "1" and then appends one
// little-endian float32 depth_units after data. Unmarshal decodes it when
// frame_id is "1" and the 4 bytes are present (HasDepthUnits); an Image with
// frame_id "1" but without them decodes with HasDepthUnits false. AppendTo
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

// Type returns &ImageType.
func (*Image) Type() *Type { return &ImageType }

// Size returns the encoded size in bytes.
func (m *Image) Size() int {
	n := m.Header.Size() + 4 + 4 + 4 + len(m.Encoding) + 1 + 4 + 4 + len(m.Data)
	if m.HasDepthUnits {
		n += 4
	}
	return n
}

// AppendTo appends the encoded message to b.
func (m *Image) AppendTo(b []byte) []byte {
	b = grow(b, m.Size())
	b = m.Header.AppendTo(b)
	b = appendU32(b, m.Height)
	b = appendU32(b, m.Width)
	b = appendString(b, m.Encoding)
	b = appendU8(b, m.IsBigendian)
	b = appendU32(b, m.Step)
	b = appendBytes(b, m.Data)
	if m.HasDepthUnits {
		b = appendF32(b, m.DepthUnits)
	}
	return b
}

// Marshal returns the encoded message.
func (m *Image) Marshal() []byte { return Marshal(m) }

// Unmarshal decodes b into m. Data aliases b: it is not copied.
func (m *Image) Unmarshal(b []byte) error {
	d := newDecoder(b, ImageType.Name)
	d.push("header")
	m.Header.decode(&d)
	d.pop()
	m.Height = d.u32("height")
	m.Width = d.u32("width")
	m.Encoding = d.str("encoding")
	m.IsBigendian = d.u8("is_bigendian")
	m.Step = d.u32("step")
	m.Data = d.bytes("data")
	m.DepthUnits, m.HasDepthUnits = 0, false
	if d.err == nil && m.Header.FrameID == DepthUnitsFrameID && len(b)-d.off >= 4 {
		m.DepthUnits = d.f32("depth_units")
		m.HasDepthUnits = true
	}
	return d.end()
}

// RegionOfInterest is sensor_msgs/RegionOfInterest.
type RegionOfInterest struct {
	XOffset   uint32 `ros:"x_offset"`
	YOffset   uint32 `ros:"y_offset"`
	Height    uint32 `ros:"height"`
	Width     uint32 `ros:"width"`
	DoRectify Bool   `ros:"do_rectify"`
}

// Type returns &RegionOfInterestType.
func (*RegionOfInterest) Type() *Type { return &RegionOfInterestType }

// Size returns the encoded size in bytes.
func (m *RegionOfInterest) Size() int { return 17 }

// AppendTo appends the encoded message to b.
func (m *RegionOfInterest) AppendTo(b []byte) []byte {
	b = appendU32(b, m.XOffset)
	b = appendU32(b, m.YOffset)
	b = appendU32(b, m.Height)
	b = appendU32(b, m.Width)
	return appendU8(b, uint8(m.DoRectify))
}

// Marshal returns the encoded message.
func (m *RegionOfInterest) Marshal() []byte { return Marshal(m) }

// Unmarshal decodes b into m.
func (m *RegionOfInterest) Unmarshal(b []byte) error {
	d := newDecoder(b, RegionOfInterestType.Name)
	m.decode(&d)
	return d.end()
}

func (m *RegionOfInterest) decode(d *decoder) {
	m.XOffset = d.u32("x_offset")
	m.YOffset = d.u32("y_offset")
	m.Height = d.u32("height")
	m.Width = d.u32("width")
	m.DoRectify = Bool(d.u8("do_rectify"))
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

// Type returns &CameraInfoType.
func (*CameraInfo) Type() *Type { return &CameraInfoType }

// Size returns the encoded size in bytes.
func (m *CameraInfo) Size() int {
	return m.Header.Size() + 8 + 4 + len(m.DistortionModel) + 4 + 8*len(m.D) + 8*(9+9+12) + 8 + 17
}

// AppendTo appends the encoded message to b.
func (m *CameraInfo) AppendTo(b []byte) []byte {
	b = grow(b, m.Size())
	b = m.Header.AppendTo(b)
	b = appendU32(b, m.Height)
	b = appendU32(b, m.Width)
	b = appendString(b, m.DistortionModel)
	b = appendU32(b, uint32(len(m.D)))
	b = appendF64s(b, m.D)
	b = appendF64s(b, m.K[:])
	b = appendF64s(b, m.R[:])
	b = appendF64s(b, m.P[:])
	b = appendU32(b, m.BinningX)
	b = appendU32(b, m.BinningY)
	return m.ROI.AppendTo(b)
}

// Marshal returns the encoded message.
func (m *CameraInfo) Marshal() []byte { return Marshal(m) }

// Unmarshal decodes b into m.
func (m *CameraInfo) Unmarshal(b []byte) error {
	d := newDecoder(b, CameraInfoType.Name)
	m.decode(&d)
	return d.end()
}

func (m *CameraInfo) decode(d *decoder) {
	d.push("header")
	m.Header.decode(d)
	d.pop()
	m.Height = d.u32("height")
	m.Width = d.u32("width")
	m.DistortionModel = d.str("distortion_model")
	n := d.count("D", 8)
	if cap(m.D) >= n {
		m.D = m.D[:n]
	} else {
		m.D = make([]float64, n)
	}
	d.f64s("D", m.D)
	d.f64s("K", m.K[:])
	d.f64s("R", m.R[:])
	d.f64s("P", m.P[:])
	m.BinningX = d.u32("binning_x")
	m.BinningY = d.u32("binning_y")
	d.push("roi")
	m.ROI.decode(d)
	d.pop()
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

// Type returns &ImuType.
func (*Imu) Type() *Type { return &ImuType }

// Size returns the encoded size in bytes.
func (m *Imu) Size() int { return m.Header.Size() + 32 + 24 + 24 + 3*72 }

// AppendTo appends the encoded message to b.
func (m *Imu) AppendTo(b []byte) []byte {
	b = grow(b, m.Size())
	b = m.Header.AppendTo(b)
	b = m.Orientation.AppendTo(b)
	b = appendF64s(b, m.OrientationCovariance[:])
	b = m.AngularVelocity.AppendTo(b)
	b = appendF64s(b, m.AngularVelocityCovariance[:])
	b = m.LinearAcceleration.AppendTo(b)
	return appendF64s(b, m.LinearAccelerationCovariance[:])
}

// Marshal returns the encoded message.
func (m *Imu) Marshal() []byte { return Marshal(m) }

// Unmarshal decodes b into m.
func (m *Imu) Unmarshal(b []byte) error {
	d := newDecoder(b, ImuType.Name)
	d.push("header")
	m.Header.decode(&d)
	d.pop()
	d.push("orientation")
	m.Orientation.decode(&d)
	d.pop()
	d.f64s("orientation_covariance", m.OrientationCovariance[:])
	d.push("angular_velocity")
	m.AngularVelocity.decode(&d)
	d.pop()
	d.f64s("angular_velocity_covariance", m.AngularVelocityCovariance[:])
	d.push("linear_acceleration")
	m.LinearAcceleration.decode(&d)
	d.pop()
	d.f64s("linear_acceleration_covariance", m.LinearAccelerationCovariance[:])
	return d.end()
}

// TimeReference is sensor_msgs/TimeReference (documented, never written).
type TimeReference struct {
	Header  Header `ros:"header"`
	TimeRef Time   `ros:"time_ref"`
	Source  string `ros:"source"`
}

// Type returns &TimeReferenceType.
func (*TimeReference) Type() *Type { return &TimeReferenceType }

// Size returns the encoded size in bytes.
func (m *TimeReference) Size() int { return m.Header.Size() + 8 + 4 + len(m.Source) }

// AppendTo appends the encoded message to b.
func (m *TimeReference) AppendTo(b []byte) []byte {
	b = grow(b, m.Size())
	b = m.Header.AppendTo(b)
	b = appendTime(b, m.TimeRef)
	return appendString(b, m.Source)
}

// Marshal returns the encoded message.
func (m *TimeReference) Marshal() []byte { return Marshal(m) }

// Unmarshal decodes b into m.
func (m *TimeReference) Unmarshal(b []byte) error {
	d := newDecoder(b, TimeReferenceType.Name)
	d.push("header")
	m.Header.decode(&d)
	d.pop()
	m.TimeRef = d.time("time_ref")
	m.Source = d.str("source")
	return d.end()
}
