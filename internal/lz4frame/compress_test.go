package lz4frame_test

import (
	"bytes"
	"encoding/binary"
	"io"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"testing"

	"github.com/pierrec/lz4/v4"

	"github.com/rsbag/rsbag/internal/lz4frame"
	"github.com/rsbag/rsbag/msgs"
	"github.com/rsbag/rsbag/rosbag"
)

// patternPair returns frame n of the reference bags' test pattern as
// librealsense's software-device recorder is fed it in the record
// comparison: 1280x720 Z16 depth and RGB8 color, constant 8x8 pixel
// blocks whose values change with the block and the frame.
func patternPair(n int) []byte {
	const w, h = 1280, 720
	out := make([]byte, 0, w*h*5)
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			out = binary.LittleEndian.AppendUint16(out, uint16(x/8*37+y/8*101+n*7+1000))
		}
	}
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			for c := 0; c < 3; c++ {
				out = append(out, byte(x/8*(c+3)+y/8*(2*c+5)+n*(c+1)+2*17+c*50))
			}
		}
	}
	return out
}

// realFrames returns the depth and color images of the real D435 bag in
// testdata, one after the other (about 9 MB of camera data).
func realFrames(tb testing.TB) []byte {
	tb.Helper()
	r, err := rosbag.Open(filepath.Join("..", "..", "testdata", "librealsense", "real", "single_depth_color_640x480.bag"), nil)
	if err != nil {
		tb.Fatal(err)
	}
	defer r.Close()
	var out []byte
	it := r.Messages(&rosbag.Query{Topics: []string{"/device_0/sensor_0/Depth_0/image/data", "/device_0/sensor_1/Color_0/image/data"}})
	for it.Next() {
		var img msgs.Image
		if err := msgs.Unmarshal(it.Message().Data, &img); err != nil {
			tb.Fatal(err)
		}
		out = append(out, img.Data...)
	}
	if err := it.Err(); err != nil {
		tb.Fatal(err)
	}
	if len(out) == 0 {
		tb.Fatal("no frames in the real bag")
	}
	return out
}

// checkFrame checks that frame decodes to data in the reference port's
// reader (pierrec/lz4, which verifies the content checksum) and in Decode.
func checkFrame(t *testing.T, name string, frame, data []byte) {
	t.Helper()
	got, err := io.ReadAll(lz4.NewReader(bytes.NewReader(frame)))
	if err != nil || !bytes.Equal(got, data) {
		t.Fatalf("%s (%d bytes): reference reader: %d bytes, equal %v, %v", name, len(data), len(got), bytes.Equal(got, data), err)
	}
	out := make([]byte, len(data))
	if n, err := lz4frame.Decode(out, frame); err != nil || n != len(data) || !bytes.Equal(out, data) {
		t.Fatalf("%s (%d bytes): Decode = %d, %v; equal %v", name, len(data), n, err, bytes.Equal(out, data))
	}
	if sum := binary.LittleEndian.Uint32(frame[len(frame)-4:]); sum != lz4frame.XXH32(data, 0) {
		t.Fatalf("%s (%d bytes): content checksum %08x, XXH32 %08x", name, len(data), sum, lz4frame.XXH32(data, 0))
	}
}

// refSize is the length of the LZ4 blocks pierrec/lz4's compressor makes
// of data cut in BlockSize blocks, raw blocks counted at their length.
func refSize(data []byte) int {
	var c lz4.Compressor
	total := 0
	dst := make([]byte, lz4.CompressBlockBound(lz4frame.BlockSize))
	for p := data; len(p) > 0; {
		blk := p[:min(len(p), lz4frame.BlockSize)]
		p = p[len(blk):]
		n, err := c.CompressBlock(blk, dst)
		if err != nil || n == 0 || n >= len(blk) {
			n = len(blk)
		}
		total += n + 4
	}
	return total
}

