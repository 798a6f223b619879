package replay_test

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/rsbag/rsbag/internal/testsupport/benchplay"
	"github.com/rsbag/rsbag/internal/testsupport/synthrig"
	"github.com/rsbag/rsbag/replay"
	"github.com/rsbag/rsbag/sensor"
)

// smallFrames records a bag of many small frames (IMU at 400 Hz and a
// 64x48 depth stream at 90 fps for 20 s of stream time), so that the cost
// per frame, not per byte, dominates.
func smallFrames(b *testing.B) string {
	b.Helper()
	path := filepath.Join(b.TempDir(), "small.bag")
	synthrig.SmallFrames(b, path, 20*time.Second)
	return path
}

// BenchmarkReplay measures the cost of a replay handler call against bare
// non-real-time playback of the same bag: overhead-ns/call is the
// difference per frame.
func BenchmarkReplay(b *testing.B) {
	path := smallFrames(b)
	var bareT, replayT time.Duration
	frames := 0
	for b.Loop() {
		t0 := time.Now()
		n := benchplay.Frames(b, path)
		t1 := time.Now()
		m := 0
		res, err := replay.Run(context.Background(), []string{path}, replay.Handlers{Frame: func(*replay.Context, *sensor.Frame) error {
			m++
			return nil
		}}, nil)
		t2 := time.Now()
		if err != nil {
			b.Fatal(err)
		}
		if n != m || res.Frames != n {
			b.Fatalf("bare playback %d frames, replay %d", n, m)
		}
		bareT += t1.Sub(t0)
		replayT += t2.Sub(t1)
		frames += n
	}
	b.ReportMetric(float64(bareT.Nanoseconds())/float64(frames), "playback-ns/frame")
	b.ReportMetric(float64(replayT.Nanoseconds())/float64(frames), "replay-ns/frame")
	b.ReportMetric(float64((replayT-bareT).Nanoseconds())/float64(frames), "overhead-ns/call")
	b.ReportMetric(float64(frames)/replayT.Seconds(), "frames/s")
}
