package mcapbag

import (
	"flag"
	"io"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/rsbag/rsbag/internal/benchbag"
	"github.com/rsbag/rsbag/rosbag"
)

var benchSize = flag.Int64("mcapbag.benchsize", 1<<30, "bytes of frame data in the benchmark bag")

var bench struct {
	once        sync.Once
	dir         string
	bag, mcap   string
	frameBytes  int64
	bagBytes    int64
	mcapCreated bool
}

// benchFiles writes the 1 GiB benchmark bag (1280x720 depth+color, LZ4
// chunks as librealsense writes them) and its uncompressed MCAP export.
func benchFiles(b *testing.B) (bag, mc string) {
	bench.once.Do(func() {
		dir, err := os.MkdirTemp("", "mcapbag-bench")
		if err != nil {
			b.Fatal(err)
		}
		bench.dir = dir
		bench.bag = filepath.Join(dir, "bench.bag")
		bench.frameBytes = benchbag.Write(b, bench.bag, "lz4", *benchSize)
		st, _ := os.Stat(bench.bag)
		bench.bagBytes = st.Size()
		bench.mcap = filepath.Join(dir, "bench.mcap")
		f, err := os.Create(bench.mcap)
		if err != nil {
			b.Fatal(err)
		}
		r, err := rosbag.Open(bench.bag, nil)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := Export(f, r, &ExportOptions{Compression: LZ4}); err != nil {
			b.Fatal(err)
		}
		r.Close()
		if err := f.Close(); err != nil {
			b.Fatal(err)
		}
	})
	if bench.bag == "" {
		b.Fatal("no benchmark bag")
	}
	return bench.bag, bench.mcap
}

func TestMain(m *testing.M) {
	code := m.Run()
	if bench.dir != "" {
		os.RemoveAll(bench.dir)
	}
	os.Exit(code)
}

// BenchmarkExport measures MB/s of message data: reading every message of
// the ≥ 1 GiB bag ("read", the raw read speed), exporting it to MCAP with
// each compression (output discarded, so that the figure is the
// conversion's and not the disk's), and importing the LZ4 MCAP into a bag
// file.
func BenchmarkExport(b *testing.B) {
	b.Run("read", func(b *testing.B) {
		bag, _ := benchFiles(b)
		b.SetBytes(bench.frameBytes)
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			r, err := rosbag.Open(bag, nil)
			if err != nil {
				b.Fatal(err)
			}
			it := r.Messages(nil)
			n := 0
			for it.Next() {
				n += len(it.Message().Data)
			}
			if err := it.Err(); err != nil {
				b.Fatal(err)
			}
			r.Close()
		}
	})
	for _, c := range []Compression{None, LZ4, Zstd} {
		b.Run("export-"+string(c), func(b *testing.B) {
			bag, _ := benchFiles(b)
			b.SetBytes(bench.frameBytes)
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				r, err := rosbag.Open(bag, nil)
				if err != nil {
					b.Fatal(err)
				}
				if _, err := Export(io.Discard, r, &ExportOptions{Compression: c}); err != nil {
					b.Fatal(err)
				}
				r.Close()
			}
		})
	}
	b.Run("import", func(b *testing.B) {
		_, mc := benchFiles(b)
		b.SetBytes(bench.frameBytes)
		b.ResetTimer()
		out := filepath.Join(bench.dir, "imported.bag")
		for i := 0; i < b.N; i++ {
			f, err := os.Open(mc)
			if err != nil {
				b.Fatal(err)
			}
			w, err := rosbag.Create(out, nil)
			if err != nil {
				b.Fatal(err)
			}
			if _, err := Import(w, f); err != nil {
				b.Fatal(err)
			}
			if err := w.Close(); err != nil {
				b.Fatal(err)
			}
			f.Close()
		}
	})
}
