package main

import (
	"fmt"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rsbag/rsbag/extensions"
	"github.com/rsbag/rsbag/internal/testsupport/synthrig"
	"github.com/rsbag/rsbag/playback"
	"github.com/rsbag/rsbag/sensor"
	"github.com/rsbag/rsbag/software"
)

// benchBag records a 720p depth and color bag of 1 s (60 frames, 138 MB).
func benchBag(b *testing.B) string {
	path := filepath.Join(b.TempDir(), "720p.bag")
	synthrig.Bag(b, path, software.SyntheticConfig{Depth: &software.Video{Width: 1280, Height: 720, FPS: 30},
		Color: &software.Video{Width: 1280, Height: 720, FPS: 30}, Frames: 30, Speed: 0})
	return path
}

// BenchmarkFrameBoundary plays the same bag, touching every frame's data,
// through the C API (testdata/bench.c) and through the Go API, and reports
// the time per frame of each and their difference: the cost of the
// boundary (a handle, the pinning, the C callback and the calls back for
// data, size and number), and the time of one call of a frame accessor
// from C.
func BenchmarkFrameBoundary(b *testing.B) {
	bag := benchBag(b)
	bin := program(b, "bench.c")
	var cNs, goNs, frames, callNs float64
	for range b.N {
		var n, ns, callPs, sum int64
		if _, err := fmt.Sscan(run(b, bin, bag), &n, &ns, &callPs, &sum); err != nil {
			b.Fatal(err)
		}
		callNs += float64(callPs) / 1000
		cNs += float64(ns) / float64(n)
		gn, gns := goPass(b, bag)
		if gn != n {
			b.Fatalf("C API %d frames, Go API %d", n, gn)
		}
		goNs += float64(gns) / float64(gn)
		frames = float64(n)
	}
	nb := float64(b.N)
	b.ReportMetric(frames, "frames")
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
