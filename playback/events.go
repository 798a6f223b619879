package playback

import (
	"sync"

	"github.com/rsbag/rsbag/internal/sensorrt"
)

// funcQueue is a queue of functions posted by any goroutine and run in
// order by the one goroutine that owns it; wake is signalled on every post.
// The mutex guards only the queue.
type funcQueue struct {
	mu   sync.Mutex
	fs   []func()
	wake chan struct{}
}

func newFuncQueue() funcQueue { return funcQueue{wake: make(chan struct{}, 1)} }

// post queues f and signals wake.
func (q *funcQueue) post(f func()) {
	q.mu.Lock()
	q.fs = append(q.fs, f)
	q.mu.Unlock()
	select {
	case q.wake <- struct{}{}:
	default:
	}
}

// runQueued runs the functions queued so far and reports whether there were
// any.
func (q *funcQueue) runQueued() bool {
	q.mu.Lock()
	fs := q.fs
	q.fs = nil
	q.mu.Unlock()
	for _, f := range fs {
		f()
	}
	return len(fs) > 0
}

// events runs user callbacks (status, notification, option change) in order
// on one goroutine, so that the reader never calls user code that could call
// back into the device.
type events struct {
	funcQueue
	done   chan struct{}
	exited chan struct{}
	owners *sensorrt.Goroutines
}

func newEvents(owners *sensorrt.Goroutines) *events {
	e := &events{funcQueue: newFuncQueue(), done: make(chan struct{}), exited: make(chan struct{}), owners: owners}
	go e.run()
	return e
}

func (e *events) run() {
	defer close(e.exited)
	leave := e.owners.Enter()
	defer leave()
	for {
		if e.runQueued() {
			continue
		}
		select {
		case <-e.wake:
		case <-e.done:
			e.runQueued() // what is left, then end
			return
		}
	}
}

// close ends the goroutine after the queued callbacks ran, and waits.
func (e *events) close() {
	close(e.done)
	<-e.exited
}

// flush waits until every callback posted so far has run.
func (e *events) flush() {
	ch := make(chan struct{})
	e.post(func() { close(ch) })
	select {
	case <-ch:
	case <-e.exited:
	}
}
