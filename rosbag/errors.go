package rosbag

import (
	"errors"
	"fmt"
	"io"
	"strings"
)

var (
	// ErrNotBag is returned when the input does not start with a ROS bag
	// version line.
	ErrNotBag = errors.New("rosbag: not a bag")
	// ErrMCAP is wrapped, with ErrNotBag, by the error of opening an MCAP
	// file (a file that starts with MCAP's magic) as a bag.
	ErrMCAP = errors.New("rosbag: an MCAP file, not a ROS bag")
	// ErrUnindexed is wrapped by the error Reader.Unindexed returns when the
	// bag had to be opened by a linear scan: it has no index (index_pos 0),
	// is truncated, or its index section is corrupt.
	ErrUnindexed = errors.New("rosbag: unindexed bag")
	// ErrClosed is returned by methods called after Close.
	ErrClosed = errors.New("rosbag: closed")
)

// A FormatError reports corrupt input: what was expected at which offset of
// which record. When the input ended early, Err is io.ErrUnexpectedEOF.
type FormatError struct {
	Path   string // file name, when known
	Offset int64  // file offset of the record (or field) concerned
	Record string // record or field, e.g. "chunk", "connection 3", "bag header"
	Reason string // what was expected
	Err    error  // underlying cause, if any (io.ErrUnexpectedEOF on truncation)
}

func (e *FormatError) Error() string {
	s := "rosbag: "
	if e.Path != "" {
		s += e.Path + ": "
	}
	s += fmt.Sprintf("offset %d: %s: %s", e.Offset, e.Record, e.Reason)
	if e.Err != nil {
		s += ": " + e.Err.Error()
	}
	return s
}

// Unwrap returns the underlying cause.
func (e *FormatError) Unwrap() error { return e.Err }

// An UnsupportedError reports valid input or an option this package does not
// support (bag format 1.2, an unknown compression, writing bz2).
type UnsupportedError struct {
	Path   string // file name, when known
	Offset int64  // file offset, or -1 when not about file content
	What   string // what is unsupported
}

func (e *UnsupportedError) Error() string {
	s := "rosbag: "
	if e.Path != "" {
		s += e.Path + ": "
	}
	if e.Offset >= 0 {
		s += fmt.Sprintf("offset %d: ", e.Offset)
	}
	return s + "unsupported " + e.What
}

// truncated returns a FormatError for input cut short.
func truncated(path string, off int64, record, want string) error {
	return &FormatError{Path: path, Offset: off, Record: record, Reason: "truncated: want " + want, Err: io.ErrUnexpectedEOF}
}

// bare wraps a sentinel error of this package for a message that already
// says "rosbag: ": it reads without its own prefix, and errors.Is still
// finds it.
func bare(err error) error { return bareErr{err} }

type bareErr struct{ err error }

func (e bareErr) Error() string { return strings.TrimPrefix(e.err.Error(), "rosbag: ") }
func (e bareErr) Unwrap() error { return e.err }
