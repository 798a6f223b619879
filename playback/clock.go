package playback

import "time"

// Clock is the time source of real-time pacing. After is the sleep: the
// reader waits on its channel until the next frame is due, so a fake Clock
// paces playback in virtual time.
type Clock interface {
	Now() time.Time
	After(d time.Duration) <-chan time.Time
}

type wallClock struct{}

func (wallClock) Now() time.Time { return time.Now() }

func (wallClock) After(d time.Duration) <-chan time.Time { return time.After(d) }
