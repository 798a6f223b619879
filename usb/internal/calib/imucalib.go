package calib

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"

	"github.com/rsbag/rsbag/sensor"
)

// IMU calibration of the D400 motion module. Facts from librealsense's
// public source:
//   - src/ds/ds-calib-parsers.cpp (mm_calib_handler): the table is read with
//     the MMER firmware command (0x4F, src/ds/ds-private.h), param1 offset 0,
//     param2 the size of eeprom_imu_table (520 bytes: the larger of
//     tm1_eeprom and dm_v2_eeprom); the little-endian uint16 at offset 0
//     selects the parser, 0x0101 being the "depth module v2" table of the
//     D435i and D455 (imu_eeprom_id). A failed read is not an error: the
//     v2 parser then reports its defaults.
//   - src/ds/ds-private.h: dm_v2_eeprom is a table_header, then
//     dm_v2_calib_info (a table_header and dm_v2_calibration_table: a
//     table_header, extrinsic_valid and intrinsic_valid bytes, 2 reserved,
//     depth_to_imu (column-major 3×3 rotation and translation in meters),
//     accel and gyro dm_v2_imu_intrinsic (column-major 3×3 sensitivity and
//     bias), 96 reserved bytes) and a 32-byte serial-number table: 324 bytes.
//     check_calib validates the outer header (size, CRC-32 over the whole
//     reply after the header).
//   - dm_v2_imu_calib_parser: invalid tables or flags give the identity
//     sensitivity with zero bias and the CAD depth→IMU translation per
//     product (D435i -0.00552, 0.0051, 0.01174 m; D455 -0.03022, 0.0074,
//     0.01602 m; others zero) with identity rotation; the gyro bias is stored
//     in deg/s and reported in rad/s; noise and bias variances are zero.
//   - create_motion_intrinsics: data[i][j] = sensitivity(i, j), data[i][3]
//     = bias[i].
//   - src/proc/motion-transform.cpp: samples are rotated from the IMU axes
//     into the depth frame (x and z negated, dm_v2 _imu_2_depth_rot), then,
//     while Enable Motion Correction is on, corrected to
//     sensitivity × v - bias.
const (
	IMUEEPROMSize      = 520
	imuTableDMV2       = 0x0101
	dmv2Size           = 324
	dmv2ExtrinsicValid = 48
	dmv2IntrinsicValid = 49
	dmv2DepthToIMU     = 52
	dmv2Accel          = dmv2DepthToIMU + 48
	dmv2Gyro           = dmv2Accel + 48
)

// Product ids with CAD depth→IMU positions (librealsense
// src/ds/d400/d400-private.h: RS435I_PID, RS455_PID).
const (
	pidD435i = 0x0B3A
	pidD455  = 0x0B5C
)

// IMUCalibration is the motion-module calibration as librealsense reports
// it: the accel and gyro intrinsics and the depth→IMU extrinsics (shared by
// accel and gyro).
type IMUCalibration struct {
	Accel, Gyro sensor.MotionIntrinsics
	DepthToIMU  sensor.Extrinsics
	// FromTable reports which parts came from the camera's table rather
	// than librealsense's defaults.
	IntrinsicsFromTable, ExtrinsicsFromTable bool
	// sens and bias per stream (accel, gyro) for motion correction, bias in
	// the frame's units.
	sens [2][3][3]float32
	bias [2][3]float32
}

// errUnknownIMUTable is a table whose id librealsense's D400 parsers do not
// handle as a depth-module table.
var errUnknownIMUTable = errors.New("unsupported IMU calibration table")

// ParseIMUCalibration derives the IMU calibration of product pid from an
// MMER reply as librealsense does. readErr is the error of the MMER
// command, if any: the defaults are then reported. A table of another
// format than the depth-module v2 table returns an error (librealsense then
// has no motion intrinsics or IMU extrinsics).
func ParseIMUCalibration(pid uint16, raw []byte, readErr error) (*IMUCalibration, error) {
	valid := readErr == nil && len(raw) >= 2
	if valid {
		if id := binary.LittleEndian.Uint16(raw); id != imuTableDMV2 {
			return nil, fmt.Errorf("usb: IMU calibration table id %#04x: %w", id, errUnknownIMUTable)
		}
	}
	c := &IMUCalibration{}
	if valid && checkTable("IMU calibration", raw, dmv2Size) == nil {
		c.ExtrinsicsFromTable = raw[dmv2ExtrinsicValid] == 1
		c.IntrinsicsFromTable = raw[dmv2IntrinsicValid] == 1
	}
	if c.ExtrinsicsFromTable {
		for i := range c.DepthToIMU.Rotation {
			c.DepthToIMU.Rotation[i] = f32(raw, dmv2DepthToIMU+4*i)
		}
		for i := range c.DepthToIMU.Translation {
			c.DepthToIMU.Translation[i] = f32(raw, dmv2DepthToIMU+36+4*i)
		}
	} else {
		c.DepthToIMU = sensor.IdentityExtrinsics()
		switch pid {
		case pidD435i:
			c.DepthToIMU.Translation = [3]float32{-0.00552, 0.0051, 0.01174}
		case pidD455:
			c.DepthToIMU.Translation = [3]float32{-0.03022, 0.0074, 0.01602}
		}
	}
	for k, off := range []int{dmv2Accel, dmv2Gyro} {
		if !c.IntrinsicsFromTable {
			c.sens[k] = [3][3]float32{{1, 0, 0}, {0, 1, 0}, {0, 0, 1}}
			continue
		}
		for i := 0; i < 3; i++ {
			for j := 0; j < 3; j++ {
				c.sens[k][i][j] = f32(raw, off+4*(3*j+i)) // column-major
			}
			c.bias[k][i] = f32(raw, off+36+4*i)
			if k == 1 { // deg/s to rad/s, in float as the original
				c.bias[k][i] = float32(c.bias[k][i] * float32(math.Pi/180))
			}
		}
	}
	for k, mi := range []*sensor.MotionIntrinsics{&c.Accel, &c.Gyro} {
		for i := 0; i < 3; i++ {
			copy(mi.Data[i][:3], c.sens[k][i][:])
			mi.Data[i][3] = c.bias[k][i]
		}
	}
	return c, nil
}

// Intrinsics returns the intrinsics of an Accel or Gyro profile.
func (c *IMUCalibration) Intrinsics(s sensor.Stream) (sensor.MotionIntrinsics, bool) {
	switch s {
	case sensor.StreamAccel:
		return c.Accel, true
	case sensor.StreamGyro:
		return c.Gyro, true
	}
	return sensor.MotionIntrinsics{}, false
}

// Correct maps a sample v in the IMU's axes into the depth frame and, when
// calibrate is set, applies sensitivity and bias (motion-transform.cpp).
func (c *IMUCalibration) Correct(s sensor.Stream, v [3]float32, calibrate bool) [3]float32 {
	v = [3]float32{-v[0], v[1], -v[2]}
	if !calibrate {
		return v
	}
	k := 0
	if s == sensor.StreamGyro {
		k = 1
	}
	var out [3]float32
	for i := 0; i < 3; i++ {
		m := c.sens[k][i]
		out[i] = float32(float32(float32(m[0]*v[0])+float32(m[1]*v[1])+float32(m[2]*v[2])) - c.bias[k][i])
	}
	return out
}
