// Package rosmsg holds the ROS1 serialization primitives that the message
// types of package msgs and of internal/legacymsgs (the types of file
// versions 1 and 2) are generated on: a Decoder of little-endian fields that
// keeps the first failure, and append-style encoders. The errors are package
// msgs' *DecodeError, which msgs makes through Register, as it does the
// decoding of its types nested in another package's messages.
package rosmsg

import (
	"encoding/binary"
	"math"
	"strings"
)

var (
	newError func(typ, field string, off, need, have int, trailing bool) error
	nested   func(d *Decoder, m any)
)

// Register installs what package msgs provides: newError makes the error of
// a short message (trailing false: need bytes at off, have left) or of
// trailing bytes (trailing true); decode decodes m, a message of package
// msgs, from d, as a field of a message of another package.
func Register(newErr func(typ, field string, off, need, have int, trailing bool) error, decode func(d *Decoder, m any)) {
	newError, nested = newErr, decode
}

// DecodeNested decodes m, a message of package msgs (a pointer to it), from
// d as a field of the message being decoded.
func DecodeNested(d *Decoder, m any) { nested(d, m) }

// Decoder reads ROS1 little-endian primitives from b. The first failure is
// kept in err; later reads return zero values, so decoding code can read a
// whole message and check err once. Field names are passed as constants and
// the dotted path is only built when an error occurs, so successful decoding
// does not allocate for names.
type Decoder struct {
	b     []byte
	off   int
	typ   string
	path  [6]string // enclosing nested field names
	depth int
	err   error
}

// NewDecoder returns a decoder of b, a message of the ROS type typ.
func NewDecoder(b []byte, typ string) Decoder { return Decoder{b: b, typ: typ} }

// Failed reports whether a read failed.
func (d *Decoder) Failed() bool { return d.err != nil }

// Remaining returns the number of bytes not read yet.
func (d *Decoder) Remaining() int { return len(d.b) - d.off }

// Push enters the nested message in field (for the path of an error).
func (d *Decoder) Push(field string) {
	if d.depth < len(d.path) {
		d.path[d.depth] = field
	}
	d.depth++
}

// Pop leaves the nested message entered last.
func (d *Decoder) Pop() { d.depth-- }

func (d *Decoder) fail(field string, need int) {
	if d.err != nil {
		return
	}
	var sb strings.Builder
	for i := 0; i < d.depth && i < len(d.path); i++ {
		sb.WriteString(d.path[i])
		sb.WriteByte('.')
	}
	sb.WriteString(field)
	d.err = newError(d.typ, sb.String(), d.off, need, len(d.b)-d.off, false)
}

// Take returns the next n bytes, or nil after recording an error.
func (d *Decoder) Take(field string, n int) []byte {
	if d.err != nil {
		return nil
	}
	if n < 0 || n > len(d.b)-d.off {
		d.fail(field, n)
		return nil
	}
	p := d.b[d.off : d.off+n : d.off+n]
	d.off += n
	return p
}

// U8 reads a uint8 (or bool, int8, byte, char).
func (d *Decoder) U8(field string) uint8 {
	p := d.Take(field, 1)
	if p == nil {
		return 0
	}
	return p[0]
}

// U32 reads a uint32 (or int32).
func (d *Decoder) U32(field string) uint32 {
	p := d.Take(field, 4)
	if p == nil {
		return 0
	}
	return binary.LittleEndian.Uint32(p)
}

// U64 reads a uint64 (or int64).
func (d *Decoder) U64(field string) uint64 {
	p := d.Take(field, 8)
	if p == nil {
		return 0
	}
	return binary.LittleEndian.Uint64(p)
}

// F32 reads a float32.
func (d *Decoder) F32(field string) float32 { return math.Float32frombits(d.U32(field)) }

// F64 reads a float64.
func (d *Decoder) F64(field string) float64 { return math.Float64frombits(d.U64(field)) }

// Time reads a ROS time or duration: seconds and nanoseconds.
func (d *Decoder) Time(field string) (sec, nsec uint32) {
	p := d.Take(field, 8)
	if p == nil {
		return 0, 0
	}
	return binary.LittleEndian.Uint32(p), binary.LittleEndian.Uint32(p[4:])
}

