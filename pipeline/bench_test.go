package pipeline

import (
	"context"
	"errors"
	"flag"
	"runtime"
	"syscall"
	"testing"
	"time"

	"github.com/rsbag/rsbag/internal/testsupport/benchbag"
	"github.com/rsbag/rsbag/internal/testsupport/benchplay"
)

// benchSize is the frame data of the benchmark bag (the figures quoted in
// the README are for the default, 1 GiB).
var benchSize = flag.Int64("pipeline.benchsize", 1<<30, "bytes of frame data in the benchmark bag")

func benchBag(b *testing.B) (string, int64) {
	return benchbag.Shared(b, "none", *benchSize)
}

// cpuTime returns the process's user+system CPU time.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func TestMain(m *testing.M) { benchbag.Main(m) }

// BenchmarkPipeline plays a ≥ 1 GiB bag of 1280x720 depth+color frames in
// non-real-time mode through a Pipeline (its syncer pairs every depth frame
// with its color frame), against the same bag played by the bare playback
// device with a handler that only counts frames. The pipeline must reach
// at least 90% of the bare figure.
func BenchmarkPipeline(b *testing.B) {
	b.Run("playback", func(b *testing.B) {
		path, bytes := benchBag(b)
		b.SetBytes(bytes)
		frames := 0
		measure(b, func() int {
			n := benchplay.Frames(b, path)
			frames += n
			return n / 2 // a pipeline would make depth+color pairs
		})
		b.ReportMetric(float64(frames)/b.Elapsed().Seconds(), "frames/s")
	})
	b.Run("pipeline", func(b *testing.B) {
		path, bytes := benchBag(b)
		b.SetBytes(bytes)
		measure(b, func() int {
			cfg := &Config{}
			if err := cfg.EnableDeviceFromFile(path, false); err != nil {
				b.Fatal(err)
			}
			cfg.SetRealTime(false)
			p := New()
			if _, err := p.Start(context.Background(), cfg); err != nil {
				b.Fatal(err)
			}
			defer p.Stop()
			n, single := 0, 0
			for {
				fs, err := p.WaitForFrames(context.Background())
				if errors.Is(err, ErrEndOfStream) {
					// Only the first frame goes alone: the matcher waits
					// for a stream from its first frame on.
					if single > 2 {
						b.Fatalf("%d of %d framesets hold one frame: want depth and color pairs", single, n)
					}
					return n
				}
				if err != nil {
					b.Fatal(err)
				}
				if fs.Len() != 2 {
					single++
				}
				n++
			}
		})
	})
}

// measure runs play b.N times and reports framesets/s and the heap
// allocations (count and bytes) per frameset.
func measure(b *testing.B, play func() (framesets int)) {
	b.ReportAllocs()
	var ms0, ms1 runtime.MemStats
	runtime.ReadMemStats(&ms0)
	cpu0 := cpuTime()
	b.ResetTimer()
	n := 0
	for i := 0; i < b.N; i++ {
		n += play()
	}
	b.StopTimer()
	cpu := cpuTime() - cpu0
	runtime.ReadMemStats(&ms1)
	// CPU seconds per second of play: what the work costs, independent
	// of the machine's other load.
	b.ReportMetric(cpu.Seconds()/b.Elapsed().Seconds(), "cores")
	b.ReportMetric(float64(n)/b.Elapsed().Seconds(), "framesets/s")
	b.ReportMetric(float64(ms1.Mallocs-ms0.Mallocs)/float64(n), "allocs/frameset")
	b.ReportMetric(float64(ms1.TotalAlloc-ms0.TotalAlloc)/float64(n), "B/frameset")
}
