package viewer

import (
	"testing"
	"time"

	"github.com/rsbag/rsbag/internal/rigfiles"
	"github.com/rsbag/rsbag/internal/testsupport/synthrig"
)

// TestPositionWithinDuration: on a bag whose frames begin 2 s after its
// first message (as in a part cut by edit trim, or a camera that joined a
// session late), the page's "position / duration" counts both from the
// start of the recording: the bag opens at its first frames, a seek into
// the frames is accepted and the position shown never passes the duration.
func TestPositionWithinDuration(t *testing.T) {
	file := synthrig.Record(t, 1, 2*time.Second)
	ts := startTest(t, rigfiles.BagPath(file, "RIG001"), false)
	first, last := ts.dev.Span()
	if first < 2*time.Second {
		t.Fatalf("first frame at %v, want after 2 s", first)
	}
	c := dialWS(t, ts, "")
	if c.hello.DurationNs != int64(last) {
		t.Errorf("duration %d ns, want the last frame's position %d ns", c.hello.DurationNs, last)
	}
	c.until("a state", func() bool { return c.nState > 0 })
	if p := c.state.PositionNs; c.state.Status != "Paused" || p < int64(first) || p > c.hello.DurationNs {
		t.Errorf("at the start: %s at %d ns, want Paused at the first frames, within [%d, %d]", c.state.Status, p, first, c.hello.DurationNs)
	}
	mid := first + (last-first)/2
	c.must(command{Cmd: "seek", T: mid.Seconds()})
	c.until("the position of the seek", func() bool { return c.state.PositionNs >= int64(first) })
	if p := c.state.PositionNs; p > c.hello.DurationNs || p < int64(first) {
		t.Errorf("position %d ns outside [%d, %d]", p, first, c.hello.DurationNs)
	}
}
