package usb

import (
	"context"
	"encoding/binary"
	"errors"
	"strconv"

	"github.com/rsbag/rsbag/device"
	"github.com/rsbag/rsbag/sensor"
	"github.com/rsbag/rsbag/usb/internal/calib"
)

// Default depth units of librealsense when the Depth Units option is not
// backed by advanced mode (src/ds/d400/d400-device.cpp: 0.001 m, 0.0001 m
// on the D405).
const (
	defaultDepthUnits     = 0.001
	defaultDepthUnitsD405 = 0.0001
	pidD405               = 0x0B5B
)

// firmware is what the firmware command channel told at open.
type firmware struct {
	gvd        calib.GVD
	advanced   bool
	depthUnits float32 // meters per depth unit
	advUnits   bool    // depthUnits came from advanced mode
	ch         *hwm    // the command channel the firmware was read through
	coeff      *calib.CoefficientsTable
	rect       []calib.RectItem
	rgb        *calib.RGBCalibration
	imu        *calib.IMUCalibration // nil without an IMU or with an unknown table
	calibErr   error
}

// readFirmware queries the camera through the depth extension unit of vc:
// GVD (firmware version, serials), advanced-mode status and depth units,
// the depth coefficients table, RECPARAMSGET (new firmware), the IMU
// calibration (MMER, products with an IMU) and, when the camera has a color
// sensor, the RGB calibration table. A failing GVD is an
// error; failing calibration reads are kept in calibErr and leave the
// intrinsics and extrinsics they feed unknown.
func readFirmware(ctx context.Context, c *hwm, pid uint16, withColor bool) (*firmware, error) {
	fw := &firmware{depthUnits: defaultDepthUnits, ch: c}
	if pid == pidD405 {
		fw.depthUnits = defaultDepthUnitsD405
	}
	b, err := c.command(ctx, hwmGVD, 0, 0, 0, 0, nil)
	if err != nil {
		return nil, err
	}
	if fw.gvd, err = calib.ParseGVD(b); err != nil {
		return nil, err
	}
	// Advanced mode status (UAMG: first reply byte non-zero) and, with
	// firmware 5.6.3.0 or later, the depth units of the depth table control
	// (depth_scale_option::query: 0.000001 × depth_units in double, then
	// float).
	if b, err := c.command(ctx, hwmUAMG, 0, 0, 0, 0, nil); err != nil {
		if errors.Is(err, device.ErrDisconnected) {
			return nil, err
		}
	} else if len(b) > 0 && b[0] != 0 {
		fw.advanced = true
	}
	if fw.advanced && fw.gvd.AtLeast(calib.FwAdvancedDepthUnits) {
		b, err := c.command(ctx, hwmGETADV, calib.AdvDepthTableControl, calib.AdvGetVal, 0, 0, nil)
		switch {
		case errors.Is(err, device.ErrDisconnected):
			return nil, err
		case err == nil && len(b) >= 20:
			fw.depthUnits = unitsFromMicrons(binary.LittleEndian.Uint32(b))
			fw.advUnits = true
		}
	}
	var errs []error
	if b, err := c.command(ctx, hwmGETINTCAL, calib.CalibCoefficients, 0, 0, 0, nil); err != nil {
		errs = append(errs, err)
	} else if fw.coeff, err = calib.ParseCoefficientsTable(b); err != nil {
		errs = append(errs, err)
	}
	if fw.gvd.AtLeast(calib.FwRecParams) {
		if b, err := c.command(ctx, hwmRECPARAMSGET, 0, 0, 0, 0, nil); err != nil {
			errs = append(errs, err)
		} else {
			fw.rect = calib.ParseRectItems(b)
		}
	}
	if p, ok := d40xProduct(pid); ok && p.hid {
		b, err := c.command(ctx, hwmMMER, 0, calib.IMUEEPROMSize, 0, 0, nil)
		if errors.Is(err, device.ErrDisconnected) {
			return nil, err
		}
		if fw.imu, err = calib.ParseIMUCalibration(pid, b, err); err != nil {
			errs = append(errs, err)
		}
	}
	if withColor {
		if b, err := c.command(ctx, hwmGETINTCAL, calib.CalibRGB, 0, 0, 0, nil); err != nil {
			errs = append(errs, err)
		} else if fw.rgb, err = calib.ParseRGBCalibration(b); err != nil {
			errs = append(errs, err)
		}
	}
	for _, e := range errs {
		if errors.Is(e, device.ErrDisconnected) {
			return nil, e
		}
	}
	fw.calibErr = errors.Join(errs...)
	return fw, nil
}

