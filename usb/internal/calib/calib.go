// Package calib parses the firmware's replies the usb driver reads at
// open: the camera details (GVD) and the depth, rectification, RGB and IMU
// calibration tables, from the raw bytes of the HW monitor channel.
package calib

import (
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"hash/crc32"
	"math"

	"github.com/rsbag/rsbag/sensor"
)

// GVD ("get version data") offsets, librealsense src/ds/ds-private.h
// (gvd_fields): firmware version 4 bytes at 12, lowest component first
// (hw_monitor::get_firmware_version_string reverses them); camera locked
// at 25; optic module serial 6 bytes at 48 and ASIC serial 6 bytes at 64,
// printed as lowercase hex (hw_monitor::get_module_serial_string).
const (
	gvdFirmwareVersion = 12
	gvdCameraLocked    = 25
	gvdModuleSerial    = 48
	gvdASICSerial      = 64
	gvdSerialSize      = 6
)

// RecommendedFirmwareVersion is what librealsense reports as the
// recommended D400 firmware (common/fw/firmware-version.h,
// D4XX_RECOMMENDED_FIRMWARE_VERSION).
const RecommendedFirmwareVersion = "5.17.0.10"

// GVD is the part of the camera details reply the driver uses.
type GVD struct {
	Firmware    [4]uint8 // major, minor, patch, build
	Serial      string   // optic module serial, e.g. "827112070540"
	ASICSerial  string
	Locked      bool
	FirmwareStr string // "major.minor.patch.build"
}

// ParseGVD parses a GVD reply.
func ParseGVD(b []byte) (GVD, error) {
	if len(b) < gvdASICSerial+gvdSerialSize {
		return GVD{}, fmt.Errorf("usb: GVD reply of %d bytes, want at least %d", len(b), gvdASICSerial+gvdSerialSize)
	}
	var g GVD
	for i := range g.Firmware {
		g.Firmware[i] = b[gvdFirmwareVersion+3-i]
	}
	g.FirmwareStr = fmt.Sprintf("%d.%d.%d.%d", g.Firmware[0], g.Firmware[1], g.Firmware[2], g.Firmware[3])
	g.Serial = hex.EncodeToString(b[gvdModuleSerial : gvdModuleSerial+gvdSerialSize])
	g.ASICSerial = hex.EncodeToString(b[gvdASICSerial : gvdASICSerial+gvdSerialSize])
	g.Locked = b[gvdCameraLocked] != 0
	return g, nil
}

// AtLeast reports whether the firmware is version v or later.
func (g GVD) AtLeast(v [4]uint8) bool {
	for i := range v {
		if g.Firmware[i] != v[i] {
			return g.Firmware[i] > v[i]
		}
	}
	return true
}

// Firmware thresholds librealsense applies (src/ds/d400/d400-device.cpp):
// advanced-mode depth units from 5.6.3.0, RECPARAMSGET from 5.11.9.5.
var (
	FwAdvancedDepthUnits = [4]uint8{5, 6, 3, 0}
	FwRecParams          = [4]uint8{5, 11, 9, 5}
)

// Calibration table ids (librealsense src/ds/d400/d400-private.h,
// d400_calibration_table_id) and the depth table control of advanced mode
// (src/ds/ds-private.h: etDepthTableControl 9, GET_VAL 0; depth_table_control
// starts with depth_units, a uint32 in micrometers).
const (
	CalibCoefficients    = 25
	CalibRGB             = 32
	AdvDepthTableControl = 9
	AdvGetVal            = 0
)

// tableHeaderSize is librealsense's table_header (src/ds/ds-private.h):
// version (big-endian u16), table type u16, table size u32 (bytes after the
// header), param u32, crc32 u32 of the bytes after the header.
const tableHeaderSize = 16

// checkTable validates the header of a calibration table of at least want
// bytes, as librealsense's check_calib does: size and CRC-32 (the IEEE
// polynomial, rsutils calc_crc32) over everything after the header.
func checkTable(name string, b []byte, want int) error {
	if len(b) < tableHeaderSize {
		return fmt.Errorf("usb: %s table: %d bytes, want a %d-byte header", name, len(b), tableHeaderSize)
	}
	size := int(binary.LittleEndian.Uint32(b[4:]))
	if size+tableHeaderSize > len(b) {
		return fmt.Errorf("usb: %s table: header claims %d bytes, reply has %d", name, size, len(b)-tableHeaderSize)
	}
	if len(b) < want {
		return fmt.Errorf("usb: %s table: %d bytes, want %d", name, len(b), want)
	}
	if got, crc := crc32.ChecksumIEEE(b[tableHeaderSize:]), binary.LittleEndian.Uint32(b[12:]); got != crc {
		return fmt.Errorf("usb: %s table: CRC %08x, header says %08x", name, got, crc)
	}
	return nil
}

