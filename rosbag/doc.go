// Package rosbag reads and writes ROS bag format 2.0 files as written by
// librealsense and the ROS tools (testdata/spec/realsense-bag-format.md §1).
//
// The package knows bytes, records and connection headers only; message
// (de)serialization lives in package msgs.
//
// # Writing
//
// A [Writer] appends messages to chunks. NewWriter borrows an io.WriteSeeker;
// Create owns the file it creates. The byte layout is exactly the one of spec
// §1: the "#ROSBAG V2.0\n" line, a 4104-byte bag header with sorted fields and
// space padding, chunk records (compression "lz4" by default, or "none"), the
// connection record of a topic inside the chunk of its first message, index
// data (version 1) after each chunk in ascending connection id with entries in
// ascending time (stable), and at Close the connection and chunk info records
// at index_pos and the patched bag header.
//
//	w, err := rosbag.Create("out.bag", nil) // lz4, 768 KiB chunks, 1 s flush
//	conn, err := w.AddConnection("/file_version", "std_msgs/UInt32", md5, def, nil)
//	err = w.WriteMessage(conn, rosbag.MinTime, payload) // payload is copied
//	err = w.Close()
//
// [Writer.WriteMessageFunc] is the zero-copy variant for callers that
// serialize messages themselves: it reserves the message's bytes in the chunk
// buffer and lets a callback write them there, so a frame is copied once (by
// its marshaller) instead of twice (marshal, then WriteMessage's copy):
//
//	err = w.WriteMessageFunc(conn, t, msgs.Size(m), func(dst []byte) { msgs.Append(dst[:0], m) })
//
// Neither path allocates per message once the Writer's buffers have grown.
//
// A chunk is finalized when its uncompressed payload exceeds
// WriterOptions.ChunkThreshold, at the latest WriterOptions.FlushInterval after
// its first message, and on Flush. Finalized chunks are compressed on
// WriterOptions.Workers goroutines; a sequencer goroutine writes them in order,
// each followed by its index data, so the file never depends on scheduling:
// "none" output is byte-identical to a serial writer, and "lz4" output has the
// same records and offsets. A process killed after a chunk was finalized and
// written leaves a file from which [NewReader] recovers that chunk. A write
// error is sticky: every later call returns it, and Close still tries to leave
// a readable file of everything written before, returning the first error.
//
// Each LZ4 chunk is one LZ4 frame with FLG 0x64 and BD 0x60 (independent
// 1 MiB blocks, blocks that do not compress stored raw, no block checksums, no
// content size, an XXH32 content checksum), the only kind librealsense reads.
//
// # Reading
//
// A [Reader] reads from an io.ReaderAt with ReadAt only, so several iterators
// and goroutines may use one Reader at the same time. NewReader borrows its
// io.ReaderAt; Open owns the file and Close closes it.
//
// An indexed bag is opened from its index section (connection and chunk info
// records). Every count, length and offset read from the file is checked
// against the file size and [ReaderOptions] limits before it is used, so a
// malformed file never drives a large allocation and never panics.
//
// An unindexed bag (index_pos 0, as left by a killed recorder), a truncated one
// or one with a corrupt index section is opened by a bounded linear scan that
// resyncs at each chunk record. A chunk whose record framing is intact but
// whose payload is corrupt (bad LZ4 frame or checksum, broken records inside)
// is skipped and the scan goes on with the next record; each skipped chunk is
// reported in Recovery.Skipped (offset, bytes, time range when readable,
// reason). The scan stops at the first truncated record or broken top-level
// framing; of a chunk the end of the file cuts short, the complete message
// records before the cut (in an LZ4 chunk, those of its complete blocks)
// are salvaged (Recovery.Salvaged) and read like the others. It rebuilds connections, chunk infos and index data from the chunk
// contents. NewReader then returns the *Reader with no error:
// Info().Recovery says what was recovered and lost, and [Reader.Unindexed]
// returns an error wrapping [ErrUnindexed] (and io.ErrUnexpectedEOF when the
// file was cut) that says so. [Reindex] writes the rebuilt index into the
// file.
//
// [Reader.Messages] returns an [Iterator] over the messages of a [Query]
// (topics or connections, [Start, End) window) in time order; equal times keep
// file order (chunk, then offset in the chunk). Iterator.Seek positions it at a
// time in O(log chunks) without reading earlier chunks. An iterator holds at
// most a few decompressed chunks; their buffers are reused, and
// Message.Data is valid until the next call to Next. Chunks may be "lz4"
// (content checksum verified unless ReaderOptions.NoChecksum), "none" or
// "bz2".
//
// While the caller consumes one chunk, the iterator loads and decompresses
// the next ones (at most two at a time, on two goroutines) into its cache of
// five chunk buffers; order, windows and Seek are unaffected, and a load
// error surfaces only when the chunk is actually needed. The goroutines end
// when Next returns false, on [Iterator.Close], or when an abandoned iterator
// is garbage collected.
//
// With Query.SkipCorrupt an indexed bag with a corrupt chunk (its payload
// fails to decompress, its LZ4 checksum or inner record framing is wrong, or
// its index data cannot be read) is read past it: the iterator drops the
// chunk's selected messages that it has not returned yet and goes on with
// the next messages in time order. [Iterator.Skipped] lists each skip as a
// [SkippedChunk]: chunk offset and stored bytes, the chunk info's time
// range, the messages lost per the index (in all and per connection) and the
// error. Each pass over a corrupt chunk (after a Seek back, say) adds one
// entry; the chunk is not loaded again. Without the option the chunk's
// *FormatError stops the iteration.
//
// With Query.KeepData each chunk is loaded into a new buffer that is never
// reused, so Message.Data may be kept without copying: the decompression is
// the only copy of a message's bytes, and the garbage collector frees a
// chunk once none of its messages is referenced.
//
// # Errors
//
// Sentinels [ErrNotBag], [ErrUnindexed] and [ErrClosed]; a [*FormatError] for
// corrupt input (names the file, offset, record and what was expected;
// truncation unwraps to io.ErrUnexpectedEOF); an [*UnsupportedError] for valid
// but unsupported input or options (format version 1.2, an unknown
// compression, writing bz2).
//
// # Relation to github.com/foxglove/go-rosbag
//
// github.com/foxglove/go-rosbag v0.0.7 serves as a differential cross-check in
// the default test run (gorosbag_test.go): it must read every bag this
// package writes, and this package every "none" and "lz4" bag it writes. The
// reader and writer themselves are our own because v0.0.7 lacks what the project needs: it trusts record lengths
// before allocating and some of its parsers panic on malformed headers; its
// reader shares one io.ReadSeeker cursor between Info and iterators, cannot
// seek to a time or filter, and only detects unindexed bags (its linear
// iterator loses sync on LZ4 chunks); its writer compresses inline with 4 MiB
// LZ4 blocks, keeps index entries in write order and labels uncompressed data
// as bz2.
package rosbag
