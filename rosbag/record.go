package rosbag

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"maps"
	"slices"
)

// Record op codes (spec §1.3).
const (
	opMsgData    = 0x02
	opBagHeader  = 0x03
	opIndexData  = 0x04
	opChunk      = 0x05
	opChunkInfo  = 0x06
	opConnection = 0x07
)

const (
	magic = "#ROSBAG V2.0\n"
	// mcapMagic starts every MCAP file: 0x89 "MCAP", then the major version
	// character (the MCAP specification, "Magic").
	mcapMagic      = "\x89MCAP"
	bagHeaderPos   = int64(len(magic))
	bagHeaderLen   = 4104 // whole bag header record
	bagHeaderPad   = 4096 // header_len + data_len
	firstRecordPos = bagHeaderPos + bagHeaderLen
)

func opName(op byte) string {
	switch op {
	case opMsgData:
		return "message data"
	case opBagHeader:
		return "bag header"
	case opIndexData:
		return "index data"
	case opChunk:
		return "chunk"
	case opChunkInfo:
		return "chunk info"
	case opConnection:
		return "connection"
	}
	return fmt.Sprintf("record op 0x%02x", op)
}

// appendFieldString appends a header field name=value.
func appendFieldString(b []byte, name, value string) []byte {
	b = binary.LittleEndian.AppendUint32(b, uint32(len(name)+1+len(value)))
	b = append(b, name...)
	b = append(b, '=')
	return append(b, value...)
}

func appendFieldU32(b []byte, name string, v uint32) []byte {
	b = binary.LittleEndian.AppendUint32(b, uint32(len(name)+1+4))
	b = append(b, name...)
	b = append(b, '=')
	return binary.LittleEndian.AppendUint32(b, v)
}

func appendFieldU64(b []byte, name string, v uint64) []byte {
	b = binary.LittleEndian.AppendUint32(b, uint32(len(name)+1+8))
	b = append(b, name...)
	b = append(b, '=')
	return binary.LittleEndian.AppendUint64(b, v)
}

func appendFieldTime(b []byte, name string, t Time) []byte {
	sec, nsec := t.ROS()
	b = binary.LittleEndian.AppendUint32(b, uint32(len(name)+1+8))
	b = append(b, name...)
	b = append(b, '=')
	b = binary.LittleEndian.AppendUint32(b, sec)
	return binary.LittleEndian.AppendUint32(b, nsec)
}

func appendFieldOp(b []byte, op byte) []byte {
	b = binary.LittleEndian.AppendUint32(b, 4)
	return append(b, 'o', 'p', '=', op)
}

// beginRecord appends a placeholder header length and returns its position.
func beginLen(b []byte) ([]byte, int) {
	return append(b, 0, 0, 0, 0), len(b)
}

// endLen patches the length at pos to cover everything after it.
func endLen(b []byte, pos int) {
	binary.LittleEndian.PutUint32(b[pos:], uint32(len(b)-pos-4))
}

// appendConnectionRecord appends a connection record in librealsense's form.
func appendConnectionRecord(b []byte, c *Connection) []byte {
	b, h := beginLen(b)
	b = appendFieldU32(b, "conn", c.ID)
	b = appendFieldOp(b, opConnection)
	b = appendFieldString(b, "topic", c.Topic)
	endLen(b, h)
	b, d := beginLen(b)
	if len(c.Extra) == 0 {
		b = appendFieldString(b, "md5sum", c.MD5Sum)
		b = appendFieldString(b, "message_definition", c.MessageDefinition)
		b = appendFieldString(b, "type", c.Type)
	} else {
		f := map[string]string{"md5sum": c.MD5Sum, "message_definition": c.MessageDefinition, "type": c.Type}
		for k, v := range c.Extra {
			if _, std := f[k]; !std {
				f[k] = v
			}
		}
		for _, k := range slices.Sorted(maps.Keys(f)) {
			b = appendFieldString(b, k, f[k])
		}
	}
	endLen(b, d)
	return b
}

