package playback

import (
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/rsbag/rsbag/internal/testsupport/await"
)

// TestWindow: with Start and End the device plays exactly the frames with
// bag time in [Start, End), stops there as at the end of the file, starts
// again at Start after a Stop, and refuses a window that is empty or after
// the last frame.
func TestWindow(t *testing.T) {
	all := playAll(t, depthColor)
	start, end := 200*time.Millisecond, 700*time.Millisecond
	var want []rec
	for _, r := range all {
		if r.pos >= int64(start) && r.pos < int64(end) {
			want = append(want, r)
		}
	}
	if len(want) == 0 || len(want) == len(all) {
		t.Fatalf("window holds %d of %d frames", len(want), len(all))
	}
	d := open(t, depthColor, &Options{NonRealTime: true, Start: start, End: end})
	for pass := range 2 {
		c := newCollector(d)
		if pass == 0 {
			startAll(t, d, c)
		} else {
			for _, s := range d.Sensors() {
				if err := s.Start(c); err != nil {
					t.Fatal(err)
				}
			}
		}
		c.waitStopped(t)
		if got := c.snapshot(); fmt.Sprint(got) != fmt.Sprint(want) {
			t.Fatalf("pass %d: %d frames %v,\nwant %d %v", pass, len(got), got, len(want), want)
		}
		if d.Position() != start {
			t.Errorf("pass %d: position %v after the end of the window, want %v", pass, d.Position(), start)
		}
	}
	for _, o := range []Options{{Start: end, End: start}, {Start: start, End: start}, {Start: -1}, {End: -1}} {
		if dev, err := Open(depthColor, &o); err == nil {
			dev.Close()
			t.Errorf("Open with window [%v, %v) succeeded", o.Start, o.End)
		}
	}
	if _, err := Open(depthColor, &Options{Start: time.Hour}); !errors.Is(err, ErrOutOfRange) {
		t.Errorf("Start after the last frame: %v, want ErrOutOfRange", err)
	}

	// With Repeat, every repetition is the window again.
	r := open(t, depthColor, &Options{NonRealTime: true, Start: start, End: end, Repeat: true})
	c := newCollector(r)
	enough := make(chan struct{})
	var once sync.Once
	c.delay = func() {
		if len(c.snapshot()) >= 3*len(want) {
			once.Do(func() { close(enough) })
		}
	}
	startAll(t, r, c)
	await.Recv(t, fmt.Sprintf("%d frames of the repeated window", 3*len(want)), enough)
	r.Close()
	got := c.snapshot()[:3*len(want)]
	if w3 := slices.Concat(want, want, want); fmt.Sprint(got) != fmt.Sprint(w3) {
		t.Errorf("repeated window: %v,\nwant %v", got, w3)
	}
}
