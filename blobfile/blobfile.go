// Package blobfile reads bags kept in object storage without downloading
// them: a File is an io.ReaderAt over one object of a gocloud.dev/blob
// bucket (s3://, gs://, azblob://, file:// URLs) that reads with range
// requests through a small bounded cache.
//
// Importing the package registers its schemes with rosbag.RegisterScheme,
// so that rosbag.Open, playback.Open and the tools built on them open
// "s3://bucket/dir/x.bag" as they open a local path: opening a bag reads its
// header and index, a seek reads the chunks it needs, and a whole pass reads
// each byte once (the chunks a player reads first when it opens a bag are
// still cached when the pass comes to them). The cloud drivers are linked
// in by importing them (gocloud.dev/blob/s3blob, gcsblob, azureblob;
// fileblob for file://), as rs-fleet and the cloud build of rs-record
// (go build -tags cloud ./cmd/rs-record) do.
package blobfile

import (
	"cmp"
	"container/list"
	"context"
	"errors"
	"fmt"
	"github.com/rsbag/rsbag/internal/bagname"
	"io"
	"io/fs"
	"net/url"
	"path"
	"path/filepath"
	"strings"
	"sync"

	"gocloud.dev/blob"
	"gocloud.dev/gcerrors"

	"github.com/rsbag/rsbag/rosbag"
)

// Schemes are the URL schemes the package registers with rosbag: those of
// the gocloud.dev/blob drivers for Amazon S3 (and S3-compatible stores),
// Google Cloud Storage, Azure Blob Storage and local directories.
var Schemes = []string{"s3", "gs", "azblob", "file"}

func init() {
	for _, s := range Schemes {
		rosbag.RegisterScheme(s, openShared)
	}
}

// shared holds, by URL, the Files that rosbag.Open (and so the player and
// the tools) opened through the registered schemes, while any of them is
// open: every open of one URL in the process reads through one File, one
// cache, so that two readers of a bag at once — a command's own pass and
// the player's verdict on the bag — fetch each block once.
var shared struct {
	sync.Mutex
	m map[string]*sharedFile
}

type sharedFile struct {
	f    *File
	refs int
}

// handle is one open of a shared File; closing the last handle closes it.
type handle struct {
	*File
	url    string
	sf     *sharedFile
	closed bool // under shared's lock
}

func openShared(name string) (rosbag.File, error) {
	shared.Lock()
	defer shared.Unlock()
	if sf, ok := shared.m[name]; ok {
		sf.refs++
		return &handle{File: sf.f, url: name, sf: sf}, nil
	}
	f, err := Open(context.Background(), name, nil)
	if err != nil {
		return nil, err
	}
	if shared.m == nil {
		shared.m = map[string]*sharedFile{}
	}
	sf := &sharedFile{f: f, refs: 1}
	shared.m[name] = sf
	return &handle{File: f, url: name, sf: sf}, nil
}

// Close closes this open of the File, and the File with its last.
func (h *handle) Close() error {
	shared.Lock()
	if h.closed {
		shared.Unlock()
		return fmt.Errorf("blobfile: %s: %w", h.url, errClosed)
	}
	h.closed = true
	h.sf.refs--
	last := h.sf.refs == 0
	if last {
		delete(shared.m, h.url)
	}
	shared.Unlock()
	if last {
		return h.File.Close()
	}
	return nil
}

// Default sizes of Options.
const (
	// DefaultBlockSize is the unit in which reads are fetched and cached:
	// a block holds a few record headers or index records, and a chunk
	// (rosbag writers close chunks at 768 KiB) spans a dozen.
	DefaultBlockSize = 64 << 10
	// defaultCacheSize bounds the bytes of cached blocks: a few chunks of
	// a bag (rosbag writers close chunks at 768 KiB).
	defaultCacheSize = 4 << 20
)

