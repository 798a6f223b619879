package jsonl

import (
	"bytes"
	"errors"
	"testing"
)

type line struct {
	A int    `json:"a"`
	B string `json:"b"`
}

func TestWrite(t *testing.T) {
	var buf bytes.Buffer
	if err := Write(&buf, []line{{1, "x"}, {2, "y\n"}}); err != nil {
		t.Fatal(err)
	}
	if got, want := buf.String(), "{\"a\":1,\"b\":\"x\"}\n{\"a\":2,\"b\":\"y\\n\"}\n"; got != want {
		t.Errorf("Write = %q, want %q", got, want)
	}
	buf.Reset()
	if err := Write(&buf, []line(nil)); err != nil || buf.Len() != 0 {
		t.Errorf("Write of none = %q, %v", buf.String(), err)
	}
}

type failWriter struct{}

var errFull = errors.New("full")

func (failWriter) Write([]byte) (int, error) { return 0, errFull }

func TestWriteErrors(t *testing.T) {
	if err := Write(failWriter{}, []line{{1, "x"}}); !errors.Is(err, errFull) {
		t.Errorf("Write to a failing writer = %v, want its error", err)
	}
	if err := Write(&bytes.Buffer{}, []any{func() {}}); err == nil {
		t.Error("Write of a function: no error")
	}
}
