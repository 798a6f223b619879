package viewer

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
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
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	<-tick.C // warm up
	for i := range got {
		got[i][0].Store(0)
		got[i][1].Store(0)
	}
	played0 := ts.srv.primary.delivered.Load()
	cpu0, start := cpuTime(), time.Now()
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
	cpuUsed := cpuTime() - cpu0
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

// cloudBag records a synthetic depth+color bag of w×h in real time.
func cloudBag(b *testing.B, w, h int) string {
	cfg := software.SyntheticConfig{
		Depth: &software.Video{Width: w, Height: h, FPS: 30}, Color: &software.Video{Width: w, Height: h, FPS: 30},
		Frames: 60, Metadata: software.MetadataBasic, Speed: 1,
	}
	return recordSynthetic(b, fmt.Sprintf("cloud_%dx%d", w, h), cfg)
}

// childrenCPU is the CPU time of the running processes descended from this
// one (the browser's), from Linux's /proc; 0 elsewhere.
func childrenCPU() time.Duration {
	ents, _ := os.ReadDir("/proc")
	parent := map[int]int{}
	ticks := map[int]int64{}
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		// The fields after the command's closing parenthesis: state, ppid, ..., utime (14th) and stime (15th).
		f := strings.Fields(string(b[bytes.LastIndexByte(b, ')')+1:]))
		if len(f) < 13 {
			continue
		}
		parent[pid], _ = strconv.Atoi(f[1])
		u, _ := strconv.ParseInt(f[11], 10, 64)
		st, _ := strconv.ParseInt(f[12], 10, 64)
		ticks[pid] = u + st
	}
	self := os.Getpid()
	var sum int64
	for pid, t := range ticks {
		for p := parent[pid]; p > 1; p = parent[p] {
			if p == self {
				sum += t
				break
			}
		}
	}
	return time.Duration(sum) * time.Second / 100 // USER_HZ
}

func cpuTime() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkLoad3PagesCloud plays a 1280x720 depth+color bag at 1x in a
// loop to three WebSocket clients that show the 2D views and the 3D view
// (reduced cloud, as a page opens it) and read as fast as they can; each
// iteration is one second of playback. It reports the clouds and pictures
// each client got per second (the slowest client), the bytes per second
// and per cloud sent to a client, the CPU the server used and its heap's
// peak.
func BenchmarkLoad3PagesCloud(b *testing.B) {
	loadRun(b, 3, command{Cmd: "cloud", On: true})
}

// BenchmarkFilteredPictures plays the 1280x720 depth+color bag at 1x to one
// client with the depth filters of the page on (decimation, threshold,
// disparity, spatial, temporal, hole filling) and no 3D view; each
// iteration is one second. It reports the pictures the client got per
// second and the CPU the server used.
func BenchmarkFilteredPictures(b *testing.B) {
	var cmds []command
	for _, n := range filterOrder {
		cmds = append(cmds, command{Cmd: "filter", Name: n, On: true})
	}
	loadRun(b, 1, cmds...)
}

// loadRun plays a 1280x720 depth+color bag at 1x in a loop to clients
// that each send cmds first, then read as fast as they can; each iteration
// is one second.
func loadRun(b *testing.B, clients int, cmds ...command) {
	ts := playTest(b, cloudBag(b, 1280, 720), true)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	type counts struct{ clouds, pictures, bytes, cloudBytes atomic.Int64 }
	got := make([]counts, clients)
	var wg sync.WaitGroup
	for i := range clients {
		c := dialWS(b, ts, "")
		for _, cmd := range cmds {
			c.must(cmd)
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			readAll(ctx, c, func(msg []byte, h *binaryHeader) {
				got[i].bytes.Add(int64(len(msg)))
				switch {
				case h == nil:
				case h.Kind == "cloud":
					got[i].clouds.Add(1)
					got[i].cloudBytes.Add(int64(len(msg)))
				default:
					got[i].pictures.Add(1)
				}
			})
		}()
	}
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	<-tick.C // warm up
	for i := range got {
		got[i].clouds.Store(0)
		got[i].pictures.Store(0)
		got[i].bytes.Store(0)
		got[i].cloudBytes.Store(0)
	}
	played0 := ts.srv.primary.delivered.Load()
	cpu0, start := cpuTime(), time.Now()
	var peak uint64
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		<-tick.C
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		peak = max(peak, m.HeapInuse)
	}
	b.StopTimer()
	wall := time.Since(start).Seconds()
	cpu := (cpuTime() - cpu0).Seconds()
	cancel()
	wg.Wait()
	minClouds, minPics, maxBytes, cloudBytes := int64(1<<62), int64(1<<62), int64(0), int64(0)
	for i := range got {
		minClouds, minPics = min(minClouds, got[i].clouds.Load()), min(minPics, got[i].pictures.Load())
		maxBytes = max(maxBytes, got[i].bytes.Load())
		cloudBytes += got[i].cloudBytes.Load()
	}
	var clouds int64
	for i := range got {
		clouds += got[i].clouds.Load()
	}
	b.ReportMetric(float64(minClouds)/wall, "clouds/s/client")
	b.ReportMetric(float64(minPics)/wall, "pictures/s/client")
	b.ReportMetric(float64(maxBytes)/wall/(1<<20), "MB/s/client")
	if clouds > 0 {
		b.ReportMetric(float64(cloudBytes)/float64(clouds)/1024, "KB/cloud")
	}
	b.ReportMetric(float64(ts.srv.primary.delivered.Load()-played0)/wall, "played-depth-fps")
	b.ReportMetric(cpu/wall, "cpu-cores")
	b.ReportMetric(float64(peak)/(1<<20), "heap-peak-MB")
	b.ReportMetric(0, "ns/op")
}

