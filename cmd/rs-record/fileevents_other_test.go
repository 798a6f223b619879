//go:build !linux

package main

import "testing"

// The file events fileEvents waits for.
const (
	evRead = 1 << iota
	evWrite
	evCreate
)

// fileEvents skips the test: it waits for file events with inotify, which
// only Linux has.
func fileEvents(t *testing.T, path string, events uint32) <-chan struct{} {
	t.Helper()
	t.Skip("waits for file events with inotify (Linux)")
	return nil
}
