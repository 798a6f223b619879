package rosbag

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/rsbag/rsbag/internal/bagname"
)

// defaultMaxRecordSize is the default ReaderOptions.MaxRecordSize: the
// largest record data (a chunk, compressed or not) a Reader accepts.
const defaultMaxRecordSize = 1 << 30

// MaxMessageSize is the largest message the Writer accepts, so that a
// Reader with the default limit reads every bag the Writer writes: the
// chunk holding such a message alone, with its record headers and the
// connection record, and LZ4's worst-case growth of incompressible data
// (1/255 of the input plus a few bytes), stays within the default
// ReaderOptions.MaxRecordSize (1 GiB).
const MaxMessageSize = defaultMaxRecordSize - defaultMaxRecordSize/64

// ErrTooLarge is wrapped by the error of a Writer refusing a message larger
// than MaxMessageSize. The refusal does not stop the Writer.
var ErrTooLarge = errors.New("rosbag: message larger than a bag reader accepts")

// A Reader reads a bag. It is safe for concurrent use: it reads with ReadAt
// only and keeps no cursor.
type Reader struct {
	ra     io.ReaderAt
	f      io.Closer // the file Open or OpenFile opened
	size   int64
	path   string
	maxRec int64
	noSum  bool // ReaderOptions.NoChecksum
	closed atomic.Bool

	conns    []*Connection
	connByID map[uint32]*Connection
	chunks   []chunkInfo
	byStart  []int32 // chunk indices by (start time, file order)
	seg      []Time  // segment tree: max end time over byStart ranges
	segN     int
	info     Info
	recovery *Recovery
	// chunkEnd maps the position of each chunk of an indexed bag to where
	// its part of the file ends (the next chunk, or index_pos): a record of
	// the chunk (its index data included) that runs past it is damage of
	// that chunk, not the end of the file.
	chunkEnd map[int64]int64

	compOnce    sync.Once
	compression []string
}

// indexEntry locates a message inside a chunk.
type indexEntry struct {
	t    Time
	off  uint32
	conn uint32
}

// NewReader opens the bag in r (size bytes). It borrows r.
//
// An unindexed, truncated or index-corrupt bag opens too: the Reader is
// built by a linear scan, Info().Recovery says what the scan found and what
// was lost, and Unindexed returns the error that describes it. The error
// NewReader returns means that nothing could be read.
func NewReader(r io.ReaderAt, size int64, opts *ReaderOptions) (*Reader, error) {
	br := &Reader{ra: r, size: size, maxRec: defaultMaxRecordSize, connByID: make(map[uint32]*Connection)}
	if opts != nil {
		br.path = opts.Path
		if opts.MaxRecordSize > 0 {
			br.maxRec = opts.MaxRecordSize
		}
	}
	rerr := br.open()
	if br.info.Version == "" {
		return nil, rerr
	}
	if opts != nil {
		br.noSum = opts.NoChecksum // after open: a recovery scan always verifies
	}
	br.finish()
	if br.recovery == nil && rerr != nil {
		return nil, rerr
	}
	return br, nil
}

// Unindexed returns nil for a bag opened through its index, and for a bag
// opened by a linear scan an error wrapping ErrUnindexed (and
// io.ErrUnexpectedEOF when the file was cut short) that says what the scan
// recovered and what was lost.
func (r *Reader) Unindexed() error {
	if r.recovery == nil {
		return nil
	}
	return r.recoveredErr()
}

// ErrNotRegular is wrapped by the error Open returns for a path that is not
// a regular file (a FIFO, a device, a directory): a bag is read at random
// offsets, and opening a FIFO would block until a writer comes.
var ErrNotRegular = bagname.ErrNotRegular

// Open opens the bag at path; Close closes it. See NewReader. A name of
// the form SCHEME://... whose scheme was registered with RegisterScheme
// (package blobfile registers s3, gs, azblob and file) is opened by that
// scheme's opener, so that a bag in object storage is read with range
// requests instead of being downloaded.
func Open(path string, opts *ReaderOptions) (*Reader, error) {
	if open, ok := lookupScheme(path); ok {
		f, err := open(path)
		if err != nil {
			return nil, fmt.Errorf("rosbag: %w", err)
		}
		return OpenFile(f, path, opts)
	}
	if err := bagname.CheckRegular(path); err != nil {
		return nil, fmt.Errorf("rosbag: %w", err)
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("rosbag: %w", err)
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("rosbag: %s: stat: %w", path, err)
	}
	if !st.Mode().IsRegular() { // replaced since the first look
		f.Close()
		return nil, fmt.Errorf("rosbag: %s: %w (%s)", path, bare(ErrNotRegular), bagname.FileKind(st.Mode()))
	}
	return OpenFile(&osFile{File: f, size: st.Size()}, path, opts)
}

