package playback

import (
	"runtime"
	"sync"
)

// curGoroutine returns the id of the calling goroutine, parsed from the
// "goroutine N [" header that runtime.Stack writes. It takes about a
// microsecond: it is called by the control methods and once per delivery
// goroutine, never per frame.
func curGoroutine() uint64 {
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

// goroutines is the set of goroutines that run a device's user code: the
// stream dispatchers (frame handlers) and the callback goroutine.
type goroutines struct {
	mu  sync.Mutex
	ids map[uint64]struct{}
}

// enter adds the calling goroutine and returns the function that removes
// it.
func (g *goroutines) enter() (leave func()) {
	id := curGoroutine()
	g.mu.Lock()
	if g.ids == nil {
		g.ids = map[uint64]struct{}{}
	}
	g.ids[id] = struct{}{}
	g.mu.Unlock()
	return func() {
		g.mu.Lock()
		delete(g.ids, id)
		g.mu.Unlock()
	}
}

// current reports whether the calling goroutine is in the set.
func (g *goroutines) current() bool {
	g.mu.Lock()
	n := len(g.ids)
	g.mu.Unlock()
	if n == 0 {
		return false
	}
	id := curGoroutine()
	g.mu.Lock()
	_, ok := g.ids[id]
	g.mu.Unlock()
	return ok
}
