package usb_test

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/rsbag/rsbag/extensions"
	"github.com/rsbag/rsbag/internal/testsupport/usbtest"
	"github.com/rsbag/rsbag/sensor"
	"github.com/rsbag/rsbag/usb"
)

// depthTableRange is the scripted firmware's depth-units range: 1 µm to
// 100000 µm (GET_MIN and GET_MAX of the depth table control).
func depthTableRange() []usbtest.IO {
	return append(usbtest.DepthTableOp(1, usbtest.DepthTable{Units: 1}),
		usbtest.DepthTableOp(2, usbtest.DepthTable{Units: 100000, ClampMax: 65535})...)
}

// cur is the depth table before the change: 1000 µm with non-zero clamp
// and disparity fields that the write must carry over.
var cur = usbtest.DepthTable{Units: 1000, ClampMin: 7, ClampMax: 65000, DisparityMultiplier: 100, DisparityShift: -3}

// setADV100 is the SET_ADV of cur with 100 µm depth units, spelled out byte
// by byte: length 40 (24 + 20 - 4), magic 0xCDAB, opcode 0x2B, param1 9
// (depth table control), params 2-4 zero, then the 20-byte table.
func setADV100() []byte {
	b := make([]byte, 1024)
	copy(b, []byte{
		0x28, 0x00, 0xAB, 0xCD, 0x2B, 0x00, 0x00, 0x00, 0x09, 0x00, 0x00, 0x00,
		0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
		0x64, 0x00, 0x00, 0x00, // depth_units 100
		0x07, 0x00, 0x00, 0x00, // depth_clamp_min 7
		0xE8, 0xFD, 0x00, 0x00, // depth_clamp_max 65000
		0x64, 0x00, 0x00, 0x00, // disparity_multiplier 100
		0xFD, 0xFF, 0xFF, 0xFF, // disparity_shift -3
	})
	return b
}

// setUnitsOps is the read-modify-write of Depth Units to 100 µm: GET_VAL,
// SET_ADV, GET_VAL read-back.
func setUnitsOps() []usbtest.IO {
	after := cur
	after.Units = 100
	ops := usbtest.DepthTableOp(0, cur)
	set := usbtest.HWM(usbtest.OpSETADV, 9, 0, usbtest.HWMReply(usbtest.OpSETADV, nil))
	set[0].W = setADV100()
	ops = append(ops, set...)
	return append(ops, usbtest.DepthTableOp(0, after)...)
}

func TestDepthUnitsSet(t *testing.T) {
	ops := append(depthTableRange(), setUnitsOps()...)
	// A write the firmware refuses: the value stays.
	fail := usbtest.HWM(usbtest.OpSETADV, 9, 0, usbtest.HWMFailure(-7))
	after := cur
	after.Units = 100
	fail[0].W, _ = usb.HWMCommand(usbtest.OpSETADV, 9, 0, 0, 0, usbtest.DepthTable{Units: 250, ClampMin: 7, ClampMax: 65000,
		DisparityMultiplier: 100, DisparityShift: -3}.Bytes())
	ops = append(ops, usbtest.DepthTableOp(0, after)...)
	ops = append(ops, fail...)
	d, fake, _ := openD435i(t, ops...)
	defer d.Close()
	s := byName(d, "Stereo Module")
	opts := s.(extensions.Options)
	var changes []extensions.OptionChange
	opts.OnOptionChange(func(c extensions.OptionChange) { changes = append(changes, c) })

	if opts.OptionReadOnly(sensor.OptionDepthUnits) {
		t.Error("Depth Units read-only with advanced mode")
	}
	if got := opts.OptionDescription(sensor.OptionDepthUnits); got != "Number of meters represented by a single depth unit" {
		t.Errorf("description %q", got)
	}
	want := extensions.Range{Min: 0.000001, Max: 0.1, Step: 0.000001, Default: 0.001}
	for i := 0; i < 2; i++ { // the second call is served from the cache
		if r, err := opts.OptionRange(sensor.OptionDepthUnits); err != nil || r != want {
			t.Fatalf("range %+v %v, want %+v", r, err, want)
		}
	}
	// Out of range: rejected before any firmware command.
	for _, v := range []float32{0.5, 0, -0.001} {
		err := opts.SetOption(sensor.OptionDepthUnits, v)
		if wantErr := fmt.Sprintf("usb Stereo Module: option Depth Units: %v not in [1e-06, 0.1]: %v", v, extensions.ErrOutOfRange); !errors.Is(err, extensions.ErrOutOfRange) || err.Error() != wantErr {
			t.Errorf("set %v: %v, want %s", v, err, wantErr)
		}
	}
	if err := opts.SetOption(sensor.OptionDepthUnits, 0.0001); err != nil {
		t.Fatal(err)
	}
	if v, err := opts.Option(sensor.OptionDepthUnits); err != nil || v != 0.0001 {
		t.Errorf("Depth Units %v %v, want 0.0001", v, err)
	}
	if u := s.(extensions.DepthSensor).DepthUnits(); u != 0.0001 {
		t.Errorf("DepthUnits %v, want 0.0001", u)
	}
	if fmt.Sprint(changes) != fmt.Sprint([]extensions.OptionChange{{Option: sensor.OptionDepthUnits, Value: 0.0001}}) {
		t.Errorf("changes %v", changes)
	}
	// 0.00025 m is 250 µm; the firmware refuses it.
	err := opts.SetOption(sensor.OptionDepthUnits, 0.00025)
	var he *usb.HWMError
	if !errors.As(err, &he) || he.Code != -7 {
		t.Errorf("refused set: %v", err)
	}
	if u := s.(extensions.DepthSensor).DepthUnits(); u != 0.0001 || len(changes) != 1 {
		t.Errorf("after refused set: units %v, %d changes", u, len(changes))
	}
	if err := fake.Err(); err != nil {
		t.Error(err)
	}
}

