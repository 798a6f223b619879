package msgs

// Types of file version 1 (topic /FILE_VERSION), read-only in practice.

// LegacyExtrinsics is realsense_legacy_msgs/extrinsics.
type LegacyExtrinsics struct {
	Rotation    [9]float32 `ros:"rotation"`
	Translation [3]float32 `ros:"translation"`
}

// Type returns &LegacyExtrinsicsType.
func (*LegacyExtrinsics) Type() *Type { return &LegacyExtrinsicsType }

// Size returns the encoded size in bytes.
func (m *LegacyExtrinsics) Size() int { return 48 }

// AppendTo appends the encoded message to b.
func (m *LegacyExtrinsics) AppendTo(b []byte) []byte {
	return appendF32s(appendF32s(b, m.Rotation[:]), m.Translation[:])
}

// Marshal returns the encoded message.
func (m *LegacyExtrinsics) Marshal() []byte { return Marshal(m) }

// Unmarshal decodes b into m.
func (m *LegacyExtrinsics) Unmarshal(b []byte) error {
	d := newDecoder(b, LegacyExtrinsicsType.Name)
	m.decode(&d)
	return d.end()
}

func (m *LegacyExtrinsics) decode(d *decoder) {
	d.f32s("rotation", m.Rotation[:])
	d.f32s("translation", m.Translation[:])
}

// LegacyMetadata is realsense_legacy_msgs/metadata. Data is a view of the
// input after Unmarshal.
type LegacyMetadata struct {
	MetadataType uint32 `ros:"type"` // field "type"; Type is the descriptor method
	Data         []byte `ros:"data"`
}

// Type returns &LegacyMetadataType.
func (*LegacyMetadata) Type() *Type { return &LegacyMetadataType }

// Size returns the encoded size in bytes.
func (m *LegacyMetadata) Size() int { return 8 + len(m.Data) }

// AppendTo appends the encoded message to b.
func (m *LegacyMetadata) AppendTo(b []byte) []byte {
	return appendBytes(appendU32(b, m.MetadataType), m.Data)
}

// Marshal returns the encoded message.
func (m *LegacyMetadata) Marshal() []byte { return Marshal(m) }

// Unmarshal decodes b into m.
func (m *LegacyMetadata) Unmarshal(b []byte) error {
	d := newDecoder(b, LegacyMetadataType.Name)
	m.decode(&d)
	return d.end()
}

func (m *LegacyMetadata) decode(d *decoder) {
	m.MetadataType = d.u32("type")
	m.Data = d.bytes("data")
}

// LegacyFrameInfo is realsense_legacy_msgs/frame_info.
type LegacyFrameInfo struct {
	SystemTime      uint64           `ros:"system_time"`
	FrameMetadata   []LegacyMetadata `ros:"frame_metadata"`
	TimeStampDomain uint32           `ros:"time_stamp_domain"`
}

// Type returns &LegacyFrameInfoType.
func (*LegacyFrameInfo) Type() *Type { return &LegacyFrameInfoType }

// Size returns the encoded size in bytes.
func (m *LegacyFrameInfo) Size() int {
	n := 8 + 4 + 4
	for i := range m.FrameMetadata {
		n += m.FrameMetadata[i].Size()
	}
	return n
}

// AppendTo appends the encoded message to b.
func (m *LegacyFrameInfo) AppendTo(b []byte) []byte {
	b = grow(b, m.Size())
	b = appendU64(b, m.SystemTime)
	b = appendU32(b, uint32(len(m.FrameMetadata)))
	for i := range m.FrameMetadata {
		b = m.FrameMetadata[i].AppendTo(b)
	}
	return appendU32(b, m.TimeStampDomain)
}

// Marshal returns the encoded message.
func (m *LegacyFrameInfo) Marshal() []byte { return Marshal(m) }

// Unmarshal decodes b into m.
func (m *LegacyFrameInfo) Unmarshal(b []byte) error {
	d := newDecoder(b, LegacyFrameInfoType.Name)
	m.SystemTime = d.u64("system_time")
	n := d.count("frame_metadata", 8) // each element is at least 8 bytes
	m.FrameMetadata = nil
	if n > 0 {
		m.FrameMetadata = make([]LegacyMetadata, n)
		d.push("frame_metadata")
		for i := range m.FrameMetadata {
			m.FrameMetadata[i].decode(&d)
		}
		d.pop()
	}
	m.TimeStampDomain = d.u32("time_stamp_domain")
	return d.end()
}

// LegacyMotionIntrinsics is realsense_legacy_msgs/motion_intrinsics.
type LegacyMotionIntrinsics struct {
	Data           [12]float32 `ros:"data"`
	NoiseVariances [3]float32  `ros:"noise_variances"`
	BiasVariances  [3]float32  `ros:"bias_variances"`
}

