package rosbag

import (
	"encoding/binary"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"
)

// TestBigBags writes 1 GiB lz4 and none bags and checks them with the
// conformance checkers (strict). Set ROSBAG_BIG=1; skipped with -short.
func TestBigBags(t *testing.T) {
	if testing.Short() || os.Getenv("ROSBAG_BIG") == "" {
		t.Skip("set ROSBAG_BIG=1 to write 1 GiB bags")
	}
	for _, comp := range []string{"lz4", "none"} {
		path := filepath.Join(t.TempDir(), comp+".bag")
		w, err := Create(path, &WriterOptions{Compression: comp})
		if err != nil {
			t.Fatal(err)
		}
		img, _ := w.AddConnection("/a/image", "std_msgs/String", stringMD5, stringDef, nil)
		meta, _ := w.AddConnection("/a/metadata", "std_msgs/UInt32", uint32MD5, uint32Def, nil)
		rng := rand.New(rand.NewPCG(7, 7))
		payload := make([]byte, 1<<20)
		for i := range payload {
			payload[i] = byte(rng.IntN(8)) // compressible, not trivially
		}
		const n = 1024
		for i := 0; i < n; i++ {
			binary.LittleEndian.PutUint32(payload, uint32(len(payload)-4))
			if err := w.WriteMessage(img, Time(i+1)*33_000_000, payload); err != nil {
				t.Fatal(err)
			}
			if err := w.WriteMessage(meta, Time(i+1)*33_000_000, binary.LittleEndian.AppendUint32(nil, uint32(i))); err != nil {
				t.Fatal(err)
			}
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		r, err := Open(path, nil)
		if err != nil || r.Info().Messages != 2*n {
			t.Fatalf("%s: %v %+v", comp, err, r.Info())
		}
		r.Close()
		for _, chk := range []string{"bagcheck-ros", "bagcheck-js"} {
			if rep, ok := runChecker(t, chk, path, "-q"); ok {
				if !rep.OK || rep.Messages != 2*n {
					t.Errorf("%s %s: ok=%v messages %d errors %v", chk, comp, rep.OK, rep.Messages, rep.Errors)
				}
				t.Logf("%s %s: ok=%v size %d", chk, comp, rep.OK, rep.Messages)
			}
		}
		os.Remove(path)
	}
}
