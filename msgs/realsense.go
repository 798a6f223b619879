package msgs

// StreamInfo is realsense_msgs/StreamInfo (one per recorded stream profile).
// librealsense stores is_recommended as 2 for default profiles; the raw byte
// is kept so that re-encoding gives the original bytes.
type StreamInfo struct {
	Fps           uint32 `ros:"fps"`
	Encoding      string `ros:"encoding"`
	IsRecommended Bool   `ros:"is_recommended"`
}

// Type returns &StreamInfoType.
func (*StreamInfo) Type() *Type { return &StreamInfoType }

// Size returns the encoded size in bytes.
func (m *StreamInfo) Size() int { return 9 + len(m.Encoding) }

// AppendTo appends the encoded message to b.
func (m *StreamInfo) AppendTo(b []byte) []byte {
	b = grow(b, m.Size())
	b = appendU32(b, m.Fps)
	b = appendString(b, m.Encoding)
	return appendU8(b, uint8(m.IsRecommended))
}

// Marshal returns the encoded message.
func (m *StreamInfo) Marshal() []byte { return Marshal(m) }

// Unmarshal decodes b into m.
func (m *StreamInfo) Unmarshal(b []byte) error {
	d := newDecoder(b, StreamInfoType.Name)
	m.Fps = d.u32("fps")
	m.Encoding = d.str("encoding")
	m.IsRecommended = Bool(d.u8("is_recommended"))
	return d.end()
}

// ImuIntrinsic is realsense_msgs/ImuIntrinsic (motion stream intrinsics).
type ImuIntrinsic struct {
	Data           [12]float32 `ros:"data"` // 3x4 row-major: scale/cross-axis, bias in column 3
	NoiseVariances [3]float32  `ros:"noise_variances"`
	BiasVariances  [3]float32  `ros:"bias_variances"`
}

// Type returns &ImuIntrinsicType.
func (*ImuIntrinsic) Type() *Type { return &ImuIntrinsicType }

// Size returns the encoded size in bytes.
func (m *ImuIntrinsic) Size() int { return 4 * (12 + 3 + 3) }

// AppendTo appends the encoded message to b.
func (m *ImuIntrinsic) AppendTo(b []byte) []byte {
	b = grow(b, m.Size())
	b = appendF32s(b, m.Data[:])
	b = appendF32s(b, m.NoiseVariances[:])
	return appendF32s(b, m.BiasVariances[:])
}

// Marshal returns the encoded message.
func (m *ImuIntrinsic) Marshal() []byte { return Marshal(m) }

// Unmarshal decodes b into m.
func (m *ImuIntrinsic) Unmarshal(b []byte) error {
	d := newDecoder(b, ImuIntrinsicType.Name)
	d.f32s("data", m.Data[:])
	d.f32s("noise_variances", m.NoiseVariances[:])
	d.f32s("bias_variances", m.BiasVariances[:])
	return d.end()
}

// Notification is realsense_msgs/Notification. librealsense stores the
// notification's millisecond timestamp as if it were nanoseconds (see
// internal/layout); this type stores the Time as given.
type Notification struct {
	Timestamp      Time   `ros:"timestamp"`
	Category       string `ros:"category"`
	Severity       string `ros:"severity"`
	Description    string `ros:"description"`
	SerializedData string `ros:"serialized_data"`
}

// Type returns &NotificationType.
func (*Notification) Type() *Type { return &NotificationType }

// Size returns the encoded size in bytes.
func (m *Notification) Size() int {
	return 8 + 16 + len(m.Category) + len(m.Severity) + len(m.Description) + len(m.SerializedData)
}

// AppendTo appends the encoded message to b.
func (m *Notification) AppendTo(b []byte) []byte {
	b = grow(b, m.Size())
	b = appendTime(b, m.Timestamp)
	b = appendString(b, m.Category)
	b = appendString(b, m.Severity)
	b = appendString(b, m.Description)
	return appendString(b, m.SerializedData)
}

// Marshal returns the encoded message.
func (m *Notification) Marshal() []byte { return Marshal(m) }

// Unmarshal decodes b into m.
func (m *Notification) Unmarshal(b []byte) error {
	d := newDecoder(b, NotificationType.Name)
	m.Timestamp = d.time("timestamp")
	m.Category = d.str("category")
	m.Severity = d.str("severity")
	m.Description = d.str("description")
	m.SerializedData = d.str("serialized_data")
	return d.end()
}
