package main

import (
	"fmt"
	"io"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/rsbag/rsbag/internal/layout"
	"github.com/rsbag/rsbag/internal/testsupport/synthrig"
	"github.com/rsbag/rsbag/internal/testsupport/testbags"
	"github.com/rsbag/rsbag/rosbag"
	"github.com/rsbag/rsbag/sensor"
	"github.com/rsbag/rsbag/software"
)

// timelineOf scans the timeline of the bag at path.
func timelineOf(t testing.TB, path string) *timeline {
	t.Helper()
	r, err := rosbag.Open(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	tl, err := scanTimeline(r)
	if err != nil {
		t.Fatal(err)
	}
	return tl
}

// gapBag records a small synthetic bag and rewrites it with its bag time
// stretched or shrunk so that its 40 frames span 0.1 s, with a gap of 10 s
// in the middle, as a recording paused for a while.
func gapBag(t *testing.T, dir string) (string, *timeline) {
	t.Helper()
	src := filepath.Join(dir, "src.bag")
	if r := rsRecord(t, "record", "--synthetic", "--speed", "0", "--frames", "10", "--depth", "424x240@30",
		"--color", "424x240@30", "-f", src); r.code != 0 {
		t.Fatalf("record: exit %d\n%s", r.code, r.stderr)
	}
	tl := timelineOf(t, src)
	mid := tl.first + (tl.last-tl.first)/2
	scale := 100e6 / float64(tl.last-tl.first)
	out := filepath.Join(dir, "gap.bag")
	testbags.Copy(t, src, out, nil, func(m *rosbag.Message) bool {
		if m.Time >= tl.first {
			gap := rosbag.Time(0)
			if m.Time > mid {
				gap = 10e9
			}
			m.Time = tl.first + rosbag.Time(float64(m.Time-tl.first)*scale) + gap
		}
		return true
	})
	gtl := timelineOf(t, out)
	if gtl.first < rosbag.Time(layout.SamplesStartNs) || gtl.frames != 40 || gtl.last-gtl.first < 10e9 {
		t.Fatalf("the bag with a gap has %d frames from %v to %v, want 40 over more than 10 s", gtl.frames, gtl.first, gtl.last)
	}
	return out, gtl
}

// TestEditSplitGapsAndLimit: split writes no part for a window of bag time
// without frames and numbers the parts it writes without gaps; a duration
// or size that would cut the bag into more parts than it has frames is a
// usage error, decided before anything is written, that says how many
// parts it would make and the smallest sensible value — which works.
func TestEditSplitGapsAndLimit(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	bag, tl := gapBag(t, dir)
	frames := tl.frames
	var want []string
	for _, f := range dumpLines(t, bag)["frame"] {
		want = append(want, frameKey(f))
	}
	if len(want) != frames {
		t.Fatalf("dump shows %d frames, the index %d", len(want), frames)
	}

	// 1 s windows over about 10.1 s of bag time: 11 windows, frames in
	// the first and the last only.
	prefix := filepath.Join(dir, "sec")
	if r := rsRecord(t, "edit", "split", "--every", "1s", "-o", prefix, bag); r.code != 0 {
		t.Fatalf("split --every 1s: exit %d\n%s", r.code, r.stderr)
	}
	parts, _ := filepath.Glob(prefix + "_*.bag")
	if len(parts) != 2 {
		t.Errorf("split --every 1s of a bag with frames in 2 of its 1 s windows: %d parts %v, want 2", len(parts), parts)
	}
	var got []string
	for i := range parts {
		p := fmt.Sprintf("%s_%d.bag", prefix, i)
		fr := dumpLines(t, p)["frame"]
		if len(fr) == 0 {
			t.Errorf("%s: no frames", p)
		}
		for _, f := range fr {
			got = append(got, frameKey(f))
		}
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("the parts' frames (%d) are not the original's (%d)", len(got), len(want))
	}

	// 100 ms windows: over 100 of them for 40 frames.
	prefix = filepath.Join(dir, "ms")
	r := rsRecord(t, "edit", "split", "--every", "100ms", "-o", prefix, bag)
	n := (tl.last-tl.first)/100e6 + 1
	if r.code != 2 || !strings.Contains(r.stderr, fmt.Sprintf("%d parts", n)) || !strings.Contains(r.stderr, fmt.Sprintf("%d frames", frames)) {
		t.Fatalf("split --every 100ms: exit %d\n%s; want 2, naming %d parts and %d frames", r.code, r.stderr, n, frames)
	}
	if parts, _ := filepath.Glob(prefix + "*"); len(parts) != 0 {
		t.Errorf("a refused split wrote %v", parts)
	}
	m := regexp.MustCompile(`--every (\S+)`).FindAllStringSubmatch(r.stderr, -1)
	if len(m) < 2 {
		t.Fatalf("the usage error suggests no value: %s", r.stderr)
	}
	least := m[len(m)-1][1]
	if r := rsRecord(t, "edit", "split", "--every", least, "-o", prefix, bag); r.code != 0 {
		t.Errorf("split --every %s (the suggested value): exit %d\n%s", least, r.code, r.stderr)
	}
}

// TestEditSplitSizeLimit: a size so small that the parts would outnumber
// the frames (here the metadata of each frame is 1 ns after it, so that
// there are twice as many message times as frames) is a usage error that
// names the smallest sensible size; with it every part holds frames.
func TestEditSplitSizeLimit(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	gap, tl := gapBag(t, dir)
	bag := filepath.Join(dir, "apart.bag")
	testbags.Copy(t, gap, bag, nil, func(m *rosbag.Message) bool {
		if layout.Parse(m.Conn.Topic).Kind.IsMetadata() {
			m.Time++
		}
		return true
	})
	prefix := filepath.Join(dir, "b")
	r := rsRecord(t, "edit", "split", "--every", "1B", "-o", prefix, bag)
	if r.code != 2 || !strings.Contains(r.stderr, fmt.Sprintf("%d frames", tl.frames)) {
		t.Fatalf("split --every 1B: exit %d\n%s; want 2 naming the %d frames", r.code, r.stderr, tl.frames)
	}
	if parts, _ := filepath.Glob(prefix + "*"); len(parts) != 0 {
		t.Errorf("a refused split wrote %v", parts)
	}
	m := regexp.MustCompile(`--every (\S+) or more`).FindStringSubmatch(r.stderr)
	if m == nil {
		t.Fatalf("the usage error suggests no size: %s", r.stderr)
	}
	if r := rsRecord(t, "edit", "split", "--every", m[1], "-o", prefix, bag); r.code != 0 {
		t.Fatalf("split --every %s (the suggested size): exit %d\n%s", m[1], r.code, r.stderr)
	}
	parts, _ := filepath.Glob(prefix + "_*.bag")
	total := 0
	for i := range parts {
		n := len(dumpLines(t, fmt.Sprintf("%s_%d.bag", prefix, i))["frame"])
		if n == 0 {
			t.Errorf("part %d of %d has no frames", i, len(parts))
		}
		total += n
	}
	if total != tl.frames {
		t.Errorf("the %d parts hold %d frames, want %d", len(parts), total, tl.frames)
	}
}

// BenchmarkEditSplitHeap splits a bag of 2,000 small frames into 10 parts
// and into as many parts as it has frames: the peak heap (sampled every
// millisecond) is the same for both, what one part needs, not growing with
// the number of parts.
func BenchmarkEditSplitHeap(b *testing.B) {
	bag := filepath.Join(b.TempDir(), "small.bag")
	synthrig.Bag(b, bag, software.SyntheticConfig{
		Depth:    &software.Video{Width: 64, Height: 48, FPS: 90, Format: sensor.FormatZ16},
		AccelFPS: 400,
		GyroFPS:  400,
		Duration: 1200 * time.Millisecond,
	})
	tl := timelineOf(b, bag)
	span := time.Duration(tl.last - tl.first)
	for _, parts := range []int{10, tl.frames} {
		every := time.Duration(roundUp2(int64(span)/int64(parts) + 1))
		b.Run(fmt.Sprintf("parts=%d", parts), func(b *testing.B) {
			prefix := filepath.Join(b.TempDir(), "part")
			var peak uint64
			for b.Loop() {
				stop, done := make(chan struct{}), make(chan uint64)
				go func() {
					var ms runtime.MemStats
					var p uint64
					tick := time.NewTicker(time.Millisecond)
					defer tick.Stop()
					for {
						runtime.ReadMemStats(&ms)
						p = max(p, ms.HeapInuse)
						select {
						case <-stop:
							done <- p
							return
						case <-tick.C:
						}
					}
				}()
				e := &env{stdout: io.Discard, stderr: io.Discard}
				status := run([]string{"edit", "split", "--every", every.String(), "-o", prefix, bag}, e)
				close(stop)
				peak = max(peak, <-done)
				if status != 0 {
					b.Fatalf("split --every %v: exit %d", every, status)
				}
			}
			n, _ := filepath.Glob(prefix + "_*.bag")
			b.ReportMetric(float64(len(n)), "parts")
			b.ReportMetric(float64(peak)/(1<<20), "peak-heap-MiB")
		})
	}
}
