package ros2

import (
	"fmt"
	"strconv"
	"strings"
	"unicode"

	"github.com/rsbag/rsbag/sensor"
)

// rosName returns the realsense2_camera wrapper's name of a librealsense
// name (its rs2_to_ros table: "Infrared" is "Infra"), made a ROS graph
// resource name (lower case; characters other than letters, digits, '/'
// and '_' replaced by '_').
func rosName(rs2 string) string {
	if rs2 == "Infrared" {
		rs2 = "Infra"
	}
	return graphName(rs2)
}

// graphName lower-cases s and replaces the characters not allowed in a ROS
// name with '_'.
func graphName(s string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case r < unicode.MaxASCII && (unicode.IsLetter(r) || unicode.IsDigit(r)):
			return unicode.ToLower(r)
		case r == '/' || r == '_':
			return r
		}
		return '_'
	}, s)
}

// CheckNames reports whether the names of o are ROS names the wrapper
// could have: Namespace absolute ("/camera/camera"), CameraName one plain
// name ("camera"), both of lower-case letters, digits and '_' only. Empty
// names stand for the defaults.
func (o *Options) CheckNames() error {
	if ns := o.Namespace; ns != "" && (!strings.HasPrefix(ns, "/") || strings.HasSuffix(ns, "/") || strings.Contains(ns, "//") || graphName(ns) != ns) {
		return fmt.Errorf("ros2: name space %q: want an absolute ROS name such as %s", ns, DefaultNamespace)
	}
	if c := o.CameraName; c != "" && (strings.Contains(c, "/") || graphName(c) != c) {
		return fmt.Errorf("ros2: camera name %q: want a ROS name such as %s", c, DefaultCameraName)
	}
	return nil
}

// metadataNames are the wrapper's JSON names of the metadata keys: lower
// case with '_', the frame timestamp as "hw_timestamp".
var metadataNames = func() []string {
	n := make([]string, sensor.Count[sensor.MetadataKey]())
	for k := range n {
		n[k] = graphName(sensor.MetadataKey(k).String())
	}
	n[sensor.MetadataKeyFrameTimestamp] = "hw_timestamp"
	return n
}()

// domainNames are the wrapper's names of the timestamp domains.
var domainNames = func() []string {
	n := make([]string, sensor.Count[sensor.TimestampDomain]())
	for d := range n {
		n[d] = graphName(sensor.TimestampDomain(d).String())
	}
	return n
}()

// streamName is the wrapper's name of a stream: its ROS type name, with
// the stream index appended when it is not 0 ("depth", "color", "infra1",
// "gyro").
func streamName(s sensor.Stream, index int) string {
	n := rosName(s.String())
	if index > 0 {
		n += strconv.Itoa(index)
	}
	return n
}

// imageFormat is the format of the images of a stream of format f: RGB8
// for MJPEG, decoded as librealsense decodes it (the wrapper asks
// librealsense for RGB8 color, which a camera's MJPEG-only mode delivers
// decoded), else f.
func imageFormat(f sensor.Format) sensor.Format {
	if f == sensor.FormatMJPEG {
		return sensor.FormatRGB8
	}
	return f
}

// rosEncoding maps the formats the wrapper publishes as images to their
// sensor_msgs image encodings (base_realsense_node.cpp,
// _rs_format_to_ros_format). Other formats have no image topic.
var rosEncoding = map[sensor.Format]string{
	sensor.FormatY8:    "mono8",
	sensor.FormatY16:   "mono16",
	sensor.FormatZ16:   "16UC1",
	sensor.FormatRGB8:  "rgb8",
	sensor.FormatBGR8:  "bgr8",
	sensor.FormatRGBA8: "rgba8",
	sensor.FormatBGRA8: "bgra8",
	sensor.FormatYUYV:  "yuv422_yuy2",
	sensor.FormatUYVY:  "yuv422",
	sensor.FormatRAW8:  "8UC1",
	sensor.FormatRAW10: "16UC1",
	sensor.FormatRAW16: "16UC1",
}
