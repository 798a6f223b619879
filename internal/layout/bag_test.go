package layout

import (
	"path/filepath"
	"sort"
	"testing"

	"github.com/rsbag/rsbag/msgs"
	"github.com/rsbag/rsbag/rosbag"
)

// testBags lists the reference bags of the repository.
func testBags(t testing.TB) []string {
	t.Helper()
	var bags []string
	for _, pat := range []string{
		"../../testdata/librealsense/*.bag",
		"../../testdata/librealsense/real/*.bag",
		"../../testdata/spec/ref-head-v4-softdevice.bag",
	} {
		m, err := filepath.Glob(pat)
		if err != nil {
			t.Fatal(err)
		}
		bags = append(bags, m...)
	}
	if len(bags) < 3 {
		t.Fatalf("found only %d test bags", len(bags))
	}
	sort.Strings(bags)
	return bags
}

type bagMessage struct {
	Topic, Type, MD5 string
	Time             msgs.Time
	Data             []byte
	chunk            int
	off              uint32
}

// readBag returns every message of a bag in file order (chunk, then offset
// in the chunk), read with package rosbag. Data may be kept (Query.KeepData).
func readBag(t testing.TB, path string) []bagMessage {
	t.Helper()
	r, err := rosbag.Open(path, nil)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	defer r.Close()
	var out []bagMessage
	it := r.Messages(&rosbag.Query{KeepData: true})
	defer it.Close()
	for it.Next() {
		m := it.Message()
		sec, nsec := m.Time.ROS()
		out = append(out, bagMessage{Topic: m.Conn.Topic, Type: m.Conn.Type, MD5: m.Conn.MD5Sum,
			Time: msgs.Time{Sec: sec, Nsec: nsec}, Data: m.Data, chunk: m.Chunk, off: m.Offset})
	}
	if err := it.Err(); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	if uint64(len(out)) != r.Info().Messages {
		t.Fatalf("%s: read %d messages, the index counts %d", path, len(out), r.Info().Messages)
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].chunk != out[j].chunk {
			return out[i].chunk < out[j].chunk
		}
		return out[i].off < out[j].off
	})
	return out
}
