package blobfile_test

import (
	"bytes"
	"cmp"
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/synctest"

	"github.com/rsbag/rsbag/blobfile"
	"github.com/rsbag/rsbag/internal/tools/baginfo"
	"github.com/rsbag/rsbag/internal/tools/rsdump"
	"github.com/rsbag/rsbag/rosbag"
)

// TestConcurrentMissesFetchOnce holds the first fetch of every block until
// every read has asked for its blocks: reads that miss the same block at
// the same time (short reads, long reads, a read longer than half the
// cache) get it from one fetch, and all get the right bytes.
func TestConcurrentMissesFetchOnce(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const bs = 4096
		data := randomBytes(300_000)
		s := &countingStore{data: data, gate: make(chan struct{})}
		b := s.bucket()
		defer b.Close()
		f, err := blobfile.NewFile(context.Background(), b, "obj", &blobfile.Options{BlockSize: bs, CacheSize: 64 * bs})
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		reads := [][2]int64{ // offset, length
			{10*bs + 5, 100}, {10*bs + 5, 100}, {10*bs + 200, 3000}, // one block
			{9 * bs, 3 * bs},             // blocks 9-11
			{10 * bs, 10 * bs},           // 10-19, kept
			{5*bs + 7, 50 * bs},          // 5-55: longer than half the cache
			{30 * bs, 2 * bs},            // inside the previous one
			{300_000 - 10, 10},           // the last block
			{300_000 - 3*bs - 1, 3 * bs}, // up to it
		}
		var release sync.Once
		read := func() {
			var wg sync.WaitGroup
			for _, r := range reads {
				wg.Go(func() {
					p := make([]byte, r[1])
					if n, err := f.ReadAt(p, r[0]); n != len(p) || err != nil {
						t.Errorf("ReadAt(%d bytes, %d) = %d, %v", len(p), r[0], n, err)
					} else if !bytes.Equal(p, data[r[0]:r[0]+r[1]]) {
						t.Errorf("ReadAt(%d bytes, %d): wrong bytes", len(p), r[0])
					}
				})
			}
			synctest.Wait() // every read waits: for the store or for another read's fetch
			release.Do(func() { close(s.gate) })
			wg.Wait()
		}
		read()
		for blk, n := range s.blockFetches(bs) {
			if n > 1 {
				t.Errorf("block %d fetched %d times", blk, n)
			}
		}
		before := len(s.served())
		read() // all kept but the inside of the longest read
		got := s.served()[before:]
		slices.SortFunc(got, func(a, b [2]int64) int { return cmp.Compare(a[0], b[0]) })
		// the blocks inside the longest read that no other read needed
		if want := [][2]int64{{6 * bs, 9 * bs}, {20 * bs, 30 * bs}, {32 * bs, 55 * bs}}; !slices.Equal(got, want) {
			t.Errorf("second round fetched %v; want only the blocks inside the longest read that no other read needed: %v", got, want)
		}
	})
}

// TestWaiterGetsFetchError: a read waiting for another read's fetch gets
// its error (here: the object shrank since it was opened).
func TestWaiterGetsFetchError(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := &countingStore{data: randomBytes(10_000), gate: make(chan struct{})}
		b := s.bucket()
		defer b.Close()
		f, err := blobfile.NewFile(context.Background(), b, "obj", &blobfile.Options{BlockSize: 4096})
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		s.data = s.data[:5000]
		var wg sync.WaitGroup
		for range 3 {
			wg.Go(func() {
				if _, err := f.ReadAt(make([]byte, 10), 4100); err == nil || !strings.Contains(err.Error(), "shorter than the 10000 bytes") {
					t.Errorf("read of a block of a shrunk object: %v", err)
				}
			})
		}
		synctest.Wait()
		close(s.gate)
		wg.Wait()
		if n := len(s.served()); n != 1 {
			t.Errorf("%d fetches, want 1", n)
		}
	})
}

func randomBytes(n int) []byte {
	data := make([]byte, n)
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range data {
		data[i] = byte(rng.Uint32())
	}
	return data
}

// memBags are the stores behind the names "mem://NAME" of the tests.
var memBags sync.Map // name → *countingStore

// memOpen holds the Files of the stored bags while any open of them is
// open: as for the schemes blobfile registers, every open of one name in
// the process (the player's and the dump's own) reads through one File.
var memOpen struct {
	sync.Mutex
	m map[string]*memShared
}

type memShared struct {
	f    *blobfile.File
	refs int
}