// Options tune a File. The zero value (or nil) uses the defaults.
type Options struct {
	// BlockSize is the unit in which reads are fetched and cached: a read
	// is served from the aligned blocks it spans, the missing ones fetched
	// (adjacent ones in one request) and kept in the cache; each block is
	// fetched once, also when several reads miss it at the same time.
	BlockSize int64
	// CacheSize bounds the cached blocks. A read longer than half of it
	// keeps only its partly read edge blocks. The first out are the least
	// recently used blocks before the farthest read that were only ever
	// read whole (a forward pass is done with the inside of a chunk), then
	// the other blocks before it, then the least recently used. 0 means
	// 4 MiB.
	CacheSize int64
}

// Stats count what a File fetched from the store.
type Stats struct {
	Requests int64 // range requests made
	Bytes    int64 // bytes received
}

// File is one object of a bucket read at random offsets. It implements
// rosbag.File and is safe for concurrent use.
type File struct {
	ctx       context.Context
	bucket    *blob.Bucket
	ownBucket bool
	key       string
	name      string
	size      int64
	bs        int64
	maxBlocks int

	mu       sync.Mutex
	blocks   map[int64]*list.Element // block index → element of lru (*block)
	lru      list.List               // front: most recently used
	fetching map[int64]*inflight     // blocks being fetched
	pos      int64                   // block of the pass: see ahead
	stats    Stats
	closed   bool
}

type block struct {
	idx  int64
	data []byte
	// edge: a read covered the block only partly. Such blocks hold
	// record headers and index records, which a pass reads again (the
	// iterator reads the header and index of a chunk the read-ahead
	// loaded); a block only ever read whole is the inside of a chunk.
	edge bool
}

// Open opens the object a URL names: the bucket is the URL without its
// path (with its query, which carries the driver's options, e.g.
// "s3://bucket/dir/x.bag?region=eu-west-1"), the key is the path. For
// file:// URLs the bucket is the file's directory. ctx bounds the
// requests of the File's whole life. Close closes the bucket.
func Open(ctx context.Context, rawURL string, opts *Options) (*File, error) {
	bucketURL, key, err := SplitURL(rawURL)
	if err != nil {
		return nil, err
	}
	if u, err := url.Parse(bucketURL); err == nil && u.Scheme == "file" {
		// A local file is read at random offsets as by its path: a FIFO
		// or a device is refused before anything opens it.
		if err := bagname.CheckRegular(filepath.Join(filepath.FromSlash(u.Path), key)); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("blobfile: %s: %w", rawURL, err)
		}
	}
	b, err := blob.OpenBucket(ctx, bucketURL)
	if err != nil {
		return nil, fmt.Errorf("blobfile: %s: %w", rawURL, err)
	}
	f, err := newFile(ctx, b, key, rawURL, opts)
	if err != nil {
		b.Close()
		return nil, err
	}
	f.ownBucket = true
	return f, nil
}

// NewFile opens the object key of bucket b, which it borrows: Close does
// not close b.
func NewFile(ctx context.Context, b *blob.Bucket, key string, opts *Options) (*File, error) {
	return newFile(ctx, b, key, key, opts)
}

func newFile(ctx context.Context, b *blob.Bucket, key, name string, opts *Options) (*File, error) {
	o := Options{BlockSize: DefaultBlockSize, CacheSize: defaultCacheSize}
	if opts != nil {
		if opts.BlockSize < 0 || opts.CacheSize < 0 {
			return nil, fmt.Errorf("blobfile: %s: negative block size %d or cache size %d", name, opts.BlockSize, opts.CacheSize)
		}
		if opts.BlockSize > 0 {
			o.BlockSize = opts.BlockSize
		}
		if opts.CacheSize > 0 {
			o.CacheSize = opts.CacheSize
		}
	}
	attrs, err := b.Attributes(ctx, key)
	if err != nil {
		if gcerrors.Code(err) == gcerrors.NotFound {
			return nil, fmt.Errorf("blobfile: %s: %w", name, notFound{err})
		}
		return nil, fmt.Errorf("blobfile: %s: %w", name, err)
	}
	return &File{
		ctx: ctx, bucket: b, key: key, name: name, size: attrs.Size,
		bs: o.BlockSize, maxBlocks: int(max(1, o.CacheSize/o.BlockSize)),
		blocks: map[int64]*list.Element{}, fetching: map[int64]*inflight{},
	}, nil
}