// Type returns &LegacyMotionIntrinsicsType.
func (*LegacyMotionIntrinsics) Type() *Type { return &LegacyMotionIntrinsicsType }

// Size returns the encoded size in bytes.
func (m *LegacyMotionIntrinsics) Size() int { return 72 }

// AppendTo appends the encoded message to b.
func (m *LegacyMotionIntrinsics) AppendTo(b []byte) []byte {
	return appendF32s(appendF32s(appendF32s(b, m.Data[:]), m.NoiseVariances[:]), m.BiasVariances[:])
}

// Marshal returns the encoded message.
func (m *LegacyMotionIntrinsics) Marshal() []byte { return Marshal(m) }

// Unmarshal decodes b into m.
func (m *LegacyMotionIntrinsics) Unmarshal(b []byte) error {
	d := newDecoder(b, LegacyMotionIntrinsicsType.Name)
	m.decode(&d)
	return d.end()
}

func (m *LegacyMotionIntrinsics) decode(d *decoder) {
	d.f32s("data", m.Data[:])
	d.f32s("noise_variances", m.NoiseVariances[:])
	d.f32s("bias_variances", m.BiasVariances[:])
}

// LegacyStreamExtrinsics is realsense_legacy_msgs/stream_extrinsics.
type LegacyStreamExtrinsics struct {
	Extrinsics       LegacyExtrinsics `ros:"extrinsics"`
	ReferencePointID uint64           `ros:"reference_point_id"`
}

// Type returns &LegacyStreamExtrinsicsType.
func (*LegacyStreamExtrinsics) Type() *Type { return &LegacyStreamExtrinsicsType }

// Size returns the encoded size in bytes.
func (m *LegacyStreamExtrinsics) Size() int { return 56 }

// AppendTo appends the encoded message to b.
func (m *LegacyStreamExtrinsics) AppendTo(b []byte) []byte {
	return appendU64(m.Extrinsics.AppendTo(b), m.ReferencePointID)
}

// Marshal returns the encoded message.
func (m *LegacyStreamExtrinsics) Marshal() []byte { return Marshal(m) }

// Unmarshal decodes b into m.
func (m *LegacyStreamExtrinsics) Unmarshal(b []byte) error {
	d := newDecoder(b, LegacyStreamExtrinsicsType.Name)
	m.decode(&d)
	return d.end()
}

func (m *LegacyStreamExtrinsics) decode(d *decoder) {
	d.push("extrinsics")
	m.Extrinsics.decode(d)
	d.pop()
	m.ReferencePointID = d.u64("reference_point_id")
}

// LegacyMotionStreamInfo is realsense_legacy_msgs/motion_stream_info.
type LegacyMotionStreamInfo struct {
	MotionType       string                 `ros:"motion_type"`
	Fps              uint32                 `ros:"fps"`
	StreamIntrinsics LegacyMotionIntrinsics `ros:"stream_intrinsics"`
	StreamExtrinsics LegacyStreamExtrinsics `ros:"stream_extrinsics"`
}

// Type returns &LegacyMotionStreamInfoType.
func (*LegacyMotionStreamInfo) Type() *Type { return &LegacyMotionStreamInfoType }

// Size returns the encoded size in bytes.
func (m *LegacyMotionStreamInfo) Size() int { return 4 + len(m.MotionType) + 4 + 72 + 56 }

// AppendTo appends the encoded message to b.
func (m *LegacyMotionStreamInfo) AppendTo(b []byte) []byte {
	b = grow(b, m.Size())
	b = appendString(b, m.MotionType)
	b = appendU32(b, m.Fps)
	b = m.StreamIntrinsics.AppendTo(b)
	return m.StreamExtrinsics.AppendTo(b)
}

// Marshal returns the encoded message.
func (m *LegacyMotionStreamInfo) Marshal() []byte { return Marshal(m) }

// Unmarshal decodes b into m.
func (m *LegacyMotionStreamInfo) Unmarshal(b []byte) error {
	d := newDecoder(b, LegacyMotionStreamInfoType.Name)
	m.MotionType = d.str("motion_type")
	m.Fps = d.u32("fps")
	d.push("stream_intrinsics")
	m.StreamIntrinsics.decode(&d)
	d.pop()
	d.push("stream_extrinsics")
	m.StreamExtrinsics.decode(&d)
	d.pop()
	return d.end()
}

// LegacyPose is realsense_legacy_msgs/pose (timestamp in ms).
type LegacyPose struct {
	Translation         Vector3    `ros:"translation"`
	Rotation            Quaternion `ros:"rotation"`
	Velocity            Vector3    `ros:"velocity"`
	AngularVelocity     Vector3    `ros:"angular_velocity"`
	Acceleration        Vector3    `ros:"acceleration"`
	AngularAcceleration Vector3    `ros:"angular_acceleration"`
	Timestamp           uint64     `ros:"timestamp"`
	SystemTimestamp     uint64     `ros:"system_timestamp"`
}