// appendBagHeader appends the 4104-byte bag header record.
func appendBagHeader(b []byte, chunkCount, connCount uint32, indexPos uint64) []byte {
	start := len(b)
	b, h := beginLen(b)
	b = appendFieldU32(b, "chunk_count", chunkCount)
	b = appendFieldU32(b, "conn_count", connCount)
	b = appendFieldU64(b, "index_pos", indexPos)
	b = appendFieldOp(b, opBagHeader)
	endLen(b, h)
	hlen := len(b) - start - 4
	b = binary.LittleEndian.AppendUint32(b, uint32(bagHeaderPad-hlen))
	for i := 0; i < bagHeaderPad-hlen; i++ {
		b = append(b, ' ')
	}
	return b
}

// header is a parsed record header: the raw field bytes, searched on demand.
type header []byte

// fields calls fn for each field; it returns an error on a malformed field.
func (h header) each(fn func(name, value []byte) bool) string {
	for len(h) > 0 {
		if len(h) < 4 {
			return "field length cut short"
		}
		n := binary.LittleEndian.Uint32(h)
		if uint64(n) > uint64(len(h)-4) {
			return fmt.Sprintf("field length %d exceeds the %d header bytes left", n, len(h)-4)
		}
		f := h[4 : 4+n]
		h = h[4+n:]
		i := bytes.IndexByte(f, '=')
		if i < 0 {
			return fmt.Sprintf("field %q has no '='", truncStr(f))
		}
		if !fn(f[:i], f[i+1:]) {
			return ""
		}
	}
	return ""
}

func truncStr(b []byte) string {
	if len(b) > 32 {
		return string(b[:32]) + "…"
	}
	return string(b)
}

// lookup returns the value of field name (without allocating).
func (h header) lookup(name string) ([]byte, bool, string) {
	for len(h) > 0 {
		if len(h) < 4 {
			return nil, false, "field length cut short"
		}
		n := binary.LittleEndian.Uint32(h)
		if uint64(n) > uint64(len(h)-4) {
			return nil, false, fmt.Sprintf("field length %d exceeds the %d header bytes left", n, len(h)-4)
		}
		f := h[4 : 4+n]
		h = h[4+n:]
		i := bytes.IndexByte(f, '=')
		if i < 0 {
			return nil, false, fmt.Sprintf("field %q has no '='", truncStr(f))
		}
		if string(f[:i]) == name {
			return f[i+1:], true, ""
		}
	}
	return nil, false, ""
}

// msgHeader parses the header of a message data record (the hot path) with
// no allocation. It returns ok=false with a reason on failure.
func parseMsgHeader(h []byte) (op byte, conn uint32, t Time, reason string) {
	var haveOp, haveConn, haveTime bool
	for len(h) > 0 {
		if len(h) < 4 {
			return 0, 0, 0, "field length cut short"
		}
		n := binary.LittleEndian.Uint32(h)
		if uint64(n) > uint64(len(h)-4) {
			return 0, 0, 0, "field length exceeds header"
		}
		f := h[4 : 4+n]
		h = h[4+n:]
		switch {
		case len(f) == 4 && f[0] == 'o' && f[1] == 'p' && f[2] == '=':
			op, haveOp = f[3], true
		case len(f) == 9 && string(f[:5]) == "conn=":
			conn, haveConn = binary.LittleEndian.Uint32(f[5:]), true
		case len(f) == 13 && string(f[:5]) == "time=":
			t, haveTime = NewTime(binary.LittleEndian.Uint32(f[5:]), binary.LittleEndian.Uint32(f[9:])), true
		default:
			if bytes.IndexByte(f, '=') < 0 {
				return 0, 0, 0, "field without '='"
			}
		}
	}
	if !haveOp {
		return 0, 0, 0, "no op field"
	}
	if op == opMsgData && (!haveConn || !haveTime) {
		return op, 0, 0, "message data record without conn or time field"
	}
	return op, conn, t, ""
}

