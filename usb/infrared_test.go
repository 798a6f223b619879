package usb_test

import (
	"encoding/binary"
	"testing"
	"time"

	"github.com/rsbag/rsbag/internal/testsupport/usbtest"
	"github.com/rsbag/rsbag/sensor"
)

func findIR(s sensor.Sensor, idx int, f sensor.Format, w, h, fps int) *sensor.StreamProfile {
	for _, p := range s.Profiles() {
		if p.Stream == sensor.StreamInfrared && p.Index == idx && p.Format == f && p.Width == w && p.Height == h && p.FPS == fps {
			return p
		}
	}
	return nil
}

// Infrared/1 and Infrared/2 Y8 stream together as Y8I (format 2 of
// interface 2) and each interleaved frame is split into the two images.
func TestInfraredY8ISplit(t *testing.T) {
	const w, h = 424, 240
	ops := append(probeOps(2, 0x0110, 2, 6, 333333, uint32(w*h*2)), stopOps(2, 0x83)...)
	created := float64(time.Now().UnixNano()) / 1e6
	d, fake, _ := openD435i(t, ops...)
	depth := byName(d, "Stereo Module")
	ir1, ir2 := findIR(depth, 1, sensor.FormatY8, w, h, 30), findIR(depth, 2, sensor.FormatY8, w, h, 30)
	if ir1 == nil || ir2 == nil || ir2.Intrinsics != ir1.Intrinsics || ir1.Intrinsics.FX == 0 {
		t.Fatalf("profiles %v %v", ir1, ir2)
	}
	if err := depth.Open(ir2, ir1); err != nil {
		t.Fatal(err)
	}
	col := newCollector()
	if err := depth.Start(col); err != nil {
		t.Fatal(err)
	}
	img := image(w*h*2, 3)
	// A short payload set first: a frame lost for both streams.
	fake.Stream(0x83).Send(usbtest.Payload(usbtest.EOF, 1_900_000, nil, img[:w*h]))
	fake.Stream(0x83).Send(usbtest.Payload(usbtest.EOF|usbtest.FID, 2_000_000, usbtest.CaptureTiming(7, 1, 1), img))
	fs := col.wait(t, 2)
	if err := depth.Stop(); err != nil {
		t.Fatal(err)
	}
	// Per stream, in the order they were opened: one frame delivered, one
	// lost on the wire.
	ss := d.Stats()
	if len(ss) != 2 || ss[0].Profile != ir2 || ss[1].Profile != ir1 {
		t.Fatalf("Stats() = %+v, want Infrared/2 then Infrared/1", ss)
	}
	for _, s := range ss {
		if s.Delivered != 1 || s.Dropped != 0 || s.Lost != 1 {
			t.Errorf("%s: delivered %d, dropped %d, lost %d; want 1, 0, 1", s.Profile.Name(), s.Delivered, s.Dropped, s.Lost)
		}
	}
	if err := d.Close(); err != nil {
		t.Fatal(err)
	}
	// Global time: the fake's clock read 1 s at creation, so device time
	// 2 s (the PTS) maps to about one second after creation.
	if dt := fs[0].TimestampMs - created; dt < 900 || dt > 1500 {
		t.Errorf("global timestamp %v ms after creation, want about 1000", dt)
	}
	for i, f := range fs {
		want := ir1
		if i == 1 {
			want = ir2
		}
		if f.Profile != want || f.Number != 7 || f.BPP != 8 || f.Stride != w || len(f.Data) != w*h || f.TimestampMs != fs[0].TimestampMs ||
			f.Domain != sensor.TimestampDomainGlobalTime {
			t.Fatalf("frame %d: %v number %d bpp %d stride %d len %d", i, f.Profile, f.Number, f.BPP, f.Stride, len(f.Data))
		}
		for j := 0; j < len(f.Data); j += 997 {
			if f.Data[j] != img[2*j+i] {
				t.Fatalf("frame %d byte %d = %d, want %d", i, j, f.Data[j], img[2*j+i])
			}
		}
	}
}

