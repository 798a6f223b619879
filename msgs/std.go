package msgs

// Message is implemented by every message type of this package, and by a
// message type of one's own: its descriptor holds its codec.
type Message interface {
	// Type returns the static descriptor of the message's ROS type.
	Type() *Type
}

// Size returns the number of bytes Append appends for m.
func Size(m Message) int { return m.Type().Size(m) }

// Append appends the ROS1 serialization of m to b. It does not allocate
// when b has Size(m) bytes of spare capacity.
func Append(b []byte, m Message) []byte { return m.Type().Append(b, m) }

// Marshal returns the ROS1 serialization of m in a new slice of exactly Size(m) bytes.
func Marshal(m Message) []byte {
	t := m.Type()
	return t.Append(make([]byte, 0, t.Size(m)), m)
}

// Unmarshal decodes the serialized message b into m, replacing every field.
func Unmarshal(b []byte, m Message) error { return m.Type().Unmarshal(b, m) }

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

// UInt32 is std_msgs/UInt32 (the /file_version message).
type UInt32 struct {
	Data uint32 `ros:"data"`
}

// Float32 is std_msgs/Float32 (option values).
type Float32 struct {
	Data float32 `ros:"data"`
}

// String is std_msgs/String (option descriptions, post-processing blocks).
type String struct {
	Data string `ros:"data"`
}

// StdTime is std_msgs/Time (named StdTime because Time is the primitive).
type StdTime struct {
	Data Time `ros:"data"`
}

// KeyValue is diagnostic_msgs/KeyValue (device/sensor info, frame metadata).
type KeyValue struct {
	Key   string `ros:"key"`
	Value string `ros:"value"`
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
