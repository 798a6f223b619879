// Package callbacks is the list of callbacks the backends keep for the
// On... registration methods of package extensions' interfaces
// (OnOptionChange, OnNotification).
package callbacks

import "sync"

// Callbacks is a thread-safe list of callbacks. The zero value is an empty,
// usable list.
type Callbacks[T any] struct {
	mu     sync.Mutex
	nextID int
	list   []callback[T] // in registration (id) order
}

type callback[T any] struct {
	id int
	f  func(T)
}

// Add registers f; cancel unregisters it and is safe to call more than once.
func (c *Callbacks[T]) Add(f func(T)) (cancel func()) {
	c.mu.Lock()
	defer c.mu.Unlock()
	id := c.nextID
	c.nextID++
	c.list = append(c.list, callback[T]{id, f})
	return func() {
		c.mu.Lock()
		defer c.mu.Unlock()
		for i, cb := range c.list {
			if cb.id == id {
				c.list = append(c.list[:i:i], c.list[i+1:]...)
				return
			}
		}
	}
}

// Call runs every registered callback with v on the calling goroutine, in
// registration order, with no lock held (a callback may Add or cancel).
func (c *Callbacks[T]) Call(v T) {
	for _, f := range c.funcs() {
		f(v)
	}
}

// funcs returns the registered callbacks in registration order.
func (c *Callbacks[T]) funcs() []func(T) {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := make([]func(T), len(c.list))
	for i, cb := range c.list {
		out[i] = cb.f
	}
	return out
}
