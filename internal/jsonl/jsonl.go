// Package jsonl writes JSON lines: one value's JSON encoding a line, as the
// output logs of replay and units are written, so that the same values
// give the same bytes.
package jsonl

import (
	"encoding/json"
	"io"
)

// Write writes each of vs as one line of JSON to w.
func Write[T any](w io.Writer, vs []T) error {
	for _, v := range vs {
		b, err := json.Marshal(v)
		if err != nil {
			return err
		}
		if _, err := w.Write(append(b, '\n')); err != nil {
			return err
		}
	}
	return nil
}
