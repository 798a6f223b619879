package leak

import (
	"testing"
	"testing/synctest"
)

// fakeTB records a failure instead of stopping the test.
type fakeTB struct {
	testing.TB
	failed bool
}

func (f *fakeTB) Helper()               {}
func (f *fakeTB) Fatalf(string, ...any) { f.failed = true }

func TestCountAndCheck(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		base := Count()
		stop := make(chan struct{})
		done := make(chan struct{})
		go func() { <-stop; close(done) }()
		if got := Count(); got != base+1 {
			t.Errorf("Count with one more goroutine = %d, want %d", got, base+1)
		}
		f := &fakeTB{TB: t}
		Check(f, base)
		if !f.failed {
			t.Error("Check passed with a goroutine left")
		}
		close(stop)
		<-done
		f = &fakeTB{TB: t}
		Check(f, base)
		if f.failed {
			t.Error("Check failed with no goroutine left")
		}
	})
}

func TestOutsideBubble(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Error("Count outside a bubble did not panic")
		}
	}()
	Count()
}
