package rosbag

import (
	"bytes"
	"errors"
	"testing"

	"github.com/foxglove/mcap/go/mcap"
)

// TestOpenMCAP: an MCAP file (MCAP's own magic, then records) is not a
// bag, and the error says it is an MCAP file; other input is only "not a
// bag".
func TestOpenMCAP(t *testing.T) {
	for _, c := range []struct {
		name string
		data []byte
		mcap bool
	}{
		{"mcap", append(append([]byte(nil), mcap.Magic...), make([]byte, 64)...), true},
		{"text", []byte("hello, this is no bag at all\n"), false},
	} {
		_, err := NewReader(bytes.NewReader(c.data), int64(len(c.data)), nil)
		if !errors.Is(err, ErrNotBag) || errors.Is(err, ErrMCAP) != c.mcap {
			t.Errorf("%s: %v; want ErrNotBag, ErrMCAP %v", c.name, err, c.mcap)
		}
	}
}
