package goid

import (
	"sync"
	"testing"
)

func TestID(t *testing.T) {
	me := ID()
	if me == 0 {
		t.Fatal("ID() = 0")
	}
	if again := ID(); again != me {
		t.Fatalf("ID() changed within one goroutine: %d then %d", me, again)
	}
	other := make(chan uint64)
	go func() { other <- ID() }()
	if o := <-other; o == 0 || o == me {
		t.Fatalf("another goroutine has id %d (this one %d)", o, me)
	}
}

func TestSet(t *testing.T) {
	var s Set
	if s.Current() {
		t.Fatal("empty set contains the caller")
	}
	leave := s.Enter()
	if !s.Current() {
		t.Fatal("after Enter the set does not contain the caller")
	}
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		if s.Current() {
			t.Error("the set contains a goroutine that never entered")
		}
	}()
	wg.Wait()
	leave()
	if s.Current() {
		t.Fatal("after leave the set still contains the caller")
	}
}
