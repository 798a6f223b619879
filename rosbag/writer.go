package rosbag

import (
	"cmp"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/rsbag/rsbag/internal/bagref"
	"github.com/rsbag/rsbag/internal/lz4frame"
)

// Writer defaults (spec §1.4: librealsense closes a chunk above 768 KiB).
const (
	defaultChunkThreshold = 786432
	defaultFlushInterval  = time.Second
)

// A Writer writes a bag. Its methods are meant to be called from one
// goroutine; they are nevertheless safe against the Writer's own flush timer.
type Writer struct {
	mu       sync.Mutex
	w        io.WriteSeeker
	f        *os.File // owned by Create
	name     string
	compress string
	thresh   int
	interval time.Duration
	closed   bool

	conns    []*Connection
	connRec  [][]byte
	inChunk  []bool // connection record already placed in a chunk
	topics   map[string]uint32
	cur      *chunkJob
	curStart time.Time
	timer    *time.Timer

	free      chan *chunkJob
	nJobs     int
	jobs      chan *chunkJob
	order     chan *chunkJob
	submitted uint64
	wg        sync.WaitGroup

	// sequencer state
	seqMu     sync.Mutex
	seqCond   *sync.Cond
	doneSeq   uint64
	off       int64 // file offset of the next chunk (end of good data)
	size      atomic.Int64
	infos     []chunkInfo
	allCounts []connCount // backing array of infos[i].counts
	// firstChunk is, by connection id, 1 + the number of the written chunk
	// that holds the connection's record (0: none yet).
	firstChunk []int
	idxLen     int64        // length of the index section of the written chunks
	room       roomReserver // nil: the file keeps no room for the index
	roomEnd    int64        // the file holds blocks up to this offset

	kept int // chunks the index written by Close lists (-1 before)

	errMu sync.Mutex
	err   error
}

type idxEntry struct {
	t   Time
	off uint32
}

type connCount struct {
	conn  uint32
	count uint32
}

// chunkJob is one chunk on its way from WriteMessage through a worker to the
// sequencer. Jobs and their buffers are recycled.
type chunkJob struct {
	seq        uint64
	payload    []byte
	start, end Time
	idx        [][]idxEntry // by connection id
	used       []uint32     // connections with entries in this chunk
	newConns   []uint32     // connection records placed in this chunk
	newConnLen int          // their length
	counts     []connCount
	head       []byte // chunk record header (+ compressed data and index data records for lz4)
	tail       []byte // index data records (empty for lz4: they are in head)
	done       chan struct{}
	// refs are the pieces of the payload held by reference (lz4 only):
	// the buffer holds stale bytes where they lie until a block that
	// straddles one is compressed (Block).
	refs []payloadRef
}

// payloadRef is a piece of a chunk's payload held by reference: the
// payload's bytes [off, off+len(data)) are data's.
type payloadRef struct {
	off  int
	data []byte
}

// Block returns the payload's bytes [off, end) for the LZ4 frame
// (lz4frame.BlockSource): straight from the piece held by reference that
// holds them all, else from the buffer, once the pieces' bytes in the
// block are copied in.
func (c *chunkJob) Block(off, end int) []byte {
	for _, r := range c.refs {
		if r.off <= off && end <= r.off+len(r.data) {
			return r.data[off-r.off : end-r.off]
		}
	}
	for _, r := range c.refs {
		if lo, hi := max(off, r.off), min(end, r.off+len(r.data)); lo < hi {
			copy(c.payload[lo:hi], r.data[lo-r.off:hi-r.off])
		}
	}
	return c.payload[off:end]
}

func init() {
	bagref.WriteMessageRef = func(w any, conn uint32, t uint64, head, data, tail []byte) error {
		return w.(*Writer).writeMessage(conn, Time(t), len(head)+len(data)+len(tail), nil, nil, &messageParts{head, data, tail})
	}
}

// messageParts is a message given as head, data, tail, whose data the
// Writer may hold by reference (bagref.WriteMessageRef).
type messageParts struct {
	head, data, tail []byte
}

