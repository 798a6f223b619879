package usb_test

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/rsbag/rsbag/device"
	"github.com/rsbag/rsbag/extensions"
	"github.com/rsbag/rsbag/internal/testsupport/await"
	"github.com/rsbag/rsbag/internal/testsupport/leak"
	"github.com/rsbag/rsbag/internal/testsupport/usbtest"
	"github.com/rsbag/rsbag/internal/usbio"
	"github.com/rsbag/rsbag/internal/uvc"
	"github.com/rsbag/rsbag/sensor"
	"github.com/rsbag/rsbag/usb"
)

func mouse() *usbtest.Device {
	return usbtest.NewDevice(usbio.DeviceDesc{Bus: 1, Address: 2, Path: []int{3}, Vendor: 0x046D, Product: 0xC077, BCDUSB: 0x0200}, nil)
}

func otherIntel() *usbtest.Device {
	return usbtest.NewDevice(usbio.DeviceDesc{Bus: 1, Address: 4, Path: []int{4}, Vendor: usbio.IntelVID, Product: 0x0001, BCDUSB: 0x0200}, nil)
}

// d435i is the scripted D435i with the default firmware: ops follow the
// firmware commands Open issues.
func d435i(t testing.TB, ops ...usbtest.IO) *usbtest.Device {
	return usbtest.NewDevice(usbtest.D435iDesc(), loadD435i(t), append(usbtest.DefaultFirmware().OpenOps(true), ops...)...)
}

func TestEnumerate(t *testing.T) {
	cams, err := usb.Devices(usbio.WithTransport(context.Background(), usbtest.New(mouse(), d435i(t), otherIntel())))
	if err != nil {
		t.Fatal(err)
	}
	if len(cams) != 1 {
		t.Fatalf("got %d cameras, want 1", len(cams))
	}
	want := sensor.Info{
		sensor.CameraInfoName:              "Intel RealSense D435I",
		sensor.CameraInfoSerialNumber:      "012345678901",
		sensor.CameraInfoPhysicalPort:      "2-1",
		sensor.CameraInfoProductId:         "0B3A",
		sensor.CameraInfoProductLine:       "D400",
		sensor.CameraInfoUsbTypeDescriptor: "3.2",
		sensor.CameraInfoConnectionType:    "USB",
	}
	for k, v := range want {
		if got := cams[0].Info[k]; got != v {
			t.Errorf("%v = %q, want %q", k, got, v)
		}
	}
	var classes []uint8
	for _, in := range usb.CameraDesc(cams[0]).Interfaces {
		classes = append(classes, in.Alts[0].Class)
	}
	if want := []uint8{0x0E, 0x0E, 0x0E, 0x0E, 0x0E, 0x03, 0xFF}; string(classes) != string(want) {
		t.Errorf("interface classes % x, want % x", classes, want)
	}

	// Only non-RealSense devices: not found.
	if _, err := usb.Devices(usbio.WithTransport(context.Background(), usbtest.New(mouse(), otherIntel()))); !errors.Is(err, device.ErrNotFound) {
		t.Errorf("non-RealSense only: %v, want ErrNotFound", err)
	}
	if _, err := usb.Open(usbio.WithTransport(context.Background(), usbtest.New(mouse())), nil); !errors.Is(err, device.ErrNotFound) ||
		err.Error() != "no RealSense device found" {
		t.Errorf("Open: %v", err)
	}
}

func TestUSBTypeAndProducts(t *testing.T) {
	for pid, name := range map[uint16]string{0x0AD3: "Intel RealSense D415", 0x0B07: "Intel RealSense D435",
		0x0B3A: "Intel RealSense D435I", 0x0B5C: "Intel RealSense D455", 0x0B5B: "Intel RealSense D405"} {
		if got, ok := usb.ProductName(pid); !ok || got != name {
			t.Errorf("ProductName(%#04x) = %q", pid, got)
		}
	}
	if usb.IsD400(0x046D, 0x0B07) {
		t.Error("IsD400 accepts a foreign vendor")
	}
}

// openD435i opens the scripted D435i with a watchdog long enough never to
// fire in a scripted test, however slow the machine (-race, load).
func openD435i(t testing.TB, ops ...usbtest.IO) (*usb.Device, *usbtest.Device, *usbtest.Transport) {
	t.Helper()
	return openD435iWatchdog(t, time.Minute, ops...)
}

