package record

import (
	"runtime"
	"testing"
	"testing/synctest"
	"time"

	"github.com/rsbag/rsbag/sensor"
)

// TestFrameAllocs: in the steady state, recording a frame — queueing it,
// writing its image and metadata messages into the chunk — allocates
// nothing (rosbag.Writer.WriteMessageFunc, reused messages and metadata
// text).
func TestFrameAllocs(t *testing.T) {
	if testing.Short() {
		t.Skip("short")
	}
	for _, comp := range []string{CompressionNone, CompressionLZ4} {
		t.Run(comp, func(t *testing.T) { synctest.Test(t, func(t *testing.T) { frameAllocs(t, comp) }) })
	}
}

func frameAllocs(t *testing.T, comp string) {
	td := newTestDevice(t, 320, 240)
	defer td.dev.Close()
	rec, err := NewWriter(td.dev, &discardFile{}, &Options{Compression: comp, Lossless: true})
	if err != nil {
		t.Fatal(err)
	}
	defer rec.Close()
	s := rec.sensors[0]
	f := td.frame(td.depth)
	f.SystemTimeMs = 1_700_000_000_123.5
	f.Metadata.Set(sensor.MetadataKeyFrameCounter, 123_456_789)
	f.Metadata.Set(sensor.MetadataKeyFrameTimestamp, 987_654_321)
	st := s.stream(td.depth.Stream, td.depth.Index)
	const perRun = 200
	sent := uint64(0)
	allocs := testing.AllocsPerRun(5, func() {
		for i := 0; i < perRun; i++ {
			time.Sleep(time.Millisecond)
			rec.onFrame(s, f)
		}
		sent += perRun
		for st.frames.Load() < sent {
			runtime.Gosched()
		}
	})
	if st.dropped.Load() != 0 {
		t.Fatalf("%d frames dropped", st.dropped.Load())
	}
	t.Logf("%.0f allocations per %d frames", allocs, perRun)
	if per := allocs / perRun; per > 0.05 {
		t.Errorf("%.2f allocations per frame (%.0f per %d frames), want 0", per, allocs, perRun)
	}
}