// NewWriter starts a bag on w, which must be positioned at its start. The
// Writer borrows w: Close does not close it.
func NewWriter(w io.WriteSeeker, opts *WriterOptions) (*Writer, error) {
	return newWriter(w, nil, "", opts)
}

// Create creates (or truncates) the file path and starts a bag on it; Close
// closes the file.
func Create(path string, opts *WriterOptions) (*Writer, error) {
	if err := checkWriterOptions(opts); err != nil {
		return nil, err
	}
	f, err := os.Create(path)
	if err != nil {
		return nil, fmt.Errorf("rosbag: create: %w", err)
	}
	bw, err := newWriter(f, f, path, opts)
	if err != nil {
		f.Close()
		return nil, err
	}
	return bw, nil
}

func checkWriterOptions(opts *WriterOptions) error {
	if opts == nil {
		return nil
	}
	switch opts.Compression {
	case "", "lz4", "none":
	default:
		return &UnsupportedError{Offset: -1, What: fmt.Sprintf("compression %q for writing (want \"lz4\" or \"none\")", opts.Compression)}
	}
	if opts.ChunkThreshold < 0 || opts.Workers < 0 {
		return fmt.Errorf("rosbag: negative ChunkThreshold or Workers in WriterOptions")
	}
	return nil
}

func newWriter(w io.WriteSeeker, f *os.File, name string, opts *WriterOptions) (*Writer, error) {
	if err := checkWriterOptions(opts); err != nil {
		return nil, err
	}
	var o WriterOptions
	if opts != nil {
		o = *opts
	}
	if o.Compression == "" {
		o.Compression = "lz4"
	}
	if o.ChunkThreshold == 0 {
		o.ChunkThreshold = defaultChunkThreshold
	}
	if o.FlushInterval == 0 {
		o.FlushInterval = defaultFlushInterval
	}
	if o.Workers == 0 {
		o.Workers = runtime.GOMAXPROCS(0)
	}
	bw := &Writer{
		w: w, f: f, name: name,
		compress: o.Compression,
		thresh:   o.ChunkThreshold,
		interval: o.FlushInterval,
		topics:   make(map[string]uint32),
		nJobs:    o.Workers + 2,
		jobs:     make(chan *chunkJob, o.Workers+2),
		order:    make(chan *chunkJob, o.Workers+2),
	}
	bw.free = make(chan *chunkJob, bw.nJobs)
	bw.kept = -1
	switch r := w.(type) {
	case roomReserver:
		bw.room = r
	case *os.File:
		bw.room = fileRoom{r}
	}
	bw.seqCond = sync.NewCond(&bw.seqMu)
	hdr := append([]byte(magic), appendBagHeader(nil, 0, 0, 0)...)
	if _, err := w.Write(hdr); err != nil {
		return nil, fmt.Errorf("rosbag: %swrite bag header: %w", bw.prefix(), err)
	}
	bw.off = int64(len(hdr))
	bw.size.Store(bw.off)
	for i := 0; i < bw.nJobs; i++ {
		bw.free <- &chunkJob{done: make(chan struct{}, 1)}
	}
	for i := 0; i < o.Workers; i++ {
		bw.wg.Add(1)
		go bw.worker()
	}
	bw.wg.Add(1)
	go bw.sequencer()
	if bw.interval > 0 {
		bw.timer = time.AfterFunc(time.Hour, bw.onTimer)
		bw.timer.Stop()
	}
	return bw, nil
}

func (w *Writer) prefix() string {
	if w.name == "" {
		return ""
	}
	return w.name + ": "
}

