// Package mcapwriter writes MCAP files in checksummed chunks compressed on
// every core, for the MCAP exports of mcapbag and mcapbag/ros2.
package mcapwriter

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"runtime"
	"slices"
	"sync"

	"github.com/foxglove/mcap/go/mcap"
	"github.com/klauspost/compress/zstd"

	"github.com/rsbag/rsbag/internal/lz4frame"
)

// Compression names an MCAP chunk compression.
type Compression string

// Chunk compressions.
const (
	Zstd Compression = "zstd"
	LZ4  Compression = "lz4"
	None Compression = "none"
)

func (c Compression) format() mcap.CompressionFormat {
	switch c {
	case LZ4:
		return mcap.CompressionLZ4
	case None:
		return mcap.CompressionNone
	}
	return mcap.CompressionZSTD
}

// Writer writes an MCAP file whose messages are grouped in chunks that are
// checksummed and compressed on every core while the next chunk fills: a
// message's bytes are copied once, into its chunk, and the chunks are
// written in order with their message indexes, the chunk indexes and
// statistics going into the summary as the MCAP library writes them.
// Schemas and channels are written before the messages that use them,
// metadata after them. A Writer is not safe for concurrent use.
type Writer struct {
	w     *mcap.Writer
	bw    *bufio.Writer // w's destination, flushed by Close
	comp  Compression
	limit int

	cur     *chunk
	maxRec  int    // the largest message record so far
	seq     uint64 // messages written
	counts  map[uint16]uint64
	work    chan *chunk // to the workers
	queue   chan *chunk // to the sink, in order
	free    chan *chunk // chunks to reuse; bounds the chunks in flight
	pending sync.WaitGroup
	workers sync.WaitGroup
	sunk    chan struct{}

	mu       sync.Mutex
	err      error
	closed   bool
	closeErr error
}

// chunk is one chunk being filled, compressed or written.
type chunk struct {
	buf        []byte // message records, uncompressed
	out        []byte // compressed records (buf itself for None)
	crc        uint32
	start, end uint64
	indexes    map[uint16]*mcap.MessageIndex
	order      []uint16 // channels in order of first message
	ready      chan struct{}
	err        error
}

// Library is written in the MCAP header's library field of the files this
// module writes.
const Library = "rsbag mcapbag"

// DefaultChunkSize is the chunk size of the MCAP files this module writes:
// large enough that a 1280x720 RGB8 frame and its metadata share a chunk,
// small enough that a seek reads little.
const DefaultChunkSize = 8 << 20

// New starts an MCAP file on dst for a profile ("ros1", "ros2"): it writes
// the header (library Library) and returns a writer of chunks of chunkSize
// bytes (DefaultChunkSize when ≤ 0, at most 1 GiB) compressed with c (Zstd
// when ""), with CRCs, chunk and message indexes and statistics in the
// summary.
func New(dst io.Writer, profile string, c Compression, chunkSize int64) (*Writer, error) {
	if chunkSize <= 0 {
		chunkSize = DefaultChunkSize
	}
	if chunkSize > 1<<30 {
		return nil, fmt.Errorf("chunk size %d: want 1 byte to 1 GiB", chunkSize)
	}
	switch c {
	case "":
		c = Zstd
	case Zstd, LZ4, None:
	default:
		return nil, fmt.Errorf("unknown compression %q: want zstd, lz4 or none", c)
	}
	// The library writes schema, channel and metadata records straight
	// into the data section (not chunked), and the chunks made here with
	// their indexes. Every chunk carries the CRC of its records, computed
	// on the workers; the data section's CRC, which would cover the same
	// bytes again on one core, is left 0 ("not computed"), as the format
	// allows.
	// The records between the chunks (header, schemas, channels, the
	// summary) are small: they are written through a buffer, the chunks
	// (larger than it) straight through.
	bw := bufio.NewWriterSize(dst, 64<<10)
	mw, err := mcap.NewWriter(bw, &mcap.WriterOptions{})
	if err != nil {
		return nil, err
	}
	if err := mw.WriteHeader(&mcap.Header{Profile: profile, Library: Library}); err != nil {
		return nil, fmt.Errorf("header: %w", err)
	}
	n := runtime.GOMAXPROCS(0)
	w := &Writer{
		w: mw, bw: bw, comp: c, limit: int(chunkSize), counts: map[uint16]uint64{},
		work: make(chan *chunk, n+1), queue: make(chan *chunk, n+1), free: make(chan *chunk, n+1),
		sunk: make(chan struct{}),
	}
	for range n + 1 {
		w.free <- &chunk{indexes: map[uint16]*mcap.MessageIndex{}}
	}
	for range n {
		w.workers.Add(1)
		go w.compress()
	}
	go w.sink()
	return w, nil
}

// fail records the first error.
func (w *Writer) fail(err error) {
	w.mu.Lock()
	if w.err == nil {
		w.err = err
	}
	w.mu.Unlock()
}

func (w *Writer) firstErr() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.err
}

// compress checksums and compresses chunks.
func (w *Writer) compress() {
	defer w.workers.Done()
	var zw *zstd.Encoder
	var lw *lz4frame.Encoder // made on the first LZ4 chunk: its tables are large
	for c := range w.work {
		c.crc = crc32.ChecksumIEEE(c.buf)
		switch w.comp {
		case None:
			c.out = c.buf
		case Zstd:
			if zw == nil {
				var err error
				if zw, err = zstd.NewWriter(nil, zstd.WithEncoderLevel(zstd.SpeedDefault), zstd.WithEncoderConcurrency(1)); err != nil {
					c.err = err
					break
				}
			}
			c.out = zw.EncodeAll(c.buf, c.out[:0])
		case LZ4:
			// An LZ4 frame of independent 1 MiB blocks, compressed
			// straight from the chunk buffer at the fast level of the bags'
			// own chunks, without the frame's content checksum: the chunk
			// record's uncompressed_crc already covers the same bytes.
			if lw == nil {
				lw = new(lz4frame.Encoder)
			}
			c.out = lw.AppendFrameSum(c.out[:0], c.buf, false)
		}
		close(c.ready)
	}
}

