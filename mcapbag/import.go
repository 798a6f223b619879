package mcapbag

import (
	"cmp"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"io"
	"runtime"
	"slices"
	"sort"

	"github.com/foxglove/mcap/go/mcap"
	"github.com/klauspost/compress/zstd"

	"github.com/rsbag/rsbag/internal/lz4frame"
	"github.com/rsbag/rsbag/rosbag"
)

// Parallel import: the chunks of an MCAP file whose summary lists them in
// time order without overlap (as Export writes them) are read and
// decompressed by several goroutines ahead of the one that writes the bag,
// and handed to it in file order.

// MCAP record opcodes and field sizes (MCAP specification, "Records").
const (
	opMessage       = 0x05
	opChunk         = 0x06
	recordHeaderLen = 1 + 8                 // opcode, length
	messageFixedLen = 2 + 4 + 8 + 8         // channel id, sequence, log time, publish time
	chunkFixedLen   = 8 + 8 + 8 + 4 + 4 + 8 // start, end, uncompressed size, crc, compression length, records length
)

// chunkMsg locates a message in a decompressed chunk.
type chunkMsg struct {
	logTime  uint64
	channel  uint16
	off, end uint32 // data bytes
}

// loadedChunk is one chunk's decompressed records and messages.
type loadedChunk struct {
	index int
	data  []byte
	msgs  []chunkMsg
	err   error
}

// orderedChunks returns the chunk indexes in file order when their time
// ranges follow each other without overlap, so that reading them in that
// order gives the messages in log time order; ok is false otherwise.
func orderedChunks(idx []*mcap.ChunkIndex) ([]*mcap.ChunkIndex, bool) {
	if len(idx) == 0 {
		return nil, false
	}
	c := slices.Clone(idx)
	sort.Slice(c, func(i, j int) bool { return c[i].ChunkStartOffset < c[j].ChunkStartOffset })
	for i := 1; i < len(c); i++ {
		if c[i].MessageStartTime < c[i-1].MessageEndTime {
			return nil, false
		}
	}
	return c, true
}

// chunkLoader decompresses chunks on its own goroutines.
type chunkLoader struct {
	src     io.ReaderAt
	chunks  []*mcap.ChunkIndex
	out     []chan *loadedChunk // one per chunk, buffered
	free    chan []byte         // buffers the writer is done with
	next    chan int            // chunk positions to load
	quit    chan struct{}
	maxSize int // the largest uncompressed chunk
}

func newChunkLoader(src io.ReaderAt, chunks []*mcap.ChunkIndex) *chunkLoader {
	workers := max(1, runtime.GOMAXPROCS(0))
	ahead := workers + 1
	l := &chunkLoader{src: src, chunks: chunks, out: make([]chan *loadedChunk, len(chunks)),
		free: make(chan []byte, ahead+1), next: make(chan int, len(chunks)), quit: make(chan struct{})}
	for i, c := range chunks {
		l.out[i] = make(chan *loadedChunk, 1)
		l.maxSize = max(l.maxSize, int(min(c.UncompressedSize, 1<<32)))
	}
	// The first chunks are handed out at once; each one the writer takes
	// hands out one more, so that at most ahead chunks are in memory.
	for i := range min(ahead, len(chunks)) {
		l.next <- i
	}
	for range workers {
		go l.run()
	}
	return l
}

func (l *chunkLoader) run() {
	var zd *zstd.Decoder
	var raw []byte
	for {
		var i int
		select {
		case <-l.quit:
			return
		case i = <-l.next:
		}
		var buf []byte
		select {
		case buf = <-l.free:
		default:
			buf = make([]byte, 0, l.maxSize) // no regrowth when chunk sizes vary
		}
		lc := &loadedChunk{index: i}
		raw, lc.data, lc.msgs, lc.err = l.load(l.chunks[i], raw, buf[:0], &zd)
		l.out[i] <- lc
	}
}