// AddConnection declares a topic and returns its connection id. Ids are
// 0, 1, 2… in call order; a topic may be added only once. The connection
// record is written into the chunk of the connection's first message;
// connections without messages are not written. extra holds the connection
// header fields other than type, md5sum and message_definition (e.g.
// "callerid", "latching", and "topic" as ROS repeats it), written in sorted
// order as Connection.Extra: what a copy of another bag's connection needs
// to be exact; it is nil for most topics.
func (w *Writer) AddConnection(topic, typ, md5, def string, extra map[string]string) (uint32, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed {
		return 0, ErrClosed
	}
	if _, ok := w.topics[topic]; ok {
		return 0, fmt.Errorf("rosbag: %stopic %q already has a connection", w.prefix(), topic)
	}
	if typ == "" {
		return 0, fmt.Errorf("rosbag: %stopic %q: empty message type", w.prefix(), topic)
	}
	id := uint32(len(w.conns))
	c := &Connection{ID: id, Topic: topic, Type: typ, MD5Sum: md5, MessageDefinition: def}
	for k, v := range extra {
		switch k {
		case "type", "md5sum", "message_definition":
			continue
		}
		if c.Extra == nil {
			c.Extra = map[string]string{}
		}
		c.Extra[k] = v
	}
	w.conns = append(w.conns, c)
	w.connRec = append(w.connRec, appendConnectionRecord(nil, c))
	w.inChunk = append(w.inChunk, false)
	w.topics[topic] = id
	return id, nil
}

// msgHeaderLen is the header length of a message data record.
const msgHeaderLen = 4 + 5 + 4 + 4 + 3 + 1 + 4 + 5 + 8

// WriteMessage appends a message of connection conn at time t (MinTime ≤ t ≤
// MaxTime). data is copied before WriteMessage returns.
func (w *Writer) WriteMessage(conn uint32, t Time, data []byte) error {
	return w.writeMessage(conn, t, len(data), data, nil, nil)
}

// WriteMessageFunc appends a message of connection conn at time t whose
// serialization is exactly size bytes long, and lets fill write it straight
// into the chunk buffer: the zero-copy variant of WriteMessage for callers
// that would otherwise marshal into a scratch buffer first.
//
// fill is called once, before WriteMessageFunc returns, with dst of length
// size; it must write every byte of dst (dst holds stale bytes of earlier
// chunks), must not keep dst after it returns and must not call the Writer.
// It runs with the Writer's lock held, so it should only serialize. If the
// Writer refuses the message (closed, sticky error, unknown connection, bad
// time or size) fill is not called. If fill panics, the message is not
// added and the Writer stays usable.
//
// A record device can write msgs values with
//
//	w.WriteMessageFunc(conn, t, msgs.Size(m), func(dst []byte) { msgs.Append(dst[:0], m) })
func (w *Writer) WriteMessageFunc(conn uint32, t Time, size int, fill func(dst []byte)) error {
	if size < 0 {
		return fmt.Errorf("rosbag: %sWriteMessageFunc: negative size %d", w.prefix(), size)
	}
	if fill == nil {
		return fmt.Errorf("rosbag: %sWriteMessageFunc: nil fill function", w.prefix())
	}
	return w.writeMessage(conn, t, size, nil, fill, nil)
}

