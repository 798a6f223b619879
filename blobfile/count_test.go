package blobfile_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"sync"

	"gocloud.dev/blob"
	"gocloud.dev/blob/driver"
	"gocloud.dev/gcerrors"
)

// countingStore is a bucket of one object in memory that records every
// range it serves. With a gate, each range request waits for the gate to
// be closed before it serves, so that a test holds fetches in flight.
type countingStore struct {
	driver.Bucket // the methods a File never calls

	data []byte
	gate chan struct{}

	mu     sync.Mutex
	ranges [][2]int64 // [offset, end) per request
}

// bucket returns the portable bucket over s; the object's key is "obj".
func (s *countingStore) bucket() *blob.Bucket { return blob.NewBucket(s) }

// served returns the ranges served so far.
func (s *countingStore) served() [][2]int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([][2]int64(nil), s.ranges...)
}

// bytesServed returns the bytes of the ranges served so far.
func (s *countingStore) bytesServed() int64 {
	n := int64(0)
	for _, r := range s.served() {
		n += r[1] - r[0]
	}
	return n
}

// blockFetches counts how many times each block of size bs was served.
func (s *countingStore) blockFetches(bs int64) map[int64]int {
	m := map[int64]int{}
	for _, r := range s.served() {
		for b := r[0] / bs; b <= (r[1]-1)/bs; b++ {
			m[b]++
		}
	}
	return m
}

var errNoObject = errors.New("no such object")

func (s *countingStore) ErrorCode(err error) gcerrors.ErrorCode {
	if errors.Is(err, errNoObject) {
		return gcerrors.NotFound
	}
	return gcerrors.Unknown
}

func (s *countingStore) As(any) bool             { return false }
func (s *countingStore) ErrorAs(error, any) bool { return false }
func (s *countingStore) Close() error            { return nil }

func (s *countingStore) Attributes(_ context.Context, key string) (*driver.Attributes, error) {
	if key != "obj" {
		return nil, errNoObject
	}
	return &driver.Attributes{Size: int64(len(s.data))}, nil
}

func (s *countingStore) NewRangeReader(_ context.Context, key string, off, n int64, _ *driver.ReaderOptions) (driver.Reader, error) {
	if key != "obj" {
		return nil, errNoObject
	}
	if s.gate != nil {
		<-s.gate
	}
	end := int64(len(s.data))
	if n >= 0 {
		end = min(end, off+n)
	}
	s.mu.Lock()
	s.ranges = append(s.ranges, [2]int64{off, end})
	s.mu.Unlock()
	return &memReader{Reader: bytes.NewReader(s.data[off:end])}, nil
}

type memReader struct{ io.Reader }

func (r *memReader) Close() error                         { return nil }
func (r *memReader) Attributes() *driver.ReaderAttributes { return &driver.ReaderAttributes{} }
func (r *memReader) As(any) bool                          { return false }
