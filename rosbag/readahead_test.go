package rosbag

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"testing/synctest"

	"github.com/rsbag/rsbag/internal/testsupport/await"
)

// TestKeepData: with Query.KeepData every message's Data stays intact after
// the iteration moved on, across Seeks, and equals a copying iteration.
func TestKeepData(t *testing.T) {
	for _, comp := range []string{"lz4", "none"} {
		t.Run(comp, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "k.bag")
			smallBag(t, path, &WriterOptions{Compression: comp, ChunkThreshold: 2048, FlushInterval: -1}, 400)
			r, err := Open(path, nil)
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			var want [][]byte
			it := r.Messages(nil)
			for it.Next() {
				want = append(want, bytes.Clone(it.Message().Data))
			}
			if it.Err() != nil || len(want) != 401 || r.Info().Chunks < 20 {
				t.Fatalf("%d messages in %d chunks, err %v", len(want), r.Info().Chunks, it.Err())
			}
			var kept [][]byte
			it = r.Messages(&Query{KeepData: true})
			defer it.Close()
			mid := r.Info().Start + (r.Info().End-r.Info().Start)/2
			n := 0
			for it.Next() {
				n++
				if n == len(want)/2 {
					// Seek back to the start: cached chunks come back too.
					if err := it.Seek(0); err != nil {
						t.Fatal(err)
					}
				}
				kept = append(kept, it.Message().Data)
			}
			if it.Err() != nil || len(kept) != len(want)+len(want)/2 {
				t.Fatalf("%d kept messages, err %v", len(kept), it.Err())
			}
			for i, d := range kept {
				j := i
				if i >= len(want)/2 {
					j -= len(want) / 2
				}
				w := want[j]
				if !bytes.Equal(d, w) || cap(d) != len(d) {
					t.Fatalf("kept message %d: %d bytes (cap %d), want %d", i, len(d), cap(d), len(w))
				}
			}
			// A window and a topic filter with KeepData.
			it2 := r.Messages(&Query{KeepData: true, Start: mid, Topics: []string{"/file_version"}})
			if it2.Next() {
				t.Errorf("message %v after %v on /file_version", it2.Message().Time, mid)
			}
		})
	}
}

// loaders returns the number of read-ahead goroutines: in the process, or
// with bubble only those in synctest bubbles (the caller's, when the tests
// run one bubble at a time).
func loaders(bubble bool) int {
	buf := make([]byte, 1<<20)
	for {
		n := runtime.Stack(buf, true)
		if n < len(buf) {
			buf = buf[:n]
			break
		}
		buf = make([]byte, 2*len(buf))
	}
	count := 0
	for g := range strings.SplitSeq(string(buf), "\n\n") {
		if strings.Contains(g, "rosbag.(*loader).run(") && (!bubble || strings.Contains(g, ", synctest bubble ")) {
			count++
		}
	}
	return count
}