func f32(b []byte, off int) float32 { return math.Float32frombits(binary.LittleEndian.Uint32(b[off:])) }

// Resolutions of the coefficients table's rect_params, in table order
// (librealsense src/ds/ds-private.h, ds_rect_resolutions; the two reserved
// slots have no resolution).
var rectResolutions = [16][2]int{
	{1920, 1080}, {1280, 720}, {640, 480}, {848, 480}, {640, 360}, {424, 240}, {320, 240}, {480, 270},
	{1280, 800}, {960, 540}, {0, 0}, {0, 0}, {640, 400}, {576, 576}, {720, 720}, {1152, 1152},
}

// Layout of d400_coefficients_table (librealsense src/ds/d400/d400-private.h):
// header, four 3×3 float matrices (left/right intrinsics, world-to-left and
// world-to-right rotations), baseline (float, mm), brown_model (u32), 88
// reserved bytes, 16 rect_params (fx, fy, ppx, ppy) and 64 reserved bytes.
const (
	coeffBaseline   = tableHeaderSize + 4*36
	coeffRectParams = coeffBaseline + 4 + 4 + 88
	coeffTableSize  = coeffRectParams + 16*16 + 64
)

// CoefficientsTable is the depth coefficients table (id 25).
type CoefficientsTable struct {
	BaselineMM float32        // signed, as stored; librealsense reports |baseline|
	Rect       [16][4]float32 // fx, fy, ppx, ppy per rectangle resolution
}

// ParseCoefficientsTable parses and checks the depth coefficients table.
func ParseCoefficientsTable(b []byte) (*CoefficientsTable, error) {
	if err := checkTable("depth coefficients", b, coeffTableSize); err != nil {
		return nil, err
	}
	t := &CoefficientsTable{BaselineMM: f32(b, coeffBaseline)}
	for i := range t.Rect {
		for j := range t.Rect[i] {
			t.Rect[i][j] = f32(b, coeffRectParams+16*i+4*j)
		}
	}
	return t, nil
}

// Intrinsics returns the rectified depth/infrared intrinsics at w×h as
// librealsense derives them from this table
// (get_d400_intrinsic_by_resolution_coefficients_table in
// src/ds/d400/d400-private.cpp): the entry of the resolution, ideal values
// when the entry is degenerate (fx == fy and ppx == ppy), 848x100 from the
// 848x480 entry with ppy - 190, other resolutions scaled from the 1920x1080
// entry; Brown-Conrady with zero coefficients.
func (t *CoefficientsTable) Intrinsics(w, h int) sensor.Intrinsics {
	ideal := func(p [4]float32, w, h int) [4]float32 {
		if p[0] == p[1] && p[2] == p[3] {
			fx := float32(float32(w) * 1.5)
			return [4]float32{fx, fx, float32(float32(w) * 0.5), float32(float32(h) * 0.5)}
		}
		return p
	}
	in := sensor.Intrinsics{Width: w, Height: h, Model: sensor.DistortionBrownConrady}
	lookW, lookH := w, h
	if w == 848 && h == 100 {
		lookH = 480
	}
	for i, r := range rectResolutions {
		if r[0] == 0 || r[0] != lookW || r[1] != lookH {
			continue
		}
		p := ideal(t.Rect[i], r[0], r[1])
		in.FX, in.FY, in.PPX, in.PPY = p[0], p[1], p[2], p[3]
		if w == 848 && h == 100 {
			in.PPY = float32(in.PPY - 190)
		}
		return in
	}
	p := ideal(t.Rect[0], w, h)
	if w == 256 && h == 144 { // auto-calibration resolution
		in.FX, in.FY, in.PPX, in.PPY = p[0], p[1], float32(p[2]-832), float32(p[3]-468)
		return in
	}
	// rect_params[0] * width / 1920: float times uint32 then divided by int.
	in.FX = float32(float32(p[0]*float32(w)) / 1920)
	in.FY = float32(float32(p[1]*float32(h)) / 1080)
	in.PPX = float32(float32(p[2]*float32(w)) / 1920)
	in.PPY = float32(float32(p[3]*float32(h)) / 1080)
	return in
}