// Infrared/1 Y8 alone streams the plain GREY format (format 1).
func TestInfraredY8Alone(t *testing.T) {
	const w, h = 424, 240
	ops := append(probeOps(2, 0x0110, 1, 6, 333333, uint32(w*h)), stopOps(2, 0x83)...)
	d, fake, _ := openD435i(t, ops...)
	depth := byName(d, "Stereo Module")
	if err := depth.Open(findIR(depth, 1, sensor.FormatY8, w, h, 30)); err != nil {
		t.Fatal(err)
	}
	col := newCollector()
	if err := depth.Start(col); err != nil {
		t.Fatal(err)
	}
	fake.Stream(0x83).Send(usbtest.Payload(usbtest.EOF, 1, nil, image(w*h, 1)))
	fs := col.wait(t, 1)
	depth.Stop()
	if err := d.Close(); err != nil {
		t.Fatal(err)
	}
	if fs[0].Profile.Index != 1 || len(fs[0].Data) != w*h {
		t.Errorf("frame %v %d bytes", fs[0].Profile, len(fs[0].Data))
	}
}

// Y12I frames split into two Y16 images (12-bit values scaled as v<<6|v>>4).
func TestInfraredY12ISplit(t *testing.T) {
	const w, h = 1280, 800
	ops := append(probeOps(2, 0x0110, 3, 1, 400000, uint32(w*h*3)), stopOps(2, 0x83)...)
	d, fake, _ := openD435i(t, ops...)
	depth := byName(d, "Stereo Module")
	ir1, ir2 := findIR(depth, 1, sensor.FormatY16, w, h, 25), findIR(depth, 2, sensor.FormatY16, w, h, 25)
	if err := depth.Open(ir1, ir2); err != nil {
		t.Fatal(err)
	}
	col := newCollector()
	if err := depth.Start(col); err != nil {
		t.Fatal(err)
	}
	img := make([]byte, w*h*3)
	copy(img, []byte{0x34, 0x12, 0xAB}) // right 0x234, left 0xAB1
	fake.Stream(0x83).Send(usbtest.Payload(usbtest.EOF, 1, nil, img))
	fs := col.wait(t, 2)
	depth.Stop()
	if err := d.Close(); err != nil {
		t.Fatal(err)
	}
	l, r := binary.LittleEndian.Uint16(fs[0].Data), binary.LittleEndian.Uint16(fs[1].Data)
	if l != 0xACEB || r != 0x8D23 || fs[0].BPP != 16 || fs[0].Stride != 2*w || len(fs[1].Data) != 2*w*h {
		t.Errorf("left %#04x right %#04x bpp %d stride %d", l, r, fs[0].BPP, fs[0].Stride)
	}
}

func TestInfraredOpenConflicts(t *testing.T) {
	d, _, _ := openD435i(t)
	defer d.Close()
	depth := byName(d, "Stereo Module")
	a := findIR(depth, 1, sensor.FormatY8, 640, 480, 30)
	b := findIR(depth, 2, sensor.FormatY8, 424, 240, 30)
	c := findIR(depth, 2, sensor.FormatY16, 1280, 800, 25)
	for _, ps := range [][]*sensor.StreamProfile{{a, b}, {b, c}, {a, findIR(depth, 1, sensor.FormatY8, 424, 240, 30)}} {
		if err := depth.Open(ps...); err == nil {
			t.Errorf("Open(%v) accepted", ps)
			depth.Close()
		}
	}
	z := find(depth, sensor.StreamDepth, sensor.FormatZ16, 640, 480, 30)
	if err := depth.Open(z, a, findIR(depth, 2, sensor.FormatY8, 640, 480, 30)); err != nil {
		t.Errorf("depth + both infrared: %v", err)
	}
}
