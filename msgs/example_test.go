package msgs_test

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"

	"github.com/rsbag/rsbag/msgs"
)

// A depth frame as librealsense writes it: frame_id "1" and a trailing
// depth_units float32, decoded without copying the pixels.
func Example() {
	frame := &msgs.Image{
		Header:   msgs.Header{Seq: 1, Stamp: msgs.Time{Sec: 1, Nsec: 33333000}, FrameID: "1"},
		Height:   1,
		Width:    2,
		Encoding: "mono16",
		Step:     4,
		Data:     []byte{0x10, 0x00, 0x20, 0x00},
		// librealsense's extra field; our writer leaves it unset.
		DepthUnits:    0.001,
		HasDepthUnits: true,
	}
	b := msgs.Append(nil, frame)

	var got msgs.Image
	if err := msgs.Unmarshal(b, &got); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(got.Type().Name, got.Type().MD5)
	fmt.Println(got.Width, got.Height, got.Encoding, got.Data, got.HasDepthUnits, got.DepthUnits)

	// A cut message is an error naming type, field and offset.
	err := msgs.Unmarshal(b[:46], &got)
	fmt.Println(err, errors.Is(err, io.ErrUnexpectedEOF))
	// Output:
	// sensor_msgs/Image 060021388200f6f0f447d0fcd9c64743
	// 2 1 mono16 [16 0 32 0] true 0.001
	// msgs: sensor_msgs/Image: field data: need 4 bytes at offset 44, have 2 true
}

// Encoding the static /file_version message.
func ExampleUInt32() {
	v := msgs.UInt32{Data: 3}
	fmt.Printf("%s %s % x\n", v.Type().Name, v.Type().MD5, msgs.Marshal(&v))
	// Output:
	// std_msgs/UInt32 304a39449588c7f8ce2df6e8001c5fce 03 00 00 00
}

// Looking up the descriptor of a connection's type.
func ExampleLookupType() {
	t, ok := msgs.LookupType("diagnostic_msgs/KeyValue")
	fmt.Println(ok, t.MD5)
	m := msgs.New(t.Name)
	err := msgs.Unmarshal([]byte{4, 0, 0, 0, 'N', 'a', 'm', 'e', 3, 0, 0, 0, 'D', '4', '5'}, m)
	fmt.Printf("%v %+v\n", err, m)
	// Output:
	// true cf57fdc6617a881a88c16e768132149c
	// <nil> &{Key:Name Value:D45}
}

// Score is a message type of one's own, e.g. to record with
// record.Device.WriteMessage: its descriptor holds its codec.
type Score struct{ Value float32 }

var scoreType = msgs.Type{
	Name:       "my_msgs/Score",
	MD5:        "0aca93dcf6d857f0e5a0dc6be1eaa9fb", // ROS's md5sum of the definition
	Definition: "float32 value\n",
	Size:       func(msgs.Message) int { return 4 },
	Append: func(b []byte, m msgs.Message) []byte {
		return binary.LittleEndian.AppendUint32(b, math.Float32bits(m.(*Score).Value))
	},
	Unmarshal: func(b []byte, m msgs.Message) error {
		if len(b) != 4 {
			return fmt.Errorf("my_msgs/Score: %d bytes, want 4", len(b))
		}
		m.(*Score).Value = math.Float32frombits(binary.LittleEndian.Uint32(b))
		return nil
	},
}

// Type returns the descriptor of Score.
func (*Score) Type() *msgs.Type { return &scoreType }

// A message type of one's own is encoded and decoded as this package's.
func ExampleType() {
	b := msgs.Marshal(&Score{Value: 0.5})
	var s Score
	err := msgs.Unmarshal(b, &s)
	fmt.Println(msgs.Size(&s), s.Value, err)
	// Output:
	// 4 0.5 <nil>
}
