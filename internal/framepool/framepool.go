// Package framepool keeps the memory of frames no longer in use, by size,
// for the next frames of that size: the processing blocks take their
// outputs' bytes from it (Get), and the C library gives back the bytes of
// an output whose last reference the program released (Put), as
// librealsense's blocks reuse the frames of their pool. A frame handed out
// through the Go API is never given back, so it stays as it was made.
package framepool

import (
	"sync"
	"unsafe"
	"weak"
)

// keep is how many buffers of one size the pool remembers.
const keep = 8

// The pool holds its buffers weakly: to the garbage collector they are
// garbage, as they were before they were given back, so that the pool
// adds nothing to the live heap nor, through the collector's pacing, to
// the peak memory; a buffer the collector freed is simply not found.
var (
	mu    sync.Mutex
	pools = map[int][]weak.Pointer[byte]{}
)

// Get returns a buffer of n bytes: one given back by Put, whose bytes are
// what they were, or else new zero bytes. The caller writes every byte of
// it before anyone reads it.
func Get(n int) []byte {
	if n <= 0 {
		return nil
	}
	mu.Lock()
	defer mu.Unlock()
	l := pools[n]
	for len(l) > 0 {
		p := l[len(l)-1].Value()
		l = l[:len(l)-1]
		if p != nil {
			pools[n] = l
			return unsafe.Slice(p, n)
		}
	}
	pools[n] = l
	return make([]byte, n)
}

// Put gives back b, a buffer Get returned, of which nothing holds a
// reference anymore (nor ever will), for a Get of len(b) bytes.
func Put(b []byte) {
	if len(b) == 0 {
		return
	}
	p := weak.Make(unsafe.SliceData(b))
	mu.Lock()
	defer mu.Unlock()
	l := pools[len(b)]
	if len(l) == keep {
		copy(l, l[1:]) // forget the oldest
		l = l[:keep-1]
	}
	pools[len(b)] = append(l, p)
}
