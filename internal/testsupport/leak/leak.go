// Package leak checks, in tests that run in a testing/synctest bubble, that
// the code under test leaves no goroutine of the bubble behind. It counts
// only the bubble's goroutines: runtime.NumGoroutine would count the whole
// process, whose other goroutines (the testing and fuzzing engines', the
// runtime's, those another test leaves for a moment) come and go on their own.
package leak

import (
	"bytes"
	"runtime"
	"testing"
	"testing/synctest"
)

// Count returns the number of goroutines in the calling goroutine's synctest
// bubble. It panics when the caller is not in a bubble.
func Count() int {
	label := bubbleLabel()
	n := 0
	for line := range bytes.Lines(Stacks()) {
		if bytes.HasPrefix(line, []byte("goroutine ")) && bytes.Contains(line, label) {
			n++
		}
	}
	return n
}

// Check waits until every goroutine of the bubble has ended or blocked
// (synctest.Wait), then fails the test, printing every stack, when the bubble
// holds more goroutines than base (a Count taken before the code ran).
func Check(t testing.TB, base int) {
	t.Helper()
	synctest.Wait()
	if n := Count(); n > base {
		t.Fatalf("%d goroutines in the synctest bubble, %d before:\n%s", n, base, Stacks())
	}
}

// Stacks returns the stacks of every goroutine of the process.
func Stacks() []byte {
	buf := make([]byte, 1<<16)
	for {
		n := runtime.Stack(buf, true)
		if n < len(buf) {
			return buf[:n]
		}
		buf = make([]byte, 2*len(buf))
	}
}

// bubbleLabel returns "synctest bubble N]" from the header of the calling
// goroutine's stack, where N names its bubble.
func bubbleLabel() []byte {
	buf := make([]byte, 512)
	buf = buf[:runtime.Stack(buf, false)]
	header, _, _ := bytes.Cut(buf, []byte("\n"))
	i := bytes.Index(header, []byte("synctest bubble "))
	if i < 0 {
		panic("leak: not in a synctest bubble: " + string(header))
	}
	j := bytes.IndexByte(header[i:], ']')
	if j < 0 {
		panic("leak: unexpected goroutine header: " + string(header))
	}
	return append([]byte(nil), header[i:i+j+1]...)
}