// fixed returns the value of the fixed-size field name, which must be n
// bytes long.
func (h header) fixed(name string, n int) ([]byte, string) {
	v, ok, bad := h.lookup(name)
	if bad != "" {
		return nil, bad
	}
	if !ok {
		return nil, "missing field " + name
	}
	if len(v) != n {
		return nil, fmt.Sprintf("field %s has %d bytes, want %d", name, len(v), n)
	}
	return v, ""
}

// u32, u64 and time decode fixed-size fields.
func (h header) u32(name string) (uint32, string) {
	v, bad := h.fixed(name, 4)
	if bad != "" {
		return 0, bad
	}
	return binary.LittleEndian.Uint32(v), ""
}

func (h header) u64(name string) (uint64, string) {
	v, bad := h.fixed(name, 8)
	if bad != "" {
		return 0, bad
	}
	return binary.LittleEndian.Uint64(v), ""
}

func (h header) time(name string) (Time, string) {
	v, bad := h.fixed(name, 8)
	if bad != "" {
		return 0, bad
	}
	return NewTime(binary.LittleEndian.Uint32(v), binary.LittleEndian.Uint32(v[4:])), ""
}

func (h header) op() (byte, string) {
	v, ok, bad := h.lookup("op")
	if bad != "" {
		return 0, bad
	}
	if !ok {
		return 0, "missing field op"
	}
	if len(v) != 1 {
		return 0, fmt.Sprintf("field op has %d bytes, want 1", len(v))
	}
	return v[0], ""
}

// parseConnection parses a connection record (header h, data d).
func parseConnection(h header, d []byte) (*Connection, string) {
	id, bad := h.u32("conn")
	if bad != "" {
		return nil, bad
	}
	topic, ok, bad := h.lookup("topic")
	if bad != "" {
		return nil, bad
	}
	if !ok {
		return nil, "missing field topic"
	}
	c := &Connection{ID: id, Topic: string(topic)}
	bad = header(d).each(func(name, v []byte) bool {
		switch string(name) {
		case "type":
			c.Type = string(v)
		case "md5sum":
			c.MD5Sum = string(v)
		case "message_definition":
			c.MessageDefinition = string(v)
		default: // "topic" here too: the record header's topic wins, as in ROS
			if c.Extra == nil {
				c.Extra = make(map[string]string)
			}
			c.Extra[string(name)] = string(v)
		}
		return true
	})
	if bad != "" {
		return nil, "connection header block: " + bad
	}
	if c.Type == "" {
		return nil, "connection header has no type"
	}
	return c, ""
}

// fields reads the fields of one record header and keeps the first problem
// met: once a read or check fails, the later ones return zero values and
// bad stays as it is, so that a record's checks read as a list.
type fields struct {
	h   header
	bad string
}

// op checks that the record's op is want (named what in the problem).
func (f *fields) op(want byte, what string) {
	if f.bad != "" {
		return
	}
	var op byte
	if op, f.bad = f.h.op(); f.bad == "" && op != want {
		f.bad = fmt.Sprintf("op 0x%02x (%s), want 0x%02x (%s)", op, opName(op), want, what)
	}
}

func (f *fields) u32(name string) (v uint32) {
	if f.bad == "" {
		v, f.bad = f.h.u32(name)
	}
	return v
}

func (f *fields) u64(name string) (v uint64) {
	if f.bad == "" {
		v, f.bad = f.h.u64(name)
	}
	return v
}

func (f *fields) time(name string) (v Time) {
	if f.bad == "" {
		v, f.bad = f.h.time(name)
	}
	return v
}

// version1 checks that field ver is 1, the only version of the index
// records.
func (f *fields) version1() {
	if v := f.u32("ver"); f.bad == "" && v != 1 {
		f.bad = fmt.Sprintf("ver %d, want 1", v)
	}
}

// failf records the problem format describes, unless one was met before.
// Callers test their condition first, so that the arguments are boxed only
// on the way to an error.
func (f *fields) failf(format string, args ...any) {
	if f.bad == "" {
		f.bad = fmt.Sprintf(format, args...)
	}
}
