package mcapbag

import (
	"flag"
	"io"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/rsbag/rsbag/internal/testsupport/benchbag"
	"github.com/rsbag/rsbag/rosbag"
)

var benchSize = flag.Int64("mcapbag.benchsize", 1<<30, "bytes of frame data in the benchmark bag")

var bench struct {
	once       sync.Once
	mcap       string
	frameBytes int64
}

// benchFiles returns the shared 1 GiB benchmark bag (1280x720 depth+color,
// LZ4 chunks as librealsense writes them) and its MCAP export (LZ4
// chunks), written once.
func benchFiles(b *testing.B) (bag, mc string) {
	bag, frameBytes := benchbag.Shared(b, "lz4", *benchSize)
	bench.once.Do(func() {
		bench.frameBytes = frameBytes
		bench.mcap = exportFile(b, bag, benchbag.Dir(b), &ExportOptions{Compression: LZ4})
	})
	if bench.mcap == "" {
		b.Fatal("no benchmark MCAP file")
	}
	return bag, bench.mcap
}

func TestMain(m *testing.M) { benchbag.Main(m) }

// BenchmarkExport measures MB/s of message data: reading every message of
// the ≥ 1 GiB bag ("read", the raw read speed), exporting it to MCAP with
// each compression (output discarded, so that the figure is the
// conversion's and not the disk's), and importing the LZ4 MCAP into a bag
// file with LZ4 chunks (rs-record import's default) and without
// compression. Each export and import iteration is preceded by an untimed read
// pass over the bag, and pct-of-read reports the conversion's speed as a
// percentage of those reads' speed: both measured in the same run, so that
// this machine's drift from run to run (10–40%) cancels out of the ratio.
func BenchmarkExport(b *testing.B) {
	b.Run("read", func(b *testing.B) {
		bag, _ := benchFiles(b)
		b.SetBytes(bench.frameBytes)
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			readPass(b, bag)
		}
	})
	for _, c := range []Compression{None, LZ4, Zstd} {
		b.Run("export-"+string(c), func(b *testing.B) {
			bag, _ := benchFiles(b)
			againstRead(b, bag, func() {
				r, err := rosbag.Open(bag, nil)
				if err != nil {
					b.Fatal(err)
				}
				defer r.Close()
				if _, err := Export(io.Discard, r, &ExportOptions{Compression: c}); err != nil {
					b.Fatal(err)
				}
			})
		})
	}
	for _, c := range []string{"lz4", "none"} {
		b.Run("import-"+c, func(b *testing.B) {
			bag, mc := benchFiles(b)
			out := filepath.Join(benchbag.Dir(b), "imported.bag")
			againstRead(b, bag, func() {
				f, err := os.Open(mc)
				if err != nil {
					b.Fatal(err)
				}
				defer f.Close()
				w, err := rosbag.Create(out, &rosbag.WriterOptions{Compression: c})
				if err != nil {
					b.Fatal(err)
				}
				if _, err := Import(w, f); err != nil {
					b.Fatal(err)
				}
				if err := w.Close(); err != nil {
					b.Fatal(err)
				}
			})
		})
	}
}

// readPass reads every message of the bag at path.
func readPass(b *testing.B, path string) {
	r, err := rosbag.Open(path, nil)
	if err != nil {
		b.Fatal(err)
	}
	defer r.Close()
	it := r.Messages(nil)
	n := 0
	for it.Next() {
		n += len(it.Message().Data)
	}
	if err := it.Err(); err != nil {
		b.Fatal(err)
	}
	if int64(n) < bench.frameBytes {
		b.Fatalf("read %d bytes of messages, want at least the %d of the frames", n, bench.frameBytes)
	}
}

// againstRead times run b.N times, each after an untimed read pass of the
// bag, and reports pct-of-read: run's speed as a percentage of the reads'.
func againstRead(b *testing.B, bag string, run func()) {
	b.SetBytes(bench.frameBytes)
	b.ResetTimer()
	var read time.Duration
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		t0 := time.Now()
		readPass(b, bag)
		read += time.Since(t0)
		b.StartTimer()
		run()
	}
	b.ReportMetric(100*read.Seconds()/b.Elapsed().Seconds(), "pct-of-read")
}
