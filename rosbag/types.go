package rosbag

import (
	"io"
	"slices"
	"time"
)

// Connection is a connection record: one topic with its message type.
type Connection struct {
	ID                uint32
	Topic             string
	Type              string // e.g. "sensor_msgs/Image"
	MD5Sum            string // 32 lowercase hex digits
	MessageDefinition string
	// Extra holds the connection header fields other than type, md5sum and
	// message_definition (e.g. "callerid", "latching", and "topic" as ROS
	// writes it), or nil. Reindex writes them back in sorted order.
	Extra map[string]string
}

// WriterOptions configures a Writer. The zero value (or nil) writes what
// librealsense writes: LZ4 chunks of 768 KiB.
type WriterOptions struct {
	// Compression is "lz4" (default when empty) or "none". Anything else is
	// an *UnsupportedError.
	Compression string
	// ChunkThreshold closes a chunk after the message that makes its
	// uncompressed payload exceed this many bytes. Default 786432.
	ChunkThreshold int
	// FlushInterval bounds how long a chunk stays open after its first
	// message. Default 1 s; negative disables the timer.
	FlushInterval time.Duration
	// Workers is the number of compression goroutines. Default GOMAXPROCS.
	Workers int
}

// ReaderOptions configures a Reader. The zero value (or nil) uses defaults.
type ReaderOptions struct {
	// MaxRecordSize bounds any record header or data length, and the
	// uncompressed size of a chunk. Default 1 GiB.
	MaxRecordSize int64
	// Path names the input in errors (Open sets it).
	Path string
	// NoChecksum skips the verification of the XXH32 content checksum of
	// LZ4 chunks, about a third of the cost of reading them. Corruption is
	// then detected only where it breaks the LZ4 blocks or the record
	// framing of the chunk. The recovery scan of an unindexed bag always
	// verifies it.
	NoChecksum bool
}

// Info summarizes a bag.
type Info struct {
	Path        string
	Size        int64
	Version     string // "2.0"
	Chunks      int
	Connections int
	Messages    uint64
	// MessageCounts is the number of messages per connection id.
	MessageCounts map[uint32]uint64
	Start, End    Time // of all messages; 0 when there are none
	IndexPos      int64
	Indexed       bool      // opened from its index section
	Recovery      *Recovery // non-nil when opened by a linear scan
}

// Recovery describes a bag opened by a linear scan.
type Recovery struct {
	// Reason says why the index was not used (e.g. "index_pos is 0").
	Reason string
	// Err is the error that stopped the scan, or nil when it reached the end
	// of the file.
	Err error
	// Chunks and Messages count what was recovered.
	Chunks   int
	Messages uint64
	// DataEnd is the offset just after the last complete chunk and its index
	// data: what Reindex keeps.
	DataEnd int64
	// LostFrom is the offset of the record that stopped the scan, and
	// LostBytes the number of bytes from there to the end of the file.
	LostFrom  int64
	LostBytes int64
	// LostStart and LostEnd bound the times of messages seen in the lost part
	// (best effort: zero when nothing could be read from it).
	LostStart, LostEnd Time
	// LostMessages counts message records seen in the lost part and not
	// salvaged (best effort), and LostByConnection counts them per
	// connection id.
	LostMessages     int
	LostByConnection map[uint32]int

	// Skipped lists, in file order, the chunks the scan skipped and went on
	// after: their record framing (header and data length within the file)
	// was intact but their payload was not (a bad LZ4 frame or checksum,
	// broken records inside, an unsupported compression).
	Skipped []SkippedChunk
	// Orphans counts messages of recovered chunks that were dropped because
	// their connection record was lost (with a skipped chunk).
	Orphans int
	// Salvaged counts the messages recovered from the start of the chunk
	// that the end of the file cuts short (the complete records before the
	// cut: in an LZ4 chunk, those of its complete blocks). They are counted
	// in Chunks and Messages too, and are read and reindexed as a chunk of
	// their own; the cut chunk's bytes are still counted in LostBytes.
	Salvaged int

	needIndex bool // the last chunk's index data records are incomplete
}

// Damaged reports whether data was lost: the scan stopped at a truncated or
// corrupt record, skipped a chunk, or dropped messages. A bag that only
// lacks its index (a recorder killed after its last complete chunk) is not
// damaged: every message it holds was recovered.
func (rc *Recovery) Damaged() bool {
	return rc != nil && (rc.Err != nil || rc.LostBytes > 0 || len(rc.Skipped) > 0 || rc.Orphans > 0)
}

