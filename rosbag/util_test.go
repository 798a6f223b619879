package rosbag

import (
	"testing"
	"time"
)

func sleepMs(n int) { time.Sleep(time.Duration(n) * time.Millisecond) }

// crossCheck reads a written bag with another implementation (go-rosbag, set
// in gorosbag_test.go) and checks its message count.
var crossCheck = func(t testing.TB, path string, want int) {}
