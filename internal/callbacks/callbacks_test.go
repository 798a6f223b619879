package callbacks_test

import (
	"fmt"
	"sync"
	"testing"

	"github.com/rsbag/rsbag/internal/callbacks"
)

func TestCallbacks(t *testing.T) {
	var c callbacks.Callbacks[int]
	var got []string
	add := func(name string) func() {
		return c.Add(func(v int) { got = append(got, fmt.Sprint(name, v)) })
	}
	cancelA := add("a")
	cancelB := add("b")
	var cancelC func()
	// A callback may register and cancel others while Call runs.
	cancelC = c.Add(func(v int) {
		got = append(got, fmt.Sprint("c", v))
		cancelC()
		add("d")
	})
	c.Call(1)
	cancelB()
	cancelB()
	c.Call(2)
	cancelA()
	c.Call(3)
	want := "[a1 b1 c1 a2 d2 d3]"
	if fmt.Sprint(got) != want {
		t.Errorf("calls %v, want %s", got, want)
	}
}

func TestCallbacksConcurrent(t *testing.T) {
	var c callbacks.Callbacks[int]
	var wg sync.WaitGroup
	for i := 0; i < 8; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := 0; j < 100; j++ {
				cancel := c.Add(func(int) {})
				c.Call(j)
				cancel()
			}
		}()
	}
	wg.Wait()
}
