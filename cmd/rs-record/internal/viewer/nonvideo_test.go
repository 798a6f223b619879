package viewer

import (
	"testing"
	"time"

	"github.com/rsbag/rsbag/software"
)

// TestNonVideoBagEnds: a bag without a depth or video stream (the synthetic
// cameras of the motion-only and pose-only reference bags) is shown and
// played to its end: the page learns that the bag ended.
func TestNonVideoBagEnds(t *testing.T) {
	for _, name := range []string{"motion_accel_gyro", "pose"} {
		t.Run(name, func(t *testing.T) {
			bag := recordReference(t, name, func(c *software.SyntheticConfig) { c.Duration, c.Frames = 300*time.Millisecond, 0 })
			ts := playTest(t, bag, false)
			c := dialWS(t, ts, "")
			if len(c.hello.Streams) == 0 {
				t.Fatal("hello lists no stream")
			}
			c.until("the end of the bag", func() bool { return c.state.Ended })
		})
	}
}
