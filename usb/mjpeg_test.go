package usb_test

import (
	"context"
	"testing"
	"time"

	"github.com/rsbag/rsbag/internal/testsupport/usbtest"
	"github.com/rsbag/rsbag/internal/testsupport/yuvtest"
	"github.com/rsbag/rsbag/internal/usbio"
	"github.com/rsbag/rsbag/sensor"
	"github.com/rsbag/rsbag/usb"
)

// openMJPEG opens a scripted D435i whose color interface also offers MJPEG
// (usbtest.D435MJPEGConfig), expecting ops after the opening.
func openMJPEG(t *testing.T, ops ...usbtest.IO) (*usb.Device, *usbtest.Device) {
	t.Helper()
	fake := usbtest.NewDevice(usbtest.D435iDesc(), usbtest.D435MJPEGConfig(true), append(usbtest.DefaultFirmware().OpenOps(true), ops...)...)
	d, err := usb.Open(usbio.WithTransport(context.Background(), usbtest.New(fake)), &usb.Options{Watchdog: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	return d, fake
}

// TestMJPEGOnlyModeProfiles: a color mode the camera offers only as MJPEG
// (1920x1080@60, 320x180@90) is listed as RGB8, BGR8, RGBA8, BGRA8 and Y8
// profiles besides MJPEG, each once; a mode YUYV also offers (1920x1080@30)
// is listed once per format too, and its RGB8 streams the YUYV mode
// (format 2) although the MJPEG format comes first.
func TestMJPEGOnlyModeProfiles(t *testing.T) {
	d, _ := openMJPEG(t, append(probeOps(4, 0x0110, 2, 1, 333333, 1920*1080*2), stopOps(4, 0x84)...)...)
	defer d.Close()
	color := byName(d, "RGB Camera")
	both := find(color, sensor.StreamColor, sensor.FormatRGB8, 1920, 1080, 30)
	if err := color.Open(both); err != nil {
		t.Fatal(err)
	}
	if err := color.Start(newCollector()); err != nil {
		t.Fatalf("RGB8 1920x1080@30 does not stream the YUYV mode: %v", err)
	}
	if err := color.Stop(); err != nil {
		t.Fatal(err)
	}
	if err := color.Close(); err != nil {
		t.Fatal(err)
	}
	for _, m := range []struct{ w, h, fps int }{{1920, 1080, 60}, {320, 180, 90}, {1920, 1080, 30}} {
		for _, f := range []sensor.Format{sensor.FormatRGB8, sensor.FormatBGR8, sensor.FormatRGBA8, sensor.FormatBGRA8, sensor.FormatY8, sensor.FormatMJPEG} {
			n := 0
			for _, p := range color.Profiles() {
				if p.Stream == sensor.StreamColor && p.Format == f && p.Width == m.w && p.Height == m.h && p.FPS == m.fps {
					n++
				}
			}
			if n != 1 {
				t.Errorf("%d color %s %dx%d@%d profiles, want 1", n, f, m.w, m.h, m.fps)
			}
		}
	}
}

// TestMJPEGConvertedOnHost: RGB8 at 320x180@90 streams the MJPEG mode
// (format 1, frame 2 of interface 4) and delivers each frame decoded — one
// with its Huffman tables, one without, as cameras send them — within a
// small tolerance of the source picture; a corrupt frame is dropped and
// counted (Stats.CorruptFrames), and the next frame is delivered.
func TestMJPEGConvertedOnHost(t *testing.T) {
	const w, h = 320, 180
	ops := append(probeOps(4, 0x0110, 1, 2, 111111, uint32(w*h*2)), stopOps(4, 0x84)...)
	d, fake := openMJPEG(t, ops...)
	color := byName(d, "RGB Camera")
	p := find(color, sensor.StreamColor, sensor.FormatRGB8, w, h, 90)
	if p == nil {
		t.Fatal("no RGB8 320x180@90 color profile")
	}
	if err := color.Open(p); err != nil {
		t.Fatal(err)
	}
	col := newCollector()
	if err := color.Start(col); err != nil {
		t.Fatal(err)
	}
	src := yuvtest.Picture(w, h)
	full, bare := yuvtest.MJPEG(src, true), yuvtest.MJPEG(src, false)
	s := fake.Stream(0x84)
	s.Send(usbtest.Payload(usbtest.EOF, 1_000_000, usbtest.CaptureTiming(1, 1, 1), full))
	s.Send(usbtest.Payload(usbtest.EOF|usbtest.FID, 1_011_111, usbtest.CaptureTiming(2, 1, 1), full[:len(full)/2]))
	s.Send(usbtest.Payload(usbtest.EOF, 1_022_222, usbtest.CaptureTiming(3, 1, 1), bare))
	fs := col.wait(t, 2)
	if err := color.Stop(); err != nil {
		t.Fatal(err)
	}
	st := color.(interface{ Stats() usb.Stats }).Stats()
	// The corrupt frame is lost to the stream.
	checkStreamStats(t, d, sensor.StreamColor, 2, 0, 1)
	if err := d.Close(); err != nil {
		t.Fatal(err)
	}
	if len(fs) != 2 || st.Frames != 2 || st.CorruptFrames != 1 {
		t.Fatalf("%d frames delivered, stats %+v: want 2 frames and 1 corrupt dropped", len(fs), st)
	}
	for i, f := range fs {
		if f.Profile != p || f.BPP != 24 || f.Stride != 3*w || len(f.Data) != 3*w*h {
			t.Fatalf("frame %d: %v bpp %d stride %d len %d", i, f.Profile, f.BPP, f.Stride, len(f.Data))
		}
		worst := 0
		for j := range w * h {
			for c := range 3 {
				d := int(f.Data[3*j+c]) - int(src.Pix[4*j+c])
				worst = max(worst, d, -d)
			}
		}
		if worst > yuvtest.Tolerance {
			t.Errorf("frame %d (counter %d): a pixel is %d levels from the source, want at most %d", i, f.Number, worst, yuvtest.Tolerance)
		}
	}
	if fs[0].Number != 1 || fs[1].Number != 3 {
		t.Errorf("frame numbers %d, %d: want the camera's counters 1 and 3", fs[0].Number, fs[1].Number)
	}
}
