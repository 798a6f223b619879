package blobfile_test

import (
	"context"
	"testing"

	"github.com/rsbag/rsbag/blobfile"
)

// TestReadAheadPassFetchesOnce replays, read by read, the pattern of a
// whole pass of a player over a bag whose chunks are a quarter of the cache:
// the player opens the bag by reading its first and last chunks; then, for
// each chunk, the iterator reads its record header and its index data
// records (small reads at the chunk's edges), while the read-ahead loads
// the next three chunks (a header, then the data in one long read) — the
// loaders finish out of order, the farthest first. Every block is fetched
// once: neither the reads ahead of the iterator nor the chunks read when
// the bag was opened push out a block the pass still comes back to.
func TestReadAheadPassFetchesOnce(t *testing.T) {
	const (
		bs     = 4096
		blocks = 64 // in the cache
		chunks = 24
		hdr    = 49    // a chunk record's header
		data   = 66331 // a chunk's data: about a quarter of the cache
		index  = 3 * 55
	)
	span := int64(hdr + data + index)
	start := func(ci int) int64 { return 4117 + int64(ci)*span }
	size := start(chunks) + 2000 // the index section
	s := &countingStore{data: randomBytes(int(size))}
	b := s.bucket()
	defer b.Close()
	f, err := blobfile.NewFile(context.Background(), b, "obj", &blobfile.Options{BlockSize: bs, CacheSize: blocks * bs})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	read := func(off, n int64) {
		t.Helper()
		if _, err := f.ReadAt(make([]byte, n), off); err != nil {
			t.Fatalf("ReadAt(%d bytes, %d): %v", n, off, err)
		}
	}
	header := func(ci int) { read(start(ci), 4); read(start(ci)+4, hdr-4) }
	load := func(ci int) { header(ci); read(start(ci)+hdr, data) }
	readIndex := func(ci int) {
		header(ci)
		for k := range int64(3) {
			read(start(ci)+hdr+data+55*k, 51)
			read(start(ci)+hdr+data+55*k+51, 4)
		}
	}
	read(0, 4117)                   // bag header
	read(start(chunks), 2000)       // index section
	load(0)                         // first chunk
	load(chunks - 1)                // last chunk
	loaded := map[int]bool{0: true} // in the iterator's slots
	for ci := range chunks {
		readIndex(ci)
		if !loaded[ci] {
			load(ci)
			loaded[ci] = true
		}
		for ahead := min(ci+3, chunks-1); ahead > ci; ahead-- { // farthest first
			if !loaded[ahead] {
				load(ahead)
				loaded[ahead] = true
			}
		}
	}
	for blk, n := range s.blockFetches(bs) {
		if n > 1 {
			t.Errorf("block %d fetched %d times", blk, n)
		}
	}
	if got := s.bytesServed(); got != size {
		t.Errorf("read %d bytes of %d (%.3fx)", got, size, float64(got)/float64(size))
	}
}