// writeMessage appends a message record of size data bytes, copied from data,
// written by fill or made of parts.
func (w *Writer) writeMessage(conn uint32, t Time, size int, data []byte, fill func([]byte), parts *messageParts) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed {
		return ErrClosed
	}
	if err := w.Err(); err != nil {
		return err
	}
	if int(conn) >= len(w.conns) {
		return fmt.Errorf("rosbag: %sWriteMessage: unknown connection %d (have %d)", w.prefix(), conn, len(w.conns))
	}
	if t < MinTime || t > MaxTime {
		return fmt.Errorf("rosbag: %sWriteMessage: topic %s: time %v outside [%v, %v]", w.prefix(), w.conns[conn].Topic, t, MinTime, MaxTime)
	}
	if size > MaxMessageSize {
		return fmt.Errorf("rosbag: %sWriteMessage: topic %s: %d bytes: %w (%d bytes)", w.prefix(), w.conns[conn].Topic, size, bare(ErrTooLarge), MaxMessageSize)
	}
	recLen := 4 + msgHeaderLen + 4 + uint64(size)
	newConn := !w.inChunk[conn]
	if newConn {
		recLen += uint64(len(w.connRec[conn]))
	}
	if recLen > math.MaxUint32 {
		return fmt.Errorf("rosbag: %sWriteMessage: topic %s: message of %d bytes too large", w.prefix(), w.conns[conn].Topic, size)
	}
	c := w.cur
	// A chunk stays within what a Reader accepts (see MaxMessageSize),
	// whatever the chunk threshold.
	if c != nil && len(c.payload) > 0 && uint64(len(c.payload))+recLen > MaxMessageSize {
		w.finishLocked()
		c = nil
	}
	if c == nil {
		c = w.openChunk(t)
		if c == nil {
			return w.Err()
		}
	}
	// Build the record in the spare capacity of the payload and commit it
	// only once it is complete, so that a panicking fill leaves no trace.
	p := c.payload
	if cap(p)-len(p) < int(recLen) {
		p = slices.Grow(p, int(recLen))
		c.payload = p
	}
	if newConn {
		p = append(p, w.connRec[conn]...)
	}
	off := uint32(len(p))
	sec, nsec := t.ROS()
	p = append(p,
		msgHeaderLen, 0, 0, 0,
		9, 0, 0, 0, 'c', 'o', 'n', 'n', '=', byte(conn), byte(conn>>8), byte(conn>>16), byte(conn>>24),
		4, 0, 0, 0, 'o', 'p', '=', opMsgData,
		13, 0, 0, 0, 't', 'i', 'm', 'e', '=', byte(sec), byte(sec>>8), byte(sec>>16), byte(sec>>24),
		byte(nsec), byte(nsec>>8), byte(nsec>>16), byte(nsec>>24))
	p = binary.LittleEndian.AppendUint32(p, uint32(size))
	dst := p[len(p) : len(p)+size : len(p)+size]
	switch {
	case fill != nil:
		fill(dst)
	case parts != nil:
		copy(dst, parts.head)
		copy(dst[size-len(parts.tail):], parts.tail)
		// Only data that may cover a whole LZ4 block is worth holding:
		// the blocks within it are compressed from it, not copied.
		if d := parts.data; w.compress == "lz4" && len(d) >= lz4frame.BlockSize {
			c.refs = append(c.refs, payloadRef{len(p) + len(parts.head), d})
		} else {
			copy(dst[len(parts.head):], d)
		}
	default:
		copy(dst, data)
	}
	c.payload = p[:len(p)+size]
	if newConn {
		w.inChunk[conn] = true
		c.newConns = append(c.newConns, conn)
		c.newConnLen += len(w.connRec[conn])
	}
	for int(conn) >= len(c.idx) {
		c.idx = append(c.idx, nil)
	}
	if len(c.used) == 0 { // first message of the chunk
		c.start, c.end = t, t
	}
	if len(c.idx[conn]) == 0 {
		c.used = append(c.used, conn)
	}
	c.idx[conn] = append(c.idx[conn], idxEntry{t, off})
	if t > c.end {
		c.end = t
	} else if t < c.start {
		c.start = t
	}
	if len(c.payload) > w.thresh {
		w.finishLocked()
	}
	return nil
}

// openChunk takes a free job (waiting for one when all are in flight).
func (w *Writer) openChunk(t Time) *chunkJob {
	c := <-w.free
	w.submitted++
	c.seq = w.submitted
	c.start, c.end = t, t
	if cap(c.payload) == 0 {
		c.payload = make([]byte, 0, w.thresh+64<<10)
	}
	w.cur = c
	if w.timer != nil {
		w.curStart = time.Now()
		w.timer.Reset(w.interval)
	}
	return c
}

func (w *Writer) onTimer() {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.cur == nil || w.closed {
		return
	}
	if d := time.Since(w.curStart); d < w.interval {
		w.timer.Reset(w.interval - d)
		return
	}
	w.finishLocked()
}

// finishLocked hands the open chunk to the workers and the sequencer.
func (w *Writer) finishLocked() {
	c := w.cur
	if c == nil {
		return
	}
	w.cur = nil
	if w.timer != nil {
		w.timer.Stop()
	}
	if len(c.payload) == 0 {
		// Opened for a message whose fill panicked: give the job back. It is
		// the latest one submitted, so its sequence number is reused.
		w.submitted--
		w.free <- c
		return
	}
	w.order <- c
	w.jobs <- c
}

