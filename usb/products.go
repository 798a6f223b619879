package usb

import (
	"fmt"

	"github.com/rsbag/rsbag/internal/usbio"
	"github.com/rsbag/rsbag/sensor"
)

// product is one D400-family product id. The ids and names are those of
// librealsense's public source, src/ds/d400/d400-private.h (rs400_sku_pid,
// rs400_sku_names, d400_hid_sensors_pid).
type product struct {
	name string
	hid  bool // has an IMU reachable over HID
}

var d400Products = map[uint16]product{
	0x0AD1: {"Intel RealSense D400", false},
	0x0AD2: {"Intel RealSense D410", false},
	0x0AD3: {"Intel RealSense D415", false},
	0x0AD4: {"Intel RealSense D430", false},
	0x0AD5: {"Intel RealSense D430 with Tracking Module", false},
	0x0AD6: {"Intel RealSense USB2", false},
	0x0AF2: {"Intel RealSense IMU", false},
	0x0AF6: {"Intel RealSense D420", false},
	0x1155: {"Intel RealSense D421", false},
	0x0AFE: {"Intel RealSense D420 with Tracking Module", false},
	0x0AFF: {"Intel RealSense D410 with Tracking Module", false},
	0x0B00: {"Intel RealSense D400 with Tracking Module", false},
	0x0B01: {"Intel RealSense D430 with Tracking and RGB Modules", false},
	0x0B03: {"Intel RealSense D460", false},
	0x0B07: {"Intel RealSense D435", false},
	0x0B0C: {"Intel RealSense DS5U", false},
	0x0B3A: {"Intel RealSense D435I", true},
	0x0B49: {"Intel RealSense F416", false},
	0x0B4B: {"Intel RealSense D430I", true},
	0x0B52: {"Intel RealSense F416 with RGB Module", false},
	0x0B5B: {"Intel RealSense D405", false},
	0x0B5C: {"Intel RealSense D455", true},
}

// isD400 reports whether vid:pid is a D400-family camera.
func isD400(vid, pid uint16) bool {
	_, ok := d400Products[pid]
	return vid == usbio.IntelVID && ok
}

// productName returns librealsense's name for a D400 product id.
func productName(pid uint16) (string, bool) {
	p, ok := d400Products[pid]
	return p.name, ok
}

// usbType formats bcdUSB the way librealsense names USB types
// (usb_spec_names: "2.0", "2.01", "2.1", "3.0", "3.1", "3.2").
func usbType(bcd uint16) string {
	major := bcd >> 8
	minor := (bcd >> 4) & 0xF
	sub := bcd & 0xF
	if sub != 0 {
		return fmt.Sprintf("%x.%x%x", major, minor, sub)
	}
	return fmt.Sprintf("%x.%x", major, minor)
}

// cameraInfo derives the device camera info from its descriptors.
func cameraInfo(d usbio.DeviceDesc) sensor.Info {
	name, _ := productName(d.Product)
	info := sensor.Info{
		sensor.CameraInfoName:              name,
		sensor.CameraInfoPhysicalPort:      d.PortPath(),
		sensor.CameraInfoProductId:         fmt.Sprintf("%04X", d.Product),
		sensor.CameraInfoProductLine:       "D400",
		sensor.CameraInfoUsbTypeDescriptor: usbType(d.BCDUSB),
		sensor.CameraInfoConnectionType:    "USB",
	}
	if d.Serial != "" {
		info[sensor.CameraInfoSerialNumber] = d.Serial
	}
	return info
}

// fourccFormat maps UVC fourccs to librealsense formats and streams for the
// D400 depth sensor (ds5_depth_fourcc_to_rs2_format/_stream in librealsense's
// src/ds/d400/d400-device.cpp) and color sensor (d400_color_fourcc_to_rs2_format
// in src/ds/d400/d400-color.cpp).
var depthFourCC = map[string]struct {
	format sensor.Format
	stream sensor.Stream
	index  int
}{
	"Z16 ": {sensor.FormatZ16, sensor.StreamDepth, 0},
	"GREY": {sensor.FormatY8, sensor.StreamInfrared, 1},
	"Y8I ": {sensor.FormatY8I, sensor.StreamInfrared, 1},
	"Y12I": {sensor.FormatY12I, sensor.StreamInfrared, 1},
	"Y16 ": {sensor.FormatY16, sensor.StreamInfrared, 1},
	"UYVY": {sensor.FormatUYVY, sensor.StreamInfrared, 1},
	"YUY2": {sensor.FormatYUYV, sensor.StreamColor, 0}, // the D405's color
	"YUYV": {sensor.FormatYUYV, sensor.StreamColor, 0},
	"BYR2": {sensor.FormatRAW16, sensor.StreamColor, 0},
	"MJPG": {sensor.FormatMJPEG, sensor.StreamColor, 0},
	"W10 ": {sensor.FormatW10, sensor.StreamInfrared, 1},
	"Z16H": {sensor.FormatZ16H, sensor.StreamDepth, 0},
	"RGB2": {sensor.FormatBGR8, sensor.StreamInfrared, 1},
}