// openD435iWatchdog opens the scripted D435i with the given watchdog.
func openD435iWatchdog(t testing.TB, watchdog time.Duration, ops ...usbtest.IO) (*usb.Device, *usbtest.Device, *usbtest.Transport) {
	t.Helper()
	fake := d435i(t, ops...)
	tr := usbtest.New(fake)
	d, err := usb.Open(usbio.WithTransport(context.Background(), tr), &usb.Options{Watchdog: watchdog})
	if err != nil {
		t.Fatal(err)
	}
	return d, fake, tr
}

// The streaming tests' depth mode: Z16 424x240@30, format 1 frame 6 of
// VideoStreaming interface 1 (endpoint 0x82) in the D435i fixture.
const (
	depthW, depthH = 424, 240
	depthSize      = depthW * depthH * 2
)

// openDepth opens the scripted D435i with the given watchdog, expecting
// Start's probe/commit for the depth mode and then ops, and opens its
// Stereo Module on the depth mode.
func openDepth(t testing.TB, watchdog time.Duration, ops ...usbtest.IO) (*usb.Device, sensor.Sensor, *usbtest.Device, *usbtest.Transport) {
	t.Helper()
	d, fake, tr := openD435iWatchdog(t, watchdog, append(probeOps(1, 0x0110, 1, 6, 333333, depthSize), ops...)...)
	depth := byName(d, "Stereo Module")
	if err := depth.Open(find(depth, sensor.StreamDepth, sensor.FormatZ16, depthW, depthH, 30)); err != nil {
		t.Fatal(err)
	}
	return d, depth, fake, tr
}

func byName(d device.Device, name string) sensor.Sensor {
	for _, s := range d.Sensors() {
		if s.Info()[sensor.CameraInfoName] == name {
			return s
		}
	}
	return nil
}

func find(s sensor.Sensor, st sensor.Stream, f sensor.Format, w, h, fps int) *sensor.StreamProfile {
	for _, p := range s.Profiles() {
		if p.Stream == st && p.Format == f && p.Width == w && p.Height == h && p.FPS == fps {
			return p
		}
	}
	return nil
}

func TestProfiles(t *testing.T) {
	d, _, _ := openD435i(t)
	defer d.Close()
	if n := len(d.Sensors()); n != 3 {
		t.Fatalf("%d sensors, want 3", n)
	}
	count := func(s sensor.Sensor) map[sensor.Format]int {
		m := map[sensor.Format]int{}
		for _, p := range s.Profiles() {
			m[p.Format]++
		}
		return m
	}
	depth, color := byName(d, "Stereo Module"), byName(d, "RGB Camera")
	// Y8I and Y12I become Infrared/1 and /2 in Y8 and Y16; Infrared/1 Y8
	// from GREY and from Y8I is listed once.
	if got := count(depth); got[sensor.FormatZ16] != 28 || got[sensor.FormatY8] != 56 || got[sensor.FormatY16] != 4 || len(got) != 3 {
		t.Errorf("depth profiles %v", got)
	}
	// The YUYV modes also back RGB8, BGR8, RGBA8, BGRA8 and Y8 profiles
	// converted on the host, as librealsense's color sensor offers them.
	if got := count(color); len(got) != 6 || got[sensor.FormatYUYV] != 32 || got[sensor.FormatRGB8] != 32 || got[sensor.FormatBGR8] != 32 ||
		got[sensor.FormatRGBA8] != 32 || got[sensor.FormatBGRA8] != 32 || got[sensor.FormatY8] != 32 {
		t.Errorf("color profiles %v", got)
	}
	for _, c := range []struct {
		s       sensor.Sensor
		st      sensor.Stream
		f       sensor.Format
		w, h, r int
		def     bool
	}{
		{depth, sensor.StreamDepth, sensor.FormatZ16, 848, 480, 30, true},
		{depth, sensor.StreamDepth, sensor.FormatZ16, 848, 480, 90, false},
		{depth, sensor.StreamDepth, sensor.FormatZ16, 1280, 720, 6, false},
		{depth, sensor.StreamInfrared, sensor.FormatY8, 848, 480, 30, false},
		{depth, sensor.StreamInfrared, sensor.FormatY16, 1280, 800, 25, false},
		{color, sensor.StreamColor, sensor.FormatYUYV, 1280, 720, 30, false},
		{color, sensor.StreamColor, sensor.FormatRGB8, 1280, 720, 30, true},
		{color, sensor.StreamColor, sensor.FormatYUYV, 1920, 1080, 30, false},
	} {
		p := find(c.s, c.st, c.f, c.w, c.h, c.r)
		if p == nil {
			t.Errorf("missing %v %v %dx%d@%d", c.st, c.f, c.w, c.h, c.r)
			continue
		}
		if p.Default != c.def {
			t.Errorf("%v Default = %v", p, p.Default)
		}
	}
	if find(color, sensor.StreamColor, sensor.FormatYUYV, 1920, 1080, 60) != nil {
		t.Error("1920x1080@60 advertised")
	}
	motion := byName(d, "Motion Module")
	if motion == nil || len(motion.Profiles()) != 4 {
		t.Fatalf("motion sensor %v", motion)
	}
	if k := depth.(extensions.Kinded).Kinds(); len(k) == 0 || k[0] != extensions.KindDepthSensor {
		t.Errorf("depth kinds %v", k)
	}
}

