package usb_test

import (
	"context"
	"encoding/binary"
	"errors"
	"math"
	"testing"

	"github.com/rsbag/rsbag/device"
	"github.com/rsbag/rsbag/extensions"
	"github.com/rsbag/rsbag/internal/testsupport/usbtest"
	"github.com/rsbag/rsbag/internal/usbio"
	"github.com/rsbag/rsbag/sensor"
	"github.com/rsbag/rsbag/usb"
)

func TestHWMCommandBytes(t *testing.T) {
	b, err := usb.HWMCommand(0x15, 25, 0, 0, 0, nil)
	if err != nil {
		t.Fatal(err)
	}
	// length 20 (24 - 4), magic CDAB little-endian, opcode, param1 25.
	want := []byte{0x14, 0x00, 0xAB, 0xCD, 0x15, 0, 0, 0, 25, 0, 0, 0}
	if len(b) != 1024 || string(b[:12]) != string(want) {
		t.Errorf("command % x (len %d)", b[:12], len(b))
	}
	b, err = usb.HWMCommand(0x2B, 9, 0, 0, 0, []byte{1, 2, 3})
	if err != nil || binary.LittleEndian.Uint16(b) != 23 || string(b[24:27]) != "\x01\x02\x03" {
		t.Errorf("with data: % x %v", b[:28], err)
	}
	if _, err := usb.HWMCommand(0x2B, 0, 0, 0, 0, make([]byte, 1001)); err == nil {
		t.Error("oversized command accepted")
	}

	d, err := usb.ParseHWMReply(0x10, usbtest.HWMReply(0x10, []byte{7, 8}))
	if err != nil || string(d) != "\x07\x08" {
		t.Errorf("reply %v %v", d, err)
	}
	var he *usb.HWMError
	if _, err := usb.ParseHWMReply(0x10, usbtest.HWMFailure(-7)); !errors.As(err, &he) || he.Code != -7 {
		t.Errorf("failure: %v", err)
	}
	bad := usbtest.HWMReply(0x10, nil)
	binary.LittleEndian.PutUint32(bad[1020:], 2000)
	if _, err := usb.ParseHWMReply(0x10, bad); err == nil {
		t.Error("oversized data length accepted")
	}
	if _, err := usb.ParseHWMReply(0x10, bad[:100]); err == nil {
		t.Error("short reply accepted")
	}
}