// BenchmarkBrowserCloud plays a depth+color bag at 1x in a loop to one
// headless Chromium page (software GL) showing the 3D view; each iteration
// is one second. It reports the clouds the page drew per second (new
// clouds drawn, not counting redraws of the same one; and the
// depth frames the playback delivered), for 640x480 and 1280x720, reduced
// and full, and the size of a cloud message.
func BenchmarkBrowserCloud(b *testing.B) {
	for _, size := range [][2]int{{640, 480}, {1280, 720}} {
		path := cloudBag(b, size[0], size[1])
		for _, full := range []bool{false, true} {
			b.Run(fmt.Sprintf("%dx%d/full=%v", size[0], size[1], full), func(b *testing.B) {
				ts := playTest(b, path, true)
				br := newBrowser(b)
				br.do(chromedp.Navigate(ts.url + "/"))
				br.waitFor("the page", `document.querySelectorAll('.card').length > 0`)
				br.do(chromedp.Click("#show3d"))
				if full {
					br.do(chromedp.Click("#cloud-full"))
				}
				br.waitFor("a cloud", `+document.getElementById('cloud').dataset.frames > 0`)
				tick := time.NewTicker(time.Second)
				defer tick.Stop()
				<-tick.C
				f0, r0 := br.datasetInt("cloud", "frames"), br.datasetInt("cloud", "received")
				played0 := ts.srv.primary.delivered.Load()
				cpu0, bcpu0 := cpuTime(), childrenCPU()
				start := time.Now()
				b.ResetTimer()
				for i := 0; i < b.N; i++ {
					<-tick.C
				}
				b.StopTimer()
				frames, received := br.datasetInt("cloud", "frames")-f0, br.datasetInt("cloud", "received")-r0
				wall := time.Since(start).Seconds()
				b.ReportMetric(float64(frames)/wall, "page-3d-fps")
				b.ReportMetric(float64(received)/wall, "received-clouds/s")
				b.ReportMetric((cpuTime()-cpu0).Seconds()/wall, "server-cores")
				if frames > 0 {
					b.ReportMetric(float64((childrenCPU()-bcpu0).Milliseconds())/float64(frames), "browser-cpu-ms/cloud")
				}
				b.ReportMetric(float64(ts.srv.primary.delivered.Load()-played0)/wall, "played-depth-fps")
				b.ReportMetric(float64(br.datasetInt("cloud", "bytes"))/1024, "KB/cloud")
				b.ReportMetric(0, "ns/op")
			})
		}
	}
}

// BenchmarkBuildCloud makes the cloud message of one depth frame textured
// by a color frame, as the server does for each depth frame while a page
// shows the 3D view: decimation (reduced), processing's point cloud, the
// texture's colors and the encoding. It reports the message's size and the
// CPU time per cloud (the process's: wall time says little on a loaded
// machine).
func BenchmarkBuildCloud(b *testing.B) {
	for _, size := range [][2]int{{640, 480}, {1280, 720}} {
		path := cloudBag(b, size[0], size[1])
		refs := refFrames(b, path)
		ts := startTest(b, path, false)
		depth, color := refs["Depth/0"][0].f, refs["Color/0"][0].f
		for _, full := range []bool{false, true} {
			b.Run(fmt.Sprintf("%dx%d/full=%v", size[0], size[1], full), func(b *testing.B) {
				var cb cloudBuilder
				cb.depth.col = ts.srv.col
				var n, runs int
				cpu0 := cpuTime()
				for b.Loop() {
					runs++
					msg, err := ts.srv.buildCloud(&cb, ts.srv.primary, depth, color, 1, full, 0)
					if err != nil {
						b.Fatal(err)
					}
					n = len(msg)
				}
				b.ReportMetric(float64(n)/1024, "KB/cloud")
				b.ReportMetric(float64((cpuTime()-cpu0).Microseconds())/1000/float64(runs), "cpu-ms/cloud")
			})
		}
	}
}