// A File is a bag's bytes, read at random offsets: a local file, or an
// object in storage read with range requests (package blobfile).
type File interface {
	io.ReaderAt
	io.Closer
	// Size returns the length of the file in bytes.
	Size() int64
}

// osFile is a local bag file. Its small reads go through a cache of one
// block: the record headers, index records and chunk info records a
// Reader walks are small reads that follow each other in the file, one
// system call per block instead of one or two per record. Reads of a
// block or more (chunks, large records) go to the file directly.
type osFile struct {
	*os.File
	size int64

	mu    sync.Mutex
	off   int64  // the file offset of block
	block []byte // the bytes of the file at off; shorter at its end
}

// fileBlock is the size of osFile's cache: a few record headers with
// their small data (a chunk's index data records, the chunk info records).
const fileBlock = 8 << 10

func (f *osFile) Size() int64 { return f.size }

// ReadAt reads len(b) bytes at off, as (*os.File).ReadAt.
func (f *osFile) ReadAt(b []byte, off int64) (int, error) {
	if len(b) >= fileBlock/2 || off < 0 {
		return f.File.ReadAt(b, off)
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if off < f.off || off+int64(len(b)) > f.off+int64(len(f.block)) {
		if f.block == nil {
			f.block = make([]byte, fileBlock)
		}
		n, err := f.File.ReadAt(f.block[:cap(f.block)], off)
		f.off, f.block = off, f.block[:n]
		if n < len(b) {
			if err == nil {
				err = io.EOF
			}
			return copy(b, f.block), err
		}
	}
	return copy(b, f.block[off-f.off:]), nil
}

// OpenFile opens the bag in f, named name in errors; the Reader owns f and
// its Close closes it (also when OpenFile fails). See NewReader.
func OpenFile(f File, name string, opts *ReaderOptions) (*Reader, error) {
	o := ReaderOptions{Path: name}
	if opts != nil {
		o = *opts
		if o.Path == "" {
			o.Path = name
		}
	}
	r, err := NewReader(f, f.Size(), &o)
	if r == nil {
		f.Close()
		return nil, err
	}
	r.f = f
	return r, err
}

// RegisterScheme makes Open (and so every package that opens bags by name:
// playback, rig, the tools) open the names "SCHEME://..." with open, which
// opens the file a name of its scheme names. It is
// meant to be called from the init function of the package that provides
// the opener, like image.RegisterFormat; a later registration of a scheme
// replaces the earlier one.
func RegisterScheme(scheme string, open func(name string) (File, error)) {
	bagname.Register(scheme, open)
}

// lookupScheme returns the opener of name's registered scheme.
func lookupScheme(name string) (func(name string) (File, error), bool) {
	open, ok := bagname.Lookup(name)
	if !ok {
		return nil, false
	}
	return open.(func(name string) (File, error)), true
}

// ErrUnsupportedScheme is wrapped by the error Open returns for a name of
// the form SCHEME://... whose scheme no opener was registered for (and
// that is no local file).
var ErrUnsupportedScheme = bagname.ErrUnsupportedScheme

// OpenURL opens the File a name of a registered scheme names (see
// RegisterScheme), without reading it as a bag: a caller that opens the bag
// several times (as a Reader, and as a playback device) can hold it open
// meanwhile, so that an opener that shares one File per name (package
// blobfile's) reads every block once.
func OpenURL(name string) (File, error) {
	open, ok := lookupScheme(name)
	if !ok {
		return nil, fmt.Errorf("rosbag: %s: %w", name, bare(ErrUnsupportedScheme))
	}
	f, err := open(name)
	if err != nil {
		return nil, fmt.Errorf("rosbag: %w", err)
	}
	return f, nil
}

// Close closes the file opened by Open; for a Reader from NewReader it only
// marks the Reader closed. Iterators fail with ErrClosed afterwards.
func (r *Reader) Close() error {
	if r.closed.Swap(true) {
		return ErrClosed
	}
	if r.f != nil {
		return r.f.Close()
	}
	return nil
}

// Connections returns the connections in ascending id order. The slice and
// its elements must not be modified.
func (r *Reader) Connections() []*Connection { return r.conns }

// ChunkBytes returns, for each chunk (numbered as Message.Chunk), the bytes
// of the file it takes, as stored (compressed): from its chunk record to
// the next chunk, or to the index after the last one, its index data
// records included.
func (r *Reader) ChunkBytes() []int64 {
	end := r.info.IndexPos
	if !r.info.Indexed || end <= 0 {
		end = r.size
	}
	order := make([]int, len(r.chunks))
	for i := range order {
		order[i] = i
	}
	sort.Slice(order, func(a, b int) bool { return r.chunks[order[a]].pos < r.chunks[order[b]].pos })
	out := make([]int64, len(r.chunks))
	for k, i := range order {
		next := end
		if k+1 < len(order) {
			next = r.chunks[order[k+1]].pos
		}
		out[i] = max(next-r.chunks[i].pos, 0)
	}
	return out
}

// Info returns a summary of the bag.
func (r *Reader) Info() Info { return r.info }

func (r *Reader) pfx() string {
	if r.path == "" {
		return ""
	}
	return r.path + ": "
}

func (r *Reader) ferr(off int64, record, reason string) error {
	return &FormatError{Path: r.path, Offset: off, Record: record, Reason: reason}
}

// readAt reads len(b) bytes at off; a read past the end is a truncation.
func (r *Reader) readAt(b []byte, off int64, record string) error {
	return r.readAt2(b, off, record, "")
}

// readAt2 is readAt for the record name record+suffix, built only on error.
func (r *Reader) readAt2(b []byte, off int64, record, suffix string) error {
	if off < 0 || off > r.size || int64(len(b)) > r.size-off {
		return truncated(r.path, off, record+suffix, fmt.Sprintf("%d bytes, file has %d", len(b), r.size))
	}
	n, err := r.ra.ReadAt(b, off)
	if n == len(b) {
		return nil
	}
	if err == io.EOF || err == nil {
		return truncated(r.path, off, record+suffix, fmt.Sprintf("%d bytes, read %d", len(b), n))
	}
	return fmt.Errorf("rosbag: %sread %s at offset %d: %w", r.pfx(), record+suffix, off, err)
}

// record is a record's header and the location of its data.
type record struct {
	off     int64 // record offset
	hdr     header
	dataOff int64
	dataLen int64
}

func (rec *record) end() int64 { return rec.dataOff + rec.dataLen }

// readRecord reads the header of the record at off into buf (reused) and
// checks the lengths against the file size and MaxRecordSize.
func (r *Reader) readRecord(off int64, what string, buf []byte) (record, []byte, error) {
	if cap(buf) < 256 {
		buf = make([]byte, 256)
	}
	lb := buf[:4]
	if err := r.readAt2(lb, off, what, " header length"); err != nil {
		return record{}, buf, err
	}
	hl := int64(binary.LittleEndian.Uint32(lb))
	if hl > r.maxRec {
		return record{}, buf, r.ferr(off, what, fmt.Sprintf("header length %d exceeds the limit %d", hl, r.maxRec))
	}
	if hl+8 > r.size-off {
		return record{}, buf, truncated(r.path, off, what, fmt.Sprintf("header of %d bytes and data length, %d bytes left in the file", hl, r.size-off-4))
	}
	if cap(buf) < int(hl)+4 {
		buf = make([]byte, int(hl)+4)
	}
	buf = buf[:hl+4]
	if err := r.readAt2(buf, off+4, what, " header"); err != nil {
		return record{}, buf, err
	}
	dl := int64(binary.LittleEndian.Uint32(buf[hl:]))
	rec := record{off: off, hdr: header(buf[:hl]), dataOff: off + 8 + hl, dataLen: dl}
	if dl > r.maxRec {
		return rec, buf, r.ferr(off, what, fmt.Sprintf("data length %d exceeds the limit %d", dl, r.maxRec))
	}
	if dl > r.size-rec.dataOff {
		return rec, buf, truncated(r.path, off, what, fmt.Sprintf("data of %d bytes, %d bytes left in the file", dl, r.size-rec.dataOff))
	}
	return rec, buf, nil
}

// open reads the version line, the bag header and the index, falling back to
// a recovery scan. It sets r.info.Version once the input is known to be a bag.
func (r *Reader) open() error {
	var m [len(magic)]byte
	if r.size < int64(len(m)) {
		return fmt.Errorf("%w: %s: %d bytes", ErrNotBag, r.path, r.size)
	}
	if err := r.readAt(m[:], 0, "version line"); err != nil {
		return err
	}
	if string(m[:]) != magic {
		if bytes.HasPrefix(m[:], []byte("#ROSBAG V")) {
			return &UnsupportedError{Path: r.path, Offset: 0, What: fmt.Sprintf("bag format %q (want 2.0)", bytes.TrimSpace(m[9:]))}
		}
		if bytes.HasPrefix(m[:], []byte(mcapMagic)) {
			return fmt.Errorf("%w: %s: %w", ErrNotBag, r.path, bare(ErrMCAP))
		}
		return fmt.Errorf("%w: %s: version line %q, want %q", ErrNotBag, r.path, m[:], magic)
	}
	r.info.Version = "2.0"
	rec, _, err := r.readRecord(bagHeaderPos, "bag header", nil)
	if err != nil {
		if errors.Is(err, io.ErrUnexpectedEOF) {
			r.recover(r.size, "bag header cut short", nil)
			r.recovery.Err = err
			r.recovery.LostFrom = bagHeaderPos
			r.recovery.LostBytes = r.size - bagHeaderPos
			return r.recoveredErr()
		}
		r.info.Version = ""
		return err
	}
	f := fields{h: rec.hdr}
	f.op(opBagHeader, "bag header")
	indexPos, connCount, chunkCount := f.u64("index_pos"), f.u32("conn_count"), f.u32("chunk_count")
	if f.bad != "" {
		r.info.Version = ""
		return r.ferr(bagHeaderPos, "bag header", f.bad)
	}
	dataStart := rec.end()
	r.info.IndexPos = int64(indexPos)
	if indexPos == 0 {
		r.recover(dataStart, "index_pos is 0 (bag not closed)", nil)
		return r.recoveredErr()
	}
	if err := r.readIndex(dataStart, indexPos, connCount, chunkCount); err != nil {
		r.conns, r.chunks = nil, nil
		clear(r.connByID)
		r.recover(dataStart, "index section unusable", err)
		return r.recoveredErr()
	}
	r.info.Indexed = true
	r.chunkEnd = make(map[int64]int64, len(r.chunks))
	for i, n := range r.ChunkBytes() {
		r.chunkEnd[r.chunks[i].pos] = r.chunks[i].pos + n
	}
	return nil
}

// inChunk checks a record of the chunk at pos, read with error err, against
// the chunk's part of the file in an indexed bag: a record cut short by the
// end of the file or running past the next chunk (or the index) is the
// chunk's damage, returned as a FormatError that readers skip as the loss
// of that chunk. Otherwise it returns err.
func (r *Reader) inChunk(pos int64, rec record, err error, what string) error {
	end, ok := r.chunkEnd[pos]
	if rec.off == 0 { // not read far enough to be located
		rec.off = pos
	}
	switch {
	case !ok:
		return err
	case err != nil && errors.Is(err, io.ErrUnexpectedEOF):
		var fe *FormatError
		reason := err.Error()
		if errors.As(err, &fe) {
			reason = strings.TrimPrefix(fe.Reason, "truncated: ")
		}
		return r.ferr(rec.off, what, fmt.Sprintf("length fields run past offset %d, where the chunk at offset %d ends (the next chunk or the index): %s", end, pos, reason))
	case err == nil && rec.end() > end:
		return r.ferr(rec.off, what, fmt.Sprintf("record of %d bytes runs to offset %d, past offset %d where the chunk at offset %d ends (the next chunk or the index)",
			rec.end()-rec.off, rec.end(), end, pos))
	}
	return err
}

// Compression returns the distinct chunk compressions ("none", "lz4",
// "bz2") in file order of first use. For an indexed bag it reads the header
// of every chunk the first time it is called (one small read per chunk, which
// Open does not make, so that opening a bag in object storage reads its
// index only); chunks whose header cannot be read are left out.
func (r *Reader) Compression() []string {
	r.compOnce.Do(func() {
		if r.recovery != nil {
			return // the scan found them
		}
		var hb []byte
		seen := map[string]bool{}
		for _, ci := range r.chunks {
			var comp string
			var err error
			_, comp, _, hb, err = r.chunkRecord(ci.pos, hb)
			if err == nil && !seen[comp] {
				seen[comp] = true
				r.compression = append(r.compression, comp)
			}
		}
	})
	return r.compression
}

func (r *Reader) recoveredErr() error {
	rc := r.recovery
	msg := fmt.Sprintf("rosbag: %s%s; recovered %d chunks, %d messages by a linear scan", r.pfx(), rc.Reason, rc.Chunks, rc.Messages)
	if n := len(rc.Skipped); n > 0 {
		var b int64
		for _, sk := range rc.Skipped {
			b += sk.Bytes
		}
		msg += fmt.Sprintf("; skipped %d corrupt chunks (%d bytes, first at offset %d)", n, b, rc.Skipped[0].Offset)
	}
	if rc.Orphans > 0 {
		msg += fmt.Sprintf("; dropped %d messages whose connection record was lost", rc.Orphans)
	}
	if rc.LostBytes > 0 {
		msg += fmt.Sprintf("; lost %d bytes from offset %d", rc.LostBytes, rc.LostFrom)
	}
	if rc.Err != nil {
		return fmt.Errorf("%s: %w: %w", msg, ErrUnindexed, rc.Err)
	}
	return fmt.Errorf("%s: %w", msg, ErrUnindexed)
}

// readIndex reads the connection and chunk info records at index_pos.
func (r *Reader) readIndex(dataStart int64, indexPos uint64, connCount, chunkCount uint32) error {
	if indexPos < uint64(dataStart) || indexPos > uint64(r.size) || indexPos == uint64(r.size) && connCount+chunkCount > 0 {
		return r.ferr(bagHeaderPos, "bag header", fmt.Sprintf("index_pos %d outside the file's records [%d, %d)", indexPos, dataStart, r.size))
	}
	left := uint64(r.size) - indexPos
	// the smallest connection record is 4+8+4+... > 30 bytes, chunk info > 60
	if uint64(connCount)*30+uint64(chunkCount)*60 > left {
		return r.ferr(bagHeaderPos, "bag header", fmt.Sprintf("conn_count %d and chunk_count %d do not fit in the %d bytes after index_pos", connCount, chunkCount, left))
	}
	off := int64(indexPos)
	var buf, data []byte
	var err error
	for i := uint32(0); i < connCount; i++ {
		var rec record
		rec, buf, err = r.readRecord(off, "connection record", buf)
		if err != nil {
			return err
		}
		f := fields{h: rec.hdr}
		f.op(opConnection, "connection")
		if f.bad != "" {
			return r.ferr(off, "connection record", fmt.Sprintf("%s, connection %d of %d", f.bad, i+1, connCount))
		}
		data = grow(data, int(rec.dataLen))
		if err := r.readAt(data, rec.dataOff, "connection record data"); err != nil {
			return err
		}
		c, bad := parseConnection(rec.hdr, data)
		if bad != "" {
			return r.ferr(off, "connection record", bad)
		}
		if _, dup := r.connByID[c.ID]; dup {
			return r.ferr(off, fmt.Sprintf("connection %d", c.ID), "duplicate connection id")
		}
		r.addConn(c)
		off = rec.end()
	}
	for i := uint32(0); i < chunkCount; i++ {
		var rec record
		rec, buf, err = r.readRecord(off, "chunk info record", buf)
		if err != nil {
			return err
		}
		ci, bad := r.parseChunkInfo(rec, &data)
		if bad != "" {
			return r.ferr(off, fmt.Sprintf("chunk info %d", i), bad)
		}
		if ci.pos < dataStart || ci.pos >= int64(indexPos) {
			return r.ferr(off, fmt.Sprintf("chunk info %d", i), fmt.Sprintf("chunk_pos %d outside the chunk section [%d, %d)", ci.pos, dataStart, indexPos))
		}
		r.chunks = append(r.chunks, ci)
		off = rec.end()
	}
	return nil
}

func (r *Reader) parseChunkInfo(rec record, data *[]byte) (chunkInfo, string) {
	var ci chunkInfo
	f := fields{h: rec.hdr}
	f.op(opChunkInfo, "chunk info")
	f.version1()
	pos := f.u64("chunk_pos")
	ci.start, ci.end = f.time("start_time"), f.time("end_time")
	count := f.u32("count")
	if int64(count)*8 != rec.dataLen {
		f.failf("count %d needs %d data bytes, data length is %d", count, 8*int64(count), rec.dataLen)
	}
	if f.bad != "" {
		return ci, f.bad
	}
	if pos > uint64(r.size) {
		return ci, fmt.Sprintf("chunk_pos %d past the end of the file", pos)
	}
	if ci.end < ci.start {
		// No writer makes one; every reader that selects chunks by time
		// would see another part of the bag.
		return ci, fmt.Sprintf("end_time %s before start_time %s", ci.end, ci.start)
	}
	ci.pos = int64(pos)
	*data = grow(*data, int(rec.dataLen))
	if err := r.readAt(*data, rec.dataOff, "chunk info data"); err != nil {
		return ci, err.Error()
	}
	ci.counts = make([]connCount, count)
	for j := range ci.counts {
		d := (*data)[8*j:]
		ci.counts[j] = connCount{binary.LittleEndian.Uint32(d), binary.LittleEndian.Uint32(d[4:])}
		if _, ok := r.connByID[ci.counts[j].conn]; !ok {
			return ci, fmt.Sprintf("unknown connection %d", ci.counts[j].conn)
		}
	}
	return ci, ""
}

func (r *Reader) addConn(c *Connection) {
	r.connByID[c.ID] = c
	r.conns = append(r.conns, c)
}

func grow(b []byte, n int) []byte {
	if cap(b) < n {
		return make([]byte, n)
	}
	return b[:n]
}

// finish computes Info and the seek structures.
func (r *Reader) finish() {
	sort.Slice(r.conns, func(i, j int) bool { return r.conns[i].ID < r.conns[j].ID })
	in := &r.info
	in.Path, in.Size = r.path, r.size
	in.Chunks, in.Connections = len(r.chunks), len(r.conns)
	in.MessageCounts = make(map[uint32]uint64, len(r.conns))
	for _, c := range r.conns {
		in.MessageCounts[c.ID] = 0
	}
	first := true
	for i := range r.chunks {
		ci := &r.chunks[i]
		var n uint64
		for _, cc := range ci.counts {
			in.MessageCounts[cc.conn] += uint64(cc.count)
			n += uint64(cc.count)
		}
		in.Messages += n
		if n == 0 {
			continue
		}
		if first || ci.start < in.Start {
			in.Start = ci.start
		}
		if first || ci.end > in.End {
			in.End = ci.end
		}
		first = false
	}
	in.Recovery = r.recovery
	r.byStart = make([]int32, len(r.chunks))
	for i := range r.byStart {
		r.byStart[i] = int32(i)
	}
	sort.SliceStable(r.byStart, func(a, b int) bool { return r.chunks[r.byStart[a]].start < r.chunks[r.byStart[b]].start })
	n := 1
	for n < len(r.byStart) {
		n *= 2
	}
	r.segN = n
	r.seg = make([]Time, 2*n)
	for i, ci := range r.byStart {
		r.seg[n+i] = r.chunks[ci].end
	}
	for i := n - 1; i >= 1; i-- {
		r.seg[i] = max(r.seg[2*i], r.seg[2*i+1])
	}
}

// overlapping calls fn for every position p < lim in byStart whose chunk ends
// at or after t, in ascending p: O((k+1) log chunks).
func (r *Reader) overlapping(lim int, t Time, fn func(p int)) {
	var walk func(node, lo, hi int)
	walk = func(node, lo, hi int) {
		if lo >= lim || r.seg[node] < t {
			return
		}
		if hi-lo == 1 {
			fn(lo)
			return
		}
		mid := (lo + hi) / 2
		walk(2*node, lo, mid)
		walk(2*node+1, mid, hi)
	}
	if len(r.byStart) > 0 {
		walk(1, 0, r.segN)
	}
}
