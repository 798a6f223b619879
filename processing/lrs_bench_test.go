package processing

import (
	"bufio"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/rsbag/rsbag/extensions"
	"github.com/rsbag/rsbag/internal/testsupport/synthrig"
	"github.com/rsbag/rsbag/playback"
	"github.com/rsbag/rsbag/sensor"
	"github.com/rsbag/rsbag/software"
)

// timesFile is librealsense 2.56.5's time per processing block on one
// 1280x720 depth frame, measured by the reference tool; it lies in the
// shared reference folder beside a clone, not in the clone.
const timesFile = "../../shared/testdata/librealsense/processing/TIMES.md"

// lrsTimes are the figures of timesFile (ms per 1280x720 depth frame, one
// thread; the mean of its two runs), by the first cell of its row, and the
// block of the per-block benchmark that does the same work.
var lrsTimes = []struct {
	row, bench string
	ms         float64
}{
	{"align.to-paired (depth into color's geometry)", "align.to-color", 31.8},
	{"align.to-depth (color into depth's geometry)", "align.to-depth", 22.0},
	{"pointcloud (vertices + texture coordinates, mapped to color)", "pointcloud", 20.0},
	{"colorize (default: Jet, histogram equalization on)", "colorize", 10.3},
	{"colorize.scheme-0 … scheme-9 (all ten together)", "colorize.schemes", 74.9},
	{"spatial (defaults)", "spatial", 32.35},
	{"temporal (defaults, state carried across frames)", "temporal", 4.55},
	{"hole-filling.mode-0 … mode-2 (all three together)", "hole-filling", 10.2},
	{"decimation (magnitude 2)", "decimation", 3.75},
	{"disparity (depth to disparity)", "disparity", 2.25},
	{"threshold", "threshold", 2.2},
	{"units", "units", 1.1},
	{"chain (decimation, to disparity, spatial, temporal, to depth, hole filling)", "chain", 13.3},
}