func TestParseCalibrationTables(t *testing.T) {
	fw := usbtest.DefaultFirmware()
	g, err := usb.ParseGVD(fw.GVD())
	if err != nil || g.FirmwareStr != "5.16.0.1" || g.Serial != "012345678901" || g.ASICSerial != "033142536475" || g.Locked {
		t.Fatalf("GVD %+v %v", g, err)
	}
	if _, err := usb.ParseGVD(make([]byte, 69)); err == nil {
		t.Error("short GVD accepted")
	}
	ct, err := usb.ParseCoefficientsTable(fw.CoefficientsTable())
	if err != nil || ct.BaselineMM != -50 || ct.Rect[1] != fw.Rect[1] {
		t.Fatalf("coefficients %+v %v", ct, err)
	}
	for _, c := range []struct {
		w, h             int
		fx, fy, ppx, ppy float32
	}{
		{1280, 720, 643, 643, 640.5, 359.75},
		{640, 480, 428.66666, 428.66666, 320.5, 239.75},
		{848, 100, 428.66666, 428.66666, 424.5, 239.75 - 190},
		{576, 576, 864, 864, 288, 288},                                                                      // zero (DS5U) slot: ideal values
		{1024, 576, 1929 * 0.5 * 1024 / 1920, 964.5 * 576 / 1080, 960.5 * 1024 / 1920, 539.75 * 576 / 1080}, // scaled from 1920x1080
		{256, 144, 964.5, 964.5, 960.5 - 832, 539.75 - 468},
	} {
		in := ct.Intrinsics(c.w, c.h)
		if in.Width != c.w || in.Height != c.h || !near(in.FX, c.fx) || !near(in.FY, c.fy) || !near(in.PPX, c.ppx) || !near(in.PPY, c.ppy) ||
			in.Model != sensor.DistortionBrownConrady || in.Coeffs != [5]float32{} {
			t.Errorf("%dx%d: %+v", c.w, c.h, in)
		}
	}
	rgb, err := usb.ParseRGBCalibration(fw.RGBTable())
	if err != nil || rgb.CalibWidth != 1920 || rgb.CalibHeight != 1080 || rgb.Distortion != fw.ColorCoeffs {
		t.Fatalf("rgb %+v %v", rgb, err)
	}
	for _, c := range []struct {
		w, h             int
		fx, fy, ppx, ppy float32
	}{
		{1920, 1080, 1380, 1380, 961, 541.5},
		{1280, 720, 920, 920, 640.66666, 361},
		{640, 480, 613.3333, 613.3333, 320.4444, 240.66666}, // 4:3: x stretched by (3/4)/(9/16)
	} {
		in := rgb.Intrinsics(c.w, c.h)
		if !near(in.FX, c.fx) || !near(in.FY, c.fy) || !near(in.PPX, c.ppx) || !near(in.PPY, c.ppy) ||
			in.Model != sensor.DistortionInverseBrownConrady || in.Coeffs != fw.ColorCoeffs {
			t.Errorf("color %dx%d: %+v", c.w, c.h, in)
		}
	}
	// Corruption: CRC, short, size beyond the reply.
	b := fw.CoefficientsTable()
	b[100] ^= 1
	if _, err := usb.ParseCoefficientsTable(b); err == nil {
		t.Error("bad CRC accepted")
	}
	if _, err := usb.ParseRGBCalibration(fw.RGBTable()[:200]); err == nil {
		t.Error("truncated RGB table accepted")
	}
	items := usb.ParseRectItems(append(fw.RecParams(), 1, 2, 3))
	if len(items) != 2 || items[0].Width != 1280 || items[0].FX != 643.5 {
		t.Errorf("rect items %+v", items)
	}
}

func near(a, b float32) bool { return math.Abs(float64(a-b)) < 1e-3 }

func openFW(t *testing.T, fw usbtest.Firmware, ops ...usbtest.IO) (*usb.Device, *usbtest.Device) {
	t.Helper()
	fake := usbtest.NewDevice(usbtest.D435iDesc(), loadD435i(t), append(fw.OpenOps(true), ops...)...)
	d, err := usb.Open(usbio.WithTransport(context.Background(), usbtest.New(fake)), nil)
	if err != nil {
		t.Fatal(err)
	}
	return d, fake
}

