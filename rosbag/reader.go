package rosbag

import "io"

// A Reader reads a bag. It is safe for concurrent use.
type Reader struct{}

// NewReader opens the bag in r (size bytes). It borrows r.
//
// For an unindexed, truncated or index-corrupt bag it returns a usable Reader
// built by a linear scan together with an error wrapping ErrUnindexed.
func NewReader(r io.ReaderAt, size int64, opts *ReaderOptions) (*Reader, error) { return nil, nil }

// Open opens the bag file path; Close closes it. See NewReader.
func Open(path string, opts *ReaderOptions) (*Reader, error) { return nil, nil }

// Close closes the file opened by Open; for a Reader from NewReader it only
// marks the Reader closed.
func (r *Reader) Close() error { return nil }

// Connections returns the connections in ascending id order. The slice and
// its elements must not be modified.
func (r *Reader) Connections() []*Connection { return nil }

// Info returns a summary of the bag.
func (r *Reader) Info() Info { return Info{} }

// Messages returns an iterator over the messages selected by q (nil: all).
func (r *Reader) Messages(q *Query) *Iterator { return nil }

// An Iterator yields messages in time order. It is not safe for concurrent
// use; use one Iterator per goroutine.
type Iterator struct{}

// Next advances to the next message and reports whether there is one.
func (it *Iterator) Next() bool { return false }

// Message returns the current message; Data is valid until the next Next.
func (it *Iterator) Message() Message { return Message{} }

// Err returns the error that stopped the iteration, if any.
func (it *Iterator) Err() error { return nil }

// Seek positions the iterator so that Next returns the first selected
// message with time ≥ t.
func (it *Iterator) Seek(t Time) error { return nil }

// Reindex turns the unindexed or truncated bag at path into an indexed one in
// place. It returns nil, nil for a bag that is already indexed.
func Reindex(path string) (*Recovery, error) { return nil, nil }
