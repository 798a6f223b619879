// Package await waits, in tests, for an event a channel brings, with no
// deadline of its own: a test that waits for something that never comes
// fails at the test binary's deadline (go test -timeout), naming what it
// waited for, however slow or loaded the machine. In a synctest bubble
// the wait is on the bubble's clock, where a wait that can never end is
// reported as a deadlock at once.
package await

import (
	"context"
	"fmt"
	"runtime"
	"testing"
	"time"
)

// grace is how long before the test binary's deadline a wait gives up, so
// that it can report what it waited for before the binary is stopped.
const grace = 5 * time.Second

// Recv returns the next value from ch. When none comes before the test
// binary's deadline (less a grace period to report), it fails the test,
// naming what.
func Recv[T any](t testing.TB, what string, ch <-chan T) T {
	t.Helper()
	expired, stop := deadline(t)
	defer stop()
	select {
	case v := <-ch:
		return v
	case <-expired:
		t.Fatalf("%s: still waiting at the test's deadline (deadlock?)", what)
		var zero T
		return zero
	}
}

// Do runs f and returns when it has returned, failing the test as Recv does
// when it has not by the test's deadline.
func Do(t testing.TB, what string, f func()) {
	t.Helper()
	done := make(chan struct{})
	go func() {
		defer close(done)
		f()
	}()
	Recv(t, what, done)
}

// Context returns a context derived from parent that is also done a grace
// period before the test binary's deadline (as Recv gives up), for the
// waits of a client library that take a context; the caller cancels it.
func Context(t testing.TB, parent context.Context) (context.Context, context.CancelFunc) {
	end, ok, _ := testDeadline(t)
	if !ok {
		return context.WithCancel(parent)
	}
	return context.WithDeadline(parent, end.Add(-grace))
}

// Watchdog makes a test that deadlocks where neither Recv nor synctest can
// see it (goroutines blocked on a mutex) panic with every goroutine's stack
// instead of hanging: outside a synctest bubble a grace period before the
// test binary's deadline, in a bubble after inBubble on the bubble's clock
// (which only runs while goroutines wait on it). Call it before what it
// guards; it ends with the test.
func Watchdog(t testing.TB, inBubble time.Duration) {
	name := t.Name()
	wait, ok := watchdogDelay(t, inBubble)
	if !ok {
		return
	}
	tm := time.AfterFunc(wait, func() {
		buf := make([]byte, 1<<20)
		panic(fmt.Sprintf("%s: deadlock: still running after %v\n%s", name, wait, buf[:runtime.Stack(buf, true)]))
	})
	t.Cleanup(func() { tm.Stop() })
}

// watchdogDelay returns when Watchdog fires, and false for never (no
// deadline).
func watchdogDelay(t testing.TB, inBubble time.Duration) (time.Duration, bool) {
	end, ok, bubble := testDeadline(t)
	switch {
	case bubble:
		return inBubble, true
	case !ok:
		return 0, false
	}
	return max(time.Until(end)-grace, 0), true
}

// deadline returns a channel that is closed a grace period before the test
// binary's deadline (never, without one), and a function that releases it.
func deadline(t testing.TB) (<-chan time.Time, func()) {
	end, ok, _ := testDeadline(t)
	if !ok {
		return nil, func() {}
	}
	wait := time.Until(end) - grace
	if wait <= 0 {
		return nil, func() {} // nearly out of time: the binary's own timeout reports
	}
	tm := time.NewTimer(wait)
	return tm.C, func() { tm.Stop() }
}

// testDeadline returns t's deadline, if it has one, and whether t runs in a
// synctest bubble: there a test has no deadline to ask for (its Deadline
// panics), and a wait that cannot end is a deadlock, which synctest
// reports.
func testDeadline(t testing.TB) (end time.Time, ok, bubble bool) {
	d, has := t.(interface{ Deadline() (time.Time, bool) })
	if !has {
		return time.Time{}, false, false
	}
	defer func() {
		if recover() != nil {
			end, ok, bubble = time.Time{}, false, true
		}
	}()
	end, ok = d.Deadline()
	return end, ok, false
}