// Flush finalizes the open chunk and returns once every finalized chunk was
// written to the underlying writer. It returns the sticky error, if any.
func (w *Writer) Flush() error {
	w.mu.Lock()
	if w.closed {
		w.mu.Unlock()
		return ErrClosed
	}
	w.finishLocked()
	target := w.submitted
	if w.cur != nil {
		target--
	}
	w.mu.Unlock()
	w.seqMu.Lock()
	for w.doneSeq < target {
		w.seqCond.Wait()
	}
	w.seqMu.Unlock()
	return w.Err()
}

func (w *Writer) worker() {
	defer w.wg.Done()
	var enc lz4frame.Encoder
	for c := range w.jobs {
		w.prepare(c, &enc)
		c.done <- struct{}{}
	}
}

// prepare sorts the index entries and builds the chunk header (with the
// compressed data for lz4) and the index data records.
func (w *Writer) prepare(c *chunkJob, enc *lz4frame.Encoder) {
	slices.Sort(c.used)
	c.counts = c.counts[:0]
	tail := c.tail[:0]
	for _, id := range c.used {
		e := c.idx[id]
		if !slices.IsSortedFunc(e, cmpEntry) {
			slices.SortStableFunc(e, cmpEntry)
		}
		c.counts = append(c.counts, connCount{id, uint32(len(e))})
		var h int
		tail, h = beginLen(tail)
		tail = appendFieldU32(tail, "conn", id)
		tail = appendFieldU32(tail, "count", uint32(len(e)))
		tail = appendFieldOp(tail, opIndexData)
		tail = appendFieldU32(tail, "ver", 1)
		endLen(tail, h)
		tail = binary.LittleEndian.AppendUint32(tail, uint32(12*len(e)))
		for _, x := range e {
			sec, nsec := x.t.ROS()
			tail = binary.LittleEndian.AppendUint32(tail, sec)
			tail = binary.LittleEndian.AppendUint32(tail, nsec)
			tail = binary.LittleEndian.AppendUint32(tail, x.off)
		}
	}
	c.tail = tail
	if w.compress == "lz4" {
		// The index data records follow the chunk in the same buffer, so
		// that the sequencer writes a chunk with one system call.
		var src lz4frame.BlockSource
		if len(c.refs) > 0 {
			src = c
		}
		c.head = append(appendChunk(c.head[:0], w.compress, c.payload, src, enc), tail...)
		c.tail = tail[:0]
		// The chunk is compressed: the pieces held are let go.
		clear(c.refs)
		c.refs = c.refs[:0]
	} else {
		c.head = appendChunkHeader(c.head[:0], w.compress, len(c.payload), len(c.payload))
	}
}

// appendChunkHeader appends the header of a chunk record of size payload
// bytes stored in dataLen bytes, and its data length.
func appendChunkHeader(b []byte, compression string, size, dataLen int) []byte {
	b, h := beginLen(b)
	b = appendFieldString(b, "compression", compression)
	b = appendFieldOp(b, opChunk)
	b = appendFieldU32(b, "size", uint32(size))
	endLen(b, h)
	return binary.LittleEndian.AppendUint32(b, uint32(dataLen))
}

// appendChunk appends a chunk record of payload, LZ4-compressed with enc
// when compression is "lz4" (from src when not nil: the payload's blocks
// as src gives them), else uncompressed.
func appendChunk(b []byte, compression string, payload []byte, src lz4frame.BlockSource, enc *lz4frame.Encoder) []byte {
	if compression != "lz4" {
		return append(appendChunkHeader(b, "none", len(payload), len(payload)), payload...)
	}
	b = appendChunkHeader(b, compression, len(payload), 0)
	dl := len(b) - 4
	if src != nil {
		b = enc.AppendFrameFrom(b, len(payload), src)
	} else {
		b = enc.AppendFrame(b, payload)
	}
	binary.LittleEndian.PutUint32(b[dl:], uint32(len(b)-dl-4))
	return b
}

