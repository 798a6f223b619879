package usb_test

import (
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/rsbag/rsbag/extensions"
	"github.com/rsbag/rsbag/internal/testsupport/await"
	"github.com/rsbag/rsbag/internal/testsupport/usbtest"
	"github.com/rsbag/rsbag/internal/usbio"
	"github.com/rsbag/rsbag/sensor"
	"github.com/rsbag/rsbag/usb"
)

// fromHandler are the calls a frame handler may make on its own sensor or
// device that would wait for that handler to return.
var fromHandler = []struct {
	name string
	call func(d *usb.Device, s sensor.Sensor) error
}{
	{"Stop", func(_ *usb.Device, s sensor.Sensor) error { return s.Stop() }},
	{"Close", func(_ *usb.Device, s sensor.Sensor) error { return s.Close() }},
	{"device Close", func(d *usb.Device, _ sensor.Sensor) error { return d.Close() }},
}

// within returns the first value from ch, or fails the test when none comes
// by the test's deadline: a call that deadlocks fails the test, naming it.
func within[T any](t *testing.T, what string, ch <-chan T) T {
	t.Helper()
	return await.Recv(t, what, ch)
}

// async runs f on a new goroutine and returns the channel of its result.
func async(f func() error) <-chan error {
	ch := make(chan error, 1)
	go func() { ch <- f() }()
	return ch
}

// callingHandler makes call from the first frame it handles and reports the
// result on done; every frame is signalled on frames.
type callingHandler struct {
	once   sync.Once
	call   func() error
	done   chan error
	frames chan struct{}
}

func newCallingHandler(call func() error) *callingHandler {
	return &callingHandler{call: call, done: make(chan error, 1), frames: make(chan struct{}, 64)}
}

func (h *callingHandler) HandleFrame(*sensor.Frame) {
	h.once.Do(func() { h.done <- h.call() })
	h.frames <- struct{}{}
}

// checkRefused checks that the handler's call failed with
// sensor.ErrStopFromHandler and that the sensor still streams (send makes
// the next frame arrive).
func checkRefused(t *testing.T, what string, h *callingHandler, send func()) {
	t.Helper()
	if err := within(t, what+" from the handler", h.done); !errors.Is(err, sensor.ErrStopFromHandler) {
		t.Fatalf("%s from the handler: %v, want ErrStopFromHandler", what, err)
	}
	within(t, "first frame", h.frames)
	send()
	within(t, "frame after the refused "+what, h.frames)
}

// finish stops the sensor and closes the device from the test goroutine and
// checks that the script was followed and nothing was left open.
func finish(t *testing.T, d *usb.Device, s sensor.Sensor, fake *usbtest.Device, tr *usbtest.Transport) {
	t.Helper()
	if err := within(t, "Stop", async(s.Stop)); err != nil {
		t.Fatalf("Stop: %v", err)
	}
	if err := within(t, "device Close", async(d.Close)); err != nil {
		t.Fatalf("device Close: %v", err)
	}
	if err := fake.Err(); err != nil {
		t.Error(err)
	}
	if tr.OpenHandles() != 0 {
		t.Error("handle left open")
	}
}

func TestVideoCallsFromHandler(t *testing.T) {
	img := image(depthSize, 3)
	for _, c := range fromHandler {
		t.Run(c.name, func(t *testing.T) {
			d, depth, fake, tr := openDepth(t, time.Minute, stopOps(1, 0x82)...)
			hd := newCallingHandler(func() error { return c.call(d, depth) })
			if err := depth.Start(hd); err != nil {
				t.Fatal(err)
			}
			s := fake.Stream(0x82)
			s.Send(usbtest.Payload(usbtest.EOF, 1000, nil, img))
			checkRefused(t, c.name, hd, func() { s.Send(usbtest.Payload(usbtest.FID|usbtest.EOF, 2000, nil, img)) })
			finish(t, d, depth, fake, tr)
		})
	}
}

func TestMotionCallsFromHandler(t *testing.T) {
	for _, c := range fromHandler {
		t.Run(c.name, func(t *testing.T) {
			var ops []usbtest.IO
			ops = append(ops, usbtest.IO{Op: usbtest.OpSetInterface, Setup: usbio.Setup{Index: 5}})
			ops = append(ops, hidPowerOps(5, 1, 2, 250, feature(1, 6, 16))...)
			ops = append(ops, hidPowerOps(5, 1, 6, 0, feature(1, 2, 4))...)
			ops = append(ops, usbtest.IO{Op: usbtest.OpRelease, Setup: usbio.Setup{Index: 5}})
			d, fake, tr := openD435i(t, ops...)
			m := byName(d, "Motion Module")
			if err := m.Open(find(m, sensor.StreamAccel, sensor.FormatMotionXYZ32F, 0, 0, 250)); err != nil {
				t.Fatal(err)
			}
			hd := newCallingHandler(func() error { return c.call(d, m) })
			if err := m.Start(hd); err != nil {
				t.Fatal(err)
			}
			s := fake.Stream(0x85)
			s.Send(usbtest.HIDReport(1, 1_000_000, 0, 0, 1000))
			checkRefused(t, c.name, hd, func() { s.Send(usbtest.HIDReport(1, 1_004_000, 0, 0, 1000)) })
			finish(t, d, m, fake, tr)
		})
	}
}

// A notification callback runs on the reading goroutine too: Stop from it
// fails the same way.
func TestStopFromNotification(t *testing.T) {
	d, depth, fake, tr := openDepth(t, time.Minute, append([]usbtest.IO{{Op: usbtest.OpClearHalt, EP: 0x82}}, stopOps(1, 0x82)...)...)
	refused := make(chan error, 1)
	var once sync.Once
	depth.(extensions.Notifier).OnNotification(func(sensor.Notification) {
		once.Do(func() { refused <- depth.Stop() })
	})
	col := newCollector()
	if err := depth.Start(col); err != nil {
		t.Fatal(err)
	}
	s := fake.Stream(0x82)
	s.Stall() // a FramesTimeout notification, then the endpoint is reset
	if err := within(t, "Stop from the callback", refused); !errors.Is(err, sensor.ErrStopFromHandler) {
		t.Fatalf("Stop from the callback: %v, want ErrStopFromHandler", err)
	}
	s.Send(usbtest.Payload(usbtest.EOF, 1000, nil, image(depthSize, 5)))
	col.wait(t, 1)
	finish(t, d, depth, fake, tr)
}

func TestStopFromHandlerMessages(t *testing.T) {
	d, depth, fake, tr := openDepth(t, time.Minute, stopOps(1, 0x82)...)
	var got []string
	hd := newCallingHandler(func() error {
		for _, c := range fromHandler {
			got = append(got, c.call(d, depth).Error())
		}
		return nil
	})
	if err := depth.Start(hd); err != nil {
		t.Fatal(err)
	}
	fake.Stream(0x82).Send(usbtest.Payload(usbtest.EOF, 1000, nil, image(depthSize, 3)))
	within(t, "calls from the handler", hd.done)
	want := []string{
		"usb Stereo Module: stop: " + sensor.ErrStopFromHandler.Error(),
		"usb Stereo Module: close: " + sensor.ErrStopFromHandler.Error(),
		"usb 8086:0b3a at 2-1: close: " + sensor.ErrStopFromHandler.Error(),
	}
	for i := range want {
		if i >= len(got) || got[i] != want[i] {
			t.Errorf("error %d: %q, want %q", i, got, want[i])
		}
	}
	finish(t, d, depth, fake, tr)
}
