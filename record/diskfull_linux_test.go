package record

import (
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"testing/synctest"
	"time"

	"github.com/rsbag/rsbag/rosbag"
)

// TestDiskFullTmpfs records into a 2 MiB tmpfs until it is full: the bag
// keeps its index (the room for it was reserved with fallocate) and the
// error says so. It needs the right to mount (root); it is skipped
// without.
func TestDiskFullTmpfs(t *testing.T) {
	dir := t.TempDir()
	if err := syscall.Mount("tmpfs", dir, "tmpfs", 0, "size=2m"); err != nil {
		t.Skipf("cannot mount a tmpfs: %v", err)
	}
	defer syscall.Unmount(dir, 0)
	path := filepath.Join(dir, "full.bag")
	synctest.Test(t, func(t *testing.T) {
		td := newTestDevice(t, 320, 240)
		rec, err := Create(td.dev, path, &Options{Compression: CompressionNone, Lossless: true})
		if err != nil {
			t.Fatal(err)
		}
		ss := rec.Sensors()
		openStart(t, ss[0], &handlerLog{}, td.depth)
		for i := 0; i < 200 && rec.Err() == nil; i++ { // 200 frames of 150 KiB: 30 MB
			time.Sleep(33 * time.Millisecond)
			if err := td.depthS.Inject(td.frame(td.depth)); err != nil {
				t.Fatal(err)
			}
			td.depthS.Flush()
			_ = rec.Flush()
		}
		if err := ss[0].Stop(); err != nil {
			t.Fatal(err)
		}
		err = rec.Close()
		if !strings.Contains(err.Error(), "disk full after") || !strings.Contains(err.Error(), "the bag kept its index") {
			t.Fatalf("Close = %v, want the disk-full error saying that the bag kept its index", err)
		}
	})
	r, err := rosbag.Open(path, nil)
	if err == nil {
		err = r.Unindexed()
	}
	if err != nil {
		t.Fatalf("the bag does not open indexed: %v", err)
	}
	defer r.Close()
	if r.Info().Messages == 0 {
		t.Error("no message in the bag")
	}
}
