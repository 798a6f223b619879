package msgs

import (
	"bytes"
	"path/filepath"
	"sort"
	"testing"

	"github.com/rsbag/rsbag/rosbag"
)

// testBags lists the reference bags of the repository.
func testBags(t testing.TB) []string {
	t.Helper()
	var bags []string
	for _, pat := range []string{
		"../testdata/librealsense/*.bag",
		"../testdata/librealsense/real/*.bag",
		"../testdata/spec/ref-head-v4-softdevice.bag",
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
	Topic, Type, MD5, Definition string
	Data                         []byte
	chunk                        int
	off                          uint32
}

// readBag returns every message of a bag in file order (chunk, then offset
// in the chunk), read with package rosbag; package msgs itself knows nothing
// about bags. Data may be kept (Query.KeepData) and aliases the chunk.
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
		out = append(out, bagMessage{Topic: m.Conn.Topic, Type: m.Conn.Type, MD5: m.Conn.MD5Sum, Definition: m.Conn.MessageDefinition,
			Data: m.Data, chunk: m.Chunk, off: m.Offset})
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

// TestBagRoundTrip decodes every message of every reference bag and checks
// that re-encoding gives the original bytes.
func TestBagRoundTrip(t *testing.T) {
	for _, path := range testBags(t) {
		t.Run(filepath.Base(path), func(t *testing.T) {
			msgs := readBag(t, path)
			if len(msgs) == 0 {
				t.Fatal("no messages")
			}
			counts := map[string]int{}
			for i, bm := range msgs {
				typ, ok := LookupType(bm.Type)
				if !ok {
					t.Fatalf("message %d on %s: unknown type %s", i, bm.Topic, bm.Type)
				}
				if typ.MD5 != bm.MD5 || typ.Definition != bm.Definition {
					t.Errorf("%s: connection header of %s differs from the descriptor", bm.Topic, bm.Type)
				}
				m := New(bm.Type)
				if err := m.Unmarshal(bm.Data); err != nil {
					t.Fatalf("message %d on %s: %v", i, bm.Topic, err)
				}
				if got := Marshal(m); !bytes.Equal(got, bm.Data) {
					t.Fatalf("message %d on %s (%s): re-encoding differs (%d vs %d bytes)", i, bm.Topic, bm.Type, len(got), len(bm.Data))
				}
				if m.Size() != len(bm.Data) {
					t.Errorf("message %d on %s: Size() = %d, want %d", i, bm.Topic, m.Size(), len(bm.Data))
				}
				if img, ok := m.(*Image); ok {
					if img.HasDepthUnits != (img.Header.FrameID == DepthUnitsFrameID) {
						t.Errorf("message %d on %s: frame_id %q, HasDepthUnits %v", i, bm.Topic, img.Header.FrameID, img.HasDepthUnits)
					}
					if len(img.Data) > 0 && &img.Data[0] != &bm.Data[len(bm.Data)-len(img.Data)-4*b2i(img.HasDepthUnits)] {
						t.Errorf("message %d on %s: Image.Data is not a view of the input", i, bm.Topic)
					}
				}
				counts[bm.Type]++
			}
			t.Logf("%d messages: %v", len(msgs), counts)
		})
	}
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}
