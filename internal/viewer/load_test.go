package viewer

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"runtime"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/rsbag/rsbag/software"
)

// binaryHeader is what the load benchmarks read of a binary message's
// header.
type binaryHeader struct {
	ID   int
	Kind string
}

// readAll reads c's messages until ctx is done, handing each to got with
// the header of a binary one (nil for a text message).
func readAll(ctx context.Context, c *wsClient, got func(msg []byte, h *binaryHeader)) {
	for {
		typ, msg, err := c.conn.Read(ctx)
		if err != nil {
			return
		}
		if typ != websocket.MessageBinary {
			got(msg, nil)
			continue
		}
		var h binaryHeader
		n := binary.LittleEndian.Uint32(msg)
		json.Unmarshal(msg[4:4+n], &h)
		got(msg, &h)
	}
}

// BenchmarkLoad5Clients plays a 1280x720 depth+color bag at 1x in a loop to
// five WebSocket clients that read as fast as they can; each iteration is
// one second of playback (-benchtime 30x is the 30 s load run). It reports
// the pictures each client got per second (the slowest client), the frames
// the playback delivered per second, the CPU the process used, the heap's
// peak and the growth of the live heap from the first to the last second.
func BenchmarkLoad5Clients(b *testing.B) {
	// Recorded in real time, so that bag times are arrival times as from a
	// camera (the virtual clock bunches them up).
	cfg := software.SyntheticConfig{
		Depth: &software.Video{Width: 1280, Height: 720, FPS: 30}, Color: &software.Video{Width: 1280, Height: 720, FPS: 30},
		Frames: 60, Metadata: software.MetadataBasic, Speed: 1,
	}
	path := recordSynthetic(b, "load_1280x720", cfg)
	ts := playTest(b, path, true)

	const clients = 5
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	got := make([][2]atomic.Int64, clients) // pictures per client: depth, color
	var wg sync.WaitGroup
	var ids [2]int
	for i := range clients {
		c := dialWS(b, ts, "")
		for _, s := range c.hello.Streams {
			switch s.Name {
			case "Depth/0":
				ids[0] = s.ID
			case "Color/0":
				ids[1] = s.ID
			}
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			readAll(ctx, c, func(msg []byte, h *binaryHeader) {
				for k := range ids {
					if h != nil && h.ID == ids[k] {
						got[i][k].Add(1)
					}
				}
			})
		}()
	}
	heap := func() uint64 {
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		return m.HeapInuse
	}
	cpu := func() time.Duration {
		var ru syscall.Rusage
		syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
		return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	}
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	<-tick.C // warm up
	for i := range got {
		got[i][0].Store(0)
		got[i][1].Store(0)
	}
	played0 := ts.srv.primary.delivered.Load()
	cpu0, start := cpu(), time.Now()
	var first, peak, last uint64
	b.ResetTimer()
	live := func() uint64 { // the live heap: what a leak would grow
		runtime.GC()
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		return m.HeapAlloc
	}
	for i := 0; i < b.N; i++ {
		<-tick.C
		peak = max(peak, heap())
		if i == 0 {
			first = live()
		}
	}
	last = live()
	b.StopTimer()
	wall := time.Since(start)
	played := ts.srv.primary.delivered.Load() - played0
	cpuUsed := cpu() - cpu0
	cancel()
	minDepth, minColor := int64(1<<62), int64(1<<62)
	for i := range got {
		minDepth, minColor = min(minDepth, got[i][0].Load()), min(minColor, got[i][1].Load())
	}
	b.ReportMetric(float64(minDepth)/wall.Seconds(), "depth-fps/client")
	b.ReportMetric(float64(minColor)/wall.Seconds(), "color-fps/client")
	b.ReportMetric(float64(played)/wall.Seconds(), "played-depth-fps")
	b.ReportMetric(cpuUsed.Seconds()/wall.Seconds(), "cpu-cores")
	b.ReportMetric(float64(peak)/(1<<20), "heap-peak-MB")
	b.ReportMetric((float64(last)-float64(first))/(1<<20), "heap-growth-MB")
	b.ReportMetric(0, "ns/op")
	wg.Wait()
}
