// Package blobfile reads bags kept in object storage without downloading
// them: a File is an io.ReaderAt over one object of a gocloud.dev/blob
// bucket (s3://, gs://, azblob://, file:// URLs) that reads with range
// requests through a small bounded cache.
//
// Importing the package registers its schemes with rosbag.RegisterScheme,
// so that rosbag.Open, playback.Open and the tools built on them open
// "s3://bucket/dir/x.bag" as they open a local path: opening a bag reads its
// header and index, a seek reads the chunks it needs, and a whole pass reads
// each chunk once. The cloud drivers are linked in by importing them
// (gocloud.dev/blob/s3blob, gcsblob, azureblob; fileblob for file://), as
// the rs-record command does.
package blobfile

import (
	"container/list"
	"context"
	"errors"
	"fmt"
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
		rosbag.RegisterScheme(s, func(name string) (rosbag.File, error) {
			return Open(context.Background(), name, nil)
		})
	}
}

// Default sizes of Options.
const (
	// DefaultBlockSize is the unit in which small reads are fetched and
	// cached: a record header, an index record, the header of a chunk.
	DefaultBlockSize = 64 << 10
	// DefaultCacheSize bounds the bytes of cached blocks: a few chunks of
	// a bag (rosbag writers close chunks at 768 KiB).
	DefaultCacheSize = 4 << 20
)

// Options tune a File. The zero value (or nil) uses the defaults.
type Options struct {
	// BlockSize: a read shorter than this is served from aligned blocks of
	// this size, fetched (adjacent missing blocks in one request) and kept
	// in the cache; a longer read (a chunk) is one range request of exactly
	// its bytes and is not cached.
	BlockSize int64
	// CacheSize bounds the cached blocks, least recently used first out.
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

	mu     sync.Mutex
	blocks map[int64]*list.Element // block index → element of lru (*block)
	lru    list.List               // front: most recently used
	stats  Stats
	closed bool
}

type block struct {
	idx  int64
	data []byte
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
		if err := rosbag.CheckRegular(filepath.Join(filepath.FromSlash(u.Path), key)); err != nil && !errors.Is(err, fs.ErrNotExist) {
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
	o := Options{BlockSize: DefaultBlockSize, CacheSize: DefaultCacheSize}
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
			return nil, fmt.Errorf("blobfile: %s: %w", name, errors.Join(ErrNotFound, err))
		}
		return nil, fmt.Errorf("blobfile: %s: %w", name, err)
	}
	return &File{
		ctx: ctx, bucket: b, key: key, name: name, size: attrs.Size,
		bs: o.BlockSize, maxBlocks: int(max(1, o.CacheSize/o.BlockSize)),
		blocks: map[int64]*list.Element{},
	}, nil
}

// ErrNotFound is wrapped by the error of opening an object that does not
// exist.
var ErrNotFound = errors.New("no such object")

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
	if rest := f.size - off; int64(want) > rest {
		p = p[:rest]
	}
	var err error
	if int64(len(p)) >= f.bs {
		err = f.fetch(p, off)
	} else {
		err = f.readBlocks(p, off)
	}
	if err != nil {
		return 0, err
	}
	if len(p) < want {
		return len(p), io.EOF
	}
	return len(p), nil
}

// readBlocks serves a short read from the cache, fetching the missing
// blocks it spans in one request per run of adjacent ones.
func (f *File) readBlocks(p []byte, off int64) error {
	first, last := off/f.bs, (off+int64(len(p))-1)/f.bs
	for i := first; i <= last; {
		data, ok := f.cached(i)
		if !ok {
			j := i + 1
			for j <= last && !f.has(j) {
				j++
			}
			start := i * f.bs
			buf := make([]byte, min(j*f.bs, f.size)-start)
			if err := f.fetch(buf, start); err != nil {
				return err
			}
			for k := i; k < j; k++ {
				f.put(k, buf[(k-i)*f.bs:min((k-i+1)*f.bs, int64(len(buf)))])
			}
			data = buf[:min(f.bs, int64(len(buf)))]
		}
		bstart := i * f.bs
		lo := max(off, bstart)
		hi := min(off+int64(len(p)), bstart+int64(len(data)))
		copy(p[lo-off:hi-off], data[lo-bstart:hi-bstart])
		i++
	}
	return nil
}

func (f *File) has(i int64) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	_, ok := f.blocks[i]
	return ok
}

func (f *File) cached(i int64) ([]byte, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	e, ok := f.blocks[i]
	if !ok {
		return nil, false
	}
	f.lru.MoveToFront(e)
	return e.Value.(*block).data, true
}

func (f *File) put(i int64, data []byte) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.closed {
		return
	}
	if e, ok := f.blocks[i]; ok {
		f.lru.MoveToFront(e)
		return
	}
	f.blocks[i] = f.lru.PushFront(&block{idx: i, data: data})
	for f.lru.Len() > f.maxBlocks {
		e := f.lru.Back()
		delete(f.blocks, e.Value.(*block).idx)
		f.lru.Remove(e)
	}
}

// fetch reads exactly len(p) bytes at off in one range request.
func (f *File) fetch(p []byte, off int64) error {
	f.mu.Lock()
	closed := f.closed
	if !closed {
		f.stats.Requests++
	}
	f.mu.Unlock()
	if closed {
		return fmt.Errorf("blobfile: %s: read after Close: %w", f.name, errClosed)
	}
	r, err := f.bucket.NewRangeReader(f.ctx, f.key, off, int64(len(p)), nil)
	if err != nil {
		return fmt.Errorf("blobfile: %s: range [%d, %d): %w", f.name, off, off+int64(len(p)), err)
	}
	n, err := io.ReadFull(r, p)
	r.Close()
	f.mu.Lock()
	f.stats.Bytes += int64(n)
	f.mu.Unlock()
	if err != nil {
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			err = fmt.Errorf("%w (the object is shorter than the %d bytes it had when opened)", io.ErrUnexpectedEOF, f.size)
		}
		return fmt.Errorf("blobfile: %s: range [%d, %d): read %d bytes: %w", f.name, off, off+int64(len(p)), n, err)
	}
	return nil
}

var _ rosbag.File = (*File)(nil)