func TestFirmwareInfoAndCalibration(t *testing.T) {
	d, fake := openFW(t, usbtest.DefaultFirmware())
	defer d.Close()
	if err := d.CalibrationError(); err != nil {
		t.Fatal(err)
	}
	for k, v := range map[sensor.CameraInfo]string{
		sensor.CameraInfoFirmwareVersion: "5.16.0.1", sensor.CameraInfoSerialNumber: "012345678901",
		sensor.CameraInfoAsicSerialNumber: "033142536475", sensor.CameraInfoFirmwareUpdateId: "033142536475",
		sensor.CameraInfoRecommendedFirmwareVersion: "5.17.0.10", sensor.CameraInfoAdvancedMode: "YES",
		sensor.CameraInfoCameraLocked: "NO", sensor.CameraInfoDebugOpCode: "15", sensor.CameraInfoProductId: "0B3A",
	} {
		if got := d.Info()[k]; got != v {
			t.Errorf("%v = %q, want %q", k, got, v)
		}
	}
	depth, color := byName(d, "Stereo Module"), byName(d, "RGB Camera")
	ds := depth.(extensions.DepthStereoSensor)
	if ds.DepthUnits() != 0.001 || ds.StereoBaselineMM() != 50 {
		t.Errorf("units %v baseline %v", ds.DepthUnits(), ds.StereoBaselineMM())
	}
	opts := depth.(extensions.Options)
	// Advanced mode: Depth Units is writable (see TestDepthUnitsSet).
	if v, err := opts.Option(sensor.OptionDepthUnits); err != nil || v != 0.001 || opts.OptionReadOnly(sensor.OptionDepthUnits) {
		t.Errorf("depth units option %v %v", v, err)
	}
	z720 := find(depth, sensor.StreamDepth, sensor.FormatZ16, 1280, 720, 30)
	z480 := find(depth, sensor.StreamDepth, sensor.FormatZ16, 640, 480, 30)
	ir := find(depth, sensor.StreamInfrared, sensor.FormatY8, 848, 480, 30)
	c720 := find(color, sensor.StreamColor, sensor.FormatYUYV, 1280, 720, 30)
	// RECPARAMSGET wins where it has the resolution (fx 643.5), the
	// coefficients table elsewhere.
	if in := z720.Intrinsics; in.FX != 643.5 || in.PPX != 640.5 || in.Model != sensor.DistortionBrownConrady {
		t.Errorf("depth 1280x720 %+v", in)
	}
	if in := z480.Intrinsics; !near(in.FX, 428.66666) || in.PPX != 320.5 {
		t.Errorf("depth 640x480 %+v", in)
	}
	if in := ir.Intrinsics; !near(in.FX, 429.16666) || in.Width != 848 {
		t.Errorf("infrared 848x480 %+v", in)
	}
	if in := c720.Intrinsics; !near(in.FX, 920) || !near(in.PPY, 361) || in.Model != sensor.DistortionInverseBrownConrady {
		t.Errorf("color 1280x720 %+v", in)
	}
	for _, p := range depth.Profiles() {
		if p.Format == sensor.FormatY16 && p.Intrinsics.FX != 0 {
			t.Errorf("%v has intrinsics %+v (Y16 is unrectified)", p, p.Intrinsics)
		}
	}

	// Extrinsics.
	ir1 := &sensor.StreamProfile{Stream: sensor.StreamInfrared, Index: 1}
	ir2 := &sensor.StreamProfile{Stream: sensor.StreamInfrared, Index: 2}
	id := sensor.IdentityExtrinsics()
	if e, err := d.Extrinsics(z720, ir1); err != nil || e != id {
		t.Errorf("depth→ir1 %v %v", e, err)
	}
	if e, err := d.Extrinsics(z720, ir2); err != nil || e.Translation != [3]float32{-0.05, 0, 0} || e.Rotation != id.Rotation {
		t.Errorf("depth→ir2 %v %v", e, err)
	}
	cd, err := d.Extrinsics(c720, z720)
	fw := usbtest.DefaultFirmware()
	if err != nil || cd.Rotation != fw.ColorRotation || !near(cd.Translation[0], -0.0147) || !near(cd.Translation[2], -0.00045) ||
		cd.Translation[1] != float32(fw.ColorTransMM[1]*-0.001) {
		t.Errorf("color→depth %v %v", cd, err)
	}
	dc, err := d.Extrinsics(z480, c720)
	if err != nil || dc != cd.Inverse() {
		t.Errorf("depth→color %v %v", dc, err)
	}
	if rt := dc.Compose(cd); !near(rt.Translation[0], 0) || !near(rt.Rotation[0], 1) {
		t.Errorf("round trip %v", rt)
	}
	ci, err := d.Extrinsics(c720, ir2)
	if err != nil || !near(ci.Translation[0], -0.0147-0.05) {
		t.Errorf("color→ir2 %v %v", ci, err)
	}
	// Depth→IMU: the D435i's CAD translation (the fixture's table marks its
	// extrinsics invalid), shared by accel and gyro.
	accel := &sensor.StreamProfile{Stream: sensor.StreamAccel}
	gyro := &sensor.StreamProfile{Stream: sensor.StreamGyro}
	cad := sensor.Extrinsics{Rotation: id.Rotation, Translation: [3]float32{-0.00552, 0.0051, 0.01174}}
	if e, err := d.Extrinsics(z720, accel); err != nil || e != cad {
		t.Errorf("depth→accel %v %v", e, err)
	}
	if e, err := d.Extrinsics(z720, gyro); err != nil || e != cad {
		t.Errorf("depth→gyro %v %v", e, err)
	}
	if e, err := d.Extrinsics(accel, z720); err != nil || e != cad.Inverse() {
		t.Errorf("accel→depth %v %v", e, err)
	}
	if e, err := d.Extrinsics(accel, gyro); err != nil || e != id {
		t.Errorf("accel→gyro %v %v", e, err)
	}
	if e, err := d.Extrinsics(c720, accel); err != nil || !near(e.Translation[0], cad.Compose(cd).Translation[0]) {
		t.Errorf("color→accel %v %v", e, err)
	}
	if err := fake.Err(); err != nil {
		t.Error(err)
	}
}

