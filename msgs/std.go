package msgs

// Message is implemented by every message type of this package.
type Message interface {
	// Type returns the static descriptor of the message's ROS type.
	Type() *Type
	// Size returns the number of bytes AppendTo appends.
	Size() int
	// AppendTo appends the ROS1 serialization of the message to b. It does
	// not allocate when b has Size() bytes of spare capacity.
	AppendTo(b []byte) []byte
	// Unmarshal decodes a serialized message, replacing every field.
	Unmarshal(b []byte) error
}

// Marshal returns the ROS1 serialization of m in a new slice of exactly m.Size() bytes.
func Marshal(m Message) []byte { return m.AppendTo(make([]byte, 0, m.Size())) }

// Time is the ROS time primitive: seconds and nanoseconds.
type Time struct {
	Sec  uint32
	Nsec uint32
}

// Bool is a ROS bool as stored: one byte. Any non-zero value is true; the
// raw byte is kept so that re-encoding gives the original bytes (librealsense
// stores 2 in StreamInfo.is_recommended).
type Bool uint8

// BoolOf returns the canonical encoding of v: 1 for true, 0 for false.
func BoolOf(v bool) Bool {
	if v {
		return 1
	}
	return 0
}

// Bool reports whether b is true (non-zero).
func (b Bool) Bool() bool { return b != 0 }

// Header is std_msgs/Header.
type Header struct {
	Seq     uint32 `ros:"seq"`
	Stamp   Time   `ros:"stamp"`
	FrameID string `ros:"frame_id"`
}

// Type returns &HeaderType.
func (*Header) Type() *Type { return &HeaderType }

// Size returns the encoded size in bytes.
func (m *Header) Size() int { return 16 + len(m.FrameID) }

// AppendTo appends the encoded message to b.
func (m *Header) AppendTo(b []byte) []byte {
	b = appendU32(b, m.Seq)
	b = appendTime(b, m.Stamp)
	return appendString(b, m.FrameID)
}

// Marshal returns the encoded message.
func (m *Header) Marshal() []byte { return Marshal(m) }

// Unmarshal decodes b into m.
func (m *Header) Unmarshal(b []byte) error {
	d := newDecoder(b, HeaderType.Name)
	m.decode(&d)
	return d.end()
}

func (m *Header) decode(d *decoder) {
	m.Seq = d.u32("seq")
	m.Stamp = d.time("stamp")
	m.FrameID = d.str("frame_id")
}

// UInt32 is std_msgs/UInt32 (the /file_version message).
type UInt32 struct {
	Data uint32 `ros:"data"`
}

// Type returns &UInt32Type.
func (*UInt32) Type() *Type { return &UInt32Type }

// Size returns the encoded size in bytes.
func (m *UInt32) Size() int { return 4 }

// AppendTo appends the encoded message to b.
func (m *UInt32) AppendTo(b []byte) []byte { return appendU32(b, m.Data) }

// Marshal returns the encoded message.
func (m *UInt32) Marshal() []byte { return Marshal(m) }

// Unmarshal decodes b into m.
func (m *UInt32) Unmarshal(b []byte) error {
	d := newDecoder(b, UInt32Type.Name)
	m.Data = d.u32("data")
	return d.end()
}

// Float32 is std_msgs/Float32 (option values).
type Float32 struct {
	Data float32 `ros:"data"`
}

// Type returns &Float32Type.
func (*Float32) Type() *Type { return &Float32Type }

// Size returns the encoded size in bytes.
func (m *Float32) Size() int { return 4 }

// AppendTo appends the encoded message to b.
func (m *Float32) AppendTo(b []byte) []byte { return appendF32(b, m.Data) }

// Marshal returns the encoded message.
func (m *Float32) Marshal() []byte { return Marshal(m) }

// Unmarshal decodes b into m.
func (m *Float32) Unmarshal(b []byte) error {
	d := newDecoder(b, Float32Type.Name)
	m.Data = d.f32("data")
	return d.end()
}

// String is std_msgs/String (option descriptions, post-processing blocks).
type String struct {
	Data string `ros:"data"`
}

// Type returns &StringType.
func (*String) Type() *Type { return &StringType }

// Size returns the encoded size in bytes.
func (m *String) Size() int { return 4 + len(m.Data) }

// AppendTo appends the encoded message to b.
func (m *String) AppendTo(b []byte) []byte { return appendString(b, m.Data) }