// ErrNotFound is wrapped by the error of opening an object that does not
// exist.
var ErrNotFound = errors.New("blobfile: no such object")

// SplitURL splits an object URL into the URL of its bucket (scheme, host
// and query) and its key (the path without its leading slash). For file://
// URLs the bucket is the directory of the file and the key its name.
func SplitURL(rawURL string) (bucketURL, key string, err error) {
	u, err := url.Parse(rawURL)
	if err != nil {
		return "", "", fmt.Errorf("blobfile: %q: %w", rawURL, err)
	}
	if u.Scheme == "" {
		return "", "", fmt.Errorf("blobfile: %q: not a URL (want SCHEME://BUCKET/KEY)", rawURL)
	}
	p := u.Path
	if u.Scheme == "file" {
		dir, file := path.Split(p)
		if file == "" {
			return "", "", fmt.Errorf("blobfile: %q: names a directory, want a file", rawURL)
		}
		b := *u
		b.Path = strings.TrimSuffix(dir, "/")
		if b.Path == "" {
			b.Path = "/"
		}
		return b.String(), file, nil
	}
	key = strings.TrimPrefix(p, "/")
	if key == "" || strings.HasSuffix(key, "/") {
		return "", "", fmt.Errorf("blobfile: %q: no object key after the bucket", rawURL)
	}
	b := *u
	b.Path, b.RawPath = "", ""
	return b.String(), key, nil
}

// Name returns the URL or key the File was opened with.
func (f *File) Name() string { return f.name }

// Size returns the size of the object when it was opened.
func (f *File) Size() int64 { return f.size }

// Stats returns what the File fetched so far.
func (f *File) Stats() Stats {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.stats
}

// Close drops the cache and closes the bucket if Open opened it.
func (f *File) Close() error {
	f.mu.Lock()
	if f.closed {
		f.mu.Unlock()
		return fmt.Errorf("blobfile: %s: %w", f.name, errClosed)
	}
	f.closed = true
	f.blocks = nil
	f.lru.Init()
	f.mu.Unlock()
	if f.ownBucket {
		return f.bucket.Close()
	}
	return nil
}

var errClosed = errors.New("already closed")

// ReadAt reads len(p) bytes at off. A read that ends past the end of the
// object returns the bytes up to it and io.EOF.
func (f *File) ReadAt(p []byte, off int64) (int, error) {
	if off < 0 {
		return 0, fmt.Errorf("blobfile: %s: negative offset %d", f.name, off)
	}
	if off >= f.size {
		if len(p) == 0 {
			return 0, nil
		}
		return 0, io.EOF
	}
	want := len(p)
	if want == 0 {
		return 0, nil
	}
	if rest := f.size - off; int64(want) > rest {
		p = p[:rest]
	}
	if err := f.read(p, off); err != nil {
		return 0, err
	}
	if len(p) < want {
		return len(p), io.EOF
	}
	return len(p), nil
}

// A span is one block a read needs: cached (data set), being fetched by
// another read (wait set) or claimed by this read (own).
type span struct {
	idx  int64
	data []byte
	wait *inflight
	own  *inflight
}

// inflight is a block being fetched: the reads that need it meanwhile wait
// for done instead of fetching it again.
type inflight struct {
	done    chan struct{}
	data    []byte // set before done is closed, unless err
	err     error
	waiters int // reads waiting; guarded by File.mu
}