func cmpEntry(a, b idxEntry) int { return cmp.Compare(a.t, b.t) }

func (w *Writer) setErr(err error) {
	w.errMu.Lock()
	if w.err == nil {
		w.err = err
	}
	w.errMu.Unlock()
}

// Err returns the sticky error of the Writer, if any.
func (w *Writer) Err() error {
	w.errMu.Lock()
	defer w.errMu.Unlock()
	return w.err
}

func (w *Writer) write(b []byte, what string, off int64) error {
	n, err := w.w.Write(b)
	w.size.Add(int64(n))
	if err == nil && n != len(b) {
		err = io.ErrShortWrite
	}
	if err != nil {
		return fmt.Errorf("rosbag: %swrite %s at offset %d: %w", w.prefix(), what, off, err)
	}
	return nil
}

func (w *Writer) sequencer() {
	defer w.wg.Done()
	for c := range w.order {
		<-c.done
		if w.Err() == nil && w.room != nil {
			w.keepRoom(c)
		}
		if w.Err() == nil {
			pos := w.off
			err := w.write(c.head, "chunk", pos)
			if err == nil && w.compress != "lz4" {
				err = w.write(c.payload, "chunk", pos)
			}
			if err == nil && len(c.tail) > 0 {
				err = w.write(c.tail, "index data", pos)
			}
			if err != nil {
				w.setErr(err)
			} else {
				end := pos + int64(len(c.head)+len(c.tail))
				if w.compress != "lz4" {
					end += int64(len(c.payload))
				}
				w.off = end
				// The counts of all chunks share one growing array, so a
				// chunk costs no allocation of its own.
				n := len(w.allCounts)
				w.allCounts = append(w.allCounts, c.counts...)
				w.infos = append(w.infos, chunkInfo{pos: pos, start: c.start, end: c.end, counts: w.allCounts[n:len(w.allCounts):len(w.allCounts)]})
				w.idxLen += chunkInfoLen(len(c.counts)) + int64(c.newConnLen)
				for _, id := range c.newConns {
					for int(id) >= len(w.firstChunk) {
						w.firstChunk = append(w.firstChunk, 0)
					}
					w.firstChunk[id] = len(w.infos)
				}
			}
		}
		seq := c.seq
		for _, id := range c.used {
			c.idx[id] = c.idx[id][:0]
		}
		c.used, c.newConns, c.newConnLen = c.used[:0], c.newConns[:0], 0
		c.payload = c.payload[:0]
		w.free <- c
		w.seqMu.Lock()
		w.doneSeq = seq
		w.seqCond.Broadcast()
		w.seqMu.Unlock()
	}
}

