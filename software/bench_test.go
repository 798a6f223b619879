package software

import (
	"testing"

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
