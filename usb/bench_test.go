package usb_test

import (
	"context"
	"testing"

	"github.com/rsbag/rsbag/internal/testsupport/usbtest"
	"github.com/rsbag/rsbag/internal/usbio"
	"github.com/rsbag/rsbag/sensor"
	"github.com/rsbag/rsbag/usb"
)

// BenchmarkUSBTransport prices the seam: 848x480 Z16 frames with metadata
// through the fake transport, payload parsing, assembly and delivery.
func BenchmarkUSBTransport(b *testing.B) {
	const w, h = 848, 480
	size := w * h * 2
	fake := d435i(b, append(probeOps(1, 0x0110, 1, 2, 333333, uint32(size)), stopOps(1, 0x82)...)...)
	d, err := usb.Open(usbio.WithTransport(context.Background(), usbtest.New(fake)), nil)
	if err != nil {
		b.Fatal(err)
	}
	defer d.Close()
	depth := byName(d, "Stereo Module")
	if err := depth.Open(find(depth, sensor.StreamDepth, sensor.FormatZ16, w, h, 30)); err != nil {
		b.Fatal(err)
	}
	done := make(chan struct{}, 64)
	if err := depth.Start(sensor.HandlerFunc(func(*sensor.Frame) { done <- struct{}{} })); err != nil {
		b.Fatal(err)
	}
	s := fake.Stream(0x82)
	payloads := [2][]byte{
		usbtest.Payload(usbtest.EOF, 1, usbtest.CaptureTiming(1, 2, 3), image(size, 0)),
		usbtest.Payload(usbtest.FID|usbtest.EOF, 2, usbtest.CaptureTiming(1, 2, 3), image(size, 1)),
	}
	b.SetBytes(int64(size))
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		s.Send(payloads[i&1])
		<-done
	}
	b.StopTimer()
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "frames/s")
	depth.Stop()
}