// read serves p (within the object) from aligned blocks: cached ones are
// copied, those another read is fetching are waited for, and the rest are
// claimed and fetched, each run of adjacent ones in one range request
// straight into p (with the parts of its edge blocks outside p). The blocks
// are kept in the cache, but for a read longer than half the cache only its
// partly covered edge blocks (the record headers next to a chunk).
func (f *File) read(p []byte, off int64) error {
	end := off + int64(len(p))
	first, last := off/f.bs, (end-1)/f.bs
	keepAll := int64(len(p)) <= int64(f.maxBlocks)*f.bs/2
	spans := make([]span, 0, last-first+1)
	// partial reports whether the read covers block i only partly.
	partial := func(i int64) bool {
		return i == first && off > i*f.bs || i == last && end < min((i+1)*f.bs, f.size)
	}
	f.mu.Lock()
	if f.closed {
		f.mu.Unlock()
		return fmt.Errorf("blobfile: %s: read after Close: %w", f.name, errClosed)
	}
	f.ahead(first)
	for i := first; i <= last; i++ {
		s := span{idx: i}
		if e, ok := f.blocks[i]; ok {
			f.lru.MoveToFront(e)
			b := e.Value.(*block)
			b.edge = b.edge || partial(i)
			s.data = b.data
		} else if w, ok := f.fetching[i]; ok {
			w.waiters++
			s.wait = w
		} else {
			s.own = &inflight{done: make(chan struct{})}
			f.fetching[i] = s.own
		}
		spans = append(spans, s)
	}
	f.mu.Unlock()

	var err error
	for i := 0; i < len(spans); {
		if spans[i].own == nil {
			i++
			continue
		}
		j := i + 1
		for j < len(spans) && spans[j].own != nil {
			j++
		}
		var head, tail []byte
		if err == nil {
			head, tail, err = f.fetchRun(p, off, spans[i:j], keepAll)
		}
		f.publish(spans[i:j], partial, err, func(start, stop int64) []byte {
			return blockBytes(start, stop, p, off, head, tail)
		})
		i = j
	}
	for _, s := range spans {
		if s.wait != nil {
			<-s.wait.done
			if s.wait.err != nil && err == nil {
				err = s.wait.err
			}
			s.data = s.wait.data
			if partial(s.idx) {
				f.markEdge(s.idx)
			}
		}
		if err == nil && s.data != nil {
			start := s.idx * f.bs
			lo, hi := max(off, start), min(end, start+int64(len(s.data)))
			copy(p[lo-off:hi-off], s.data[lo-start:hi-start])
		}
	}
	return err
}

// fetchRun fetches the claimed adjacent blocks of run in one range request:
// the part inside p into p, the parts outside it (of the edge blocks) into
// head and tail. Each block to keep (all with keepAll, else those p covers
// only partly) gets a copy of its bytes in its inflight entry.
func (f *File) fetchRun(p []byte, off int64, run []span, keepAll bool) (head, tail []byte, err error) {
	end := off + int64(len(p))
	a := run[0].idx * f.bs
	b := min((run[len(run)-1].idx+1)*f.bs, f.size)
	if a < off {
		head = make([]byte, off-a)
	}
	if b > end {
		tail = make([]byte, b-end)
	}
	if err := f.fetch(a, b, head, p[max(a, off)-off:min(b, end)-off], tail); err != nil {
		return nil, nil, err
	}
	for k := range run {
		s := &run[k]
		start := s.idx * f.bs
		stop := min(start+f.bs, f.size)
		if !keepAll && start >= off && stop <= end {
			continue // inside a long read: not kept (but for waiters, see publish)
		}
		s.own.data = blockBytes(start, stop, p, off, head, tail)
	}
	return head, tail, nil
}

// blockBytes returns a copy of the bytes [start, stop) of a fetched run,
// taken from p (at off) and from the head and tail before and after it.
func blockBytes(start, stop int64, p []byte, off int64, head, tail []byte) []byte {
	end := off + int64(len(p))
	d := make([]byte, stop-start)
	if start < off { // head starts at off-len(head)
		h0 := off - int64(len(head))
		copy(d, head[start-h0:min(stop, off)-h0])
	}
	if lo, hi := max(start, off), min(stop, end); lo < hi {
		copy(d[lo-start:], p[lo-off:hi-off])
	}
	if stop > end {
		lo := max(start, end)
		copy(d[lo-start:], tail[lo-end:stop-end])
	}
	return d
}

