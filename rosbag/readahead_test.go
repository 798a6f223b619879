package rosbag

import (
	"bytes"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
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

// loaders returns the number of read-ahead goroutines in the process.
func loaders() int {
	buf := make([]byte, 1<<20)
	for {
		n := runtime.Stack(buf, true)
		if n < len(buf) {
			return strings.Count(string(buf[:n]), "rosbag.(*loader).run(")
		}
		buf = make([]byte, 2*len(buf))
	}
}

// running waits up to a second for a read-ahead goroutine to show up.
func running() bool {
	for i := 0; i < 1000; i++ {
		if loaders() > 0 {
			return true
		}
		time.Sleep(time.Millisecond)
	}
	return false
}

// loadersBack waits until at most n read-ahead goroutines run. A goroutine
// that has already signalled its WaitGroup can still be on its way out for
// a moment, so counts are waited for rather than taken once; with gc false
// nothing but the iterator itself can end them.
func loadersBack(t *testing.T, n int, gc bool, what string) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for loaders() > n {
		if time.Now().After(deadline) {
			t.Fatalf("%s: %d read-ahead goroutines, want %d", what, loaders(), n)
		}
		if gc {
			runtime.GC()
		}
		time.Sleep(time.Millisecond)
	}
}

// TestIteratorGoroutines: the read-ahead goroutines end when an iterator is
// exhausted, closed or abandoned, and a Seek after the end restarts them.
func TestIteratorGoroutines(t *testing.T) {
	path := filepath.Join(t.TempDir(), "g.bag")
	smallBag(t, path, &WriterOptions{ChunkThreshold: 2048, FlushInterval: -1}, 400)
	r, err := Open(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	loadersBack(t, 0, true, "before") // abandoned iterators of other tests
	count := func(it *Iterator, max int) int {
		n := 0
		for n < max && it.Next() {
			n++
		}
		return n
	}

	it := r.Messages(nil)
	all := count(it, 1<<30)
	if it.Err() != nil || all != 401 {
		t.Fatalf("%d messages, err %v", all, it.Err())
	}
	loadersBack(t, 0, false, "exhausted")
	if err := it.Seek(0); err != nil {
		t.Fatal(err)
	}
	if n := count(it, 10); n != 10 || !running() {
		t.Errorf("after Seek: %d messages, %d read-ahead goroutines (not restarted?)", n, loaders())
	}
	if n := count(it, 1<<30); n != all-10 {
		t.Errorf("after Seek: %d more messages, want %d", n, all-10)
	}
	loadersBack(t, 0, false, "exhausted after Seek")

	it = r.Messages(nil)
	count(it, 50)
	if err := it.Close(); err != nil {
		t.Fatal(err)
	}
	loadersBack(t, 0, false, "closed")
	if it.Next() || it.Err() != ErrClosed || it.Seek(0) != ErrClosed || it.Close() != nil {
		t.Errorf("after Close: Next/Err/Seek/Close = %v", it.Err())
	}

	func() {
		it := r.Messages(nil)
		count(it, 50)
		if !running() {
			t.Error("no read-ahead goroutine while iterating")
		}
	}()
	loadersBack(t, 0, true, "abandoned")
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