// memHandle is one open of a shared File; closing the last closes it.
type memHandle struct {
	*blobfile.File
	name   string
	closed bool // under memOpen's lock
}

func (h *memHandle) Close() error {
	memOpen.Lock()
	defer memOpen.Unlock()
	if h.closed {
		return fmt.Errorf("%s: closed twice", h.name)
	}
	h.closed = true
	sf := memOpen.m[h.name]
	if sf.refs--; sf.refs > 0 {
		return nil
	}
	delete(memOpen.m, h.name)
	return sf.f.Close()
}

func init() {
	memOpen.m = map[string]*memShared{}
	rosbag.RegisterScheme("mem", func(name string) (rosbag.File, error) {
		memOpen.Lock()
		defer memOpen.Unlock()
		if sf, ok := memOpen.m[name]; ok {
			sf.refs++
			return &memHandle{File: sf.f, name: name}, nil
		}
		s, ok := memBags.Load(name)
		if !ok {
			return nil, fmt.Errorf("%s: not stored", name)
		}
		f, err := blobfile.NewFile(context.Background(), s.(*countingStore).bucket(), "obj", &blobfile.Options{CacheSize: passCache})
		if err != nil {
			return nil, err
		}
		memOpen.m[name] = &memShared{f: f, refs: 1}
		return &memHandle{File: f, name: name}, nil
	})
}

// passCache is the cache of the full-pass tests: smaller than the largest
// bag, so that a pass must evict, and larger than what the playback device
// reads when it opens it (the first chunk, the last two and the headers).
const passCache = 3 << 20

// storeBag puts the bag at path in a counting store and returns its name.
func storeBag(tb testing.TB, path string) (string, *countingStore, int64) {
	tb.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		tb.Fatal(err)
	}
	s := &countingStore{data: data}
	name := "mem://" + tb.Name() + "/" + filepath.Base(path)
	memBags.Store(name, s)
	tb.Cleanup(func() { memBags.Delete(name) })
	return name, s, int64(len(data))
}

// passes are the whole passes over a bag: what dump and play do (the
// playback device: its description, first and last frames, then every
// frame) and what info does.
var passes = []struct {
	name string
	run  func(name string) error
}{
	{"dump", func(name string) error { return rsdump.Run(io.Discard, name, rsdump.Options{}) }},
	{"info", func(name string) error { _, err := baginfo.Inspect(name, nil); return err }},
}

// TestFullPassReadsOnce: a whole pass over a bag larger than the cache
// (the reference bags in the 4 MB of uncompressed depth, color and two
// infrared streams, and a real D435 recording) fetches each block of it
// once, and so reads its size.
func TestFullPassReadsOnce(t *testing.T) {
	for _, bag := range []string{refDir + "/depth_color_ir2_uncompressed.bag", refDir + "/real/single_depth_color_640x480.bag", refDir + "/depth_color.bag"} {
		for _, p := range passes {
			name, s, size := storeBag(t, bag)
			if err := p.run(name); err != nil {
				t.Fatalf("%s of %s: %v", p.name, bag, err)
			}
			got := s.bytesServed()
			t.Logf("%s of %s: %d bytes read of %d (%.3fx)", p.name, filepath.Base(bag), got, size, float64(got)/float64(size))
			if got > size {
				t.Errorf("%s of %s: read %d bytes of %d (%.2fx)", p.name, filepath.Base(bag), got, size, float64(got)/float64(size))
			}
			for blk, n := range s.blockFetches(blobfile.DefaultBlockSize) {
				if n > 1 {
					t.Errorf("%s of %s: block %d fetched %d times", p.name, filepath.Base(bag), blk, n)
				}
			}
		}
	}
}

// BenchmarkFullPass reports the bytes a pass reads per byte of the bag
// (read/size: 1 when every byte is fetched once).
func BenchmarkFullPass(b *testing.B) {
	for _, bag := range []string{refDir + "/depth_color_ir2_uncompressed.bag", refDir + "/real/single_depth_color_640x480.bag"} {
		for _, p := range passes {
			b.Run(p.name+"/"+filepath.Base(bag), func(b *testing.B) {
				name, s, size := storeBag(b, bag)
				runs := 0
				for b.Loop() {
					if err := p.run(name); err != nil {
						b.Fatal(err)
					}
					runs++
				}
				b.ReportMetric(float64(s.bytesServed())/float64(size)/float64(runs), "read/size")
				b.SetBytes(size)
			})
		}
	}
}
