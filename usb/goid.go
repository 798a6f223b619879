package usb

import (
	"runtime"
	"sync"
)

// goid returns the id of the calling goroutine, parsed from the
// "goroutine N [" line runtime.Stack writes first. It takes about a
// microsecond: it is called by Stop and Close and once per reading
// goroutine, never per frame.
func goid() uint64 {
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

// goroutines is the set of a sensor's reading goroutines, which run its
// frame handler and notification callbacks: Stop and Close, which wait for
// them, fail instead of deadlocking when called from one of them.
type goroutines struct {
	mu  sync.Mutex
	ids map[uint64]struct{}
}

// enter adds the calling goroutine and returns the function that removes
// it.
func (g *goroutines) enter() (leave func()) {
	id := goid()
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
	id := goid()
	g.mu.Lock()
	defer g.mu.Unlock()
	_, ok := g.ids[id]
	return ok
}