// Frames streamed after a change carry the new depth units.
func TestDepthUnitsFrames(t *testing.T) {
	ops := append(depthTableRange(), setUnitsOps()...)
	ops = append(append(ops, probeOps(1, 0x0110, 1, 6, 333333, depthSize)...), stopOps(1, 0x82)...)
	d, fake, _ := openD435iWatchdog(t, time.Minute, ops...)
	depth := byName(d, "Stereo Module")
	if err := depth.Open(find(depth, sensor.StreamDepth, sensor.FormatZ16, depthW, depthH, 30)); err != nil {
		t.Fatal(err)
	}
	if err := depth.(extensions.Options).SetOption(sensor.OptionDepthUnits, 0.0001); err != nil {
		t.Fatal(err)
	}
	col := newCollector()
	if err := depth.Start(col); err != nil {
		t.Fatal(err)
	}
	fake.Stream(0x82).Send(usbtest.Payload(usbtest.EOF, 1000000, usbtest.CaptureTiming(1, 5000, 8000), image(depthSize, 3)))
	fs := col.wait(t, 1)
	if err := depth.Stop(); err != nil {
		t.Fatal(err)
	}
	if err := d.Close(); err != nil {
		t.Fatal(err)
	}
	if len(fs) != 1 || fs[0].DepthUnits != 0.0001 {
		t.Errorf("frames %d, depth units %v", len(fs), fs[0].DepthUnits)
	}
	if err := fake.Err(); err != nil {
		t.Error(err)
	}
}

// Without advanced mode Depth Units is read-only with the documented default
// and no firmware command is issued for it.
func TestDepthUnitsReadOnly(t *testing.T) {
	fw := usbtest.DefaultFirmware()
	fw.Advanced = false
	d, fake := openFW(t, fw)
	defer d.Close()
	opts := byName(d, "Stereo Module").(extensions.Options)
	if !opts.OptionReadOnly(sensor.OptionDepthUnits) {
		t.Error("writable without advanced mode")
	}
	if v, err := opts.Option(sensor.OptionDepthUnits); err != nil || v != 0.001 {
		t.Errorf("value %v %v", v, err)
	}
	if r, err := opts.OptionRange(sensor.OptionDepthUnits); err != nil || r != (extensions.Range{Min: 0.001, Max: 0.001, Default: 0.001}) {
		t.Errorf("range %+v %v", r, err)
	}
	err := opts.SetOption(sensor.OptionDepthUnits, 0.0001)
	if want := "usb Stereo Module: option Depth Units: " + extensions.ErrReadOnly.Error(); !errors.Is(err, extensions.ErrReadOnly) || err.Error() != want {
		t.Errorf("set: %v, want %s", err, want)
	}
	if err := fake.Err(); err != nil {
		t.Error(err)
	}
}