// TestAppendFrameRoundTrip compresses camera frames (the test pattern and
// a real D435's depth and color), random bytes, runs and short inputs of
// every length around the match finder's limits, and inputs across block
// boundaries: each frame decodes to its input with the right content
// checksum, and the compressible ones are no more than 3% larger than the
// reference compressor's.
func TestAppendFrameRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	random := make([]byte, 3*lz4frame.BlockSize+17)
	for i := range random {
		random[i] = byte(rng.Uint32())
	}
	runs := make([]byte, 2*lz4frame.BlockSize+5)
	for i := range runs {
		runs[i] = byte(i / 300 % 3)
	}
	pattern := append(patternPair(0), patternPair(1)...)
	real := realFrames(t)
	cases := []struct {
		name  string
		data  []byte
		ratio bool // compare the size with the reference compressor's
	}{
		{"pattern", pattern, true},
		{"real", real, true},
		{"random", random, false},
		{"runs", runs, true},
		{"zeros", make([]byte, lz4frame.BlockSize+1), true},
		{"empty", nil, false},
	}
	for n := 1; n <= 80; n++ {
		cases = append(cases, struct {
			name  string
			data  []byte
			ratio bool
		}{"short", bytes.Repeat([]byte{byte(n)}, n), false}, struct {
			name  string
			data  []byte
			ratio bool
		}{"short-random", random[:n], false})
	}
	for _, n := range []int{lz4frame.BlockSize - 1, lz4frame.BlockSize, lz4frame.BlockSize + 1, 786432} {
		cases = append(cases, struct {
			name  string
			data  []byte
			ratio bool
		}{"cut-real", real[len(real)-n:], true})
	}
	var e lz4frame.Encoder
	for _, c := range cases {
		frame := e.AppendFrame(nil, c.data)
		checkFrame(t, c.name, frame, c.data)
		// The bytes past the input (in its capacity) play no part.
		spare := append(append(make([]byte, 0, len(c.data)+4096), c.data...), random[:4096]...)[:len(c.data)]
		if again := e.AppendFrame(nil, spare); !bytes.Equal(again, frame) {
			t.Errorf("%s (%d bytes): the frame depends on the bytes after the input", c.name, len(c.data))
		}
		if c.ratio {
			if got, ref := len(frame)-15, refSize(c.data); got > ref+ref*3/100 {
				t.Errorf("%s (%d bytes): %d compressed bytes, the reference compressor's %d", c.name, len(c.data), got, ref)
			}
		}
	}
}

// TestAppendFrameReuse checks that an Encoder's output depends only on its
// input: a frame after others (whose positions are still in the match
// finder's table) equals a fresh Encoder's frame, with and without the
// checksum.
func TestAppendFrameReuse(t *testing.T) {
	real := realFrames(t)
	a, b := patternPair(3), real[:lz4frame.BlockSize+100]
	var used lz4frame.Encoder
	used.AppendFrame(nil, a)
	used.AppendFrameSum(nil, real, false)
	for _, sum := range []bool{true, false} {
		var fresh lz4frame.Encoder
		if got, want := used.AppendFrameSum(nil, b, sum), fresh.AppendFrameSum(nil, b, sum); !bytes.Equal(got, want) {
			t.Errorf("sum %v: the frame of a reused Encoder (%d bytes) differs from a fresh one's (%d bytes)", sum, len(got), len(want))
		}
	}
}

// FuzzAppendFrame checks that any input, compressed with and without the
// content checksum, decodes to itself in Decode and in the reference
// reader. The inputs are also repeated, so that they hold matches.
func FuzzAppendFrame(f *testing.F) {
	f.Add([]byte{})
	f.Add([]byte("abcabcabcabcabcabcabcabcabcabcabc"))
	f.Add(bytes.Repeat([]byte{0, 1, 2, 3, 4}, 100))
	f.Add(patternPair(0)[:5000])
	var e lz4frame.Encoder
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, in := range [][]byte{data, bytes.Repeat(data, 3)} {
			checkFrame(t, "fuzz", e.AppendFrame(nil, in), in)
			checkFrame(t, "fuzz from blocks", e.AppendFrameFrom(nil, len(in), &pieceSource{data: in}), in)
			n := len(in)
			cuts := []int{n / 5, n/5 + 1, n/5 + 17, n/5 + 33, n / 2, 3*n/4 + 3}
			checkFrame(t, "fuzz from pieces", e.AppendFrameFrom(nil, n, &pieceSource{data: in, cuts: cuts}), in)
			frame := e.AppendFrameSum(nil, in, false)
			out := make([]byte, len(in))
			if n, err := lz4frame.Decode(out, frame); err != nil || n != len(in) || !bytes.Equal(out, in) {
				t.Fatalf("without checksum, %d bytes: Decode = %d, %v", len(in), n, err)
			}
			got, err := io.ReadAll(lz4.NewReader(bytes.NewReader(frame)))
			if err != nil || !bytes.Equal(got, in) {
				t.Fatalf("without checksum, %d bytes: reference reader: %v", len(in), err)
			}
		}
	})
}

// BenchmarkAppendFrame compresses 768 KiB chunks (rosbag's default chunk
// threshold) of camera frames into LZ4 frames, with the content checksum
// (as a bag's chunks) and without (as an MCAP chunk's), reporting MB/s of
// input and the compressed size per input byte: the difference is what the
// checksum costs.
func BenchmarkAppendFrame(b *testing.B) {
	for _, c := range []struct {
		name string
		data func() []byte
	}{
		{"pattern", func() []byte { return append(patternPair(0), patternPair(1)...) }},
		{"real", func() []byte { return realFrames(b) }},
	} {
		for _, sum := range []bool{true, false} {
			name := c.name + "/sum"
			if !sum {
				name = c.name + "/nosum"
			}
			b.Run(name, func(b *testing.B) {
				data := c.data()
				const chunk = 786432
				var e lz4frame.Encoder
				dst := make([]byte, 0, 2*lz4frame.Bound(chunk))
				b.SetBytes(int64(len(data) / chunk * chunk))
				out := 0
				b.ResetTimer()
				for i := 0; i < b.N; i++ {
					out = 0
					for p := 0; p+chunk <= len(data); p += chunk {
						out += len(e.AppendFrameSum(dst[:0], data[p:p+chunk], sum))
					}
				}
				b.ReportMetric(float64(out)/float64(len(data)/chunk*chunk), "out/in")
			})
		}
	}
}