// sink writes the compressed chunks in order.
func (w *Writer) sink() {
	defer close(w.sunk)
	for c := range w.queue {
		<-c.ready
		err := c.err
		if err == nil && w.firstErr() == nil {
			idx := make([]*mcap.MessageIndex, 0, len(c.order))
			for _, id := range c.order {
				idx = append(idx, c.indexes[id])
			}
			err = w.w.WriteChunkWithIndexes(&mcap.Chunk{
				MessageStartTime: c.start, MessageEndTime: c.end,
				UncompressedSize: uint64(len(c.buf)), UncompressedCRC: c.crc,
				Compression: string(w.comp.format()), Records: c.out,
			}, idx)
		}
		if err != nil {
			w.fail(err)
		}
		c.buf = c.buf[:0]
		if w.comp == None {
			c.out = nil
		}
		for _, id := range c.order {
			c.indexes[id].Reset()
		}
		c.order = c.order[:0]
		w.free <- c
		w.pending.Done()
	}
}

// WriteMessage adds a message to the current chunk, copying its data.
func (w *Writer) WriteMessage(m *mcap.Message) error {
	if w.closed {
		return errors.New("mcap: write after close")
	}
	if err := w.firstErr(); err != nil {
		return err
	}
	if w.cur == nil {
		w.cur = <-w.free
		w.cur.ready = make(chan struct{})
	}
	c := w.cur
	idx := c.indexes[m.ChannelID]
	if idx == nil {
		idx = &mcap.MessageIndex{ChannelID: m.ChannelID}
		c.indexes[m.ChannelID] = idx
	}
	if idx.IsEmpty() {
		c.order = append(c.order, m.ChannelID)
	}
	if len(c.buf) == 0 || m.LogTime < c.start {
		c.start = m.LogTime
	}
	if len(c.buf) == 0 || m.LogTime > c.end {
		c.end = m.LogTime
	}
	idx.Add(m.LogTime, uint64(len(c.buf)))
	n := 2 + 4 + 8 + 8 + len(m.Data)
	w.maxRec = max(w.maxRec, 1+8+n)
	if need := len(c.buf) + 1 + 8 + n; need > cap(c.buf) {
		// A chunk ends at the first message past the limit, so a buffer
		// never needs more than the limit and the largest record seen so
		// far. It grows by doubling towards that, so that a file of a few
		// small messages allocates what they need, not a whole chunk per
		// buffer. Chunk buffers are reused: once the first chunks have
		// filled, a buffer grows only while records larger than any before
		// keep coming.
		c.buf = slices.Grow(c.buf, max(need, min(2*cap(c.buf), w.limit+w.maxRec))-len(c.buf))
	}
	c.buf = append(c.buf, byte(mcap.OpMessage))
	c.buf = binary.LittleEndian.AppendUint64(c.buf, uint64(n))
	c.buf = binary.LittleEndian.AppendUint16(c.buf, m.ChannelID)
	c.buf = binary.LittleEndian.AppendUint32(c.buf, m.Sequence)
	c.buf = binary.LittleEndian.AppendUint64(c.buf, m.LogTime)
	c.buf = binary.LittleEndian.AppendUint64(c.buf, m.PublishTime)
	c.buf = append(c.buf, m.Data...)
	w.counts[m.ChannelID]++
	w.seq++
	if len(c.buf) > w.limit {
		w.flush()
	}
	return nil
}

// flush hands the current chunk to the workers and the sink.
func (w *Writer) flush() {
	c := w.cur
	if c == nil {
		return
	}
	w.cur = nil
	w.pending.Add(1)
	w.queue <- c
	w.work <- c
}

// drain writes every chunk so far and waits until they are written.
func (w *Writer) drain() error {
	w.flush()
	w.pending.Wait()
	return w.firstErr()
}

// WriteSchema writes a schema record.
func (w *Writer) WriteSchema(s *mcap.Schema) error {
	if err := w.drain(); err != nil {
		return err
	}
	return w.w.WriteSchema(s)
}

// WriteChannel writes a channel record.
func (w *Writer) WriteChannel(c *mcap.Channel) error {
	if err := w.drain(); err != nil {
		return err
	}
	return w.w.WriteChannel(c)
}

// WriteMetadata writes a metadata record after the chunks written so far.
func (w *Writer) WriteMetadata(m *mcap.Metadata) error {
	if err := w.drain(); err != nil {
		return err
	}
	return w.w.WriteMetadata(m)
}

// Close writes the last chunk, the summary and the footer, and stops the
// writer's goroutines (also when it returns an error). Calling it again
// returns the first call's result.
func (w *Writer) Close() error {
	if w.closed {
		return w.closeErr
	}
	w.closeErr = w.close()
	return w.closeErr
}

func (w *Writer) close() error {
	err := w.drain()
	w.closed = true
	close(w.work)
	close(w.queue)
	w.workers.Wait()
	<-w.sunk
	if err != nil {
		return err
	}
	st := w.w.Statistics
	st.MessageCount += w.seq
	if st.ChannelMessageCounts == nil {
		st.ChannelMessageCounts = map[uint16]uint64{}
	}
	for id, n := range w.counts {
		st.ChannelMessageCounts[id] += n
	}
	if err := w.w.Close(); err != nil {
		return err
	}
	return w.bw.Flush()
}
