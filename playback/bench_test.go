package playback

import (
	"flag"
	"fmt"
	"runtime"
	"slices"
	"sort"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/rsbag/rsbag/internal/testsupport/benchbag"
	"github.com/rsbag/rsbag/sensor"
)

// benchBag returns the shared benchmark bag (benchbag.Shared); it skips
// unless benchmarks run, as it builds large bags.
func benchBag(b *testing.B, compression string, size int64) (string, int64) {
	if f := flag.Lookup("test.bench"); f == nil || f.Value.String() == "" {
		b.Skip("builds large bags: run with -bench")
	}
	return benchbag.Shared(b, compression, size)
}

func TestMain(m *testing.M) { benchbag.Main(m) }

const gb = 1 << 30

// benchSize is the size of the large benchmark bags (the figures of the
// package documentation are for the default, 1 GiB).
var benchSize = flag.Int64("playback.benchsize", gb, "bytes of frame data in the large benchmark bags")

// cpuTime returns the process's user+system CPU time.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// playOnce plays the whole bag non-real-time with h and returns the frames.
func playOnce(b *testing.B, path string, h func(f *sensor.Frame)) int {
	d, err := Open(path, &Options{NonRealTime: true})
	if err != nil {
		b.Fatal(err)
	}
	defer d.Close()
	var n int
	done, err := d.PlayAll(sensor.HandlerFunc(func(f *sensor.Frame) { n++; h(f) }))
	if err != nil {
		b.Fatal(err)
	}
	<-done
	return n
}

// BenchmarkPlaybackDispatch measures non-real-time playback of a ≥ 1 GB bag
// of 1280x720 depth+color frames with a no-op handler (MB/s of frame data).
func BenchmarkPlaybackDispatch(b *testing.B) {
	for _, comp := range []string{"none", "lz4"} {
		b.Run(comp, func(b *testing.B) {
			path, bytes := benchBag(b, comp, *benchSize)
			b.SetBytes(bytes)
			b.ReportAllocs()
			b.ResetTimer()
			var ms0, ms1 runtime.MemStats
			runtime.ReadMemStats(&ms0)
			cpu0 := cpuTime()
			frames := 0
			for i := 0; i < b.N; i++ {
				frames += playOnce(b, path, func(*sensor.Frame) {})
			}
			cpu := cpuTime() - cpu0
			runtime.ReadMemStats(&ms1)
			b.ReportMetric(float64(frames)/b.Elapsed().Seconds(), "frames/s")
			// Bytes allocated per byte of frame data played: 1 is the one
			// copy of each frame's pixels, the load of its chunk (frames keep
			// the chunk buffer); Open's description pass adds a few MB per run.
			b.ReportMetric(float64(ms1.TotalAlloc-ms0.TotalAlloc)/float64(bytes)/float64(b.N), "alloc-B/frame-B")
			// Throughput per CPU second: independent of the machine's load.
			b.ReportMetric(float64(bytes)*float64(b.N)/cpu.Seconds()/1e6, "MB/cpu-s")
		})
	}
}

