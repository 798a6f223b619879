package msgs

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"strings"
)

// ErrTrailingBytes is wrapped by the error Unmarshal returns when a message
// decodes completely but bytes are left over. The message value is then fully
// decoded; callers that want ROS's lenient behaviour may ignore the error.
var ErrTrailingBytes = errors.New("msgs: trailing bytes after message")

// DecodeError reports a short or malformed message: the type, the field being
// decoded (dotted path for nested fields), the byte offset of the field in the
// message, and the number of bytes needed and available there. It unwraps to
// io.ErrUnexpectedEOF for short input and to ErrTrailingBytes for extra bytes.
type DecodeError struct {
	Type   string // ROS type name, e.g. "sensor_msgs/Image"
	Field  string // field path, e.g. "header.frame_id"; empty for trailing bytes
	Offset int    // offset of the field in the message
	Need   int    // bytes the field needs (for trailing bytes: 0)
	Have   int    // bytes available at Offset
	Err    error  // io.ErrUnexpectedEOF or ErrTrailingBytes
}

// Error returns e.g. "msgs: sensor_msgs/Image: field data: need 614400 bytes at offset 58, have 12".
func (e *DecodeError) Error() string {
	if errors.Is(e.Err, errNoPixels) {
		return fmt.Sprintf("msgs: %s: field %s is 0: an image without pixels", e.Type, e.Field)
	}
	if errors.Is(e.Err, ErrTrailingBytes) {
		return fmt.Sprintf("msgs: %s: %d trailing bytes at offset %d", e.Type, e.Have, e.Offset)
	}
	return fmt.Sprintf("msgs: %s: field %s: need %d bytes at offset %d, have %d", e.Type, e.Field, e.Need, e.Offset, e.Have)
}

// Unwrap returns the underlying cause.
func (e *DecodeError) Unwrap() error { return e.Err }

// decoder reads ROS1 little-endian primitives from b. The first failure is
// kept in err; later reads return zero values, so decoding code can read a
// whole message and check err once. Field names are passed as constants and
// the dotted path is only built when an error occurs, so successful decoding
// does not allocate for names.
type decoder struct {
	b     []byte
	off   int
	typ   string
	path  [6]string // enclosing nested field names
	depth int
	err   error
}

func newDecoder(b []byte, typ string) decoder { return decoder{b: b, typ: typ} }

func (d *decoder) push(field string) {
	if d.depth < len(d.path) {
		d.path[d.depth] = field
	}
	d.depth++
}

func (d *decoder) pop() { d.depth-- }

func (d *decoder) fail(field string, need int) {
	if d.err != nil {
		return
	}
	var sb strings.Builder
	for i := 0; i < d.depth && i < len(d.path); i++ {
		sb.WriteString(d.path[i])
		sb.WriteByte('.')
	}
	sb.WriteString(field)
	d.err = &DecodeError{Type: d.typ, Field: sb.String(), Offset: d.off, Need: need, Have: len(d.b) - d.off, Err: io.ErrUnexpectedEOF}
}

// take returns the next n bytes, or nil after recording an error.
func (d *decoder) take(field string, n int) []byte {
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

func (d *decoder) u8(field string) uint8 {
	p := d.take(field, 1)
	if p == nil {
		return 0
	}
	return p[0]
}

func (d *decoder) u32(field string) uint32 {
	p := d.take(field, 4)
	if p == nil {
		return 0
	}
	return binary.LittleEndian.Uint32(p)
}

func (d *decoder) u64(field string) uint64 {
	p := d.take(field, 8)
	if p == nil {
		return 0
	}
	return binary.LittleEndian.Uint64(p)
}

func (d *decoder) f32(field string) float32 { return math.Float32frombits(d.u32(field)) }
func (d *decoder) f64(field string) float64 { return math.Float64frombits(d.u64(field)) }

func (d *decoder) time(field string) Time {
	p := d.take(field, 8)
	if p == nil {
		return Time{}
	}
	return Time{Sec: binary.LittleEndian.Uint32(p), Nsec: binary.LittleEndian.Uint32(p[4:])}
}

// count reads an array length or string length prefix and checks that
// n*elem bytes remain, so that no allocation is driven by an unchecked length.
func (d *decoder) count(field string, elem int) int {
	if d.err != nil {
		return 0
	}
	start := d.off
	p := d.take(field, 4)
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

// bytes reads a uint8[] as a view of the input.
func (d *decoder) bytes(field string) []byte {
	n := d.count(field, 1)
	if d.err != nil {
		return nil
	}
	return d.take(field, n)
}

// str reads a string, copying it (frequent short values are shared).
func (d *decoder) str(field string) string {
	n := d.count(field, 1)
	if d.err != nil {
		return ""
	}
	return intern(d.take(field, n))
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

func (d *decoder) f32s(field string, dst []float32) {
	p := d.take(field, 4*len(dst))
	if p == nil {
		return
	}
	for i := range dst {
		dst[i] = math.Float32frombits(binary.LittleEndian.Uint32(p[4*i:]))
	}
}

func (d *decoder) f64s(field string, dst []float64) {
	p := d.take(field, 8*len(dst))
	if p == nil {
		return
	}
	for i := range dst {
		dst[i] = math.Float64frombits(binary.LittleEndian.Uint64(p[8*i:]))
	}
}

// end records an error for trailing bytes and returns the decoding error.
func (d *decoder) end() error {
	if d.err == nil && d.off != len(d.b) {
		d.err = &DecodeError{Type: d.typ, Offset: d.off, Have: len(d.b) - d.off, Err: ErrTrailingBytes}
	}
	return d.err
}

// Encoding helpers (append style).

func appendU8(b []byte, v uint8) []byte   { return append(b, v) }
func appendU32(b []byte, v uint32) []byte { return binary.LittleEndian.AppendUint32(b, v) }
func appendU64(b []byte, v uint64) []byte { return binary.LittleEndian.AppendUint64(b, v) }
func appendF32(b []byte, v float32) []byte {
	return binary.LittleEndian.AppendUint32(b, math.Float32bits(v))
}
func appendF64(b []byte, v float64) []byte {
	return binary.LittleEndian.AppendUint64(b, math.Float64bits(v))
}
func appendTime(b []byte, t Time) []byte {
	return binary.LittleEndian.AppendUint32(binary.LittleEndian.AppendUint32(b, t.Sec), t.Nsec)
}
func appendString(b []byte, s string) []byte {
	return append(binary.LittleEndian.AppendUint32(b, uint32(len(s))), s...)
}
func appendF32s(b []byte, v []float32) []byte {
	for _, x := range v {
		b = appendF32(b, x)
	}
	return b
}
func appendF64s(b []byte, v []float64) []byte {
	for _, x := range v {
		b = appendF64(b, x)
	}
	return b
}

// grow makes sure b has room for n more bytes, so the appends that follow
// allocate at most once.
func grow(b []byte, n int) []byte {
	if cap(b)-len(b) >= n {
		return b
	}
	nb := make([]byte, len(b), len(b)+n)
	copy(nb, b)
	return nb
}
