package usb_test

import (
	"testing"
	"testing/synctest"
	"time"

	"github.com/rsbag/rsbag/sensor"
	"github.com/rsbag/rsbag/usb"
	"github.com/rsbag/rsbag/usb/usbtest"
)

// TestSlowHandlerGetsLatest: a live camera does not wait for a handler
// that is slower than the stream. Frames that arrive while the handler is
// inside a long call are dropped once they have waited a frame period
// (33 ms at 30 fps), counted in Stats.LateFrames, and the handler then gets
// the newest ones; USB reading goes on meanwhile. A handler that keeps up
// loses nothing.
func TestSlowHandlerGetsLatest(t *testing.T) { synctest.Test(t, slowHandlerGetsLatest) }

func slowHandlerGetsLatest(t *testing.T) {
	d, depth, fake, tr := openDepth(t, time.Minute, stopOps(1, 0x82)...)
	img := image(depthSize, 3)
	entered, release := make(chan uint64, 1), make(chan struct{})
	got := make(chan uint64, 16)
	h := sensor.HandlerFunc(func(f *sensor.Frame) {
		if len(got) == 0 && f.Number == 1 {
			entered <- f.Number
			<-release // a handler stuck in a long computation
		}
		got <- f.Number
	})
	if err := depth.Start(h); err != nil {
		t.Fatal(err)
	}
	s := fake.Stream(0x82)
	fid := uint8(0)
	send := func() {
		s.Send(usbtest.Payload(fid|usbtest.EOF, 1000, nil, img))
		fid ^= usbtest.FID
	}
	send()
	<-entered
	// Four frames at 30 fps while the handler is stuck: all but the last
	// have waited more than a frame period when the handler returns.
	for range 4 {
		time.Sleep(time.Second / 30)
		send()
	}
	synctest.Wait()
	time.Sleep(time.Second / 30)
	close(release)
	synctest.Wait()
	var seq []uint64
	for len(got) > 0 {
		seq = append(seq, <-got)
	}
	if len(seq) != 2 || seq[0] != 1 || seq[1] != 5 {
		t.Errorf("handler got frames %v, want 1 and the newest, 5", seq)
	}
	st := depth.(*usb.Sensor).Stats()
	if st.Frames != 5 || st.LateFrames != 3 || st.Dropped() != 3 {
		t.Errorf("stats %+v: want 5 frames read, 3 late", st)
	}
	// Keeping up: one frame per period, none lost.
	for range 5 {
		send()
		synctest.Wait()
		time.Sleep(time.Second / 30)
	}
	if n := len(got); n != 5 {
		t.Errorf("a handler that keeps up got %d of 5 frames", n)
	}
	finish(t, d, depth, fake, tr)
}
