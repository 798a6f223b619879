package software

import (
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/rsbag/rsbag/sensor"
)

// benchmarkSynthetic streams 1280x720 depth (Z16) and color (RGB8) at speed 0
// to a no-op handler; one op is one frame.
func benchmarkSynthetic(b *testing.B, prepared int) {
	frames := (b.N + 1) / 2
	cam, err := NewSynthetic(SyntheticConfig{
		Depth: &Video{Width: 1280, Height: 720, FPS: 30}, Color: &Video{Width: 1280, Height: 720, FPS: 30},
		Frames: frames, Metadata: MetadataBasic, PreparedFrames: prepared,
	})
	if err != nil {
		b.Fatal(err)
	}
	defer cam.Close()
	var bytes int
	for _, s := range cam.Sensors() {
		for _, p := range s.Profiles() {
			bytes += p.Width * p.Height * p.Format.BitsPerPixel() / 8
		}
		if err := s.Open(s.Profiles()...); err != nil {
			b.Fatal(err)
		}
	}
	b.SetBytes(int64(bytes / 2))
	b.ReportAllocs()
	nop := sensor.HandlerFunc(func(*sensor.Frame) {})
	b.ResetTimer()
	for _, s := range cam.Sensors() {
		if err := s.Start(nop); err != nil {
			b.Fatal(err)
		}
	}
	<-cam.Done()
	b.StopTimer()
	b.ReportMetric(float64(2*frames)/b.Elapsed().Seconds(), "frames/s")
}

// BenchmarkSynthetic720p uses contents prepared in advance (8 frames per
// stream, handed out again as immutable buffers).
func BenchmarkSynthetic720p(b *testing.B) { benchmarkSynthetic(b, 8) }

// BenchmarkSynthetic720pExact renders the exact contents of every frame into
// a new buffer.
func BenchmarkSynthetic720pExact(b *testing.B) { benchmarkSynthetic(b, 0) }

// BenchmarkSceneD435i films the default scene with a D435i's default
// streams (848x480 depth and 1280x720 RGB8 color at 30 fps, accel 250 Hz,
// gyro 200 Hz) at speed 0 on a walk; one op is one 30 fps tick. It reports
// frames per second of CPU time per stream, realtime-x (seconds of stream
// made per second) and realtime-x-per-core (per second of CPU time, which
// a loaded machine does not skew): real time on one core needs 1 or more
// with -cpu 1.
func BenchmarkSceneD435i(b *testing.B) {
	cam, err := NewSynthetic(SyntheticConfig{
		Depth: &Video{Width: 848, Height: 480, FPS: 30}, Color: &Video{Width: 1280, Height: 720, FPS: 30},
		AccelFPS: 250, GyroFPS: 200, Duration: time.Duration(b.N) * time.Second / 30,
		Metadata: MetadataBasic, Scene: &SceneConfig{Motion: "walk"},
	})
	if err != nil {
		b.Fatal(err)
	}
	defer cam.Close()
	counts := map[sensor.Stream]int{}
	var mu sync.Mutex
	count := sensor.HandlerFunc(func(f *sensor.Frame) {
		mu.Lock()
		counts[f.Profile.Stream]++
		mu.Unlock()
	})
	for _, s := range cam.Sensors() {
		if err := s.Open(s.Profiles()...); err != nil {
			b.Fatal(err)
		}
	}
	cpu0 := cpuTime(b)
	b.ResetTimer()
	for _, s := range cam.Sensors() {
		if err := s.Start(count); err != nil {
			b.Fatal(err)
		}
	}
	<-cam.Done()
	b.StopTimer()
	cpu := (cpuTime(b) - cpu0).Seconds()
	for st, n := range counts {
		b.ReportMetric(float64(n)/cpu, strings.ToLower(st.String())+"-frames/cpu-s")
	}
	b.ReportMetric(float64(b.N)/30/b.Elapsed().Seconds(), "realtime-x")
	b.ReportMetric(float64(b.N)/30/cpu, "realtime-x-per-core")
}

// cpuTime returns the CPU time (user and system) the process has used.
func cpuTime(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
