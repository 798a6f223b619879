package usb_test

import (
	"testing"
	"testing/synctest"
	"time"

	"github.com/rsbag/rsbag/internal/testsupport/usbtest"
	"github.com/rsbag/rsbag/sensor"
	"github.com/rsbag/rsbag/usb"
)

// TestSlowHandlerGetsLatest: a live camera does not wait for a handler
// that is slower than the stream. Frames that arrive while the handler is
// inside a long call are dropped once they have waited a frame period
// (33 ms at 30 fps), counted in the stream's Dropped (Device.Stats), and the handler then gets
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
	if st := depth.(interface{ Stats() usb.Stats }).Stats(); st.Frames != 5 {
		t.Errorf("stats %+v: want 5 frames read", st)
	}
	// Per stream: 2 delivered, 3 dropped for the slow handler, none lost
	// on the wire.
	checkStreamStats(t, d, sensor.StreamDepth, 2, 3, 0)
	// Keeping up: one frame per period, none lost.
	for range 5 {
		send()
		synctest.Wait()
		time.Sleep(time.Second / 30)
	}
	if n := len(got); n != 5 {
		t.Errorf("a handler that keeps up got %d of 5 frames", n)
	}
	checkStreamStats(t, d, sensor.StreamDepth, 2+5, 3, 0)
	finish(t, d, depth, fake, tr)
}

// checkStreamStats fails the test unless d's Stats lists exactly one stream,
// of type stream, with these counts.
func checkStreamStats(t *testing.T, d *usb.Device, stream sensor.Stream, delivered, dropped, lost uint64) {
	t.Helper()
	ss := d.Stats()
	if len(ss) != 1 || ss[0].Profile == nil || ss[0].Profile.Stream != stream {
		t.Fatalf("Stats() = %+v, want one %s stream", ss, stream)
	}
	if s := ss[0]; s.Delivered != delivered || s.Dropped != dropped || s.Lost != lost {
		t.Errorf("%s: delivered %d, dropped %d, lost %d; want %d, %d, %d", s.Profile.Name(), s.Delivered, s.Dropped, s.Lost,
			delivered, dropped, lost)
	}
}