// Count reads an array length or string length prefix and checks that
// n*elem bytes remain, so that no allocation is driven by an unchecked length.
func (d *Decoder) Count(field string, elem int) int {
	if d.err != nil {
		return 0
	}
	start := d.off
	p := d.Take(field, 4)
	if p == nil {
		return 0
	}
	n := uint64(binary.LittleEndian.Uint32(p))
	if rem := uint64(len(d.b) - d.off); n*uint64(elem) > rem {
		d.off = start + 4
		need := n * uint64(elem)
		if need > math.MaxInt32 {
			need = math.MaxInt32
		}
		d.fail(field, int(need))
		return 0
	}
	return int(n)
}

// Bytes reads a uint8[] as a view of the input.
func (d *Decoder) Bytes(field string) []byte {
	n := d.Count(field, 1)
	if d.err != nil {
		return nil
	}
	return d.Take(field, n)
}

// Str reads a string, copying it (frequent short values are shared).
func (d *Decoder) Str(field string) string {
	n := d.Count(field, 1)
	if d.err != nil {
		return ""
	}
	return intern(d.Take(field, n))
}

// intern returns common short strings without allocating.
func intern(b []byte) string {
	switch string(b) {
	case "":
		return ""
	case "0":
		return "0"
	case "1":
		return "1"
	case "mono16":
		return "mono16"
	case "rgb8":
		return "rgb8"
	case "system_time":
		return "system_time"
	case "timestamp_domain":
		return "timestamp_domain"
	case "Hardware Clock":
		return "Hardware Clock"
	case "System Time":
		return "System Time"
	}
	return string(b)
}

// F32s reads len(dst) float32 values into dst.
func (d *Decoder) F32s(field string, dst []float32) {
	p := d.Take(field, 4*len(dst))
	if p == nil {
		return
	}
	for i := range dst {
		dst[i] = math.Float32frombits(binary.LittleEndian.Uint32(p[4*i:]))
	}
}

// F64s reads len(dst) float64 values into dst.
func (d *Decoder) F64s(field string, dst []float64) {
	p := d.Take(field, 8*len(dst))
	if p == nil {
		return
	}
	for i := range dst {
		dst[i] = math.Float64frombits(binary.LittleEndian.Uint64(p[8*i:]))
	}
}

// End records an error for trailing bytes and returns the decoding error.
func (d *Decoder) End() error {
	if d.err == nil && d.off != len(d.b) {
		d.err = newError(d.typ, "", d.off, 0, len(d.b)-d.off, true)
	}
	return d.err
}

// Encoding helpers (append style).

// AppendU8 appends a uint8.
func AppendU8(b []byte, v uint8) []byte { return append(b, v) }

// AppendU32 appends a little-endian uint32.
func AppendU32(b []byte, v uint32) []byte { return binary.LittleEndian.AppendUint32(b, v) }

// AppendU64 appends a little-endian uint64.
func AppendU64(b []byte, v uint64) []byte { return binary.LittleEndian.AppendUint64(b, v) }

// AppendF32 appends a little-endian float32.
func AppendF32(b []byte, v float32) []byte {
	return binary.LittleEndian.AppendUint32(b, math.Float32bits(v))
}

// AppendF64 appends a little-endian float64.
func AppendF64(b []byte, v float64) []byte {
	return binary.LittleEndian.AppendUint64(b, math.Float64bits(v))
}

// AppendTime appends a ROS time or duration.
func AppendTime(b []byte, sec, nsec uint32) []byte {
	return binary.LittleEndian.AppendUint32(binary.LittleEndian.AppendUint32(b, sec), nsec)
}

// AppendString appends a string: its length as a uint32, then its bytes.
func AppendString(b []byte, s string) []byte {
	return append(binary.LittleEndian.AppendUint32(b, uint32(len(s))), s...)
}

// AppendF32s appends the float32 values of v.
func AppendF32s(b []byte, v []float32) []byte {
	for _, x := range v {
		b = AppendF32(b, x)
	}
	return b
}

// AppendF64s appends the float64 values of v.
func AppendF64s(b []byte, v []float64) []byte {
	for _, x := range v {
		b = AppendF64(b, x)
	}
	return b
}

// Grow makes sure b has room for n more bytes, so the appends that follow
// allocate at most once.
func Grow(b []byte, n int) []byte {
	if cap(b)-len(b) >= n {
		return b
	}
	nb := make([]byte, len(b), len(b)+n)
	copy(nb, b)
	return nb
}
