package rsdump

import (
	"bytes"
	"encoding/json"
	"math"
	"strconv"
)

// appendFloat appends v with the fewest digits that read back to the same
// value at the given bit size (32 or 64). Negative zero is "-0".
func appendFloat(b []byte, v float64, bits int) []byte {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return append(b, "null"...)
	}
	var sc [64]byte
	e := strconv.AppendFloat(sc[:0], v, 'e', -1, bits)
	// The decimal exponent follows the last 'e'.
	exp, _ := strconv.Atoi(string(e[bytes.LastIndexByte(e, 'e')+1:]))
	if v != 0 && (exp < minFixedExp || exp >= maxFixedExp) {
		return append(b, e...)
	}
	return strconv.AppendFloat(b, v, 'f', -1, bits)
}

// Numbers with a decimal exponent in [minFixedExp, maxFixedExp) are printed
// in fixed notation, others in scientific notation (e.g. 0.0003 but
// -3.9757888e-05, as in the reference dumps).
const (
	minFixedExp = -4
	maxFixedExp = 16
)

// line builds one JSON object with keys in insertion order.
type line struct {
	b []byte
	n []int // element counts of the open containers
}

func newLine(typ string) *line {
	l := &line{b: make([]byte, 0, 256)}
	l.open('{')
	l.str("type", typ)
	return l
}

func (l *line) open(c byte) {
	l.b = append(l.b, c)
	l.n = append(l.n, 0)
}

func (l *line) close(c byte) {
	l.b = append(l.b, c)
	l.n = l.n[:len(l.n)-1]
}

// sep writes a comma before every element but the first.
func (l *line) sep() {
	i := len(l.n) - 1
	if l.n[i] > 0 {
		l.b = append(l.b, ',')
	}
	l.n[i]++
}

func (l *line) key(k string) {
	l.sep()
	l.b = appendString(l.b, k)
	l.b = append(l.b, ':')
}

func appendString(b []byte, s string) []byte {
	q, _ := json.Marshal(s) // never fails for a string
	// encoding/json escapes <, > and & for HTML; undo that.
	out := b
	for i := 0; i < len(q); i++ {
		if q[i] == '\\' && i+5 < len(q) && q[i+1] == 'u' {
			switch string(q[i+2 : i+6]) {
			case "003c":
				out = append(out, '<')
				i += 5
				continue
			case "003e":
				out = append(out, '>')
				i += 5
				continue
			case "0026":
				out = append(out, '&')
				i += 5
				continue
			}
		}
		if q[i] == '\\' && i+1 < len(q) {
			out = append(out, q[i], q[i+1])
			i++
			continue
		}
		out = append(out, q[i])
	}
	return out
}

func (l *line) str(k, v string) { l.key(k); l.b = appendString(l.b, v) }

func (l *line) int(k string, v int64) { l.key(k); l.b = strconv.AppendInt(l.b, v, 10) }

func (l *line) uint(k string, v uint64) { l.key(k); l.b = strconv.AppendUint(l.b, v, 10) }

func (l *line) bool(k string, v bool) { l.key(k); l.b = strconv.AppendBool(l.b, v) }

func (l *line) f32(k string, v float32) { l.key(k); l.b = appendFloat(l.b, float64(v), 32) }

func (l *line) f64(k string, v float64) { l.key(k); l.b = appendFloat(l.b, v, 64) }

func (l *line) f32s(k string, v []float32) {
	l.key(k)
	l.open('[')
	for _, x := range v {
		l.sep()
		l.b = appendFloat(l.b, float64(x), 32)
	}
	l.close(']')
}

func (l *line) strs(k string, v []string) {
	l.key(k)
	l.open('[')
	for _, x := range v {
		l.sep()
		l.b = appendString(l.b, x)
	}
	l.close(']')
}

func (l *line) object(k string) { l.key(k); l.open('{') }

func (l *line) array(k string) { l.key(k); l.open('[') }

func (l *line) end() { l.close('}') }

func (l *line) endArray() { l.close(']') }

// bytes finishes the line.
func (l *line) bytes() []byte {
	for len(l.n) > 0 {
		l.close('}')
	}
	return append(l.b, '\n')
}
