package software

import (
	"sync/atomic"

	"github.com/rsbag/rsbag/internal/goid"
)

// owner remembers the goroutine that runs handlers or callbacks (a sensor's
// delivery goroutine, the synthetic camera's timeline), so that calls which
// would wait for that goroutine can fail instead of deadlocking when made
// from it.
type owner struct{ id atomic.Uint64 }

// enter marks the calling goroutine as the owner.
func (o *owner) enter() { o.id.Store(goid.ID()) }

// leave clears the owner.
func (o *owner) leave() { o.id.Store(0) }

// is reports whether goroutine id is the owner.
func (o *owner) is(id uint64) bool { return id != 0 && o.id.Load() == id }
