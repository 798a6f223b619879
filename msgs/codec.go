package msgs

import (
	"errors"
	"fmt"
	"io"

	"github.com/rsbag/rsbag/internal/rosmsg"
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

// decoder is the decoder of every message's decode method: the
// primitives are internal/rosmsg's, shared with internal/legacymsgs.
type decoder = rosmsg.Decoder

func init() {
	rosmsg.Register(newDecodeError, func(d *decoder, m any) { m.(interface{ decode(*decoder) }).decode(d) })
}

// newDecodeError is the error of a short message (need bytes of field at
// off, have left), or of a message with have trailing bytes at off.
func newDecodeError(typ, field string, off, need, have int, trailing bool) error {
	if trailing {
		return &DecodeError{Type: typ, Offset: off, Have: have, Err: ErrTrailingBytes}
	}
	return &DecodeError{Type: typ, Field: field, Offset: off, Need: need, Have: have, Err: io.ErrUnexpectedEOF}
}

// decodeTime reads a time or duration field.
func decodeTime(d *decoder, field string) Time {
	sec, nsec := d.Time(field)
	return Time{Sec: sec, Nsec: nsec}
}

// appendTime appends a time or duration field.
func appendTime(b []byte, t Time) []byte { return rosmsg.AppendTime(b, t.Sec, t.Nsec) }
