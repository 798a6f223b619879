package units

import (
	"context"
	"path/filepath"
	"runtime"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/rsbag/rsbag/device"
	"github.com/rsbag/rsbag/internal/testsupport/benchplay"
	"github.com/rsbag/rsbag/internal/testsupport/synthrig"
	"github.com/rsbag/rsbag/sensor"
	"github.com/rsbag/rsbag/software"
)

// smallFrames records a bag of many small frames (the IMU at 400 Hz and a
// 64x48 depth stream at 90 fps for 5 s of stream time), so that the cost
// per frame, not per byte, dominates.
func smallFrames(b *testing.B) string {
	b.Helper()
	path := filepath.Join(b.TempDir(), "small.bag")
	synthrig.SmallFrames(b, path, 5*time.Second)
	return path
}

// streamGraph is one unit with a handler per stream that only counts.
func streamGraph(b *testing.B, count *int) *Graph {
	var hs []Handler
	for _, s := range []sensor.Stream{sensor.StreamDepth, sensor.StreamAccel, sensor.StreamGyro} {
		hs = append(hs, Handler{Name: s.String(), Inputs: []Input{Camera("", s, 0)}, Func: func(*Context, []*Msg) error { *count++; return nil }})
	}
	g, err := NewGraph(Unit{Name: "count", Handlers: hs})
	if err != nil {
		b.Fatal(err)
	}
	return g
}

// BenchmarkUnitsReplay measures a handler call in deterministic replay
// against bare non-real-time playback of the same bag (one call per
// frame): overhead-cpu-ns/call is the difference of the process's CPU time
// per frame (what the runner costs, whatever else the machine runs),
// overhead-ns/call the difference of wall time, B/call the bytes allocated
// beyond the playback's.
func BenchmarkUnitsReplay(b *testing.B) {
	path := smallFrames(b)
	var bareT, unitsT, bareC, unitsC time.Duration
	var bareB, unitsB uint64
	frames := 0
	var ms runtime.MemStats
	alloc := func() uint64 { runtime.ReadMemStats(&ms); return ms.TotalAlloc }
	for b.Loop() {
		a0, c0, t0 := alloc(), benchplay.CPUTime(), time.Now()
		n := benchplay.Frames(b, path)
		t1, c1, a1 := time.Now(), benchplay.CPUTime(), alloc()
		calls := 0
		res, err := Replay(context.Background(), streamGraph(b, &calls), []string{path}, nil)
		t2, c2, a2 := time.Now(), benchplay.CPUTime(), alloc()
		if err != nil {
			b.Fatal(err)
		}
		if calls != n || res.Events != n {
			b.Fatalf("bare playback %d frames, replay %d calls of %d events", n, calls, res.Events)
		}
		bareT += t1.Sub(t0)
		unitsT += t2.Sub(t1)
		bareC += c1 - c0
		unitsC += c2 - c1
		bareB += a1 - a0
		unitsB += a2 - a1
		frames += n
	}
	b.ReportMetric(float64(bareT.Nanoseconds())/float64(frames), "playback-ns/frame")
	b.ReportMetric(float64(unitsT.Nanoseconds())/float64(frames), "units-ns/frame")
	b.ReportMetric(float64((unitsT-bareT).Nanoseconds())/float64(frames), "overhead-ns/call")
	b.ReportMetric(float64((unitsC-bareC).Nanoseconds())/float64(frames), "overhead-cpu-ns/call")
	b.ReportMetric((float64(unitsB)-float64(bareB))/float64(frames), "B/call")
}

// work does n steps of arithmetic (about 0.3 ns each).
func work(n int) uint64 {
	x := uint64(n)
	for range n {
		x = x*6364136223846793005 + 1442695040888963407
	}
	return x
}

// BenchmarkUnitsParallel measures the speed-up of two independent units
// (one on depth, one on the accelerometer, each with the same work over
// the bag: 1.2 M steps per depth frame, 0.27 M per accelerometer sample) over
// the same two handlers in one unit, which runs them one at a time.
func BenchmarkUnitsParallel(b *testing.B) {
	path := smallFrames(b)
	depth := Handler{Name: "depth", Inputs: []Input{Camera("", sensor.StreamDepth, 0)}, Func: func(*Context, []*Msg) error { _ = work(1_200_000); return nil }}
	imu := Handler{Name: "imu", Inputs: []Input{Camera("", sensor.StreamAccel, 0)}, Func: func(*Context, []*Msg) error { _ = work(270_000); return nil }}
	one, err := NewGraph(Unit{Name: "both", Handlers: []Handler{depth, imu}})
	if err != nil {
		b.Fatal(err)
	}
	two, err := NewGraph(Unit{Name: "depth", Handlers: []Handler{depth}}, Unit{Name: "imu", Handlers: []Handler{imu}})
	if err != nil {
		b.Fatal(err)
	}
	var oneT, twoT time.Duration
	for b.Loop() {
		t0 := time.Now()
		if _, err := Replay(context.Background(), one, []string{path}, nil); err != nil {
			b.Fatal(err)
		}
		t1 := time.Now()
		if _, err := Replay(context.Background(), two, []string{path}, nil); err != nil {
			b.Fatal(err)
		}
		oneT += t1.Sub(t0)
		twoT += time.Since(t1)
	}
	b.ReportMetric(oneT.Seconds()/float64(b.N), "one-unit-s")
	b.ReportMetric(twoT.Seconds()/float64(b.N), "two-units-s")
	b.ReportMetric(oneT.Seconds()/twoT.Seconds(), "speedup-x")
}

// BenchmarkLiveLatency measures, live from the synthetic camera (848x480
// depth at 30 fps and the accelerometer at 400 Hz, in real time, 1 s per
// iteration), the time from a frame's arrival at the runner to its
// handler's call.
func BenchmarkLiveLatency(b *testing.B) {
	var mu sync.Mutex
	var lat []time.Duration
	measure := func(c *Context, in []*Msg) error {
		d := c.Now() - in[0].Time
		mu.Lock()
		lat = append(lat, d)
		mu.Unlock()
		return nil
	}
	g, err := NewGraph(
		Unit{Name: "depth", Handlers: []Handler{{Name: "h", Inputs: []Input{Camera("", sensor.StreamDepth, 0)}, Func: measure}}},
		Unit{Name: "imu", Handlers: []Handler{{Name: "h", Inputs: []Input{Camera("", sensor.StreamAccel, 0)}, Func: measure}}},
	)
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		cam, err := software.NewSynthetic(software.SyntheticConfig{
			Depth:          &software.Video{Width: 848, Height: 480, FPS: 30, Format: sensor.FormatZ16},
			AccelFPS:       400,
			Duration:       time.Second,
			Speed:          1,
			PreparedFrames: 4,
		})
		if err != nil {
			b.Fatal(err)
		}
		l, err := Start(context.Background(), g, []device.Device{cam}, nil)
		if err != nil {
			b.Fatal(err)
		}
		<-cam.Done()
		if err := l.Stop(); err != nil {
			b.Fatal(err)
		}
		cam.Close()
	}
	slices.Sort(lat)
	if len(lat) == 0 {
		b.Fatal("no calls")
	}
	b.ReportMetric(float64(lat[len(lat)/2].Microseconds()), "p50-µs")
	b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds()), "p99-µs")
	b.ReportMetric(float64(len(lat))/float64(b.N), "calls/s")
}
