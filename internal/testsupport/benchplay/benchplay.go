// Package benchplay gives benchmarks the bare playback figure they are
// measured against: a bag played in non-real-time mode to a handler that
// only counts frames. It is for tests only.
package benchplay

import (
	"syscall"
	"testing"
	"time"

	"github.com/rsbag/rsbag/playback"
	"github.com/rsbag/rsbag/sensor"
)

// Frames plays the bag at path in non-real-time mode, every stream to a
// handler that only counts, and returns the number of frames delivered.
func Frames(tb testing.TB, path string) int {
	tb.Helper()
	d, err := playback.Open(path, &playback.Options{NonRealTime: true})
	if err != nil {
		tb.Fatal(err)
	}
	defer d.Close()
	n := 0
	done, err := d.PlayAll(sensor.HandlerFunc(func(*sensor.Frame) { n++ }))
	if err != nil {
		tb.Fatal(err)
	}
	<-done
	return n
}

// CPUTime returns the process's user and system CPU time (0 when the
// system does not say): a cost that the machine's other load does not
// inflate as it does wall time.
func CPUTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
