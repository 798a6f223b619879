package msgs_test

import (
	"errors"
	"fmt"
	"io"

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
	b := frame.AppendTo(nil)

	var got msgs.Image
	if err := got.Unmarshal(b); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(got.Type().Name, got.Type().MD5)
	fmt.Println(got.Width, got.Height, got.Encoding, got.Data, got.HasDepthUnits, got.DepthUnits)

	// A cut message is an error naming type, field and offset.
	err := got.Unmarshal(b[:46])
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
	err := m.Unmarshal([]byte{4, 0, 0, 0, 'N', 'a', 'm', 'e', 3, 0, 0, 0, 'D', '4', '5'})
	fmt.Printf("%v %+v\n", err, m)
	// Output:
	// true cf57fdc6617a881a88c16e768132149c
	// <nil> &{Key:Name Value:D45}
}