func TestParseUVCControls(t *testing.T) {
	vcs, err := usb.ParseUVC(loadD435i(t))
	if err != nil {
		t.Fatal(err)
	}
	if len(vcs) != 2 || vcs[0].UVCVersion != 0x0110 || len(vcs[0].Streams) != 2 || vcs[0].Streams[0].Endpoint != 0x82 {
		t.Fatalf("vcs %+v", vcs)
	}
	xu, ok := vcs[0].Unit(6, &uvc.DepthXU)
	if !ok || xu.ID != 3 {
		t.Fatalf("depth XU %+v %v", xu, ok)
	}
	if got := uvc.DepthXU.String(); got != "C9606CCB-594C-4D25-AF47-CCC496435995" {
		t.Errorf("GUID %s", got)
	}
	// Corrupt lengths are errors, never panics.
	raw := loadD435i(t)
	for i := 9; i < len(raw); i += 7 {
		bad := append([]byte(nil), raw...)
		bad[i] = 0xFF
		usb.ParseUVC(bad)
		usb.ParseUVC(bad[:i])
	}
}

// probeOps is the probe/commit sequence for Start on interface intf.
func probeOps(intf int, bcd uint16, format, frame uint8, interval uint32, maxFrame uint32) []usbtest.IO {
	n := usb.ProbeControlSize(bcd)
	want := uvc.Probe{Hint: 1, FormatIndex: format, FrameIndex: frame, FrameInterval: interval}.Marshal(n)
	reply := uvc.Probe{Hint: 1, FormatIndex: format, FrameIndex: frame, FrameInterval: interval, MaxVideoFrameSize: maxFrame,
		MaxPayloadSize: maxFrame + 512, ClockFrequency: 15000000}.Marshal(n)
	idx := uint16(intf)
	return []usbtest.IO{
		{Op: usbtest.OpSetInterface, Setup: usbio.Setup{Index: idx}},
		{Op: usbtest.OpControl, Setup: usbio.Setup{RequestType: 0xA1, Request: 0x83, Value: 0x0100, Index: idx}, R: reply},
		{Op: usbtest.OpControl, Setup: usbio.Setup{RequestType: 0x21, Request: 0x01, Value: 0x0100, Index: idx}, W: want},
		{Op: usbtest.OpControl, Setup: usbio.Setup{RequestType: 0xA1, Request: 0x81, Value: 0x0100, Index: idx}, R: reply},
		{Op: usbtest.OpControl, Setup: usbio.Setup{RequestType: 0x21, Request: 0x01, Value: 0x0200, Index: idx}, W: reply},
	}
}

func stopOps(intf int, ep uint8) []usbtest.IO {
	return []usbtest.IO{{Op: usbtest.OpClearHalt, EP: ep}, {Op: usbtest.OpRelease, Setup: usbio.Setup{Index: uint16(intf)}}}
}

