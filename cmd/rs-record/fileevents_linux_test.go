package main

import (
	"os"
	"syscall"
	"testing"
)

// The file events fileEvents waits for.
const (
	evRead   = syscall.IN_ACCESS
	evWrite  = syscall.IN_MODIFY
	evCreate = syscall.IN_CREATE
)

// fileEvents returns a channel that receives a value after each of the
// events (evRead, ...) on path, a file, or a directory and the files in it
// (inotify), from any process, until the test ends. Events that come
// while the receiver is busy are merged into one: after a receive, the
// caller looks at the file's state again, with no clock involved.
func fileEvents(t *testing.T, path string, events uint32) <-chan struct{} {
	t.Helper()
	fd, err := syscall.InotifyInit1(syscall.IN_CLOEXEC | syscall.IN_NONBLOCK)
	if err != nil {
		t.Fatalf("inotify: %v", err)
	}
	f := os.NewFile(uintptr(fd), "inotify") // non-blocking: Close ends a Read
	if _, err := syscall.InotifyAddWatch(fd, path, events); err != nil {
		f.Close()
		t.Fatalf("inotify watch of %s: %v", path, err)
	}
	ch := make(chan struct{}, 1)
	done := make(chan struct{})
	go func() {
		defer close(done)
		buf := make([]byte, 64<<10)
		for {
			if _, err := f.Read(buf); err != nil {
				return
			}
			select {
			case ch <- struct{}{}:
			default: // one is pending already
			}
		}
	}()
	t.Cleanup(func() {
		f.Close()
		<-done
	})
	return ch
}