// Close finalizes the bag: writes the open chunk, the index section and the
// bag header. After a write error it still tries to leave a readable file of
// the chunks written before (the underlying writer is truncated there when it
// has a Truncate method). A Writer on an *os.File reserves room (fallocate on
// Linux) for each chunk and the index after it before writing the chunk: on a
// full disk the bag keeps its index and every chunk written; where the file
// system cannot reserve, the index is written over the last chunks if there
// is no room after them. It returns the first error of the Writer's life.
// Closing twice returns ErrClosed.
func (w *Writer) Close() error {
	w.mu.Lock()
	if w.closed {
		w.mu.Unlock()
		return ErrClosed
	}
	if w.Err() == nil {
		w.finishLocked()
	}
	if c := w.cur; c != nil { // unfinished chunk after an error: drop it
		w.cur = nil
		w.free <- c
	}
	w.closed = true
	if w.timer != nil {
		w.timer.Stop()
	}
	close(w.order)
	close(w.jobs)
	w.mu.Unlock()
	w.wg.Wait()
	firstErr := w.Err()

	// Index section at the end of the last chunk written in full; if the
	// disk has no room for it there (no room was kept, or the file system
	// keeps none), over the last chunks, which are left out: the bytes the
	// file already holds take it without new room.
	errs := []error{firstErr}
	indexed := false
	k := len(w.infos)
	indexPos := w.off
	b, nconn := w.indexSection(k)
	err := w.writeIndex(b, indexPos)
	if err != nil && firstErr != nil {
		for k > 0 {
			k--
			indexPos = w.infos[k].pos
			if b, nconn = w.indexSection(k); indexPos+int64(len(b)) <= max(w.off, w.roomEnd) {
				break
			}
		}
		if w.writeIndex(b, indexPos) == nil {
			err = nil
		}
	}
	if err != nil {
		errs = append(errs, err)
	} else {
		end := indexPos + int64(len(b))
		hdr := appendBagHeader(nil, uint32(k), uint32(nconn), uint64(indexPos))
		if _, err := w.w.Seek(bagHeaderPos, io.SeekStart); err != nil {
			errs = append(errs, fmt.Errorf("rosbag: %sseek to bag header: %w", w.prefix(), err))
		} else if _, err := w.w.Write(hdr); err != nil {
			errs = append(errs, fmt.Errorf("rosbag: %spatch bag header: %w", w.prefix(), err))
		} else if _, err := w.w.Seek(end, io.SeekStart); err != nil {
			errs = append(errs, fmt.Errorf("rosbag: %sseek to end: %w", w.prefix(), err))
		} else {
			indexed = true
		}
		if t, ok := w.w.(interface{ Truncate(int64) error }); ok && firstErr != nil {
			if err := t.Truncate(end); err != nil {
				errs = append(errs, fmt.Errorf("rosbag: %struncate: %w", w.prefix(), err))
			}
		}
		if w.room != nil && w.roomEnd > end {
			if err := w.room.releaseRoom(end, w.roomEnd-end); err != nil && !errors.Is(err, errors.ErrUnsupported) {
				errs = append(errs, fmt.Errorf("rosbag: %srelease the room kept past the end: %w", w.prefix(), err))
			}
		}
		w.size.Store(end)
	}
	if w.f != nil {
		if err := w.f.Close(); err != nil {
			errs = append(errs, fmt.Errorf("rosbag: %sclose: %w", w.prefix(), err))
		}
	}
	w.mu.Lock()
	if indexed {
		w.kept = k
	}
	w.mu.Unlock()
	if !indexed {
		// The chunks written in full are in the file, without an index:
		// say so, and how to get them back.
		return fmt.Errorf("%w; %w: the %d chunks written in full are in the file, a Reader recovers them by a scan and Reindex writes the index",
			errors.Join(errs...), ErrNoIndex, len(w.infos))
	}
	if firstErr != nil {
		return firstErr
	}
	return errors.Join(errs...)
}

// indexSection is the index section of the first k chunks written: the
// records of the connections they hold and their chunk infos.
func (w *Writer) indexSection(k int) (b []byte, nconn int) {
	for id, c := range w.conns {
		if id < len(w.firstChunk) && w.firstChunk[id] > 0 && w.firstChunk[id] <= k {
			b = appendConnectionRecord(b, c)
			nconn++
		}
	}
	for _, ci := range w.infos[:k] {
		b = appendChunkInfo(b, &ci)
	}
	return b, nconn
}

// writeIndex writes the index section b at pos.
func (w *Writer) writeIndex(b []byte, pos int64) error {
	if _, err := w.w.Seek(pos, io.SeekStart); err != nil {
		return fmt.Errorf("rosbag: %sseek to index section %d: %w", w.prefix(), pos, err)
	}
	return w.write(b, "index section", pos)
}

// roomReserver is a file that can hold blocks past its end without
// growing (fallocate with FALLOC_FL_KEEP_SIZE). The Writer keeps room
// there for each chunk and the index after it before writing the chunk,
// so that a full disk stops the bag before a chunk it could not index. A
// file system that cannot reserve returns an error that is
// errors.ErrUnsupported.
type roomReserver interface {
	// reserveRoom makes the file hold blocks for bytes [off, off+n).
	reserveRoom(off, n int64) error
	// releaseRoom gives back the blocks of [off, off+n), past the file's end.
	releaseRoom(off, n int64) error
}

