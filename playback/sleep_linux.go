package playback

import (
	"syscall"
	"time"
)

// preciseMargin is the final stretch of a real-time wait that the reader
// sleeps with nanosleep rather than on a Go timer.
const preciseMargin = time.Millisecond

// sleepPrecise blocks the calling thread for d with nanosleep, which wakes
// within tens of microseconds where a Go timer may take hundreds.
func sleepPrecise(d time.Duration) {
	ts := syscall.NsecToTimespec(int64(d))
	for {
		var rem syscall.Timespec
		if err := syscall.Nanosleep(&ts, &rem); err != syscall.EINTR {
			return
		}
		ts = rem
	}
}