var colorFourCC = map[string]sensor.Format{
	"YUY2": sensor.FormatYUYV,
	"YUYV": sensor.FormatYUYV,
	"UYVY": sensor.FormatUYVY,
	"BYR2": sensor.FormatRAW16,
	"M420": sensor.FormatM420,
	"MJPG": sensor.FormatMJPEG,
}

// videoDefault is a default video profile of a product line: w×h at fps.
type videoDefault struct{ w, h, fps int }

// lineDefaults are the default stream profiles of a product line (the
// profiles tagged PROFILE_TAG_DEFAULT by get_profiles_tags of each device
// class in librealsense's src/ds/d400/d400-factory.cpp): depth Z16, color
// RGB8 (get_color_format) and, where tagged, Infrared/1 Y8, each only where
// the camera has the stream; on USB 2 the classes use 640x480@15 (the D405
// keeps 848x480 at 10 fps).
type lineDefaults struct {
	depth, color videoDefault // USB 3; color zero: no default color stream
	ir           bool         // Infrared/1 Y8 at the depth resolution is a default
}

var productDefaults = map[uint16]lineDefaults{
	0x0AD1: {depth: videoDefault{1280, 720, 30}},                                     // rs400_device
	0x0AD2: {depth: videoDefault{1280, 720, 30}},                                     // rs410_device
	0x0B03: {depth: videoDefault{1280, 720, 30}},                                     // rs410_device (D460)
	0x0AD6: {depth: videoDefault{1280, 720, 30}},                                     // rs410_device (USB2 PID)
	0x0AD3: {depth: videoDefault{1280, 720, 30}, color: videoDefault{1280, 720, 30}}, // rs415_device
	0x0B49: {depth: videoDefault{720, 720, 30}},                                      // rs416_device
	0x0B52: {depth: videoDefault{720, 720, 30}, color: videoDefault{640, 480, 30}},   // rs416_rgb_device
	0x0AF6: {depth: videoDefault{848, 480, 30}, ir: true},                            // rs420_device
	0x1155: {depth: videoDefault{848, 480, 30}, ir: true},                            // rs421_device
	0x0AFE: {depth: videoDefault{848, 480, 30}, ir: true},                            // rs420_mm_device
	0x0AD4: {depth: videoDefault{848, 480, 30}, ir: true},                            // rs430_device
	0x0B4B: {depth: videoDefault{848, 480, 30}, ir: true},                            // rs430i_device
	0x0AD5: {depth: videoDefault{848, 480, 30}, ir: true},                            // rs430_mm_device
	0x0B01: {depth: videoDefault{848, 480, 30}, color: videoDefault{640, 480, 30}},   // rs430_rgb_mm_device
	0x0B07: {depth: videoDefault{848, 480, 30}, color: videoDefault{640, 480, 30}},   // rs435_device
	0x0B3A: {depth: videoDefault{848, 480, 30}, color: videoDefault{1280, 720, 30}},  // rs435i_device
	0x0B5C: {depth: videoDefault{848, 480, 30}, color: videoDefault{1280, 720, 30}},  // rs455_device
	0x0B5B: {depth: videoDefault{848, 480, 30}, color: videoDefault{848, 480, 30}},   // rs405_device
}

// defaultsFor returns the default profiles of product pid connected with
// bcdUSB; a product without a table entry gets the D435i's.
func defaultsFor(pid, bcdUSB uint16) lineDefaults {
	d, ok := productDefaults[pid]
	if !ok {
		d = productDefaults[0x0B3A]
	}
	if bcdUSB >= 0x0300 {
		return d
	}
	if pid == pidD405 {
		d.depth.fps, d.color.fps = 10, 10
		return d
	}
	usb2 := videoDefault{640, 480, 15}
	d.depth = usb2
	if d.color != (videoDefault{}) {
		d.color = usb2
	}
	return d
}

// isDefault reports whether p is one of the default profiles d.
func (d lineDefaults) isDefault(p *sensor.StreamProfile) bool {
	is := func(v videoDefault) bool { return v.fps > 0 && p.Width == v.w && p.Height == v.h && p.FPS == v.fps }
	switch {
	case p.Stream == sensor.StreamDepth && p.Format == sensor.FormatZ16:
		return is(d.depth)
	case p.Stream == sensor.StreamInfrared && p.Index == 1 && p.Format == sensor.FormatY8:
		return d.ir && is(d.depth)
	case p.Stream == sensor.StreamColor && p.Format == sensor.FormatRGB8:
		return is(d.color)
	}
	return false
}

// motionDefault reports whether an IMU rate is a default one: gyro 200 Hz,
// accel 63 Hz (BMI055) or 100 Hz (BMI085), as every motion class of
// d400-factory.cpp tags them.
func motionDefault(s sensor.Stream, fps int) bool {
	if s == sensor.StreamGyro {
		return fps == 200
	}
	return fps == 63 || fps == 100
}