// Type returns &LegacyPoseType.
func (*LegacyPose) Type() *Type { return &LegacyPoseType }

// Size returns the encoded size in bytes.
func (m *LegacyPose) Size() int { return 24 + 32 + 4*24 + 16 }

// AppendTo appends the encoded message to b.
func (m *LegacyPose) AppendTo(b []byte) []byte {
	b = grow(b, m.Size())
	b = m.Translation.AppendTo(b)
	b = m.Rotation.AppendTo(b)
	b = m.Velocity.AppendTo(b)
	b = m.AngularVelocity.AppendTo(b)
	b = m.Acceleration.AppendTo(b)
	b = m.AngularAcceleration.AppendTo(b)
	b = appendU64(b, m.Timestamp)
	return appendU64(b, m.SystemTimestamp)
}

// Marshal returns the encoded message.
func (m *LegacyPose) Marshal() []byte { return Marshal(m) }

// Unmarshal decodes b into m.
func (m *LegacyPose) Unmarshal(b []byte) error {
	d := newDecoder(b, LegacyPoseType.Name)
	decodeVector3(&d, "translation", &m.Translation)
	d.push("rotation")
	m.Rotation.decode(&d)
	d.pop()
	decodeVector3(&d, "velocity", &m.Velocity)
	decodeVector3(&d, "angular_velocity", &m.AngularVelocity)
	decodeVector3(&d, "acceleration", &m.Acceleration)
	decodeVector3(&d, "angular_acceleration", &m.AngularAcceleration)
	m.Timestamp = d.u64("timestamp")
	m.SystemTimestamp = d.u64("system_timestamp")
	return d.end()
}

// LegacyStreamInfo is realsense_legacy_msgs/stream_info.
type LegacyStreamInfo struct {
	StreamType       string                 `ros:"stream_type"`
	Fps              uint32                 `ros:"fps"`
	CameraInfo       CameraInfo             `ros:"camera_info"`
	StreamExtrinsics LegacyStreamExtrinsics `ros:"stream_extrinsics"`
	Width            uint32                 `ros:"width"`
	Height           uint32                 `ros:"height"`
	Encoding         string                 `ros:"encoding"`
}

// Type returns &LegacyStreamInfoType.
func (*LegacyStreamInfo) Type() *Type { return &LegacyStreamInfoType }

// Size returns the encoded size in bytes.
func (m *LegacyStreamInfo) Size() int {
	return 4 + len(m.StreamType) + 4 + m.CameraInfo.Size() + 56 + 8 + 4 + len(m.Encoding)
}

// AppendTo appends the encoded message to b.
func (m *LegacyStreamInfo) AppendTo(b []byte) []byte {
	b = grow(b, m.Size())
	b = appendString(b, m.StreamType)
	b = appendU32(b, m.Fps)
	b = m.CameraInfo.AppendTo(b)
	b = m.StreamExtrinsics.AppendTo(b)
	b = appendU32(b, m.Width)
	b = appendU32(b, m.Height)
	return appendString(b, m.Encoding)
}

// Marshal returns the encoded message.
func (m *LegacyStreamInfo) Marshal() []byte { return Marshal(m) }

// Unmarshal decodes b into m.
func (m *LegacyStreamInfo) Unmarshal(b []byte) error {
	d := newDecoder(b, LegacyStreamInfoType.Name)
	m.StreamType = d.str("stream_type")
	m.Fps = d.u32("fps")
	d.push("camera_info")
	m.CameraInfo.decode(&d)
	d.pop()
	d.push("stream_extrinsics")
	m.StreamExtrinsics.decode(&d)
	d.pop()
	m.Width = d.u32("width")
	m.Height = d.u32("height")
	m.Encoding = d.str("encoding")
	return d.end()
}

// LegacyVendorData is realsense_legacy_msgs/vendor_data.
type LegacyVendorData struct {
	Name  string `ros:"name"`
	Value string `ros:"value"`
}

// Type returns &LegacyVendorDataType.
func (*LegacyVendorData) Type() *Type { return &LegacyVendorDataType }

// Size returns the encoded size in bytes.
func (m *LegacyVendorData) Size() int { return 8 + len(m.Name) + len(m.Value) }

// AppendTo appends the encoded message to b.
func (m *LegacyVendorData) AppendTo(b []byte) []byte {
	b = grow(b, m.Size())
	return appendString(appendString(b, m.Name), m.Value)
}

// Marshal returns the encoded message.
func (m *LegacyVendorData) Marshal() []byte { return Marshal(m) }

// Unmarshal decodes b into m.
func (m *LegacyVendorData) Unmarshal(b []byte) error {
	d := newDecoder(b, LegacyVendorDataType.Name)
	m.Name = d.str("name")
	m.Value = d.str("value")
	return d.end()
}
