package usb

import (
	"github.com/rsbag/rsbag/internal/usbio"
	"github.com/rsbag/rsbag/internal/uvc"
)

import "github.com/rsbag/rsbag/usb/internal/calib"

// The parsers and encoders that the external tests (package usb_test)
// check directly.
var (
	HWMCommand             = hwmCommand
	IsD400                 = isD400
	ParseCoefficientsTable = calib.ParseCoefficientsTable
	ParseGVD               = calib.ParseGVD
	ParseHWMReply          = parseHWMReply
	ParseIMUCalibration    = calib.ParseIMUCalibration
	ParseRGBCalibration    = calib.ParseRGBCalibration
	ParseRectItems         = calib.ParseRectItems
	ParseUVC               = uvc.ParseUVC
	ProbeControlSize       = uvc.ProbeControlSize
	ProductName            = productName
)

// CameraDesc returns the USB descriptors of an enumerated camera.
func CameraDesc(c Camera) usbio.DeviceDesc { return c.desc }
