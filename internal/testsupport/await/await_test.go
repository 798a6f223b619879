package await

import (
	"context"
	"fmt"
	"testing"
	"testing/synctest"
	"time"
)

// fakeTB is a test with a deadline of its choosing, that records its
// failure instead of stopping.
type fakeTB struct {
	testing.TB
	end      time.Time
	hasEnd   bool
	failures []string
}

func (f *fakeTB) Helper()                     {}
func (f *fakeTB) Deadline() (time.Time, bool) { return f.end, f.hasEnd }
func (f *fakeTB) Fatalf(format string, args ...any) {
	f.failures = append(f.failures, fmt.Sprintf(format, args...))
}

func TestRecv(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ch := make(chan int)
		go func() {
			time.Sleep(time.Hour)
			ch <- 7
		}()
		// No deadline: the wait is as long as it takes.
		f := &fakeTB{}
		if v := Recv(f, "seven", ch); v != 7 || len(f.failures) != 0 {
			t.Errorf("Recv = %d, failures %q; want 7 and none", v, f.failures)
		}
		// A value before the deadline.
		go func() { ch <- 8 }()
		f = &fakeTB{end: time.Now().Add(grace + time.Minute), hasEnd: true}
		if v := Recv(f, "eight", ch); v != 8 || len(f.failures) != 0 {
			t.Errorf("Recv = %d, failures %q; want 8 and none", v, f.failures)
		}
		// Nothing before the deadline: the test fails, naming what it
		// waited for, a grace period before the deadline.
		start := time.Now()
		f = &fakeTB{end: start.Add(grace + time.Minute), hasEnd: true}
		Recv(f, "nine", ch)
		want := []string{"nine: still waiting at the test's deadline (deadlock?)"}
		if fmt.Sprint(f.failures) != fmt.Sprint(want) || time.Since(start) != time.Minute {
			t.Errorf("failures %q after %v, want %q after 1m0s", f.failures, time.Since(start), want)
		}
	})
}

// TestRecvInBubble: in a synctest bubble, where the test has no deadline to
// ask for, Recv waits on the bubble's clock.
func TestRecvInBubble(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ch := make(chan int, 1)
		time.AfterFunc(time.Hour, func() { ch <- 7 })
		if v := Recv(t, "seven", ch); v != 7 {
			t.Errorf("Recv = %d, want 7", v)
		}
	})
}

func TestDo(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := &fakeTB{end: time.Now().Add(grace + time.Minute), hasEnd: true}
		ran := false
		Do(f, "sleep", func() { time.Sleep(time.Second); ran = true })
		if !ran || len(f.failures) != 0 {
			t.Errorf("Do: ran %v, failures %q", ran, f.failures)
		}
		block := make(chan struct{})
		Do(f, "blocked", func() { <-block })
		if want := "blocked: still waiting at the test's deadline (deadlock?)"; len(f.failures) != 1 || f.failures[0] != want {
			t.Errorf("failures %q, want %q", f.failures, want)
		}
		close(block)
	})
}

func TestWatchdogDelay(t *testing.T) {
	if _, ok := watchdogDelay(&fakeTB{}, time.Second); ok {
		t.Error("a watchdog without a deadline fires")
	}
	synctest.Test(t, func(t *testing.T) {
		f := &fakeTB{end: time.Now().Add(grace + time.Minute), hasEnd: true}
		if d, ok := watchdogDelay(f, time.Second); !ok || d != time.Minute {
			t.Errorf("with a deadline: %v %v, want 1m0s (a grace period before it)", d, ok)
		}
		if d, ok := watchdogDelay(t, 10*time.Second); !ok || d != 10*time.Second {
			t.Errorf("in a bubble: %v %v, want 10s on its clock", d, ok)
		}
	})
}

func TestContext(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		end := time.Now().Add(grace + time.Minute)
		ctx, cancel := Context(&fakeTB{end: end, hasEnd: true}, context.Background())
		defer cancel()
		if d, ok := ctx.Deadline(); !ok || !d.Equal(end.Add(-grace)) {
			t.Errorf("deadline %v %v, want %v", d, ok, end.Add(-grace))
		}
		ctx, cancel = Context(t, context.Background()) // in a bubble: none
		defer cancel()
		if d, ok := ctx.Deadline(); ok {
			t.Errorf("in a bubble: deadline %v", d)
		}
	})
}