func TestFirmwareVariants(t *testing.T) {
	// Older firmware, no advanced mode: default depth units, no GET_ADV and
	// no RECPARAMSGET (1280x720 comes from the coefficients table).
	fw := usbtest.DefaultFirmware()
	fw.Version, fw.Advanced = [4]uint8{5, 10, 0, 0}, false
	d, fake := openFW(t, fw)
	depth := byName(d, "Stereo Module")
	if u := depth.(extensions.DepthSensor).DepthUnits(); u != 0.001 || d.Info()[sensor.CameraInfoAdvancedMode] != "NO" {
		t.Errorf("units %v", u)
	}
	if in := find(depth, sensor.StreamDepth, sensor.FormatZ16, 1280, 720, 30).Intrinsics; in.FX != 643 {
		t.Errorf("1280x720 %+v", in)
	}
	if err := d.Close(); err != nil || fake.Err() != nil {
		t.Errorf("close %v %v", err, fake.Err())
	}

	// Advanced mode with 100 µm depth units: frames carry 0.0001.
	fw = usbtest.DefaultFirmware()
	fw.DepthUnits = 100
	d, _ = openFW(t, fw)
	if u := byName(d, "Stereo Module").(extensions.DepthSensor).DepthUnits(); u != 0.0001 {
		t.Errorf("units %v, want 0.0001", u)
	}
	d.Close()

	// A corrupt RGB table: the device opens, color has no intrinsics and no
	// extrinsics, the depth pairs still work.
	fw = usbtest.DefaultFirmware()
	ops := fw.OpenOps(true)
	last := &ops[len(ops)-1]
	last.R = append([]byte(nil), last.R...)
	last.R[4+40] ^= 0xFF
	fake = usbtest.NewDevice(usbtest.D435iDesc(), loadD435i(t), ops...)
	d, err := usb.Open(usbio.WithTransport(context.Background(), usbtest.New(fake)), nil)
	if err != nil {
		t.Fatal(err)
	}
	if d.CalibrationError() == nil {
		t.Error("no calibration error")
	}
	c := find(byName(d, "RGB Camera"), sensor.StreamColor, sensor.FormatYUYV, 1280, 720, 30)
	z := find(byName(d, "Stereo Module"), sensor.StreamDepth, sensor.FormatZ16, 1280, 720, 30)
	if c.Intrinsics.FX != 0 || c.Intrinsics.Width != 1280 {
		t.Errorf("color intrinsics %+v", c.Intrinsics)
	}
	if _, err := d.Extrinsics(z, c); !errors.Is(err, device.ErrNoExtrinsics) {
		t.Errorf("depth→color: %v", err)
	}
	if _, err := d.Extrinsics(z, &sensor.StreamProfile{Stream: sensor.StreamInfrared, Index: 2}); err != nil {
		t.Errorf("depth→ir2: %v", err)
	}
	d.Close()

	// GVD refused: Open fails with the firmware status.
	fake = usbtest.NewDevice(usbtest.D435iDesc(), loadD435i(t), usbtest.HWM(usbtest.OpGVD, 0, 0, usbtest.HWMFailure(-2))...)
	tr := usbtest.New(fake)
	var he *usb.HWMError
	if _, err := usb.Open(usbio.WithTransport(context.Background(), tr), nil); !errors.As(err, &he) || he.Code != -2 {
		t.Errorf("GVD failure: %v", err)
	}
	if tr.OpenHandles() != 0 {
		t.Error("handle left open")
	}
}