func TestProbeControlSizes(t *testing.T) {
	for bcd, n := range map[uint16]int{0x0100: 26, 0x0110: 34, 0x0150: 48} {
		if got := usb.ProbeControlSize(bcd); got != n {
			t.Errorf("ProbeControlSize(%#04x) = %d, want %d", bcd, got, n)
		}
	}
	b := uvc.Probe{Hint: 1, FormatIndex: 1, FrameIndex: 2, FrameInterval: 333333}.Marshal(34)
	want := []byte{0x01, 0x00, 0x01, 0x02, 0x15, 0x16, 0x05, 0x00}
	if string(b[:8]) != string(want) || len(b) != 34 {
		t.Errorf("probe bytes % x", b)
	}
}

// collector gathers frames.
type collector struct {
	mu sync.Mutex
	fs []*sensor.Frame
	ch chan struct{}
}

func newCollector() *collector { return &collector{ch: make(chan struct{}, 1024)} }

func (c *collector) HandleFrame(f *sensor.Frame) {
	c.mu.Lock()
	c.fs = append(c.fs, f)
	c.mu.Unlock()
	c.ch <- struct{}{}
}

func (c *collector) wait(t testing.TB, n int) []*sensor.Frame {
	t.Helper()
	for {
		c.mu.Lock()
		got := len(c.fs)
		c.mu.Unlock()
		if got >= n {
			break
		}
		await.Recv(t, fmt.Sprintf("frame %d (of %d)", got+1, n), c.ch)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]*sensor.Frame(nil), c.fs...)
}

func image(n int, seed byte) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = seed + byte(i)
	}
	return b
}

func TestStreamPayloads(t *testing.T) {
	const w, h, size = depthW, depthH, depthSize
	d, depth, fake, _ := openDepth(t, time.Minute, stopOps(1, 0x82)...)
	// Hardware-clock timestamps as the device sends them.
	if err := depth.(extensions.Options).SetOption(sensor.OptionGlobalTimeEnabled, 0); err != nil {
		t.Fatal(err)
	}
	col := newCollector()
	if err := depth.Start(col); err != nil {
		t.Fatal(err)
	}
	s := fake.Stream(0x82)
	img := image(size, 1)
	meta := append(usbtest.CaptureTiming(41, 5000, 8000),
		usbtest.Block(usbtest.MDDepthControl, 1<<0|1<<1|1<<2|1<<7, 16, 8000, 150, 1, 0, 0, 0, 0, 0, 0, 1, 0)...)
	// 1: one payload, FID 0, EOF, metadata.
	s.Send(usbtest.Payload(usbtest.EOF, 1000000, meta, img))
	// 2: two payloads, FID 1, ended by EOF.
	s.Send(usbtest.Payload(usbtest.FID, 1033333, nil, img[:size/2]))
	s.Send(usbtest.Payload(usbtest.FID|usbtest.EOF, 1033333, nil, img[size/2:]))
	// dropped: error bit.
	s.Send(usbtest.Payload(usbtest.ERR|usbtest.EOF, 1066666, nil, img))
	// dropped: truncated (short), ended by the FID toggle of the next frame.
	s.Send(usbtest.Payload(usbtest.FID, 1100000, nil, img[:size-10]))
	// 3: no EOF, ended by the FID toggle.
	s.Send(usbtest.Payload(0, 1133333, nil, img))
	// dropped: oversized.
	s.Send(usbtest.Payload(usbtest.FID, 1166666, nil, img))
	s.Send(usbtest.Payload(usbtest.FID|usbtest.EOF, 1166666, nil, img[:100]))
	// dropped: bad header.
	s.Send([]byte{0x40, 0x00})
	// 4: completes frame 3's successor.
	s.Send(usbtest.Payload(usbtest.EOF, 1200000, usbtest.CaptureTiming(45, 6000, 8000), img))
	fs := col.wait(t, 4)
	if err := depth.Stop(); err != nil {
		t.Fatal(err)
	}
	if err := d.Close(); err != nil {
		t.Fatal(err)
	}
	if len(fs) != 4 {
		t.Fatalf("%d frames, want 4", len(fs))
	}
	f := fs[0]
	if f.TimestampMs != 1000 || f.Domain != sensor.TimestampDomainHardwareClock || f.Number != 41 {
		t.Errorf("frame 1: ts %v %v number %d", f.TimestampMs, f.Domain, f.Number)
	}
	for k, v := range map[sensor.MetadataKey]int64{sensor.MetadataKeyFrameCounter: 41, sensor.MetadataKeySensorTimestamp: 5000,
		sensor.MetadataKeyGainLevel: 16, sensor.MetadataKeyActualExposure: 8000, sensor.MetadataKeyFrameLaserPower: 150,
		sensor.MetadataKeyFrameEmitterMode: 1, sensor.MetadataKeyFrameLaserPowerMode: 1, sensor.MetadataKeyFrameTimestamp: 1000000} {
		if got, ok := f.Metadata.Get(k); !ok || got != v {
			t.Errorf("metadata %v = %d %v, want %d", k, got, ok, v)
		}
	}
	if _, ok := f.Metadata.Get(sensor.MetadataKeyAutoExposure); ok {
		t.Error("auto exposure set although its flag is clear")
	}
	if fs[1].Domain != sensor.TimestampDomainSystemTime || fs[2].Domain != sensor.TimestampDomainSystemTime || fs[3].Number != 45 {
		t.Errorf("frames 2-4: %v %v %d", fs[1].Domain, fs[2].Domain, fs[3].Number)
	}
	for i, f := range fs {
		if string(f.Data) != string(img) || f.Width != w || f.Stride != 2*w || f.BPP != 16 || f.DepthUnits != 0.001 {
			t.Errorf("frame %d: %d bytes stride %d", i, len(f.Data), f.Stride)
		}
	}
	st := depth.(interface{ Stats() usb.Stats }).Stats()
	if st.Frames != 4 || st.ErrorFrames != 1 || st.ShortFrames != 1 || st.OversizedFrames != 1 || st.BadPayloads != 1 {
		t.Errorf("stats %+v", st)
	}
	// Per stream: the 4 frames delivered, the error, short and oversized
	// ones lost on the wire (a bad header is no frame).
	checkStreamStats(t, d, sensor.StreamDepth, 4, 0, 3)
	if err := fake.Err(); err != nil {
		t.Error(err)
	}
}

