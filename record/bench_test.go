package record

import (
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/rsbag/rsbag/msgs"
	"github.com/rsbag/rsbag/rosbag"
	"github.com/rsbag/rsbag/sensor"
	"github.com/rsbag/rsbag/software"
)

// realTiles returns the depth and color images of the real D435 recording
// (640×480), the content the benchmark tiles into 720p frames.
func realTiles(b *testing.B) (depth, color [][]byte) {
	b.Helper()
	r, err := rosbag.Open(filepath.Join("..", "testdata", "librealsense", "real", "single_depth_color_640x480.bag"), nil)
	if err != nil {
		b.Fatal(err)
	}
	defer r.Close()
	it := r.Messages(&rosbag.Query{Topics: []string{"/device_0/sensor_0/Depth_0/image/data", "/device_0/sensor_1/Color_0/image/data"}})
	for it.Next() {
		var img msgs.Image
		if err := msgs.Unmarshal(it.Message().Data, &img); err != nil {
			b.Fatal(err)
		}
		data := append([]byte(nil), img.Data...)
		if img.Encoding == "mono16" {
			depth = append(depth, data)
		} else {
			color = append(color, data)
		}
	}
	if len(depth) == 0 || len(color) == 0 {
		b.Fatal("no frames in the real bag")
	}
	return depth, color
}

// tile720 tiles a 640×480 image of bpp bytes per pixel into 1280×720,
// shifting each tile so that tiles differ.
func tile720(src []byte, bpp, shift int) []byte {
	const sw, sh, w, h = 640, 480, 1280, 720
	out := make([]byte, w*h*bpp)
	for y := 0; y < h; y++ {
		sy := (y + shift) % sh
		for x0 := 0; x0 < w; x0 += sw {
			sx := (x0/sw*97 + shift) % sw
			row := src[sy*sw*bpp : (sy+1)*sw*bpp]
			dst := out[(y*w+x0)*bpp : (y*w+x0+sw)*bpp]
			n := copy(dst, row[sx*bpp:])
			copy(dst[n:], row[:sx*bpp])
		}
	}
	return out
}

type benchRig struct {
	dev                  *software.Device
	depthS, colorS       *software.Sensor
	depthP, colorP       *sensor.StreamProfile
	depthData, colorData [][]byte
}

func newBenchRig(b *testing.B) *benchRig {
	d, c := realTiles(b)
	r := &benchRig{dev: software.New(sensor.Info{sensor.CameraInfoName: "Bench Camera"})}
	r.depthS = r.dev.AddSensor("Stereo Module")
	r.colorS = r.dev.AddSensor("RGB Camera")
	r.depthP = r.depthS.AddVideoStream(software.VideoStream{Stream: sensor.StreamDepth, Format: sensor.FormatZ16, Width: 1280, Height: 720, FPS: 30, Default: true})
	r.colorP = r.colorS.AddVideoStream(software.VideoStream{Stream: sensor.StreamColor, Format: sensor.FormatRGB8, Width: 1280, Height: 720, FPS: 30, Default: true})
	for i := 0; i < 4; i++ {
		r.depthData = append(r.depthData, tile720(d[i%len(d)], 2, i*31))
		r.colorData = append(r.colorData, tile720(c[i%len(c)], 3, i*31))
	}
	return r
}