// RectItem is one entry of the RECPARAMSGET reply (librealsense
// src/ds/ds-private.h, new_calibration_item: u16 width, u16 height, float
// fx, fy, ppx, ppy).
type RectItem struct {
	Width, Height    int
	FX, FY, PPX, PPY float32
}

const rectItemSize = 20

// ParseRectItems parses a RECPARAMSGET reply; trailing bytes that do not
// make a whole item are ignored, as librealsense does.
func ParseRectItems(b []byte) []RectItem {
	out := make([]RectItem, 0, len(b)/rectItemSize)
	for off := 0; off+rectItemSize <= len(b); off += rectItemSize {
		out = append(out, RectItem{
			Width: int(binary.LittleEndian.Uint16(b[off:])), Height: int(binary.LittleEndian.Uint16(b[off+2:])),
			FX: f32(b, off+4), FY: f32(b, off+8), PPX: f32(b, off+12), PPY: f32(b, off+16),
		})
	}
	return out
}

// Layout of d400_rgb_calibration_table (librealsense
// src/ds/d400/d400-private.h): header, normalized 3×3 intrinsic,
// distortion[5], Rodrigues rotation and translation (float3 each),
// projection[12], calib_width and calib_height (u16), rectified intrinsic,
// rectification rotation (3×3) and translation (float3, mm), 24 reserved.
const (
	rgbIntrinsic    = tableHeaderSize
	rgbDistortion   = rgbIntrinsic + 36
	rgbCalibWidth   = rgbDistortion + 20 + 12 + 12 + 48
	rgbRotationRect = rgbCalibWidth + 4 + 36
	rgbTransRect    = rgbRotationRect + 36
	rgbTableSize    = rgbTransRect + 12 + 24
)

// RGBCalibration is the RGB calibration table (id 32).
type RGBCalibration struct {
	Intrinsic     [9]float32 // column-major, normalized to [-1, 1]
	Distortion    [5]float32
	CalibWidth    int
	CalibHeight   int
	RotationRect  [9]float32 // column-major
	TranslationMM [3]float32 // rectified translation, mm
}

// ParseRGBCalibration parses and checks the RGB calibration table.
func ParseRGBCalibration(b []byte) (*RGBCalibration, error) {
	if err := checkTable("RGB calibration", b, rgbTableSize); err != nil {
		return nil, err
	}
	t := &RGBCalibration{
		CalibWidth:  int(binary.LittleEndian.Uint16(b[rgbCalibWidth:])),
		CalibHeight: int(binary.LittleEndian.Uint16(b[rgbCalibWidth+2:])),
	}
	for i := range t.Intrinsic {
		t.Intrinsic[i] = f32(b, rgbIntrinsic+4*i)
		t.RotationRect[i] = f32(b, rgbRotationRect+4*i)
	}
	for i := range t.Distortion {
		t.Distortion[i] = f32(b, rgbDistortion+4*i)
	}
	for i := range t.TranslationMM {
		t.TranslationMM[i] = f32(b, rgbTransRect+4*i)
	}
	return t, nil
}

// Intrinsics returns the color intrinsics at w×h as librealsense derives
// them (get_d400_color_stream_intrinsic, src/ds/d400/d400-private.cpp): the
// normalized matrix is stretched along the axis whose aspect ratio differs
// from the calibration's (16:9 when the table has no resolution), then
// scaled to pixels; inverse Brown-Conrady with the table's coefficients.
// Every step rounds to float32 as the original does.
func (t *RGBCalibration) Intrinsics(w, h int) sensor.Intrinsics {
	k := t.Intrinsic
	// Column-major: (row, col) is k[3*col+row]; fx (0,0), fy (1,1), ppx (2,0), ppy (2,1).
	calib := float32(9) / float32(16)
	if t.CalibWidth != 0 && t.CalibHeight != 0 {
		calib = float32(float32(t.CalibHeight) / float32(t.CalibWidth))
	}
	actual := float32(float32(h) / float32(w))
	if actual < calib {
		s := float32(calib / actual)
		k[4] = float32(k[4] * s)
		k[5] = float32(k[5] * s)
	} else {
		s := float32(actual / calib)
		k[0] = float32(k[0] * s)
		k[2] = float32(k[2] * s)
	}
	fw, fh := float32(w), float32(h)
	return sensor.Intrinsics{
		Width: w, Height: h,
		PPX:    float32(float32(float32(1+k[2])*fw) / 2),
		PPY:    float32(float32(float32(1+k[5])*fh) / 2),
		FX:     float32(float32(k[0]*fw) / 2),
		FY:     float32(float32(k[4]*fh) / 2),
		Model:  sensor.DistortionInverseBrownConrady,
		Coeffs: t.Distortion,
	}
}