// publish ends the fetch of the claimed blocks of run: with err each waiter
// gets it; otherwise the blocks with bytes go into the cache (see evict),
// the blocks partial reports as partly read marked as edges, and the
// waiters get their bytes. A block inside a long read that another read
// waits for is kept too (its bytes from bytesOf).
func (f *File) publish(run []span, partial func(int64) bool, err error, bytesOf func(start, stop int64) []byte) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, s := range run {
		delete(f.fetching, s.idx)
		w := s.own
		w.err = err
		if err == nil && w.data == nil && w.waiters > 0 {
			// inside a long read, and needed by a shorter one: kept
			start := s.idx * f.bs
			w.data = bytesOf(start, min(start+f.bs, f.size))
		}
		if err == nil && w.data != nil && !f.closed {
			f.blocks[s.idx] = f.lru.PushFront(&block{idx: s.idx, data: w.data, edge: partial(s.idx)})
		}
		close(w.done)
	}
	f.evict()
}

// markEdge marks block i, if cached, as partly read.
func (f *File) markEdge(i int64) {
	f.mu.Lock()
	if e, ok := f.blocks[i]; ok {
		e.Value.(*block).edge = true
	}
	f.mu.Unlock()
}

// ahead moves the block of the pass, f.pos, to block first of a read: on
// to it when it is further on, back to it when it is more than a cache's
// worth behind (a seek back; the player reads the first chunk of a bag
// after its end). A read behind it by less — the iterator of a pass
// reading the headers and index of the chunks its read-ahead loaded,
// a loader that finishes after one loading a later chunk — leaves it.
// Called with f.mu held.
func (f *File) ahead(first int64) {
	if first > f.pos || first+int64(f.maxBlocks) < f.pos {
		f.pos = first
	}
}

// evict drops blocks until the cache holds at most maxBlocks, the least
// recently used first among: the blocks before the block of the pass only
// ever read whole (the pass is done with the inside of a chunk once it is
// loaded), then the other blocks before it (record headers and index
// records, which the pass may still read: the iterator reads those of the
// chunks its read-ahead loaded), then all. A whole pass so keeps what was
// read ahead of it, such as the first and last chunks a player reads when
// it opens a bag.
func (f *File) evict() {
	for f.lru.Len() > f.maxBlocks {
		var inside, behind *list.Element
		for c := f.lru.Back(); c != nil && inside == nil; c = c.Prev() {
			if b := c.Value.(*block); b.idx < f.pos {
				if !b.edge {
					inside = c
				} else if behind == nil {
					behind = c
				}
			}
		}
		e := cmp.Or(inside, behind, f.lru.Back())
		delete(f.blocks, e.Value.(*block).idx)
		f.lru.Remove(e)
	}
}

// fetch reads the bytes [a, b) in one range request into head, mid and
// tail, one after the other (their lengths add up to b-a).
func (f *File) fetch(a, b int64, head, mid, tail []byte) error {
	f.mu.Lock()
	closed := f.closed
	if !closed {
		f.stats.Requests++
	}
	f.mu.Unlock()
	if closed {
		return fmt.Errorf("blobfile: %s: read after Close: %w", f.name, errClosed)
	}
	r, err := f.bucket.NewRangeReader(f.ctx, f.key, a, b-a, nil)
	if err != nil {
		return fmt.Errorf("blobfile: %s: range [%d, %d): %w", f.name, a, b, err)
	}
	n := 0
	for _, p := range [][]byte{head, mid, tail} {
		var k int
		k, err = io.ReadFull(r, p)
		n += k
		if err != nil {
			break
		}
	}
	r.Close()
	f.mu.Lock()
	f.stats.Bytes += int64(n)
	f.mu.Unlock()
	if err != nil {
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			err = fmt.Errorf("%w (the object is shorter than the %d bytes it had when opened)", io.ErrUnexpectedEOF, f.size)
		}
		return fmt.Errorf("blobfile: %s: range [%d, %d): read %d bytes: %w", f.name, a, b, n, err)
	}
	return nil
}

var _ rosbag.File = (*File)(nil)

// notFound is ErrNotFound for one object, with the store's error: it reads
// "no such object: ..." under a message that already names the package,
// and errors.Is finds ErrNotFound and the store's error in it.
type notFound struct{ err error }

func (e notFound) Error() string   { return "no such object: " + e.err.Error() }
func (e notFound) Unwrap() []error { return []error{ErrNotFound, e.err} }
