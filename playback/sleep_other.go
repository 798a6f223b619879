//go:build !linux

package playback

import "time"

// preciseMargin is 0 where no finer sleep than the Go timer is used.
const preciseMargin = 0

func sleepPrecise(d time.Duration) { time.Sleep(d) }
