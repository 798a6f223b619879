package sensor

// BitsPerPixel returns the bits per pixel of a video format, or 0 for formats
// without a fixed pixel size (motion, pose, compressed).
func (f Format) BitsPerPixel() int {
	switch f {
	case FormatY8, FormatRAW8:
		return 8
	case FormatZ16, FormatDisparity16, FormatY16, FormatRAW16, FormatYUYV, FormatUYVY, FormatZ16H:
		return 16
	case FormatRGB8, FormatBGR8:
		return 24
	case FormatRGBA8, FormatBGRA8, FormatDisparity32:
		return 32
	case FormatRAW10:
		return 10
	case FormatY8I:
		return 16
	case FormatY12I:
		return 24
	case FormatXYZ32F:
		return 96
	}
	return 0
}
