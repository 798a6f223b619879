package usb_test

import (
	"context"
	"errors"
	"math"
	"testing"

	"github.com/rsbag/rsbag/extensions"
	"github.com/rsbag/rsbag/internal/testsupport/usbtest"
	"github.com/rsbag/rsbag/internal/usbio"
	"github.com/rsbag/rsbag/sensor"
	"github.com/rsbag/rsbag/usb"
)

const (
	pidD435i = 0x0B3A
	pidD455  = 0x0B5C
)

func TestParseIMUCalibration(t *testing.T) {
	id := sensor.IdentityExtrinsics()
	d435iCAD := [3]float32{-0.00552, 0.0051, 0.01174}
	d455CAD := [3]float32{-0.03022, 0.0074, 0.01602}
	identity := sensor.MotionIntrinsics{Data: [3][4]float32{{1, 0, 0, 0}, {0, 1, 0, 0}, {0, 0, 1, 0}}}

	// The fixture: intrinsics from the table (row-major data, gyro bias in
	// rad/s), extrinsics invalid so the CAD values apply.
	tb := usbtest.DefaultIMUTable()
	c, err := usb.ParseIMUCalibration(pidD435i, tb.Bytes(), nil)
	if err != nil || !c.IntrinsicsFromTable || c.ExtrinsicsFromTable {
		t.Fatalf("%+v %v", c, err)
	}
	wantAccel := sensor.MotionIntrinsics{Data: [3][4]float32{
		{1.0021, -0.001, 0, 0.12}, {0.002, 0.9987, 0, -0.05}, {0, 0, 1.0043, 0.31}}}
	if c.Accel != wantAccel {
		t.Errorf("accel %+v", c.Accel)
	}
	d2r := float32(math.Pi / 180)
	wantGyro := sensor.MotionIntrinsics{Data: [3][4]float32{
		{1, 0, 0, float32(0.1 * d2r)}, {0, 1, 0, float32(-0.2 * d2r)}, {0, 0, 1, float32(0.05 * d2r)}}}
	if c.Gyro != wantGyro {
		t.Errorf("gyro %+v", c.Gyro)
	}
	if c.DepthToIMU != (sensor.Extrinsics{Rotation: id.Rotation, Translation: d435iCAD}) {
		t.Errorf("extrinsics %+v", c.DepthToIMU)
	}
	if mi, ok := c.Intrinsics(sensor.StreamGyro); !ok || mi != wantGyro {
		t.Error("Intrinsics(Gyro)")
	}
	if _, ok := c.Intrinsics(sensor.StreamDepth); ok {
		t.Error("Intrinsics(Depth)")
	}

	// Valid extrinsics are taken from the table.
	tb.ExtrinsicValid = true
	tb.DepthToIMURotation = [9]float32{-1, 0, 0, 0, 1, 0, 0, 0, -1}
	if c, err := usb.ParseIMUCalibration(pidD435i, tb.Bytes(), nil); err != nil ||
		c.DepthToIMU != (sensor.Extrinsics{Rotation: tb.DepthToIMURotation, Translation: tb.DepthToIMUTranslation}) {
		t.Errorf("table extrinsics %+v %v", c, err)
	}

	// Defaults: identity sensitivity, zero bias and variances, CAD
	// translation per product.
	bad := usbtest.DefaultIMUTable().Bytes()
	bad[120] ^= 0xFF // CRC mismatch
	noIntr := usbtest.DefaultIMUTable()
	noIntr.IntrinsicValid = false
	for _, c := range []struct {
		name  string
		pid   uint16
		raw   []byte
		err   error
		trans [3]float32
	}{
		{"read refused", pidD435i, nil, &usb.HWMError{Op: 0x4F, Code: -1}, d435iCAD},
		{"bad CRC", pidD435i, bad, nil, d435iCAD},
		{"short", pidD435i, usbtest.DefaultIMUTable().Bytes()[:200], nil, d435iCAD},
		{"intrinsics invalid", pidD435i, noIntr.Bytes(), nil, d435iCAD},
		{"D455", pidD455, nil, errors.New("x"), d455CAD},
		{"other product", 0x0B4B, nil, errors.New("x"), [3]float32{}},
	} {
		got, err := usb.ParseIMUCalibration(c.pid, c.raw, c.err)
		if err != nil || got.IntrinsicsFromTable || got.Accel != identity || got.Gyro != identity ||
			got.DepthToIMU != (sensor.Extrinsics{Rotation: id.Rotation, Translation: c.trans}) {
			t.Errorf("%s: %+v %v", c.name, got, err)
		}
	}

	// A table of another format: no calibration at all.
	other := usbtest.DefaultIMUTable()
	other.ID = 0x0002
	if _, err := usb.ParseIMUCalibration(pidD435i, other.Bytes(), nil); err == nil {
		t.Error("TM1 table accepted as a depth-module table")
	}
}