// TestLibrealsenseTimes checks the pinned librealsense figures against
// TIMES.md, when the shared reference folder is there.
func TestLibrealsenseTimes(t *testing.T) {
	f, err := os.Open(timesFile)
	if os.IsNotExist(err) {
		t.Skipf("%s not present", timesFile)
	}
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows := map[string]float64{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		cells := strings.Split(strings.Trim(sc.Text(), "|"), "|")
		if len(cells) < 3 {
			continue
		}
		sum, n := 0.0, 0
		for _, c := range cells[1:] {
			if v, err := strconv.ParseFloat(strings.TrimSpace(c), 64); err == nil {
				sum, n = sum+v, n+1
			}
		}
		if n == len(cells)-1 {
			rows[strings.TrimSpace(cells[0])] = sum / float64(n)
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if len(rows) != len(lrsTimes) {
		t.Errorf("%s has %d timed rows, %d pinned", timesFile, len(rows), len(lrsTimes))
	}
	for _, p := range lrsTimes {
		got, ok := rows[p.row]
		if !ok {
			t.Errorf("%s: no row %q", timesFile, p.row)
		} else if math.Abs(got-p.ms) > 0.001 {
			t.Errorf("%s: %q: mean %.3f ms, pinned %.3f", timesFile, p.row, got, p.ms)
		}
	}
}

// lrsMs is the pinned librealsense figure of a benchmarked block.
func lrsMs(b *testing.B, bench string) float64 {
	for _, p := range lrsTimes {
		if p.bench == bench {
			return p.ms
		}
	}
	b.Fatalf("no librealsense figure for %s", bench)
	return 0
}

// cpuTime is the CPU time (user and system) this process has used.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		panic(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// synthFrames records the synthetic camera's 1280x720 depth and color (the
// generator of TIMES.md's bag) and returns n depth frames, each with its
// color frame, and the device for extrinsics and the stereo baseline.
func synthFrames(b *testing.B, n int) (depth, color []*sensor.Frame, dev *playback.Device) {
	path := filepath.Join(b.TempDir(), "p.bag")
	v := &software.Video{Width: 1280, Height: 720, FPS: 30}
	synthrig.Bag(b, path, software.SyntheticConfig{Depth: v, Color: v, Frames: n})
	dev, err := playback.Open(path, &playback.Options{NonRealTime: true})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { dev.Close() })
	d := streamFrames(b, path, func(p *sensor.StreamProfile) bool { return p.Stream == sensor.StreamDepth })
	c := streamFrames(b, path, func(p *sensor.StreamProfile) bool { return p.Stream == sensor.StreamColor })
	for k, f := range d {
		if g, ok := c[k]; ok {
			depth, color = append(depth, f), append(color, g)
		}
	}
	if len(depth) == 0 {
		b.Fatal("no depth frame with a color frame")
	}
	return depth, color, dev
}

// BenchmarkBlocks runs each processing block of `rs-record dump
// --processing` as the dump sets it up on 1280x720 synthetic depth (and
// color) frames, and reports its wall and CPU milliseconds per frame beside
// librealsense's figure of TIMES.md and the ratio of CPU time to it.
func BenchmarkBlocks(b *testing.B) {
	depth, color, dev := synthFrames(b, 4)
	var baseline float32
	for _, s := range dev.Sensors() {
		if st, ok := s.(extensions.DepthStereoSensor); ok {
			baseline = st.StereoBaselineMM()
		}
	}
	set := func(bl interface {
		SetOption(sensor.Option, float32) error
	}, o sensor.Option, v float32) {
		if err := bl.SetOption(o, v); err != nil {
			b.Fatal(err)
		}
	}
	single := func(bl ...Block) func(d, c *sensor.Frame) error {
		return func(d, c *sensor.Frame) error {
			for _, x := range bl {
				if _, err := x.Process(d); err != nil {
					return err
				}
			}
			return nil
		}
	}
	var schemes []Block
	for k := range 10 {
		c := NewColorizer()
		set(c, sensor.OptionColorScheme, float32(k))
		set(c, sensor.OptionHistogramEqualizationEnabled, 0)
		set(c, sensor.OptionMinDistance, 0.3)
		set(c, sensor.OptionMaxDistance, 4)
		schemes = append(schemes, c)
	}
	var holes []Block
	for m := range 3 {
		h := NewHoleFilling()
		set(h, sensor.OptionHolesFill, float32(m))
		holes = append(holes, h)
	}
	th := NewThreshold()
	set(th, sensor.OptionMinDistance, 0.15)
	set(th, sensor.OptionMaxDistance, 4)
	hf := NewHoleFilling()
	set(hf, sensor.OptionHolesFill, 1)
	chain := []Block{NewDecimation(), NewDisparityTransform(true, baseline), NewSpatial(), NewTemporal(), NewDisparityTransform(false, baseline), hf}
	toColor, toDepth := NewAlign(sensor.StreamColor, dev), NewAlign(sensor.StreamDepth, dev)
	pc := NewPointCloud()
	e, err := dev.Extrinsics(depth[0].Profile, color[0].Profile)
	if err != nil {
		b.Fatal(err)
	}
	if err := pc.MapTo(color[0].Profile, e); err != nil {
		b.Fatal(err)
	}
	var pts *Points // the cloud CalculateInto reuses
	blocks := []struct {
		name string
		run  func(d, c *sensor.Frame) error
	}{
		{"align.to-color", func(d, c *sensor.Frame) error { _, err := toColor.Process(d, c); return err }},
		{"align.to-depth", func(d, c *sensor.Frame) error { _, err := toDepth.Process(d, c); return err }},
		{"pointcloud", func(d, c *sensor.Frame) error { _, err := pc.Calculate(d); return err }},
		{"pointcloud.into", func(d, c *sensor.Frame) error { pts, err = pc.CalculateInto(pts, d); return err }},
		{"colorize", single(NewColorizer())},
		{"colorize.schemes", single(schemes...)},
		{"spatial", single(NewSpatial())},
		{"temporal", single(NewTemporal())},
		{"hole-filling", single(holes...)},
		{"decimation", single(NewDecimation())},
		{"disparity", single(NewDisparityTransform(true, baseline))},
		{"threshold", single(th)},
		{"units", single(NewUnitsTransform())},
		{"chain", func(d, c *sensor.Frame) error {
			var err error
			for _, x := range chain {
				if d, err = x.Process(d); err != nil {
					return err
				}
			}
			return nil
		}},
	}
	for _, bl := range blocks {
		b.Run(bl.name, func(b *testing.B) {
			lrs := lrsMs(b, strings.TrimSuffix(bl.name, ".into"))
			b.ReportAllocs()
			i := 0
			cpu0 := cpuTime()
			for b.Loop() {
				if err := bl.run(depth[i%len(depth)], color[i%len(depth)]); err != nil {
					b.Fatal(err)
				}
				i++
			}
			cpu := float64(cpuTime()-cpu0) / float64(time.Millisecond) / float64(b.N)
			b.ReportMetric(float64(b.Elapsed())/float64(time.Millisecond)/float64(b.N), "ms/frame")
			b.ReportMetric(cpu, "cpu-ms/frame")
			b.ReportMetric(lrs, "lrs-ms/frame")
			b.ReportMetric(cpu/lrs, "ratio-to-lrs")
		})
	}
}