// load reads, checks and decompresses one chunk and lists its messages in
// log time order (file order for equal times).
func (l *chunkLoader) load(ci *mcap.ChunkIndex, raw, dst []byte, zd **zstd.Decoder) ([]byte, []byte, []chunkMsg, error) {
	n := ci.ChunkLength
	if n < recordHeaderLen+chunkFixedLen || n > 1<<32 {
		return raw, dst, nil, fmt.Errorf("chunk at offset %d: length %d", ci.ChunkStartOffset, n)
	}
	raw = slices.Grow(raw[:0], int(n))[:n]
	if _, err := l.src.ReadAt(raw, int64(ci.ChunkStartOffset)); err != nil {
		return raw, dst, nil, fmt.Errorf("chunk at offset %d: %w", ci.ChunkStartOffset, err)
	}
	if raw[0] != opChunk || binary.LittleEndian.Uint64(raw[1:]) != n-recordHeaderLen {
		return raw, dst, nil, fmt.Errorf("chunk at offset %d: no chunk record of length %d there", ci.ChunkStartOffset, n-recordHeaderLen)
	}
	ch, err := mcap.ParseChunk(raw[recordHeaderLen:])
	if err != nil {
		return raw, dst, nil, fmt.Errorf("chunk at offset %d: %w", ci.ChunkStartOffset, err)
	}
	if ch.UncompressedSize > 1<<32 {
		return raw, dst, nil, fmt.Errorf("chunk at offset %d: uncompressed size %d", ci.ChunkStartOffset, ch.UncompressedSize)
	}
	size := int(ch.UncompressedSize)
	switch mcap.CompressionFormat(ch.Compression) {
	case mcap.CompressionNone:
		dst = append(dst, ch.Records...)
	case mcap.CompressionLZ4:
		dst = slices.Grow(dst, size)[:size]
		// The records' CRC, when there is one, covers what the frame's
		// content checksum covers: one check is enough.
		if _, err := lz4frame.DecodeSum(dst, ch.Records, ch.UncompressedCRC == 0); err != nil {
			return raw, dst, nil, fmt.Errorf("chunk at offset %d: %w", ci.ChunkStartOffset, err)
		}
	case mcap.CompressionZSTD:
		if *zd == nil {
			if *zd, err = zstd.NewReader(nil, zstd.WithDecoderConcurrency(1)); err != nil {
				return raw, dst, nil, err
			}
		}
		if dst, err = (*zd).DecodeAll(ch.Records, dst); err != nil {
			return raw, dst, nil, fmt.Errorf("chunk at offset %d: zstd: %w", ci.ChunkStartOffset, err)
		}
	default:
		return raw, dst, nil, fmt.Errorf("chunk at offset %d: unsupported compression %q", ci.ChunkStartOffset, ch.Compression)
	}
	if len(dst) != size {
		return raw, dst, nil, fmt.Errorf("chunk at offset %d: %d bytes decompressed, want %d", ci.ChunkStartOffset, len(dst), size)
	}
	if ch.UncompressedCRC != 0 && crc32.ChecksumIEEE(dst) != ch.UncompressedCRC {
		return raw, dst, nil, fmt.Errorf("chunk at offset %d: CRC of the records does not match", ci.ChunkStartOffset)
	}
	var msgs []chunkMsg
	sorted := true
	for p := 0; p < len(dst); {
		if len(dst)-p < recordHeaderLen {
			return raw, dst, nil, fmt.Errorf("chunk at offset %d: record at %d cut short", ci.ChunkStartOffset, p)
		}
		op, rl := dst[p], binary.LittleEndian.Uint64(dst[p+1:])
		body := p + recordHeaderLen
		if rl > uint64(len(dst)-body) {
			return raw, dst, nil, fmt.Errorf("chunk at offset %d: record at %d: length %d past the chunk's end", ci.ChunkStartOffset, p, rl)
		}
		end := body + int(rl)
		if op == opMessage {
			if rl < messageFixedLen {
				return raw, dst, nil, fmt.Errorf("chunk at offset %d: message at %d: length %d", ci.ChunkStartOffset, p, rl)
			}
			m := chunkMsg{channel: binary.LittleEndian.Uint16(dst[body:]), logTime: binary.LittleEndian.Uint64(dst[body+6:]),
				off: uint32(body + messageFixedLen), end: uint32(end)}
			if n := len(msgs); n > 0 && m.logTime < msgs[n-1].logTime {
				sorted = false
			}
			msgs = append(msgs, m)
		}
		p = end
	}
	if !sorted {
		slices.SortStableFunc(msgs, func(a, b chunkMsg) int { return cmp.Compare(a.logTime, b.logTime) })
	}
	return raw, dst, msgs, nil
}

// take returns chunk i once loaded, and lets one more chunk be loaded.
func (l *chunkLoader) take(i int) *loadedChunk {
	lc := <-l.out[i]
	if j := i + cap(l.free) - 1; j < len(l.chunks) {
		l.next <- j
	}
	return lc
}

// done gives back the buffer of a chunk the writer is done with.
func (l *chunkLoader) done(lc *loadedChunk) {
	select {
	case l.free <- lc.data:
	default:
	}
}

func (l *chunkLoader) stop() { close(l.quit) }

// importChunks writes the messages of chunks (in file order, each in log
// time order: see orderedChunks) to dst, decompressing ahead on every core.
func importChunks(dst *rosbag.Writer, src io.ReaderAt, chunks []*mcap.ChunkIndex, conns map[uint16]uint32, info *mcap.Info, res *Result) error {
	l := newChunkLoader(src, chunks)
	defer l.stop()
	for i := range chunks {
		lc := l.take(i)
		if lc.err != nil {
			return fmt.Errorf("mcapbag: import: %w", lc.err)
		}
		for _, m := range lc.msgs {
			cid, ok := conns[m.channel]
			if !ok {
				return fmt.Errorf("mcapbag: import: message on unknown channel %d", m.channel)
			}
			if err := writeMessage(dst, cid, info.Channels[m.channel].Topic, m.logTime, lc.data[m.off:m.end], res); err != nil {
				return err
			}
		}
		l.done(lc)
	}
	if n := info.Statistics.MessageCount; res.Messages != int64(n) {
		return fmt.Errorf("mcapbag: import: the summary counts %d messages, the chunks hold %d", n, res.Messages)
	}
	return nil
}
