package software

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/rsbag/rsbag/msgs"
	"github.com/rsbag/rsbag/rosbag"
)

// forEachMessage calls fn for every message of the reference bag name whose
// topic contains part, in bag order.
func forEachMessage(t *testing.T, name, part string, fn func(topic string, data []byte)) {
	t.Helper()
	path := filepath.Join("..", "testdata", "librealsense", name+".bag")
	r, err := rosbag.Open(path, nil)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	defer r.Close()
	it := r.Messages(&rosbag.Query{})
	for it.Next() {
		m := it.Message()
		if strings.Contains(m.Conn.Topic, part) {
			fn(m.Conn.Topic, m.Data)
		}
	}
	if err := it.Err(); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}

// TestReferenceSystemTime pins why synthetic frames carry SystemTimeMs 0:
// every frame metadata message of the reference bags holds system_time
// 0.000000.
func TestReferenceSystemTime(t *testing.T) {
	for _, name := range ReferenceNames {
		n := 0
		forEachMessage(t, name, "/metadata", func(topic string, data []byte) {
			var kv msgs.KeyValue
			if err := kv.Unmarshal(data); err != nil {
				t.Fatalf("%s %s: %v", name, topic, err)
			}
			if kv.Key != "system_time" {
				return
			}
			n++
			if kv.Value != "0.000000" {
				t.Errorf("%s %s: system_time %q, want 0.000000", name, topic, kv.Value)
			}
		})
		if n == 0 {
			t.Errorf("%s: no system_time metadata", name)
		}
	}
}
