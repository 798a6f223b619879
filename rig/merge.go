package rig

import (
	"errors"
	"sync"
	"time"
)

// head is what the merger knows of one device's next frame.
type head uint8

const (
	headNone  head = iota // not known yet: the device is reading
	headReady             // a frame waits at t
	headEnded             // the device has stopped: no more frames
)

// merger delivers the frames of several non-real-time playback devices one
// at a time in bag-time order. Each device's reader waits for its handler
// before it reads on, so each device has at most one frame waiting in the
// merger; a frame goes when every other device has either ended or a frame
// waiting at a later time (equal times: the lower device index first).
// The merger holds no goroutine of its own: the waiting handlers are the
// devices' workers.
type merger struct {
	mu      sync.Mutex
	cond    sync.Cond
	st      []head
	t       []time.Duration
	discard []bool // frames of this device are dropped (a stop is under way)
	floor   []time.Duration
	// act holds an action for a device's handler goroutine: the next (or
	// the waiting) handler call of that device runs it instead of
	// delivering its frame. Playback calls made from a handler take effect
	// as soon as it returns, before any other frame of that device: a seek
	// made so is exact.
	act    []func() error
	actErr []error
	acting int  // actions taken and not finished
	gate   bool // deliveries allowed (false while paused)
	bypass bool // real time: deliver at once, unordered
	busy   bool // a handler runs
	last   time.Duration
	ended  int
	endCh  chan struct{} // closed once every device has ended
}

func newMerger(n int) *merger {
	m := &merger{st: make([]head, n), t: make([]time.Duration, n), discard: make([]bool, n), floor: make([]time.Duration, n),
		act: make([]func() error, n), actErr: make([]error, n), gate: true, endCh: make(chan struct{})}
	m.cond.L = &m.mu
	return m
}

// turn reports whether device i's waiting frame may be delivered now.
// m.mu is held.
func (m *merger) turn(i int) bool {
	if m.busy {
		return false
	}
	if m.bypass {
		return true
	}
	if !m.gate {
		return false
	}
	ti := m.t[i]
	for j, s := range m.st {
		if j == i {
			continue
		}
		switch s {
		case headEnded:
		case headReady:
			if m.t[j] < ti || m.t[j] == ti && j < i {
				return false
			}
		default:
			return false
		}
	}
	return true
}

// enter is called by device i's handler with its frame's bag time; it
// waits for the frame's turn and reports whether to deliver it (false: the
// frame is dropped by a seek or stop). After a true, leave must follow.
func (m *merger) enter(i int, t time.Duration) bool {
	m.mu.Lock()
	if m.discard[i] || t < m.floor[i] {
		m.mu.Unlock()
		return false
	}
	m.st[i], m.t[i] = headReady, t
	m.cond.Broadcast()
	for !m.discard[i] && m.act[i] == nil && !m.turn(i) {
		m.cond.Wait()
	}
	m.st[i] = headNone
	if a := m.act[i]; a != nil {
		m.act[i] = nil
		m.acting++
		m.mu.Unlock()
		err := a()
		m.mu.Lock()
		m.actErr[i] = err
		m.acting--
		m.cond.Broadcast()
		m.mu.Unlock()
		return false
	}
	if m.discard[i] {
		m.mu.Unlock()
		return false
	}
	m.busy, m.last = true, t
	m.mu.Unlock()
	return true
}

// setFloor makes device i drop its frames before bag time t.
func (m *merger) setFloor(i int, t time.Duration) {
	m.mu.Lock()
	m.floor[i] = t
	m.mu.Unlock()
}

// run has the handler goroutine of each device in idx run its action a(i)
// in place of its next frame, and waits until each has run or the device
// has ended. It returns the devices that ended before running theirs and
// the actions' errors.
func (m *merger) run(idx []int, a func(i int) func() error) ([]int, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, i := range idx {
		m.act[i], m.actErr[i] = a(i), nil
	}
	m.cond.Broadcast()
	var ended []int
	for _, i := range idx {
		for m.act[i] != nil && m.st[i] != headEnded {
			m.cond.Wait()
		}
		if m.act[i] != nil {
			m.act[i] = nil
			ended = append(ended, i)
		}
	}
	for m.acting > 0 {
		m.cond.Wait()
	}
	var errs []error
	for _, i := range idx {
		errs = append(errs, m.actErr[i])
	}
	return ended, errors.Join(errs...)
}

// leave ends the delivery enter allowed.
func (m *merger) leave() {
	m.mu.Lock()
	m.busy = false
	m.cond.Broadcast()
	m.mu.Unlock()
}

// setEnded records that device i stopped.
func (m *merger) setEnded(i int) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.st[i] == headEnded {
		return
	}
	m.st[i] = headEnded
	m.ended++
	if m.ended == len(m.st) {
		close(m.endCh)
	}
	m.cond.Broadcast()
}

// restart records that device i plays again.
func (m *merger) restart(i int) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.st[i] != headEnded {
		return
	}
	if m.ended == len(m.st) {
		m.endCh = make(chan struct{})
	}
	m.ended--
	m.st[i] = headNone
}

// waitEnded waits until device i is recorded as stopped (its status
// callback, which runs on a goroutine of the device, has been seen).
func (m *merger) waitEnded(i int) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for m.st[i] != headEnded {
		m.cond.Wait()
	}
}

// isEnded reports whether device i has stopped.
func (m *merger) isEnded(i int) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.st[i] == headEnded
}

// done returns a channel closed once every device has ended.
func (m *merger) done() <-chan struct{} {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.endCh
}

// setDiscard makes the waiting and arriving frames of the devices in idx
// (all when nil) drop (on) or deliver (off).
func (m *merger) setDiscard(on bool, idx ...int) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if idx == nil {
		for i := range m.discard {
			m.discard[i] = on
		}
	} else {
		for _, i := range idx {
			m.discard[i] = on
		}
	}
	m.cond.Broadcast()
}

// setGate opens or closes the gate; closing it waits for the handler that
// runs, so that none runs after it returns.
func (m *merger) setGate(open bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.gate = open
	m.cond.Broadcast()
	for !open && m.busy {
		m.cond.Wait()
	}
}

func (m *merger) setBypass(on bool) {
	m.mu.Lock()
	m.bypass = on
	m.cond.Broadcast()
	m.mu.Unlock()
}

// lastTime returns the bag time of the last frame delivered.
func (m *merger) lastTime() time.Duration {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.last
}
