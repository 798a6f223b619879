package software

import (
	"runtime"
	"sync/atomic"
)

// goid returns the id of the calling goroutine, read from the
// "goroutine N [...]" line runtime.Stack writes first. It costs about a
// microsecond, so it is called only on paths that are about to wait (Stop,
// Close, Flush, a blocked Inject) and once per delivery goroutine, never per
// delivered frame.
func goid() uint64 {
	var buf [64]byte
	b := buf[:runtime.Stack(buf[:], false)]
	const prefix = "goroutine "
	if len(b) < len(prefix) || string(b[:len(prefix)]) != prefix {
		return 0
	}
	var id uint64
	for _, c := range b[len(prefix):] {
		if c < '0' || c > '9' {
			break
		}
		id = id*10 + uint64(c-'0')
	}
	return id
}

// owner remembers the goroutine that runs handlers or callbacks (a sensor's
// delivery goroutine, the synthetic camera's timeline), so that calls which
// would wait for that goroutine can fail instead of deadlocking when made
// from it.
type owner struct{ id atomic.Uint64 }

// enter marks the calling goroutine as the owner.
func (o *owner) enter() { o.id.Store(goid()) }

// leave clears the owner.
func (o *owner) leave() { o.id.Store(0) }

// is reports whether goroutine id is the owner.
func (o *owner) is(id uint64) bool { return id != 0 && o.id.Load() == id }