// run records n depth+color frame pairs; with pace > 0 a pair is produced
// every pace (drop mode), otherwise as fast as the recorder takes them
// (lossless mode). It returns the recorder's stats.
func (r *benchRig) run(b *testing.B, comp string, n int, pace time.Duration) (Stats, time.Duration) {
	path := filepath.Join(benchDir(b), "bench.bag")
	rec, err := Create(r.dev, path, &Options{Compression: comp, Lossless: pace == 0})
	if err != nil {
		b.Fatal(err)
	}
	ss := rec.Sensors()
	if err := ss[0].Open(r.depthP); err != nil {
		b.Fatal(err)
	}
	if err := ss[1].Open(r.colorP); err != nil {
		b.Fatal(err)
	}
	nop := sensor.HandlerFunc(func(*sensor.Frame) {})
	for _, s := range ss {
		if err := s.Start(nop); err != nil {
			b.Fatal(err)
		}
	}
	b.ResetTimer()
	start, cpu0 := time.Now(), cpuTime()
	var wg sync.WaitGroup
	inject := func(s *software.Sensor, p *sensor.StreamProfile, data [][]byte) {
		defer wg.Done()
		for i := 0; i < n; i++ {
			if pace > 0 {
				if d := time.Until(start.Add(time.Duration(i) * pace)); d > 0 {
					time.Sleep(d)
				}
			}
			f := &sensor.Frame{Profile: p, Number: uint64(i + 1), TimestampMs: float64(i) * 33.3, Data: data[i%len(data)]}
			if err := s.Inject(f); err != nil {
				b.Error(err)
				return
			}
		}
	}
	wg.Add(2)
	go inject(r.depthS, r.depthP, r.depthData)
	go inject(r.colorS, r.colorP, r.colorData)
	wg.Wait()
	r.depthS.Flush()
	r.colorS.Flush()
	for _, s := range ss {
		if err := s.Stop(); err != nil {
			b.Fatal(err)
		}
		if err := s.Close(); err != nil {
			b.Fatal(err)
		}
	}
	if err := rec.Close(); err != nil {
		b.Fatal(err)
	}
	b.StopTimer()
	return rec.Stats(), cpuTime() - cpu0
}

// cpuTime returns the process's user+system CPU time.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// reportCPU reports the frame data recorded per CPU second of the whole
// process (recorder, rosbag workers, the injecting goroutines): a figure
// that holds on a loaded machine, where MB/s of wall time does not.
func reportCPU(b *testing.B, st Stats, cpu time.Duration) {
	if cpu > 0 {
		b.ReportMetric(float64(st.Bytes)/1e6/cpu.Seconds(), "MB/cpu-s")
	}
}

// BenchmarkRecord measures record throughput of 1280×720 Z16 + 1280×720
// RGB8 frame pairs (tiles of the real D435 recording), prepared in advance.
// "max": as fast as the recorder takes them (lossless mode); "paced": at
// the target rate (LZ4 550 MB/s = four 720p depth+color cameras at 30 fps;
// none 1 GB/s) in drop mode, reporting the frames dropped.
func BenchmarkRecord(b *testing.B) {
	rig := newBenchRig(b)
	pair := int64(len(rig.depthData[0]) + len(rig.colorData[0]))
	for _, c := range []struct {
		comp   string
		target float64 // MB/s
	}{{CompressionLZ4, 550}, {CompressionNone, 1000}} {
		b.Run(c.comp+"/max", func(b *testing.B) {
			b.SetBytes(pair)
			b.ReportAllocs()
			st, cpu := rig.run(b, c.comp, b.N, 0)
			b.ReportMetric(float64(st.Dropped), "dropped")
			reportCPU(b, st, cpu)
			b.ReportMetric(float64(st.FileSize)/float64(st.Bytes+1), "file/data")
		})
		b.Run(fmt.Sprintf("%s/paced%.0fMBps", c.comp, c.target), func(b *testing.B) {
			b.SetBytes(pair)
			b.ReportAllocs()
			pace := time.Duration(float64(pair) / (c.target * 1e6) * float64(time.Second))
			st, cpu := rig.run(b, c.comp, b.N, pace)
			b.ReportMetric(float64(st.Dropped), "dropped")
			reportCPU(b, st, cpu)
		})
	}
}

// benchDir is where the benchmark writes: RSBAG_BENCH_DIR if set (to
// measure a given disk), else the test's temporary directory.
func benchDir(b *testing.B) string {
	if d := os.Getenv("RSBAG_BENCH_DIR"); d != "" {
		dir, err := os.MkdirTemp(d, "record-bench")
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { os.RemoveAll(dir) })
		return dir
	}
	return b.TempDir()
}
