package viewer

import (
	"path/filepath"
	"testing"
	"time"
)

// firstPicture returns the first frame of every stream of the bag at path
// and the bag time by which each has its first frame: where the viewer
// opens the bag.
func firstPicture(t *testing.T, path string) (map[string]refFrame, time.Duration) {
	t.Helper()
	firsts := map[string]refFrame{}
	var at time.Duration
	for name, frames := range refFrames(t, path) {
		firsts[name] = frames[0]
		at = max(at, frames[0].bagTime)
	}
	return firsts, at
}

// TestStartsPausedAtFirstFrame: a bag opens paused with the first frame of
// every stream on view, at the position by which each has its first frame:
// a page that connects later sees them, and the view stays there until the
// page presses play.
func TestStartsPausedAtFirstFrame(t *testing.T) {
	path := filepath.Join(refDir, "depth_color.bag")
	firsts, at := firstPicture(t, path)
	ts := startTest(t, path, false)
	c := dialWS(t, ts, "")
	for name, f := range firsts {
		c.waitNumber(c.streamID(name), f.f.Number)
	}
	n := c.nState
	c.until("three states", func() bool { return c.nState >= n+3 })
	if c.state.Status != "Paused" || c.state.Ended || c.state.PositionNs != int64(at) {
		t.Errorf("at start: %s (ended %v) at %d ns, want Paused at the first frames' %d ns", c.state.Status, c.state.Ended, c.state.PositionNs, at)
	}
	for name, f := range firsts {
		if h := c.frames[c.streamID(name)]; h.Number != f.f.Number {
			t.Errorf("at start the %s picture is frame %d, want the first, %d", name, h.Number, f.f.Number)
		}
	}
	c.must(command{Cmd: "play"})
	c.until("playing past the first frames", func() bool { return c.state.Ended || c.state.PositionNs > int64(at) })
}

// TestAutoplay: with Config.Autoplay the bag plays at once.
func TestAutoplay(t *testing.T) {
	ts := startOn(t, filepath.Join(refDir, "depth_color.bag"), "127.0.0.1:0", Config{Autoplay: true, Loop: true})
	c := dialWS(t, ts, "")
	c.until("playing", func() bool { return c.state.Status == "Playing" })
}

// TestEndPositionIsDuration: at the end of the bag the position stays at the
// last frame's, the bag's duration, while the last picture stays on view.
func TestEndPositionIsDuration(t *testing.T) {
	ts := startOn(t, filepath.Join(refDir, "depth_color.bag"), "127.0.0.1:0", Config{Autoplay: true})
	c := dialWS(t, ts, "")
	c.until("the end of the bag", func() bool { return c.state.Ended })
	n := c.nState
	c.until("three more states", func() bool {
		if c.state.PositionNs != c.hello.DurationNs {
			t.Fatalf("ended at position %d ns, want the duration, %d ns", c.state.PositionNs, c.hello.DurationNs)
		}
		return c.nState >= n+3
	})
}