// TestIteratorGoroutines: the read-ahead goroutines end when an iterator is
// exhausted or closed, and a Seek after the end restarts them. In a
// synctest bubble: synctest.Wait lets every goroutine that is ending end,
// so that each count is exact.
func TestIteratorGoroutines(t *testing.T) {
	path := filepath.Join(t.TempDir(), "g.bag")
	smallBag(t, path, &WriterOptions{ChunkThreshold: 2048, FlushInterval: -1}, 400)
	synctest.Test(t, func(t *testing.T) {
		r, err := Open(path, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer r.Close()
		running := func(what string, want bool) {
			t.Helper()
			synctest.Wait()
			if n := loaders(true); (n > 0) != want {
				t.Errorf("%s: %d read-ahead goroutines", what, n)
			}
		}
		it := r.Messages(nil)
		all := count(it, 1<<30)
		if it.Err() != nil || all != 401 {
			t.Fatalf("%d messages, err %v", all, it.Err())
		}
		running("exhausted", false)
		if err := it.Seek(0); err != nil {
			t.Fatal(err)
		}
		if n := count(it, 10); n != 10 {
			t.Errorf("after Seek: %d messages", n)
		}
		running("after Seek (restarted)", true)
		if n := count(it, 1<<30); n != all-10 {
			t.Errorf("after Seek: %d more messages, want %d", n, all-10)
		}
		running("exhausted after Seek", false)

		it = r.Messages(nil)
		count(it, 50)
		running("iterating", true)
		if err := it.Close(); err != nil {
			t.Fatal(err)
		}
		running("closed", false)
		if it.Next() || it.Err() != ErrClosed || it.Seek(0) != ErrClosed || it.Close() != nil {
			t.Errorf("after Close: Next/Err/Seek/Close = %v", it.Err())
		}
	})
}

// TestAbandonedIteratorGoroutines: the read-ahead goroutines of an
// iterator dropped without Close end once it is garbage collected. The
// cleanup that ends them runs outside any synctest bubble, on the
// runtime's own schedule, so this one drives it (a collection at a time)
// until the count is 0, or the test's deadline (await.Context).
func TestAbandonedIteratorGoroutines(t *testing.T) {
	path := filepath.Join(t.TempDir(), "g.bag")
	smallBag(t, path, &WriterOptions{ChunkThreshold: 2048, FlushInterval: -1}, 400)
	r, err := Open(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	gone := func(what string) {
		t.Helper()
		ctx, cancel := await.Context(t, context.Background())
		defer cancel()
		for loaders(false) > 0 {
			if ctx.Err() != nil {
				t.Fatalf("%s: %d read-ahead goroutines", what, loaders(false))
			}
			runtime.GC()
			runtime.Gosched()
		}
	}
	gone("before") // abandoned iterators of other tests
	func() {
		it := r.Messages(nil)
		count(it, 50)
		if loaders(false) == 0 {
			t.Error("no read-ahead goroutine while iterating")
		}
	}()
	gone("abandoned")
}

// count reads up to max messages of it and returns how many it read.
func count(it *Iterator, max int) int {
	n := 0
	for n < max && it.Next() {
		n++
	}
	return n
}

// BenchmarkReaderKeep prices a playback device that keeps every frame:
// "copy" copies Data out of a reused chunk buffer (two copies per frame in
// total), "keep" uses Query.KeepData (one: the decompression). One op is one
// 1 MiB message; B/op is what the reader allocates per frame.
func BenchmarkReaderKeep(b *testing.B) {
	r := openReadBench(b, nil)
	for _, mode := range []string{"copy", "keep"} {
		b.Run(mode, func(b *testing.B) {
			it := r.Messages(&Query{KeepData: mode == "keep"})
			defer it.Close()
			var sink []byte
			b.SetBytes(1 << 20)
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				nextLooping(b, it)
				if mode == "copy" {
					sink = bytes.Clone(it.Message().Data)
				} else {
					sink = it.Message().Data
				}
			}
			_ = sink
		})
	}
}

// TestNoChecksum: a flipped content checksum fails the read by default and
// passes with ReaderOptions.NoChecksum.
func TestNoChecksum(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s.bag")
	smallBag(t, path, &WriterOptions{ChunkThreshold: 2048, FlushInterval: -1}, 50)
	good, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	gr, err := NewReader(bytes.NewReader(good), int64(len(good)), nil)
	if err != nil {
		t.Fatal(err)
	}
	rec, _, _ := gr.readRecord(gr.chunks[1].pos, "chunk", nil)
	bad := messWith(good, func(b []byte) []byte { b[rec.end()-1] ^= 0xff; return b })
	for _, skip := range []bool{false, true} {
		r, err := NewReader(bytes.NewReader(bad), int64(len(bad)), &ReaderOptions{NoChecksum: skip})
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		it := r.Messages(nil)
		for it.Next() {
			n++
		}
		if skip && (it.Err() != nil || n != 51) || !skip && it.Err() == nil {
			t.Errorf("NoChecksum=%v: %d messages, err %v", skip, n, it.Err())
		}
	}
}

// BenchmarkReaderIndexedNoChecksum is BenchmarkReaderIndexed with
// ReaderOptions.NoChecksum.
func BenchmarkReaderIndexedNoChecksum(b *testing.B) {
	r := openReadBench(b, &ReaderOptions{NoChecksum: true})
	it := r.Messages(nil)
	defer it.Close()
	b.SetBytes(1 << 20)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		nextLooping(b, it)
	}
}