// roomStep is how much room past what a chunk and the index need the
// Writer reserves at once: one reservation per five chunks of the default
// threshold.
const roomStep = 4 << 20

// keepRoom reserves room for chunk c and the index after it before c is
// written. When the disk has none, the Writer fails with the error (its
// index fits in the room kept for the chunks before); when the file system
// cannot reserve, the Writer stops trying.
func (w *Writer) keepRoom(c *chunkJob) {
	clen := int64(len(c.head) + len(c.tail))
	if w.compress != "lz4" {
		clen += int64(len(c.payload))
	}
	need := w.off + clen + w.idxLen + chunkInfoLen(len(c.counts)) + int64(c.newConnLen)
	if need <= w.roomEnd {
		return
	}
	err := w.room.reserveRoom(w.off, need+roomStep-w.off)
	if err == nil {
		w.roomEnd = need + roomStep
		return
	}
	if !errors.Is(err, syscall.ENOSPC) {
		w.room = nil // no reservation on this file system
		return
	}
	if err = w.room.reserveRoom(w.off, need-w.off); err == nil {
		w.roomEnd = need
		return
	}
	w.setErr(fmt.Errorf("rosbag: %sno room for the chunk at offset %d and the index after it (%d bytes): %w", w.prefix(), w.off, need-w.off, err))
}

// Indexed returns what the index written by Close lists: by connection
// id, the number of messages, and the times of the first and last message
// (zero without messages). Before Close, or when Close could not write
// the index, it returns nothing.
func (w *Writer) Indexed() (counts []uint64, start, end Time) {
	w.mu.Lock()
	k := w.kept
	w.mu.Unlock()
	for i := range max(k, 0) {
		ci := &w.infos[i]
		for _, cc := range ci.counts {
			for int(cc.conn) >= len(counts) {
				counts = append(counts, 0)
			}
			counts[cc.conn] += uint64(cc.count)
		}
		if i == 0 || ci.start < start {
			start = ci.start
		}
		if ci.end > end {
			end = ci.end
		}
	}
	return counts, start, end
}

// ErrNoIndex is wrapped by the error of Writer.Close when the index section
// could not be written (a full disk): the bag is left unindexed.
var ErrNoIndex = errors.New("rosbag: the bag is left without its index")

// Size returns the number of bytes written to the underlying writer so far.
func (w *Writer) Size() int64 { return w.size.Load() }

// chunkInfo is a chunk info record plus what the reader learns about the
// chunk.
type chunkInfo struct {
	pos        int64
	start, end Time
	counts     []connCount
	// reader side
	index []indexEntry // rebuilt by a recovery scan; nil for indexed bags
	// cut > 0: the chunk is cut short by the end of the file, and the
	// recovery scan salvaged the records in its first cut payload bytes
	// (compression cutComp).
	cut     int64
	cutComp string
}

// chunkInfoBaseLen is the length of a chunk info record without counts.
var chunkInfoBaseLen = int64(len(appendChunkInfo(nil, &chunkInfo{})))

// chunkInfoLen is the length of a chunk info record with n counts.
func chunkInfoLen(n int) int64 { return chunkInfoBaseLen + 8*int64(n) }

func appendChunkInfo(b []byte, ci *chunkInfo) []byte {
	b, h := beginLen(b)
	b = appendFieldU64(b, "chunk_pos", uint64(ci.pos))
	b = appendFieldU32(b, "count", uint32(len(ci.counts)))
	b = appendFieldTime(b, "end_time", ci.end)
	b = appendFieldOp(b, opChunkInfo)
	b = appendFieldTime(b, "start_time", ci.start)
	b = appendFieldU32(b, "ver", 1)
	endLen(b, h)
	b = binary.LittleEndian.AppendUint32(b, uint32(8*len(ci.counts)))
	for _, cc := range ci.counts {
		b = binary.LittleEndian.AppendUint32(b, cc.conn)
		b = binary.LittleEndian.AppendUint32(b, cc.count)
	}
	return b
}