// pieceSource gives a payload block by block as pieces cut at the
// payload offsets cuts (and at the blocks' ends), each from a fresh buffer
// that the next call overwrites, as a chunk's pieces held by reference and
// its buffer between them.
type pieceSource struct {
	data []byte
	cuts []int
	bufs [][]byte
	asks [][2]int
}

func (s *pieceSource) Pieces(ps [][]byte, off, end int) [][]byte {
	s.asks = append(s.asks, [2]int{off, end})
	for _, b := range s.bufs {
		for i := range b {
			b[i] = 0xA5 // stale bytes of the block before
		}
	}
	s.bufs = s.bufs[:0]
	at := off
	for _, c := range append(slices.Clone(s.cuts), end) {
		if c <= at || c > end {
			continue
		}
		b := append([]byte(nil), s.data[at:c]...)
		s.bufs = append(s.bufs, b)
		ps = append(ps, b)
		at = c
	}
	return ps
}

// TestAppendFrameFrom: a frame compressed from a BlockSource is the frame
// of the same payload in one slice, byte for byte (checksum included),
// when every block is one piece, and the source is asked for each block
// once, in order, 1 MiB from the payload's start (spec §1.5).
func TestAppendFrameFrom(t *testing.T) {
	pat := append(patternPair(0), patternPair(1)...)
	for _, n := range []int{0, 1, 15, 16, 100, lz4frame.BlockSize - 1, lz4frame.BlockSize, lz4frame.BlockSize + 17, 3*lz4frame.BlockSize + 5} {
		data := pat[:n]
		var e1, e2 lz4frame.Encoder
		want := e1.AppendFrame(nil, data)
		src := &pieceSource{data: data}
		got := e2.AppendFrameFrom(nil, n, src)
		if !bytes.Equal(got, want) {
			t.Fatalf("%d bytes: frame from blocks differs from the frame of one slice", n)
		}
		checkFrame(t, "from blocks", got, data)
		for i, a := range src.asks {
			if a[0] != i*lz4frame.BlockSize || a[1] != min(n, (i+1)*lz4frame.BlockSize) {
				t.Fatalf("%d bytes: block %d asked as [%d, %d)", n, i, a[0], a[1])
			}
		}
		if len(src.asks) != (n+lz4frame.BlockSize-1)/lz4frame.BlockSize {
			t.Fatalf("%d bytes: %d blocks asked", n, len(src.asks))
		}
	}
}

// TestAppendFramePieces compresses payloads whose blocks come in several
// pieces, as a chunk's frames held by reference between the buffer's
// record headers: pieces of every length around a checksum stripe and the
// shortest piece compressed, pieces across block ends, and incompressible
// ones. Each frame decodes to its payload with the right content checksum
// in the reference reader and in Decode, and a chunk's is at most 1%
// larger than the frame of the payload in one slice.
func TestAppendFramePieces(t *testing.T) {
	pat := append(patternPair(2), patternPair(3)...)
	rng := rand.New(rand.NewPCG(7, 8))
	random := make([]byte, 2*lz4frame.BlockSize+300)
	for i := range random {
		random[i] = byte(rng.Uint32())
	}
	const head, tail = 211, 473 // a message's record header, the records after its frame
	frame := 1843200
	type pieces struct {
		name  string
		data  []byte
		cuts  []int
		ratio bool // compare the size with the frame of one slice
	}
	cases := []pieces{
		{"chunk", pat[:head+frame+tail], []int{head, head + frame}, true},
		{"two frames", pat[:2*(head+frame)], []int{head, head + frame, 2*head + frame}, true},
		{"random", random, []int{head, lz4frame.BlockSize + 5, lz4frame.BlockSize + 6}, false},
	}
	var small []int // pieces of 1 to 40 bytes, then one of 300
	for at, k := 1000, 1; k <= 40; k++ {
		at += k
		small = append(small, at)
		if k == 40 {
			small = append(small, at+300)
		}
	}
	cases = append(cases, pieces{"small pieces", pat[:lz4frame.BlockSize+4000], small, false})
	for _, c := range cases {
		var e1, e2 lz4frame.Encoder
		want := e1.AppendFrame(nil, c.data)
		got := e2.AppendFrameFrom(nil, len(c.data), &pieceSource{data: c.data, cuts: c.cuts})
		checkFrame(t, c.name, got, c.data)
		if c.ratio && len(got) > len(want)+len(want)/100 {
			t.Errorf("%s: %d bytes from pieces, %d from one slice", c.name, len(got), len(want))
		}
		// Reused, the Encoder writes the same frame.
		if again := e2.AppendFrameFrom(nil, len(c.data), &pieceSource{data: c.data, cuts: c.cuts}); !bytes.Equal(again, got) {
			t.Errorf("%s: a reused Encoder's frame differs", c.name)
		}
	}
}
