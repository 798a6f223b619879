package record

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/rsbag/rsbag/sensor"
)

// stalledFile is a memFile whose writes block from stall until release, like
// a disk that stops keeping up.
type stalledFile struct {
	memFile
	stalled atomic.Bool
	release chan struct{}
}

func (f *stalledFile) stall() { f.stalled.Store(true) }

func (f *stalledFile) Write(p []byte) (int, error) {
	if f.stalled.Load() {
		<-f.release
	}
	return f.memFile.Write(p)
}

// TestDrops: with a writer that stalls and a real-time source (drop mode),
// frames beyond the queue are dropped — the user's handler still gets every
// frame — counted per stream in Stats, reported to the record sensors'
// notification callbacks (the reports add up to the counts), and the bag
// holds exactly the frames counted as written and passes the checkers.
func TestDrops(t *testing.T) { synctest.Test(t, drops) }

func drops(t *testing.T) {
	td := newTestDevice(t, 64, 48)
	defer td.dev.Close()
	f := &stalledFile{release: make(chan struct{})}
	rec, err := NewWriter(td.dev, f, &Options{Compression: CompressionNone, ChunkThreshold: 8 << 10, QueueSize: 4})
	if err != nil {
		t.Fatal(err)
	}
	f.stall()
	ss := rec.Sensors()
	var notes noteLog
	for _, s := range ss {
		notes.watch(s)
	}
	var log handlerLog
	openStart(t, ss[0], &log, td.depth)
	openStart(t, ss[1], &log, td.color)
	// More frames than the stalled pipeline holds: the queue (4) and the
	// chunks in flight (rosbag keeps GOMAXPROCS+2, about two frames each).
	n := uint64(40 + 4*runtime.GOMAXPROCS(0))
	for i := uint64(0); i < n; i++ {
		time.Sleep(33 * time.Millisecond)
		if err := td.depthS.Inject(td.frame(td.depth)); err != nil {
			t.Fatal(err)
		}
		if err := td.colorS.Inject(td.frame(td.color)); err != nil {
			t.Fatal(err)
		}
	}
	td.depthS.Flush()
	td.colorS.Flush()
	st := rec.Stats()
	if st.Dropped == 0 {
		t.Fatalf("no frame dropped while the writer stalls: %+v", st)
	}
	if len(notes.list()) == 0 {
		t.Error("no drop notified while streaming")
	}
	close(f.release)
	stopAndClose(t, rec, ss)
	if uint64(log.count()) != 2*n {
		t.Errorf("handler got %d frames, want %d", log.count(), 2*n)
	}

	st = rec.Stats()
	path := filepath.Join(t.TempDir(), "drops.bag")
	if err := os.WriteFile(path, f.bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	ms, info, err := readBag(t, path)
	if err != nil || !info.Indexed {
		t.Fatalf("bag: indexed %v, %v", info.Indexed, err)
	}
	top := byTopic(ms)
	reported := map[string]uint64{} // "Stream/index" → frames reported dropped
	for _, n := range notes.list() {
		var delta uint64
		var name string
		if _, err := fmt.Sscanf(n.Description, "Recording dropped %d frame(s) of %s", &delta, &name); err != nil ||
			n.Category != sensor.NotificationCategoryUnknownError || n.Severity != sensor.SeverityWarn {
			t.Errorf("unexpected notification %+v", n)
			continue
		}
		reported[name] += delta
	}
	for _, ss := range st.Streams {
		topic := map[sensor.Stream]string{
			sensor.StreamDepth: "/device_0/sensor_0/Depth_0/image/data",
			sensor.StreamColor: "/device_0/sensor_1/Color_0/image/data",
		}[ss.Stream]
		if ss.Frames+ss.Dropped != n || ss.Dropped == 0 {
			t.Errorf("%s: %d written + %d dropped, want %d with drops", ss.Name(), ss.Frames, ss.Dropped, n)
		}
		size := uint64(64 * 48 * map[sensor.Stream]int{sensor.StreamDepth: 2, sensor.StreamColor: 3}[ss.Stream])
		if ss.DroppedBytes != ss.Dropped*size || ss.Bytes != ss.Frames*size {
			t.Errorf("%s: bytes %d written, %d dropped; want %d per frame", ss.Name(), ss.Bytes, ss.DroppedBytes, size)
		}
		if got := uint64(len(top[topic])); got != ss.Frames {
			t.Errorf("%s: %d frames in the bag, stats say %d", topic, got, ss.Frames)
		}
		if reported[ss.Name()] != ss.Dropped {
			t.Errorf("%s: notifications report %d dropped frames, stats %d", ss.Name(), reported[ss.Name()], ss.Dropped)
		}
	}
	if st.Dropped != st.Streams[0].Dropped+st.Streams[1].Dropped || !strings.Contains(fmt.Sprint(reported), "Color/0") {
		t.Errorf("stats %+v, reports %v", st, reported)
	}
	checkConformance(t, path)
}
