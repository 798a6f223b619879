package msgs

import (
	"bytes"
	"path/filepath"
	"testing"

	"github.com/rsbag/rsbag/internal/testsupport/testbags"
)

// testBags lists the reference bags of the repository.
func testBags(t testing.TB) []string { return testbags.Paths(t, "..") }

// readBag returns every message of a bag in file order, read with package
// rosbag; package msgs itself knows nothing about bags.
func readBag(t testing.TB, path string) []testbags.Message { return testbags.Read(t, path) }

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
				if err := Unmarshal(bm.Data, m); err != nil {
					t.Fatalf("message %d on %s: %v", i, bm.Topic, err)
				}
				if got := Marshal(m); !bytes.Equal(got, bm.Data) {
					t.Fatalf("message %d on %s (%s): re-encoding differs (%d vs %d bytes)", i, bm.Topic, bm.Type, len(got), len(bm.Data))
				}
				if Size(m) != len(bm.Data) {
					t.Errorf("message %d on %s: Size = %d, want %d", i, bm.Topic, Size(m), len(bm.Data))
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
