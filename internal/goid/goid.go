// Package goid tells which goroutine is running, so that a device can refuse
// a call that would wait for the very goroutine making it (a frame handler
// stopping its own sensor) instead of deadlocking.
package goid

import (
	"runtime"
	"sync"
)

// ID returns the id of the calling goroutine, parsed from the
// "goroutine N [" line that runtime.Stack writes first, or 0 if that line
// cannot be read. It takes about a microsecond: call it on paths that are
// about to wait and once per long-lived goroutine, not per frame.
func ID() uint64 {
	var buf [64]byte
	b := buf[:runtime.Stack(buf[:], false)]
	const head = "goroutine "
	if len(b) <= len(head) || string(b[:len(head)]) != head {
		return 0
	}
	var id uint64
	for _, c := range b[len(head):] {
		if c < '0' || c > '9' {
			break
		}
		id = id*10 + uint64(c-'0')
	}
	return id
}

// Set is a set of goroutines, typically those that run a device's user
// code (frame handlers, callbacks). The zero value is empty and ready to
// use; a Set must not be copied after first use.
type Set struct {
	mu  sync.Mutex
	ids map[uint64]struct{}
}

// Enter adds the calling goroutine and returns the function that removes
// it.
func (s *Set) Enter() (leave func()) {
	id := ID()
	s.mu.Lock()
	if s.ids == nil {
		s.ids = map[uint64]struct{}{}
	}
	s.ids[id] = struct{}{}
	s.mu.Unlock()
	return func() {
		s.mu.Lock()
		delete(s.ids, id)
		s.mu.Unlock()
	}
}

// Current reports whether the calling goroutine is in the set. It reads the
// goroutine id only when the set is not empty.
func (s *Set) Current() bool {
	s.mu.Lock()
	n := len(s.ids)
	s.mu.Unlock()
	if n == 0 {
		return false
	}
	id := ID()
	s.mu.Lock()
	defer s.mu.Unlock()
	_, ok := s.ids[id]
	return ok
}