func TestMotionProfilesCarryCalibration(t *testing.T) {
	d, fake := openFW(t, usbtest.DefaultFirmware())
	m := byName(d, "Motion Module")
	want, _ := usb.ParseIMUCalibration(pidD435i, usbtest.DefaultIMUTable().Bytes(), nil)
	for _, p := range m.Profiles() {
		mi, _ := want.Intrinsics(p.Stream)
		if p.MotionIntrinsics != mi || mi.Data[0][0] == 0 {
			t.Errorf("%v: %+v", p, p.MotionIntrinsics)
		}
	}
	mo := m.(extensions.Options)
	if r, err := mo.OptionRange(sensor.OptionEnableMotionCorrection); err != nil || r != (extensions.Range{Min: 0, Max: 1, Step: 1, Default: 1}) ||
		mo.OptionDescription(sensor.OptionEnableMotionCorrection) != "Enable/Disable Automatic Motion Data Correction" {
		t.Errorf("range %+v %v", r, err)
	}
	if err := mo.SetOption(sensor.OptionEnableMotionCorrection, 0.5); !errors.Is(err, extensions.ErrOutOfRange) {
		t.Errorf("0.5: %v", err)
	}
	d.Close()
	if err := fake.Err(); err != nil {
		t.Error(err)
	}

	// An unknown table: zero intrinsics (what librealsense's recorder writes
	// when it cannot get them), no correction option, no IMU extrinsics.
	fw := usbtest.DefaultFirmware()
	fw.IMU.ID = 0x0105
	d, _ = openFW(t, fw)
	defer d.Close()
	m = byName(d, "Motion Module")
	for _, p := range m.Profiles() {
		if p.MotionIntrinsics != (sensor.MotionIntrinsics{}) {
			t.Errorf("%v: %+v", p, p.MotionIntrinsics)
		}
	}
	if len(m.(extensions.Options).SupportedOptions()) != 0 || d.CalibrationError() == nil {
		t.Errorf("options %v, calibration error %v", m.(extensions.Options).SupportedOptions(), d.CalibrationError())
	}
	z := &sensor.StreamProfile{Stream: sensor.StreamDepth}
	if _, err := d.Extrinsics(z, m.Profiles()[0]); err == nil {
		t.Error("depth→accel without calibration")
	}
}

// The D405 derives color intrinsics from the RGB table its own way
// (get_d405_color_stream_intrinsic); a D405 variant of the fixture (the
// scripted camera under the D405's product id, no IMU) reports them.
func TestD405ColorIntrinsics(t *testing.T) {
	fw := usbtest.DefaultFirmware()
	fw.IMU = nil
	fw.ColorCalib = [2]uint16{1280, 800}
	// fx = fy = 640 px, ppx = 641, ppy = 401 at the 1280x800 calibration.
	fw.ColorK = [9]float32{2 * 640.0 / 1280, 0, 2*641.0/1280 - 1, 0, 2 * 640.0 / 800, 2*401.0/800 - 1, 0, 0, 1}
	rgb, err := usb.ParseRGBCalibration(fw.RGBTable())
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		w, h             int
		fx, fy, ppx, ppy float32
	}{
		// Normalized matrix taken at 1280x720 directly.
		{1280, 720, 640, 576, 641, 360.9},
		// 1280x800 → 770x480 (scale 0.6 by height, 0.6016 by width: 0.6016)
		// then a 65-pixel crop in x.
		{640, 480, 640 * 770.0 / 1280, 640 * 770.0 / 1280, 641*770.0/1280 - 65, 401*770.0/1280 - (800*770.0/1280-480)/2},
		// 848x480 from 1280x800: scale max(0.6625, 0.6) and center crop.
		{848, 480, 640 * 0.6625, 640 * 0.6625, 641 * 0.6625, 401*0.6625 - (800*0.6625-480)/2},
	} {
		in, ok := rgb.D405Intrinsics(c.w, c.h)
		if !ok || !near(in.FX, c.fx) || !near(in.FY, c.fy) || !near(in.PPX, c.ppx) || !near(in.PPY, c.ppy) ||
			in.Model != sensor.DistortionInverseBrownConrady || in.Coeffs != fw.ColorCoeffs {
			t.Errorf("%dx%d: %+v, want fx %v fy %v ppx %v ppy %v", c.w, c.h, in, c.fx, c.fy, c.ppx, c.ppy)
		}
	}
	fw.ColorCalib = [2]uint16{0, 0}
	bad, _ := usb.ParseRGBCalibration(fw.RGBTable())
	if _, ok := bad.D405Intrinsics(848, 480); ok {
		t.Error("zero calibration resolution accepted")
	}
	fw.ColorCalib = [2]uint16{1280, 800}

	desc := usbtest.D435iDesc()
	desc.Product = 0x0B5B
	fake := usbtest.NewDevice(desc, loadD435i(t), fw.OpenOps(true)...)
	d, err := usb.Open(usbio.WithTransport(context.Background(), usbtest.New(fake)), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	c := find(byName(d, "RGB Camera"), sensor.StreamColor, sensor.FormatYUYV, 1280, 720, 30)
	if want, _ := rgb.D405Intrinsics(1280, 720); c.Intrinsics != want {
		t.Errorf("D405 color %+v, want %+v", c.Intrinsics, want)
	}
	if u := byName(d, "Stereo Module").(extensions.DepthSensor).DepthUnits(); u != 0.001 {
		t.Errorf("advanced-mode depth units %v", u) // the table's 1000 µm wins over the D405 default
	}
	if err := fake.Err(); err != nil {
		t.Error(err)
	}
}