// ColorToDepth returns the color→depth extrinsics librealsense registers
// (get_d400_color_stream_extrinsic): the rectification rotation and the
// rectified translation times -0.001 (mm to m).
func (t *RGBCalibration) ColorToDepth() sensor.Extrinsics {
	e := sensor.Extrinsics{Rotation: t.RotationRect}
	for i, v := range t.TranslationMM {
		e.Translation[i] = float32(v * -0.001)
	}
	return e
}

// DepthToRightIR returns the depth→Infrared/2 extrinsics librealsense
// registers (d400_device::init, _left_right_extrinsics): the identity with
// translation x = 0.001 × baseline (m, signed as stored).
func (t *CoefficientsTable) DepthToRightIR() sensor.Extrinsics {
	e := sensor.IdentityExtrinsics()
	e.Translation[0] = float32(0.001 * t.BaselineMM)
	return e
}

// D405Intrinsics returns the color intrinsics of a D405 at w×h as
// librealsense derives them (get_d405_color_stream_intrinsic,
// src/ds/d400/d400-private.cpp): the D405's color comes from the depth
// module's ISP, which crops and scales the sensor image, so 1280x720 uses
// the normalized matrix directly, 640x480 is extrapolated to the 1280x800
// raw image, scaled to 770x480 and cropped, and other sizes are scaled from
// the calibration resolution by the larger axis ratio and center-cropped.
// ok is false when a resolution involved is zero (librealsense fails).
func (t *RGBCalibration) D405Intrinsics(w, h int) (sensor.Intrinsics, bool) {
	type res struct{ w, h uint32 }
	k := t.Intrinsic // (row, col) is k[3*col+row]: fx k[0], fy k[4], ppx k[2], ppy k[5]
	toPixels := func(r res) bool {
		if r.w == 0 || r.h == 0 {
			return false
		}
		k[0] = float32(float32(k[0]*float32(r.w)) / 2)
		k[4] = float32(float32(k[4]*float32(r.h)) / 2)
		k[2] = float32(float32(float32(k[2]+1)*float32(r.w)) / 2)
		k[5] = float32(float32(float32(k[5]+1)*float32(r.h)) / 2)
		return true
	}
	scale := func(in, out res) bool {
		if in.w == 0 || in.h == 0 || out.w == 0 || out.h == 0 {
			return false
		}
		sx := float32(float32(out.w) / float32(in.w))
		sy := float32(float32(out.h) / float32(in.h))
		s := max(sx, sy)
		shx := float32(float32(float32(float32(in.w)*s)-float32(out.w)) / 2)
		shy := float32(float32(float32(float32(in.h)*s)-float32(out.h)) / 2)
		k[0] = float32(k[0] * s)
		k[4] = float32(k[4] * s)
		k[2] = float32(float32(k[2]*s) - shx)
		k[5] = float32(float32(k[5]*s) - shy)
		return true
	}
	out := res{uint32(w), uint32(h)}
	calib := res{uint32(t.CalibWidth), uint32(t.CalibHeight)}
	ok := true
	switch {
	case w == 1280 && h == 720:
		ok = toPixels(out)
	case w == 640 && h == 480:
		raw, scaled := res{1280, 800}, res{770, 480}
		sy := float32(float32(calib.h) / float32(raw.h))
		k[4] = float32(k[4] * sy)
		k[5] = float32(k[5] * sy)
		ok = toPixels(raw) && scale(raw, scaled)
		// Integer halves of the crop, as the original's unsigned arithmetic.
		k[2] = float32(k[2] - float32((scaled.w-out.w)/2))
		k[5] = float32(k[5] - float32((scaled.h-out.h)/2))
	default:
		ok = toPixels(calib) && scale(calib, out)
	}
	if !ok {
		return sensor.Intrinsics{Width: w, Height: h}, false
	}
	return sensor.Intrinsics{Width: w, Height: h, PPX: k[2], PPY: k[5], FX: k[0], FY: k[4],
		Model: sensor.DistortionInverseBrownConrady, Coeffs: t.Distortion}, true
}
