package rosbag

import (
	"os"
	"path/filepath"
	"testing"
)

// TestChunkBytes: the chunks' stored bytes tile the file from the first
// chunk to the index (to the end of the file for a recovered bag), each
// numbered as Message.Chunk.
func TestChunkBytes(t *testing.T) {
	for _, bag := range testBagsAndCut(t) {
		r, err := Open(bag, nil)
		if err != nil {
			t.Fatalf("%s: %v", bag, err)
		}
		got := r.ChunkBytes()
		if len(got) != len(r.chunks) {
			t.Fatalf("%s: %d sizes for %d chunks", bag, len(got), len(r.chunks))
		}
		end := r.info.IndexPos
		if !r.info.Indexed {
			end = r.size
		}
		var sum int64
		first := end
		for i, n := range got {
			sum += n
			first = min(first, r.chunks[i].pos)
			if n <= 0 {
				t.Errorf("%s: chunk %d: %d bytes", bag, i, n)
			}
		}
		if len(got) > 0 && first+sum != end {
			t.Errorf("%s: chunks from %d take %d bytes, want up to %d", bag, first, sum, end)
		}
		r.Close()
	}
}

// testBagsAndCut returns the test bags and a copy of the first cut at two
// thirds of its length, which opens recovered.
func testBagsAndCut(t *testing.T) []string {
	t.Helper()
	trunc := filepath.Join(t.TempDir(), "cut.bag")
	data, err := os.ReadFile(testBags[0])
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(trunc, data[:len(data)*2/3], 0o644); err != nil {
		t.Fatal(err)
	}
	return append(append([]string{}, testBags...), trunc)
}
