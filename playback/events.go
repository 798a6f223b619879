package playback

import "sync"

// events runs user callbacks (status, notification, option change) in order
// on one goroutine, so that the reader never calls user code that could call
// back into the device. The mutex guards only the queue.
type events struct {
	mu     sync.Mutex
	queue  []func()
	wake   chan struct{}
	done   chan struct{}
	exited chan struct{}
	owners *goroutines
}

func newEvents(owners *goroutines) *events {
	e := &events{wake: make(chan struct{}, 1), done: make(chan struct{}), exited: make(chan struct{}), owners: owners}
	go e.run()
	return e
}

func (e *events) post(f func()) {
	e.mu.Lock()
	e.queue = append(e.queue, f)
	e.mu.Unlock()
	select {
	case e.wake <- struct{}{}:
	default:
	}
}

func (e *events) run() {
	defer close(e.exited)
	leave := e.owners.enter()
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

// runQueued runs the callbacks queued so far and reports whether there were
// any.
func (e *events) runQueued() bool {
	e.mu.Lock()
	q := e.queue
	e.queue = nil
	e.mu.Unlock()
	for _, f := range q {
		f()
	}
	return len(q) > 0
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
