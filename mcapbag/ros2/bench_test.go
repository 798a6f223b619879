package ros2

import (
	"context"
	"flag"
	"io"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/rsbag/rsbag/internal/benchbag"
	"github.com/rsbag/rsbag/mcapbag"
	"github.com/rsbag/rsbag/playback"
)

var benchSize = flag.Int64("ros2.benchsize", 1<<30, "bytes of frame data in the benchmark bag")

var bench struct {
	once       sync.Once
	dir, bag   string
	frameBytes int64
}

func benchBag(b *testing.B) string {
	bench.once.Do(func() {
		dir, err := os.MkdirTemp("", "ros2-bench")
		if err != nil {
			b.Fatal(err)
		}
		bench.dir = dir
		bench.bag = filepath.Join(dir, "bench.bag")
		bench.frameBytes = benchbag.Write(b, bench.bag, "lz4", *benchSize)
	})
	if bench.bag == "" {
		b.Fatal("no benchmark bag")
	}
	return bench.bag
}

func TestMain(m *testing.M) {
	code := m.Run()
	if bench.dir != "" {
		os.RemoveAll(bench.dir)
	}
	os.Exit(code)
}

// BenchmarkExport measures MB/s of frame data exporting the ≥ 1 GiB bag of
// 1280x720 depth+color (LZ4 chunks) to the ros2 profile with each chunk
// compression, the output discarded so that the figure is the export's
// and not the disk's.
func BenchmarkExport(b *testing.B) {
	for _, c := range []mcapbag.Compression{mcapbag.None, mcapbag.LZ4, mcapbag.Zstd} {
		b.Run(string(c), func(b *testing.B) {
			bag := benchBag(b)
			b.SetBytes(bench.frameBytes)
			b.ResetTimer()
			for range b.N {
				dev, err := playback.Open(bag, nil)
				if err != nil {
					b.Fatal(err)
				}
				if _, err := Export(context.Background(), io.Discard, dev, &Options{Compression: c}); err != nil {
					b.Fatal(err)
				}
				dev.Close()
			}
		})
	}
}
