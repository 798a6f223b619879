package ros2

import (
	"encoding/binary"
	"math"
)

// cdrHeader is the encapsulation header of a little-endian plain CDR
// payload (representation identifier CDR_LE, no options), as ROS 2's
// middleware writes it in front of every serialized message.
var cdrHeader = [4]byte{0x00, 0x01, 0x00, 0x00}

// cdr appends a message in CDR: little-endian, every primitive aligned to
// its size counted from the end of the encapsulation header. Its buffer is
// reused from message to message.
type cdr struct{ b []byte }

func (c *cdr) reset() { c.b = append(c.b[:0], cdrHeader[:]...) }

func (c *cdr) align(n int) {
	for (len(c.b)-len(cdrHeader))%n != 0 {
		c.b = append(c.b, 0)
	}
}

func (c *cdr) u8(v uint8) { c.b = append(c.b, v) }

func (c *cdr) u32(v uint32) {
	c.align(4)
	c.b = binary.LittleEndian.AppendUint32(c.b, v)
}

func (c *cdr) i32(v int32) { c.u32(uint32(v)) }

func (c *cdr) f64(v float64) {
	c.align(8)
	c.b = binary.LittleEndian.AppendUint64(c.b, math.Float64bits(v))
}

// str appends a string: its length with the terminating NUL, the bytes,
// the NUL.
func (c *cdr) str(s string) {
	c.u32(uint32(len(s) + 1))
	c.b = append(c.b, s...)
	c.b = append(c.b, 0)
}

// bytes appends a uint8 sequence: its length and the bytes.
func (c *cdr) bytes(p []byte) {
	c.u32(uint32(len(p)))
	c.b = append(c.b, p...)
}

// f64array appends a fixed-size float64 array (no length).
func (c *cdr) f64array(v []float64) {
	for _, x := range v {
		c.f64(x)
	}
}

// header appends a std_msgs/Header: the stamp as builtin_interfaces/Time
// (seconds and nanoseconds of ns) and the frame id.
func (c *cdr) header(ns int64, frameID string) {
	c.i32(int32(ns / 1e9))
	c.u32(uint32(ns % 1e9))
	c.str(frameID)
}
