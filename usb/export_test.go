package usb

// The parsers and encoders that the external tests (package usb_test)
// check directly.
var (
	HWMCommand             = hwmCommand
	IsD400                 = isD400
	ParseCoefficientsTable = parseCoefficientsTable
	ParseGVD               = parseGVD
	ParseHWMReply          = parseHWMReply
	ParseIMUCalibration    = parseIMUCalibration
	ParseRGBCalibration    = parseRGBCalibration
	ParseRectItems         = parseRectItems
	ParseUVC               = parseUVC
	ProbeControlSize       = probeControlSize
	ProductName            = productName
)