// TestWatchdogAndUnplug runs in a synctest bubble: the watchdog's silence,
// the waits and the goroutine count are on its clock.
func TestWatchdogAndUnplug(t *testing.T) { synctest.Test(t, watchdogAndUnplug) }

func watchdogAndUnplug(t *testing.T) {
	base := leak.Count()
	d, depth, fake, tr := openDepth(t, 100*time.Millisecond, usbtest.IO{Op: usbtest.OpClearHalt, EP: 0x82})
	var nmu sync.Mutex
	var notes []sensor.Notification
	depth.(extensions.Notifier).OnNotification(func(n sensor.Notification) {
		nmu.Lock()
		notes = append(notes, n)
		nmu.Unlock()
	})
	col := newCollector()
	if err := depth.Start(col); err != nil {
		t.Fatal(err)
	}
	s := fake.Stream(0x82)
	img := image(depthSize, 7)
	s.Send(usbtest.Payload(usbtest.EOF, 1, nil, img))
	col.wait(t, 1)
	// Silence: the watchdog resets the endpoint (the clear-halt op), then
	// frames flow again.
	deadline := time.Now().Add(5 * time.Second)
	for fake.Remaining() > 0 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	s.Send(usbtest.Payload(usbtest.FID|usbtest.EOF, 2, nil, img))
	col.wait(t, 2)
	if st := depth.(interface{ Stats() usb.Stats }).Stats(); st.Resets < 1 {
		t.Errorf("resets %d", st.Resets)
	}
	// Unplug mid-stream.
	fake.Unplug()
	deadline = time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) {
		nmu.Lock()
		n := len(notes)
		last := sensor.Notification{}
		if n > 0 {
			last = notes[n-1]
		}
		nmu.Unlock()
		if last.Category == sensor.NotificationCategoryHardwareError {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	err := depth.Stop()
	if !errors.Is(err, device.ErrDisconnected) {
		t.Errorf("Stop after unplug: %v", err)
	}
	nmu.Lock()
	if len(notes) == 0 || notes[len(notes)-1].Category != sensor.NotificationCategoryHardwareError {
		t.Errorf("notifications %+v", notes)
	}
	if notes[0].Category != sensor.NotificationCategoryFramesTimeout {
		t.Errorf("first notification %+v", notes[0])
	}
	nmu.Unlock()
	d.Close()
	if tr.OpenHandles() != 0 {
		t.Error("handle left open")
	}
	leak.Check(t, base)
}

func ctl(rt, req uint8, sel uint8, unit, intf int, w, r []byte) usbtest.IO {
	return usbtest.IO{Op: usbtest.OpControl, Setup: usbio.Setup{RequestType: rt, Request: req, Value: uint16(sel) << 8,
		Index: uint16(unit)<<8 | uint16(intf)}, W: w, R: r}
}

func u16(v uint16) []byte { return binary.LittleEndian.AppendUint16(nil, v) }

func TestOptions(t *testing.T) {
	// Laser power: XU unit 3 selector 4 on VC interface 0, 2 bytes.
	ops := []usbtest.IO{
		ctl(0xA1, 0x81, 4, 3, 0, nil, u16(150)),
		ctl(0xA1, 0x82, 4, 3, 0, nil, u16(0)),
		ctl(0xA1, 0x83, 4, 3, 0, nil, u16(360)),
		ctl(0xA1, 0x84, 4, 3, 0, nil, u16(30)),
		ctl(0xA1, 0x87, 4, 3, 0, nil, u16(150)),
		ctl(0x21, 0x01, 4, 3, 0, u16(240), nil),
		// Brightness: PU unit 2 selector 2 on VC interface 3, signed.
		ctl(0xA1, 0x81, 2, 2, 3, nil, u16(uint16(0xFFF6))),
	}
	d, fake, _ := openD435i(t, ops...)
	defer d.Close()
	depth := byName(d, "Stereo Module").(extensions.Options)
	got := depth.SupportedOptions()
	want := []sensor.Option{sensor.OptionExposure, sensor.OptionGain, sensor.OptionEnableAutoExposure, sensor.OptionLaserPower,
		sensor.OptionEmitterEnabled, sensor.OptionDepthUnits, sensor.OptionStereoBaseline, sensor.OptionGlobalTimeEnabled}
	if len(got) != len(want) {
		t.Fatalf("options %v", got)
	}
	if v, err := depth.Option(sensor.OptionLaserPower); err != nil || v != 150 {
		t.Fatalf("laser power %v %v", v, err)
	}
	r, err := depth.OptionRange(sensor.OptionLaserPower)
	if err != nil || r != (extensions.Range{Min: 0, Max: 360, Step: 30, Default: 150}) {
		t.Fatalf("range %+v %v", r, err)
	}
	var changes []extensions.OptionChange
	cancel := depth.OnOptionChange(func(c extensions.OptionChange) { changes = append(changes, c) })
	if err := depth.SetOption(sensor.OptionLaserPower, 400); !errors.Is(err, extensions.ErrOutOfRange) {
		t.Errorf("set 400: %v", err)
	}
	if err := depth.SetOption(sensor.OptionLaserPower, 240); err != nil {
		t.Fatal(err)
	}
	cancel()
	if len(changes) != 1 || changes[0].Value != 240 {
		t.Errorf("changes %v", changes)
	}
	if _, err := depth.Option(sensor.OptionHue); !errors.Is(err, extensions.ErrUnsupportedOption) {
		t.Errorf("hue: %v", err)
	}
	color := byName(d, "RGB Camera").(extensions.Options)
	if v, err := color.Option(sensor.OptionBrightness); err != nil || v != -10 {
		t.Errorf("brightness %v %v", v, err)
	}
	if err := fake.Err(); err != nil {
		t.Error(err)
	}
}

func feature(id, power uint8, report uint16) []byte {
	b := []byte{id, 0, 0, power, 0, 0, 0, 0, 0}
	binary.LittleEndian.PutUint16(b[5:], report)
	return b
}

func hidPowerOps(intf int, id, power uint8, fps int, before []byte) []usbtest.IO {
	val := uint16(3)<<8 | uint16(id)
	after := append([]byte(nil), before...)
	after[3] = power
	if fps > 0 {
		binary.LittleEndian.PutUint16(after[5:], uint16(1000/fps))
	}
	return []usbtest.IO{
		{Op: usbtest.OpControl, Setup: usbio.Setup{RequestType: 0xA1, Request: 0x01, Value: val, Index: uint16(intf)}, R: before},
		{Op: usbtest.OpControl, Setup: usbio.Setup{RequestType: 0x21, Request: 0x09, Value: val, Index: uint16(intf)}, W: after},
		{Op: usbtest.OpControl, Setup: usbio.Setup{RequestType: 0xA1, Request: 0x01, Value: val, Index: uint16(intf)}, R: after},
	}
}

func TestHIDMotion(t *testing.T) {
	var ops []usbtest.IO
	ops = append(ops, usbtest.IO{Op: usbtest.OpSetInterface, Setup: usbio.Setup{Index: 5}})
	ops = append(ops, hidPowerOps(5, 1, 2, 250, feature(1, 6, 16))...)
	ops = append(ops, hidPowerOps(5, 2, 2, 400, feature(2, 6, 5))...)
	ops = append(ops, hidPowerOps(5, 1, 6, 0, feature(1, 2, 4))...)
	ops = append(ops, hidPowerOps(5, 2, 6, 0, feature(2, 2, 2))...)
	ops = append(ops, usbtest.IO{Op: usbtest.OpRelease, Setup: usbio.Setup{Index: 5}})
	d, fake, _ := openD435i(t, ops...)
	m := byName(d, "Motion Module")
	var accel, gyro *sensor.StreamProfile
	for _, p := range m.Profiles() {
		if p.Stream == sensor.StreamAccel && p.FPS == 250 {
			accel = p
		}
		if p.Stream == sensor.StreamGyro && p.FPS == 400 {
			gyro = p
		}
	}
	if err := m.Open(accel, gyro); err != nil {
		t.Fatal(err)
	}
	col := newCollector()
	if err := m.Start(col); err != nil {
		t.Fatal(err)
	}
	s := fake.Stream(0x85)
	s.Send(usbtest.HIDReport(1, 1_000_000, 0, 0, 1000)) // 1 g on z
	s.Send(usbtest.HIDReport(2, 1_002_500, 900, 0, -900))
	s.Send(usbtest.HIDReport(3, 1_003_000, 1, 2, 3)) // custom report: ignored
	col.wait(t, 2)
	// Without motion correction the samples are only rotated into the
	// depth frame (x and z negated).
	mo := m.(extensions.Options)
	if v, err := mo.Option(sensor.OptionEnableMotionCorrection); err != nil || v != 1 {
		t.Errorf("Enable Motion Correction %v %v", v, err)
	}
	if err := mo.SetOption(sensor.OptionEnableMotionCorrection, 0); err != nil {
		t.Fatal(err)
	}
	s.Send(usbtest.HIDReport(1, 1_004_000, 0, 0, 1000))
	fs := col.wait(t, 3)
	if err := m.Stop(); err != nil {
		t.Fatal(err)
	}
	if err := d.Close(); err != nil {
		t.Fatal(err)
	}
	// Corrected with the fixture's calibration (usbtest.DefaultIMUTable):
	// sensitivity × aligned sample - bias, the gyro bias in rad/s.
	a, g, raw := fs[0], fs[1], fs[2]
	g1 := float32(9.80665)
	if a.Profile != accel || !near(a.Motion[0], -0.12) || !near(a.Motion[1], 0.05) || !near(a.Motion[2], -1.0043*g1-0.31) ||
		a.TimestampMs != 1000 || a.Domain != sensor.TimestampDomainHardwareClock {
		t.Errorf("accel %+v", a.Motion)
	}
	d2r := float32(math.Pi / 180)
	if g.Profile != gyro || !near(g.Motion[0], -math.Pi/2-0.1*d2r) || !near(g.Motion[1], 0.2*d2r) || !near(g.Motion[2], math.Pi/2-0.05*d2r) || len(g.Data) != 12 {
		t.Errorf("gyro %+v", g.Motion)
	}
	if raw.Motion != [3]float32{0, 0, -g1} {
		t.Errorf("uncorrected accel %+v", raw.Motion)
	}
	if len(fs) != 3 {
		t.Errorf("%d frames", len(fs))
	}
	if err := fake.Err(); err != nil {
		t.Error(err)
	}
}

func TestOptionChangeCallbacks(t *testing.T) {
	d, fake, _ := openD435i(t)
	defer d.Close()
	depth := byName(d, "Stereo Module").(extensions.Options)
	var got []string
	cancel1 := depth.OnOptionChange(func(c extensions.OptionChange) { got = append(got, fmt.Sprint("1:", c.Value)) })
	depth.OnOptionChange(func(c extensions.OptionChange) { got = append(got, fmt.Sprint("2:", c.Value)) })
	if err := depth.SetOption(sensor.OptionGlobalTimeEnabled, 0); err != nil {
		t.Fatal(err)
	}
	cancel1()
	cancel1()
	if err := depth.SetOption(sensor.OptionGlobalTimeEnabled, 1); err != nil {
		t.Fatal(err)
	}
	if want := []string{"1:0", "2:0", "2:1"}; fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("callbacks ran %v, want %v", got, want)
	}
	if err := fake.Err(); err != nil {
		t.Error(err)
	}
}