// Marshal returns the encoded message.
func (m *String) Marshal() []byte { return Marshal(m) }

// Unmarshal decodes b into m.
func (m *String) Unmarshal(b []byte) error {
	d := newDecoder(b, StringType.Name)
	m.Data = d.str("data")
	return d.end()
}

// StdTime is std_msgs/Time (named StdTime because Time is the primitive).
type StdTime struct {
	Data Time `ros:"data"`
}

// Type returns &StdTimeType.
func (*StdTime) Type() *Type { return &StdTimeType }

// Size returns the encoded size in bytes.
func (m *StdTime) Size() int { return 8 }

// AppendTo appends the encoded message to b.
func (m *StdTime) AppendTo(b []byte) []byte { return appendTime(b, m.Data) }

// Marshal returns the encoded message.
func (m *StdTime) Marshal() []byte { return Marshal(m) }

// Unmarshal decodes b into m.
func (m *StdTime) Unmarshal(b []byte) error {
	d := newDecoder(b, StdTimeType.Name)
	m.Data = d.time("data")
	return d.end()
}

// KeyValue is diagnostic_msgs/KeyValue (device/sensor info, frame metadata).
type KeyValue struct {
	Key   string `ros:"key"`
	Value string `ros:"value"`
}

// Type returns &KeyValueType.
func (*KeyValue) Type() *Type { return &KeyValueType }

// Size returns the encoded size in bytes.
func (m *KeyValue) Size() int { return 8 + len(m.Key) + len(m.Value) }

// AppendTo appends the encoded message to b.
func (m *KeyValue) AppendTo(b []byte) []byte {
	b = grow(b, m.Size())
	return appendString(appendString(b, m.Key), m.Value)
}

// Marshal returns the encoded message.
func (m *KeyValue) Marshal() []byte { return Marshal(m) }

// Unmarshal decodes b into m.
func (m *KeyValue) Unmarshal(b []byte) error {
	d := newDecoder(b, KeyValueType.Name)
	m.Key = d.str("key")
	m.Value = d.str("value")
	return d.end()
}

// Log levels of rosgraph_msgs/Log (constants of its definition).
const (
	LogDebug uint8 = 1
	LogInfo  uint8 = 2
	LogWarn  uint8 = 4
	LogError uint8 = 8
	LogFatal uint8 = 16
)

// Log is rosgraph_msgs/Log (documented for /log but never written).
type Log struct {
	Header   Header   `ros:"header"`
	Level    uint8    `ros:"level"`
	Name     string   `ros:"name"`
	Msg      string   `ros:"msg"`
	File     string   `ros:"file"`
	Function string   `ros:"function"`
	Line     uint32   `ros:"line"`
	Topics   []string `ros:"topics"`
}

// Type returns &LogType.
func (*Log) Type() *Type { return &LogType }

// Size returns the encoded size in bytes.
func (m *Log) Size() int {
	n := m.Header.Size() + 1 + 16 + len(m.Name) + len(m.Msg) + len(m.File) + len(m.Function) + 4 + 4
	for _, t := range m.Topics {
		n += 4 + len(t)
	}
	return n
}

// AppendTo appends the encoded message to b.
func (m *Log) AppendTo(b []byte) []byte {
	b = grow(b, m.Size())
	b = m.Header.AppendTo(b)
	b = appendU8(b, m.Level)
	b = appendString(b, m.Name)
	b = appendString(b, m.Msg)
	b = appendString(b, m.File)
	b = appendString(b, m.Function)
	b = appendU32(b, m.Line)
	b = appendU32(b, uint32(len(m.Topics)))
	for _, t := range m.Topics {
		b = appendString(b, t)
	}
	return b
}

// Marshal returns the encoded message.
func (m *Log) Marshal() []byte { return Marshal(m) }

// Unmarshal decodes b into m.
func (m *Log) Unmarshal(b []byte) error {
	d := newDecoder(b, LogType.Name)
	d.push("header")
	m.Header.decode(&d)
	d.pop()
	m.Level = d.u8("level")
	m.Name = d.str("name")
	m.Msg = d.str("msg")
	m.File = d.str("file")
	m.Function = d.str("function")
	m.Line = d.u32("line")
	n := d.count("topics", 4)
	m.Topics = nil
	if n > 0 {
		m.Topics = make([]string, n)
		for i := range m.Topics {
			m.Topics[i] = d.str("topics")
		}
	}
	return d.end()
}