// Losses returns what the scan could not read, in file order: the skipped
// chunks, then the unreadable end of the file (Offset LostFrom, Bytes
// LostBytes, the times and counts of LostStart, LostEnd, LostMessages and
// LostByConnection, Err the error that stopped the scan) when the scan
// stopped early.
func (rc *Recovery) Losses() []SkippedChunk {
	if rc == nil {
		return nil
	}
	out := slices.Clone(rc.Skipped)
	if rc.Err != nil || rc.LostBytes > 0 {
		out = append(out, SkippedChunk{Offset: rc.LostFrom, Bytes: rc.LostBytes, Start: rc.LostStart, End: rc.LostEnd,
			Messages: rc.LostMessages, ByConnection: rc.LostByConnection, Err: rc.Err})
	}
	return out
}

// SkippedChunk is a chunk skipped by a recovery scan, or by an Iterator with
// Query.SkipCorrupt.
type SkippedChunk struct {
	// Offset is the offset of the chunk record and Bytes its length (its
	// index data records, if any, are ignored too; 0 when the chunk record
	// header itself is unreadable).
	Offset, Bytes int64
	// Start and End bound the times of the messages. For a recovery scan
	// they are those found in the readable part of the payload, and
	// Messages counts them (best effort: zero when nothing could be read).
	// For an Iterator they are the start and end time of the chunk info
	// record, and Messages counts the selected messages the iteration lost
	// according to the index.
	Start, End Time
	Messages   int
	// ByConnection counts the lost messages per connection id (for a
	// recovery scan: those found in the readable part, best effort).
	ByConnection map[uint32]int
	// Err says what is wrong with the payload (a *FormatError or an
	// *UnsupportedError).
	Err error
}

// RepairedChunk is a chunk whose index (its index data records, or its
// chunk info's counts) disagreed with its message records. An Iterator
// reads such a chunk from its records: nothing is lost, but the bag's index
// is wrong ('rs-record edit reindex' rewrites it).
type RepairedChunk struct {
	Offset   int64  // of the chunk record
	Messages int    // message records the chunk holds
	Reason   string // what disagreed
}

// Query selects messages. The zero value selects every message.
type Query struct {
	Topics      []string // if non-empty, only these topics
	Connections []uint32 // if non-empty, only these connection ids
	Start       Time     // inclusive
	End         Time     // exclusive; 0 means no limit
	// KeepData makes Message.Data the caller's to keep: each chunk the
	// iterator loads is decompressed (or, for "none", read) into a new
	// buffer that the iterator never writes again, and messages are
	// sub-slices of it (capacity limited to the message). That load is the
	// only copy of the bytes; the chunk's memory is freed by the garbage
	// collector once no message of it is referenced (a kept 100-byte
	// message keeps its whole chunk alive: copy small messages that are
	// kept long). Treat Data as read-only: after a Seek the iterator may
	// return the same bytes again from its cache. It costs one allocation
	// per chunk instead of none.
	KeepData bool
	// SkipCorrupt makes the iterator skip a chunk whose payload fails to
	// load or check (a bad LZ4 frame or checksum, broken records inside,
	// an index entry pointing at no message, corrupt index data records)
	// instead of stopping with its *FormatError: the selected messages of
	// that chunk not yet returned are lost, the skip is recorded in
	// Iterator.Skipped, and iteration goes on with the next messages in
	// time order. Truncation and I/O errors still stop the iteration.
	SkipCorrupt bool
	// AllChunks makes the iterator load and check every chunk it passes
	// (from Start on), also those that hold no selected message: a corrupt
	// one is then an error, or with SkipCorrupt a skip recorded in
	// Skipped, whatever the selection, as for an iterator over every
	// connection. Such chunks are rare (a bag's chunks mix its streams), so
	// it costs little.
	AllChunks bool
}

// Message is one message record. Data is valid until the next call to Next
// (or Seek) on the iterator that returned it, unless the Query set KeepData.
type Message struct {
	Conn *Connection
	Time Time
	Data []byte
	// Chunk is the index of the chunk holding the message, Offset its record
	// offset inside the uncompressed chunk payload.
	Chunk  int
	Offset uint32
}

var _ io.Closer = (*Reader)(nil)