// depthIntrinsics returns the rectified intrinsics of a depth or infrared
// profile as d400_depth_sensor::get_intrinsics does: the RECPARAMSGET entry
// of the resolution when there is one, else the coefficients table.
func (fw *firmware) depthIntrinsics(w, h int) (sensor.Intrinsics, bool) {
	for _, it := range fw.rect {
		if it.Width == w && it.Height == h {
			return sensor.Intrinsics{Width: w, Height: h, FX: it.FX, FY: it.FY, PPX: it.PPX, PPY: it.PPY,
				Model: sensor.DistortionBrownConrady}, true
		}
	}
	if fw.coeff == nil {
		return sensor.Intrinsics{}, false
	}
	return fw.coeff.Intrinsics(w, h), true
}

// info adds what librealsense registers from GVD (d400_device::init):
// the optic serial as Serial Number, the ASIC serial as Asic Serial Number
// and Firmware Update Id, the firmware and recommended firmware versions,
// Debug Op Code (GLD), Advanced Mode and Camera Locked.
func (fw *firmware) info(in map[sensor.CameraInfo]string) {
	yes := func(b bool) string {
		if b {
			return "YES"
		}
		return "NO"
	}
	in[sensor.CameraInfoSerialNumber] = fw.gvd.Serial
	in[sensor.CameraInfoAsicSerialNumber] = fw.gvd.ASICSerial
	in[sensor.CameraInfoFirmwareUpdateId] = fw.gvd.ASICSerial
	in[sensor.CameraInfoFirmwareVersion] = fw.gvd.FirmwareStr
	in[sensor.CameraInfoRecommendedFirmwareVersion] = calib.RecommendedFirmwareVersion
	in[sensor.CameraInfoDebugOpCode] = strconv.Itoa(hwmGLD)
	in[sensor.CameraInfoAdvancedMode] = yes(fw.advanced)
	in[sensor.CameraInfoCameraLocked] = yes(fw.gvd.Locked)
}

// extrinsicsKey names the streams with factory extrinsics.
type extrinsicsKey struct {
	stream sensor.Stream
	index  int
}

// streamExtrinsics holds, per stream, the transforms to and from depth that
// librealsense registers: Depth and Infrared/1 share one frame
// (register_same_extrinsics), depth→Infrared/2 comes from the baseline and
// color→depth from the RGB table; the reverse directions are their inverses.
type streamExtrinsics struct {
	fromDepth map[extrinsicsKey]sensor.Extrinsics
	toDepth   map[extrinsicsKey]sensor.Extrinsics
}

func (fw *firmware) extrinsics() streamExtrinsics {
	id := sensor.IdentityExtrinsics()
	x := streamExtrinsics{
		fromDepth: map[extrinsicsKey]sensor.Extrinsics{{sensor.StreamDepth, 0}: id, {sensor.StreamInfrared, 1}: id},
		toDepth:   map[extrinsicsKey]sensor.Extrinsics{{sensor.StreamDepth, 0}: id, {sensor.StreamInfrared, 1}: id},
	}
	if fw.coeff != nil {
		e := fw.coeff.DepthToRightIR()
		x.fromDepth[extrinsicsKey{sensor.StreamInfrared, 2}] = e
		x.toDepth[extrinsicsKey{sensor.StreamInfrared, 2}] = e.Inverse()
	}
	if fw.imu != nil {
		// register_extrinsics(depth, accel) and register_same_extrinsics(
		// accel, gyro) in ds_motion_common::init_motion.
		for _, s := range []sensor.Stream{sensor.StreamAccel, sensor.StreamGyro} {
			x.fromDepth[extrinsicsKey{s, 0}] = fw.imu.DepthToIMU
			x.toDepth[extrinsicsKey{s, 0}] = fw.imu.DepthToIMU.Inverse()
		}
	}
	if fw.rgb != nil {
		e := fw.rgb.ColorToDepth()
		x.toDepth[extrinsicsKey{sensor.StreamColor, 0}] = e
		x.fromDepth[extrinsicsKey{sensor.StreamColor, 0}] = e.Inverse()
	}
	return x
}

// between returns from→to: a registered transform when one end is in the
// depth frame, else to←depth composed with depth←from.
func (x streamExtrinsics) between(from, to extrinsicsKey) (sensor.Extrinsics, bool) {
	if from == to {
		_, ok := x.fromDepth[from]
		return sensor.IdentityExtrinsics(), ok
	}
	motion := func(k extrinsicsKey) bool { return k.stream == sensor.StreamAccel || k.stream == sensor.StreamGyro }
	if motion(from) && motion(to) {
		_, ok := x.fromDepth[from]
		return sensor.IdentityExtrinsics(), ok
	}
	inDepth := func(k extrinsicsKey) bool {
		return k == extrinsicsKey{sensor.StreamDepth, 0} || k == extrinsicsKey{sensor.StreamInfrared, 1}
	}
	switch {
	case inDepth(from):
		e, ok := x.fromDepth[to]
		return e, ok
	case inDepth(to):
		e, ok := x.toDepth[from]
		return e, ok
	}
	a, okA := x.toDepth[from]
	b, okB := x.fromDepth[to]
	if !okA || !okB {
		return sensor.Extrinsics{}, false
	}
	return b.Compose(a), true
}