// The options the driver serves itself: read-only values read at open and
// Global Time Enabled. Depth Units, writable with advanced mode, is covered
// by TestDepthUnitsSet and TestDepthUnitsReadOnly.
func TestLocalOptions(t *testing.T) {
	d, fake, _ := openD435i(t)
	defer d.Close()
	s := byName(d, "Stereo Module")
	depth := s.(extensions.Options)
	units := s.(extensions.DepthSensor).DepthUnits()
	baseline := s.(extensions.DepthStereoSensor).StereoBaselineMM()
	for _, c := range []struct {
		opt      sensor.Option
		value    float32
		rng      extensions.Range
		desc     string
		readOnly bool
	}{
		{sensor.OptionStereoBaseline, baseline, extensions.Range{Min: baseline, Max: baseline, Default: baseline},
			"Distance in mm between the stereo imagers", true},
		{sensor.OptionGlobalTimeEnabled, 1, extensions.Range{Min: 0, Max: 1, Step: 1, Default: 1},
			"Enable/Disable global timestamp", false},
	} {
		if v, err := depth.Option(c.opt); err != nil || v != c.value {
			t.Errorf("%v = %v %v, want %v", c.opt, v, err, c.value)
		}
		if r, err := depth.OptionRange(c.opt); err != nil || r != c.rng {
			t.Errorf("%v range %+v %v, want %+v", c.opt, r, err, c.rng)
		}
		if got := depth.OptionDescription(c.opt); got != c.desc {
			t.Errorf("%v description %q", c.opt, got)
		}
		if got := depth.OptionReadOnly(c.opt); got != c.readOnly {
			t.Errorf("%v read-only %v", c.opt, got)
		}
		if c.readOnly {
			err := depth.SetOption(c.opt, c.value)
			if want := fmt.Sprintf("usb Stereo Module: option %v: %v", c.opt, extensions.ErrReadOnly); !errors.Is(err, extensions.ErrReadOnly) || err.Error() != want {
				t.Errorf("set %v: %v, want %s", c.opt, err, want)
			}
		}
	}
	if units <= 0 || baseline <= 0 {
		t.Errorf("depth units %v, baseline %v", units, baseline)
	}
	err := depth.SetOption(sensor.OptionGlobalTimeEnabled, 0.5)
	if want := "usb Stereo Module: option Global Time Enabled: 0.5 not in [0, 1]: " + extensions.ErrOutOfRange.Error(); !errors.Is(err, extensions.ErrOutOfRange) || err.Error() != want {
		t.Errorf("set 0.5: %v, want %s", err, want)
	}
	for _, v := range []float32{0, 1, 0} {
		if err := depth.SetOption(sensor.OptionGlobalTimeEnabled, v); err != nil {
			t.Fatal(err)
		}
		if got, err := depth.Option(sensor.OptionGlobalTimeEnabled); err != nil || got != v {
			t.Errorf("after set %v: %v %v", v, got, err)
		}
	}
	color := byName(d, "RGB Camera").(extensions.Options)
	if _, err := color.Option(sensor.OptionDepthUnits); !errors.Is(err, extensions.ErrUnsupportedOption) {
		t.Errorf("color depth units: %v", err)
	}
	if v, err := color.Option(sensor.OptionGlobalTimeEnabled); err != nil || v != 1 {
		t.Errorf("color global time %v %v", v, err)
	}
	if err := fake.Err(); err != nil {
		t.Error(err)
	}
}
