package rosbag

import (
	"encoding/binary"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"
)

// realFrames decodes the sensor_msgs/Image messages of the real D435 bag and
// tiles each frame to 1280x720 (same bytes per pixel).
var realFrames = sync.OnceValues(func() ([][]byte, error) {
	r, err := Open("../testdata/librealsense/real/single_depth_color_640x480.bag", nil)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	var frames [][]byte
	it := r.Messages(&Query{Topics: []string{"/device_0/sensor_0/Depth_0/image/data", "/device_0/sensor_1/Color_0/image/data"}})
	for it.Next() {
		d := it.Message().Data
		// Image: header(seq, stamp, frame_id) height width encoding is_bigendian step data[]
		p := 12
		p += 4 + int(binary.LittleEndian.Uint32(d[p:]))
		h := int(binary.LittleEndian.Uint32(d[p:]))
		w := int(binary.LittleEndian.Uint32(d[p+4:]))
		p += 8
		p += 4 + int(binary.LittleEndian.Uint32(d[p:]))
		p++
		step := int(binary.LittleEndian.Uint32(d[p:]))
		p += 4
		n := int(binary.LittleEndian.Uint32(d[p:]))
		pix := d[p+4 : p+4+n]
		bpp := step / w
		out := make([]byte, 0, 1280*720*bpp)
		for y := 0; y < 720; y++ {
			row := pix[(y%h)*step : (y%h)*step+step]
			for x := 0; x < 1280; x += w {
				out = append(out, row[:min(w, 1280-x)*bpp]...)
			}
		}
		frames = append(frames, out)
	}
	return frames, it.Err()
})

// imageMessages returns 1 MiB messages cut from the tiled real frames.
func imageMessages(b *testing.B) [][]byte {
	frames, err := realFrames()
	if err != nil || len(frames) == 0 {
		b.Fatal(err)
	}
	var msgs [][]byte
	for _, f := range frames {
		for off := 0; off+1<<20 <= len(f); off += 1 << 19 {
			msgs = append(msgs, f[off:off+1<<20])
		}
	}
	return msgs
}

func benchWrite(b *testing.B, opts *WriterOptions) {
	msgs := imageMessages(b)
	path := filepath.Join(b.TempDir(), "bench.bag")
	w, err := Create(path, opts)
	if err != nil {
		b.Fatal(err)
	}
	c, _ := w.AddConnection("/device_0/sensor_0/Depth_0/image/data", "sensor_msgs/Image", "060021388200f6f0f447d0fcd9c64743", "", nil)
	b.SetBytes(1 << 20)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if err := w.WriteMessage(c, Time(i+1), msgs[i%len(msgs)]); err != nil {
			b.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		b.Fatal(err)
	}
	b.StopTimer()
	b.ReportMetric(float64(w.Size())/float64(b.N<<20), "stored/raw")
}

func BenchmarkWriterNone(b *testing.B) {
	benchWrite(b, &WriterOptions{Compression: "none", FlushInterval: -1})
}

func BenchmarkWriterLZ4(b *testing.B) {
	benchWrite(b, &WriterOptions{Compression: "lz4", Workers: 1, FlushInterval: -1})
}

func BenchmarkWriterLZ4Parallel(b *testing.B) {
	benchWrite(b, &WriterOptions{Compression: "lz4", Workers: 2, FlushInterval: -1})
}

func BenchmarkWriterSmallMessages(b *testing.B) {
	path := filepath.Join(b.TempDir(), "small.bag")
	w, err := Create(path, nil)
	if err != nil {
		b.Fatal(err)
	}
	c, _ := w.AddConnection("/device_0/sensor_0/Depth_0/image/metadata", "diagnostic_msgs/KeyValue", "cf57fdc6617a881a88c16e768132149c", "", nil)
	msg := make([]byte, 100)
	for i := range msg {
		msg[i] = byte('a' + i%26)
	}
	b.SetBytes(100)
	b.ReportAllocs()
	b.ResetTimer()
	start := time.Now()
	for i := 0; i < b.N; i++ {
		binary.LittleEndian.PutUint32(msg, uint32(i))
		if err := w.WriteMessage(c, Time(i+1), msg); err != nil {
			b.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		b.Fatal(err)
	}
	b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "msgs/s")
}

// benchBag writes a bag of n 1 MiB real-frame messages.
func benchBag(b *testing.B, path, comp string, n int) {
	msgs := imageMessages(b)
	w, err := Create(path, &WriterOptions{Compression: comp, FlushInterval: -1})
	if err != nil {
		b.Fatal(err)
	}
	c, _ := w.AddConnection("/device_0/sensor_0/Depth_0/image/data", "sensor_msgs/Image", "060021388200f6f0f447d0fcd9c64743", "", nil)
	for i := 0; i < n; i++ {
		if err := w.WriteMessage(c, Time(i+1)*33_000_000, msgs[i%len(msgs)]); err != nil {
			b.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		b.Fatal(err)
	}
}

// openReadBench opens, with opts, a bag of 64 1 MiB image messages in LZ4
// chunks written for the benchmark; it is closed when the benchmark ends.
func openReadBench(b *testing.B, opts *ReaderOptions) *Reader {
	path := filepath.Join(b.TempDir(), "read.bag")
	benchBag(b, path, "lz4", 64)
	r, err := Open(path, opts)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { r.Close() })
	return r
}

// BenchmarkReaderIndexed reads an LZ4 bag; one op is one 1 MiB message, so
// allocs/op is per message.
func BenchmarkReaderIndexed(b *testing.B) {
	r := openReadBench(b, nil)
	it := r.Messages(nil)
	b.SetBytes(1 << 20)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		nextLooping(b, it)
	}
}

// BenchmarkReaderSeek seeks to random times in a ≥ 1 GB bag and reads the
// message there.
func BenchmarkReaderSeek(b *testing.B) {
	dir := os.Getenv("ROSBAG_BENCH_DIR")
	if dir == "" {
		dir = b.TempDir()
	}
	path := filepath.Join(dir, "big.bag")
	const n = 1100 // 1100 MiB
	benchBag(b, path, "none", n)
	defer os.Remove(path)
	r, err := Open(path, nil)
	if err != nil {
		b.Fatal(err)
	}
	defer r.Close()
	if r.Info().Size < 1<<30 {
		b.Fatalf("bag of %d bytes", r.Info().Size)
	}
	it := r.Messages(nil)
	rng := rand.New(rand.NewPCG(1, 2))
	b.ReportAllocs()
	b.ResetTimer()
	start := time.Now()
	for i := 0; i < b.N; i++ {
		t := Time(rng.IntN(n)+1) * 33_000_000
		if err := it.Seek(t); err != nil {
			b.Fatal(err)
		}
		if !it.Next() || it.Message().Time != t {
			b.Fatalf("seek %v: %v %v", t, it.Message().Time, it.Err())
		}
	}
	b.ReportMetric(float64(time.Since(start).Nanoseconds())/float64(b.N), "ns/seek")
}

// nextLooping advances it by one message, starting over at the beginning
// when the bag is exhausted, so a benchmark can read b.N messages from a
// bag of any size.
func nextLooping(b *testing.B, it *Iterator) {
	if !it.Next() {
		if it.Err() != nil {
			b.Fatal(it.Err())
		}
		it.Seek(0)
		if !it.Next() {
			b.Fatal(it.Err())
		}
	}
}