// BenchmarkSeek measures Seek latency on the 1 GB bag while paused.
func BenchmarkSeek(b *testing.B) {
	path, _ := benchBag(b, "lz4", *benchSize)
	d, err := Open(path, &Options{NonRealTime: true})
	if err != nil {
		b.Fatal(err)
	}
	defer d.Close()
	startAll(b, d, sensor.HandlerFunc(func(*sensor.Frame) {}))
	if err := d.Pause(); err != nil {
		b.Fatal(err)
	}
	const perOp = 200
	b.ResetTimer()
	start := time.Now()
	for i := 0; i < b.N*perOp; i++ {
		t := time.Duration(uint64(i) * 7919 * 1_000_003 % uint64(d.Duration()))
		if err := d.Seek(t); err != nil {
			b.Fatal(err)
		}
		if i%perOp == 0 {
			// A seek only repositions; read one frame to price the chunk load.
			if err := d.Step(); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.ReportMetric(float64(time.Since(start).Nanoseconds())/float64(b.N*perOp), "ns/seek")
}

// BenchmarkPlaybackHeap reports the largest heap in use while playing a
// 10 MB and a 1 GB bag: it must not grow with the bag.
func BenchmarkPlaybackHeap(b *testing.B) {
	for _, size := range []int64{10 << 20, gb} {
		b.Run(fmt.Sprintf("%dMB", size>>20), func(b *testing.B) {
			path, bytes := benchBag(b, "lz4", size)
			b.SetBytes(bytes)
			var peak uint64
			for i := 0; i < b.N; i++ {
				n := 0
				playOnce(b, path, func(*sensor.Frame) {
					if n++; n%4 == 1 {
						var ms runtime.MemStats
						runtime.ReadMemStats(&ms)
						if ms.HeapInuse > peak {
							peak = ms.HeapInuse
						}
					}
				})
			}
			b.ReportMetric(float64(peak)/(1<<20), "MB-heap-peak")
		})
	}
}

// BenchmarkPacing reports the real-time pacing error at 1x on
// depth_color.bag: how far the spacing of handler calls departs from the
// recorded spacing. For every delivered frame it takes the offset "time its
// handler was called minus its bag time"; the constant part of that offset
// (when playback started) is not a pacing error, so each run's offsets are
// measured from the smallest one, and the error of a frame is how late it
// is compared with the best-aligned frame of its run. It reports the
// median, the 99th percentile and the largest error over all frames of all
// b.N runs, the number of frames measured and the frames dropped in real
// time (a dropped frame is not measured). The figures depend on the
// machine's load: a busy machine delays the wake-ups of the reader and
// dispatcher goroutines, which no pacing loop can undo.
func BenchmarkPacing(b *testing.B) {
	// Bag time of every frame, from a non-real-time pass.
	type key struct {
		name string
		n    uint64
	}
	bagTime := map[key]int64{}
	d0, err := Open(depthColor, &Options{NonRealTime: true})
	if err != nil {
		b.Fatal(err)
	}
	c := newCollector(d0)
	startAll(b, d0, c)
	<-c.stopped
	for _, r := range c.snapshot() {
		bagTime[key{r.stream, r.number}] = r.pos
	}
	d0.Close()
	b.ResetTimer()
	var errs []float64
	var dropped uint64
	for i := 0; i < b.N; i++ {
		d, err := Open(depthColor, nil)
		if err != nil {
			b.Fatal(err)
		}
		var mu sync.Mutex
		var offs []int64
		done, err := d.PlayAll(sensor.HandlerFunc(func(f *sensor.Frame) {
			now := time.Now()
			pos, ok := bagTime[key{f.Profile.Name(), f.Number}]
			mu.Lock()
			defer mu.Unlock()
			if !ok {
				b.Errorf("frame %s #%d not in the non-real-time pass", f.Profile.Name(), f.Number)
				return
			}
			offs = append(offs, now.UnixNano()-pos)
		}))
		if err != nil {
			b.Fatal(err)
		}
		<-done
		for _, st := range d.Stats() {
			dropped += st.Dropped
		}
		if err := d.Close(); err != nil {
			b.Fatal(err)
		}
		if len(offs) > 0 {
			least := slices.Min(offs)
			for _, o := range offs {
				errs = append(errs, float64(o-least))
			}
		}
	}
	b.StopTimer()
	sort.Float64s(errs)
	if n := len(errs); n > 0 {
		b.ReportMetric(errs[n/2]/1e3, "p50-µs")
		b.ReportMetric(errs[(n*99+99)/100-1]/1e3, "p99-µs")
		b.ReportMetric(errs[n-1]/1e3, "max-µs")
		b.ReportMetric(float64(n), "frames")
	}
	b.ReportMetric(float64(dropped), "dropped")
}
