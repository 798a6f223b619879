package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/rsbag/rsbag/extensions"
	"github.com/rsbag/rsbag/internal/testsupport/benchbag"
	"github.com/rsbag/rsbag/internal/testsupport/synthrig"
	"github.com/rsbag/rsbag/playback"
	"github.com/rsbag/rsbag/sensor"
	"github.com/rsbag/rsbag/software"
)

// benchBag writes the benchmarks' shared bag (benchbag.Write: 1280x720
// depth and color at 30 fps, chunks without compression) of 1 GiB of
// frame data and returns its path and size.
func benchBag(b *testing.B) (string, int64) {
	path := filepath.Join(b.TempDir(), "720p.bag")
	benchbag.Write(b, path, "none", 1<<30)
	st, err := os.Stat(path)
	if err != nil {
		b.Fatal(err)
	}
	return path, st.Size()
}

// BenchmarkFrameBoundary plays the same 1 GiB bag, touching every frame's
// data, through the C API (testdata/bench.c) and through the Go API, and
// reports the time per frame and the bag's bytes per second of each, their
// difference per frame: the cost of the boundary (a handle, the pinning,
// the C callback and the calls back for data, size and number), and the
// time of one call of a frame accessor from C.
func BenchmarkFrameBoundary(b *testing.B) {
	bag, size := benchBag(b)
	bin := program(b, "bench.c")
	var cNs, goNs, cTotal, goTotal, frames, callNs float64
	for range b.N {
		var n, ns, callPs, sum int64
		if _, err := fmt.Sscan(run(b, bin, bag), &n, &ns, &callPs, &sum); err != nil {
			b.Fatal(err)
		}
		callNs += float64(callPs) / 1000
		cNs += float64(ns) / float64(n)
		cTotal += float64(ns)
		gn, gns := goPass(b, bag)
		if gn != n {
			b.Fatalf("C API %d frames, Go API %d", n, gn)
		}
		goNs += float64(gns) / float64(gn)
		goTotal += float64(gns)
		frames = float64(n)
	}
	nb := float64(b.N)
	b.ReportMetric(frames, "frames")
	b.ReportMetric(float64(size)/1e6, "MB-bag")
	b.ReportMetric(float64(size)*nb/(cTotal/1e3), "MB/s-C")
	b.ReportMetric(float64(size)*nb/(goTotal/1e3), "MB/s-Go")
	b.ReportMetric(cNs/nb, "ns/frame-C")
	b.ReportMetric(goNs/nb, "ns/frame-Go")
	b.ReportMetric((cNs-goNs)/nb, "ns/frame-boundary")
	b.ReportMetric(callNs/nb, "ns/call")
}

// goPass plays the bag as bench.c does, through the Go API.
func goPass(b *testing.B, bag string) (frames, ns int64) {
	dev, err := playback.Open(bag, &playback.Options{NonRealTime: true})
	if err != nil {
		b.Fatal(err)
	}
	defer dev.Close()
	stopped := extensions.Stopped(dev)
	for _, s := range dev.Sensors() {
		if err := s.Open(s.Profiles()...); err != nil {
			b.Fatal(err)
		}
	}
	var n, sum atomic.Int64
	t0 := time.Now()
	for _, s := range dev.Sensors() {
		if err := s.Start(sensor.HandlerFunc(func(f *sensor.Frame) {
			sum.Add(int64(f.Data[len(f.Data)-1]) + int64(f.Number))
			n.Add(1)
		})); err != nil {
			b.Fatal(err)
		}
	}
	<-stopped
	ns = time.Since(t0).Nanoseconds()
	for _, s := range dev.Sensors() {
		s.Stop()
		s.Close()
	}
	return n.Load(), ns
}

// BenchmarkProcessingBlocks runs testdata/proc.c (every processing block
// on every depth frame, through rs2_process_frame and a frame queue) on 30
// frames of the synthetic camera's 1280x720 depth and color, and reports
// the CPU milliseconds per depth frame of each block through the C
// boundary (PROC_TIMES: the whole process's CPU clock around each call,
// every thread of the library included), and the whole program's CPU
// seconds and peak resident megabytes. With LIBREALSENSE_DIR naming a
// directory that holds librealsense 2.56.5's own librealsense2.so.2.56,
// the same program runs against it too, and each figure is also reported
// for librealsense and as the ratio of this library's to it.
func BenchmarkProcessingBlocks(b *testing.B) {
	bag := filepath.Join(b.TempDir(), "720p.bag")
	v := &software.Video{Width: 1280, Height: 720, FPS: 30}
	synthrig.Bag(b, bag, software.SyntheticConfig{Depth: v, Color: v, Frames: 30})
	bin := program(b, "proc.c")
	lrsDir := os.Getenv("LIBREALSENSE_DIR")
	var ours, lrs procTimes
	for range b.N {
		ours.add(timeProc(b, bin, filepath.Dir(bin), bag))
		if lrsDir != "" {
			lrs.add(timeProc(b, bin, lrsDir, bag))
		}
	}
	nb := float64(b.N)
	for _, k := range slices.Sorted(maps.Keys(ours.ms)) {
		b.ReportMetric(ours.ms[k]/nb, "cpu-ms/frame-"+k)
		if lrsDir != "" {
			b.ReportMetric(lrs.ms[k]/nb, "lrs-cpu-ms/frame-"+k)
			b.ReportMetric(ours.ms[k]/lrs.ms[k], "ratio-"+k)
		}
	}
	b.ReportMetric(ours.cpu/nb, "cpu-s")
	b.ReportMetric(ours.rss/nb, "MB-rss")
	if lrsDir != "" {
		b.ReportMetric(lrs.cpu/nb, "lrs-cpu-s")
		b.ReportMetric(lrs.rss/nb, "lrs-MB-rss")
		b.ReportMetric(ours.cpu/lrs.cpu, "ratio-cpu")
	}
}

// procTimes sums the figures of runs of testdata/proc.c: CPU milliseconds
// per depth frame by block, the program's CPU seconds and peak resident
// megabytes.
type procTimes struct {
	ms       map[string]float64
	cpu, rss float64
}

func (p *procTimes) add(q procTimes) {
	if p.ms == nil {
		p.ms = map[string]float64{}
	}
	for k, v := range q.ms {
		p.ms[k] += v
	}
	p.cpu += q.cpu
	p.rss += q.rss
}

// timeProc runs proc.c's bin on bag with the library in lib and
// PROC_TIMES set, and returns its figures.
func timeProc(b *testing.B, bin, lib, bag string) procTimes {
	b.Helper()
	cmd := exec.Command(bin, bag)
	cmd.Env = append(os.Environ(), "LD_LIBRARY_PATH="+lib, "PROC_TIMES=1")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if out, err := cmd.Output(); err != nil {
		b.Fatalf("%s %s with %s: %v\n%s\nstderr:\n%s", filepath.Base(bin), bag, lib, err, out, stderr.String())
	}
	var fig map[string]float64
	if err := json.Unmarshal(stderr.Bytes(), &fig); err != nil {
		b.Fatalf("%s: PROC_TIMES line: %v\n%s", filepath.Base(bin), err, stderr.String())
	}
	if fig["frames"] == 0 {
		b.Fatalf("%s: no depth frame processed", filepath.Base(bin))
	}
	delete(fig, "frames")
	st := cmd.ProcessState
	var rss float64
	if ru, ok := st.SysUsage().(*syscall.Rusage); ok {
		rss = float64(ru.Maxrss) / 1024 // kilobytes on Linux
	}
	return procTimes{ms: fig, cpu: (st.UserTime() + st.SystemTime()).Seconds(), rss: rss}
}
