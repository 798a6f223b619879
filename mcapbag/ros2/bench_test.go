package ros2

import (
	"context"
	"flag"
	"io"
	"testing"

	"github.com/rsbag/rsbag/internal/testsupport/benchbag"
	"github.com/rsbag/rsbag/mcapbag"
	"github.com/rsbag/rsbag/playback"
)

var benchSize = flag.Int64("ros2.benchsize", 1<<30, "bytes of frame data in the benchmark bag")

// benchBag returns the shared ≥ 1 GiB benchmark bag (LZ4 chunks).
func benchBag(b *testing.B) (string, int64) {
	return benchbag.Shared(b, "lz4", *benchSize)
}

func TestMain(m *testing.M) { benchbag.Main(m) }

// BenchmarkExport measures MB/s of frame data exporting the ≥ 1 GiB bag of
// 1280x720 depth+color (LZ4 chunks) to the ros2 profile with each chunk
// compression, the output discarded so that the figure is the export's
// and not the disk's.
func BenchmarkExport(b *testing.B) {
	for _, c := range []mcapbag.Compression{mcapbag.None, mcapbag.LZ4, mcapbag.Zstd} {
		b.Run(string(c), func(b *testing.B) {
			bag, frameBytes := benchBag(b)
			b.SetBytes(frameBytes)
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
