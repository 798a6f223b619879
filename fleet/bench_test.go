package fleet_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/apache/beam/sdks/v2/go/pkg/beam/x/beamx"

	"github.com/rsbag/rsbag/fleet"
)

// BenchmarkValidate validates 12 synthetic recordings (848x480 depth and
// 1280x720 color at 30 fps with IMU, 2 s each, LZ4) with rs-fleet's
// pipeline on the local runner with 2 workers, and with a serial loop
// running rs-record info on each, and reports bags/min and MB/s of bags.
func BenchmarkValidate(b *testing.B) {
	// 12 bags of 60 frames per stream (about 0.7 MB each: the per-bag
	// start-up dominates) and of 900 (about 10 MB each).
	for _, frames := range []int{60, 900} {
		b.Run(fmt.Sprintf("%d-frames", frames), func(b *testing.B) { benchmarkValidate(b, frames) })
	}
}

func benchmarkValidate(b *testing.B, frames int) {
	dir := b.TempDir()
	var bags []string
	var size int64
	for i := range 12 {
		bag := filepath.Join(dir, fmt.Sprintf("rec-%02d.bag", i))
		run(b, rsRecord, "record", "--synthetic", "--speed", "0", "-t", "0", "--frames", fmt.Sprint(frames), "-f", bag)
		st, err := os.Stat(bag)
		if err != nil {
			b.Fatal(err)
		}
		bags, size = append(bags, bag), size+st.Size()
	}
	report := func(b *testing.B) {
		s := b.Elapsed().Seconds()
		n := float64(b.N * len(bags))
		b.ReportMetric(n/s*60, "bags/min")
		b.ReportMetric(float64(b.N)*float64(size)/1e6/s, "MB/s")
		b.ReportMetric(0, "ns/op")
	}
	b.Run("pipeline-2-workers", func(b *testing.B) {
		tasks := fleet.Stems(bags)
		for i := range tasks {
			st, _ := os.Stat(tasks[i].Bag)
			tasks[i].Size = st.Size()
		}
		for b.Loop() {
			_, rows, err := fleet.Run(context.Background(), fleet.Job{Mode: fleet.Validate, Output: b.TempDir()}, tasks, 2, beamx.Run)
			if err != nil {
				b.Fatal(err)
			}
			for _, r := range rows {
				if r.Verdict != fleet.VerdictOK {
					b.Fatalf("%s: %s %s", r.Bag, r.Verdict, r.Error)
				}
			}
		}
		report(b)
	})
	b.Run("serial-rs-record-info", func(b *testing.B) {
		for b.Loop() {
			for _, bag := range bags {
				run(b, rsRecord, "info", "--json", bag)
			}
		}
		report(b)
	})
}
