package ros2

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rsbag/rsbag/mcapbag"
	"github.com/rsbag/rsbag/playback"
	"github.com/rsbag/rsbag/sensor"
)

// TestExportCompressions: every chunk compression gives the same messages.
func TestExportCompressions(t *testing.T) {
	bag := filepath.Join("..", "..", "testdata", "librealsense", "depth_color.bag")
	var ref map[string][]msg
	var files []string
	for _, c := range []mcapbag.Compression{mcapbag.Zstd, mcapbag.LZ4, mcapbag.None} {
		dir := filepath.Join(t.TempDir(), string(c))
		os.Mkdir(dir, 0o755)
		file, _ := exportFile(t, bag, dir, &Options{Compression: c, ChunkSize: 1 << 20})
		files = append(files, file)
		got, _ := readExport(t, file)
		if ref == nil {
			ref = got
			continue
		}
		if fmt.Sprint(got) != fmt.Sprint(ref) {
			t.Errorf("%s: messages differ from the zstd export", c)
		}
	}
	mcapcheck(t, files...)
}

// TestNames pins the wrapper's stream names, encodings and the topic and
// frame names of a custom name space.
func TestNames(t *testing.T) {
	for _, c := range []struct {
		s     sensor.Stream
		index int
		want  string
	}{
		{sensor.StreamDepth, 0, "depth"},
		{sensor.StreamColor, 0, "color"},
		{sensor.StreamInfrared, 1, "infra1"},
		{sensor.StreamInfrared, 2, "infra2"},
		{sensor.StreamInfrared, 0, "infra"},
		{sensor.StreamGyro, 0, "gyro"},
		{sensor.StreamAccel, 0, "accel"},
		{sensor.StreamFisheye, 1, "fisheye1"},
	} {
		if got := streamName(c.s, c.index); got != c.want {
			t.Errorf("streamName(%v, %d) = %q, want %q", c.s, c.index, got, c.want)
		}
	}
	for f, want := range map[sensor.Format]string{
		sensor.FormatZ16: "16UC1", sensor.FormatY8: "mono8", sensor.FormatY16: "mono16", sensor.FormatRGB8: "rgb8",
		sensor.FormatBGR8: "bgr8", sensor.FormatRGBA8: "rgba8", sensor.FormatBGRA8: "bgra8", sensor.FormatYUYV: "yuv422_yuy2",
		sensor.FormatUYVY: "yuv422", sensor.FormatRAW8: "8UC1", sensor.FormatRAW10: "16UC1", sensor.FormatRAW16: "16UC1",
	} {
		if rosEncoding[f] != want {
			t.Errorf("encoding of %v = %q, want %q", f, rosEncoding[f], want)
		}
	}
	if len(rosEncoding) != 12 {
		t.Errorf("%d formats have an image encoding, want the wrapper's 12", len(rosEncoding))
	}

	for _, o := range []Options{{Namespace: "camera"}, {Namespace: "/a/"}, {Namespace: "/a//b"}, {Namespace: "/My"}, {CameraName: "a/b"}, {CameraName: "a b"}} {
		if err := o.CheckNames(); err == nil {
			t.Errorf("CheckNames(%+v) accepted", o)
		}
	}
	for _, o := range []Options{{}, {Namespace: "/robot/front_1", CameraName: "front_1"}} {
		if err := o.CheckNames(); err != nil {
			t.Errorf("CheckNames(%+v): %v", o, err)
		}
	}

	bag := filepath.Join("..", "..", "testdata", "librealsense", "depth_color.bag")
	file, _ := exportFile(t, bag, t.TempDir(), &Options{Namespace: "/robot/front", CameraName: "front"})
	got, _ := readExport(t, file)
	var topics []string
	for k := range got {
		topics = append(topics, k)
	}
	want := []string{"/robot/front/color/camera_info", "/robot/front/color/image_raw", "/robot/front/color/metadata",
		"/robot/front/depth/camera_info", "/robot/front/depth/image_rect_raw", "/robot/front/depth/metadata",
		"/robot/front/extrinsics/depth_to_color", "/tf_static"}
	if fmt.Sprint(sorted(topics)) != fmt.Sprint(want) {
		t.Errorf("topics %v, want %v", sorted(topics), want)
	}
	d := newDec(t, got["/robot/front/color/image_raw"][0].data)
	if _, frame := d.header(); frame != "front_color_optical_frame" {
		t.Errorf("color frame id %q", frame)
	}
	d = newDec(t, got["/tf_static"][0].data)
	d.u32()
	if _, parent := d.header(); parent != "front_link" {
		t.Errorf("tf parent %q, want front_link", parent)
	}
}

func sorted(s []string) []string {
	out := append([]string(nil), s...)
	for i := range out {
		for j := i + 1; j < len(out); j++ {
			if out[j] < out[i] {
				out[i], out[j] = out[j], out[i]
			}
		}
	}
	return out
}

// TestRotations: the optical rotation is the one that maps the ROS body
// axes onto the optical axes (z forward = body x, x right = −body y,
// y down = −body z), and matrixQuat inverts the quaternion → matrix map
// for rotations of every branch.
func TestRotations(t *testing.T) {
	rotate := func(q quat, v [3]float64) [3]float64 {
		r := q.mul(quat{v[0], v[1], v[2], 0}).mul(q.inverse())
		return [3]float64{r.x, r.y, r.z}
	}
	near := func(a, b [3]float64) bool {
		return math.Abs(a[0]-b[0]) < 1e-12 && math.Abs(a[1]-b[1]) < 1e-12 && math.Abs(a[2]-b[2]) < 1e-12
	}
	// The optical frame's axes expressed in the body frame.
	for _, c := range []struct{ optical, body [3]float64 }{
		{[3]float64{0, 0, 1}, [3]float64{1, 0, 0}},
		{[3]float64{1, 0, 0}, [3]float64{0, -1, 0}},
		{[3]float64{0, 1, 0}, [3]float64{0, 0, -1}},
	} {
		if got := rotate(opticalRotation, c.optical); !near(got, c.body) {
			t.Errorf("optical axis %v is body %v, want %v", c.optical, got, c.body)
		}
	}
	toMatrix := func(q quat) [9]float32 {
		var m [9]float32
		for c := range 3 {
			var e [3]float64
			e[c] = 1
			col := rotate(q, e)
			for r := range 3 {
				m[c*3+r] = float32(col[r]) // column major
			}
		}
		return m
	}
	for _, q := range []quat{
		{0, 0, 0, 1}, opticalRotation, rpy(0.1, -0.2, 0.3), rpy(math.Pi, 0, 0), rpy(0, math.Pi, 0), rpy(0, 0, math.Pi),
		rpy(3, 0.1, 0.2), rpy(0.2, 3, 0.1), rpy(0.1, 0.2, 3),
	} {
		got := matrixQuat(toMatrix(q))
		if got.w*q.w+got.x*q.x+got.y*q.y+got.z*q.z < 0 {
			got = quat{-got.x, -got.y, -got.z, -got.w}
		}
		if math.Abs(got.x-q.x)+math.Abs(got.y-q.y)+math.Abs(got.z-q.z)+math.Abs(got.w-q.w) > 1e-6 {
			t.Errorf("matrixQuat(matrix of %v) = %v", q, got)
		}
	}
}

// TestCDR pins the encoding of strings, alignment and the header.
func TestCDR(t *testing.T) {
	var c cdr
	c.reset()
	c.u8(7)
	c.f64(1)
	c.str("ab")
	c.header(1_500_000_000, "x")
	want := []byte{0, 1, 0, 0, 7, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xf0, 0x3f, 3, 0, 0, 0, 'a', 'b', 0, 0, 1, 0, 0, 0, 0x00, 0x65, 0xcd, 0x1d, 2, 0, 0, 0, 'x', 0}
	if string(c.b) != string(want) {
		t.Errorf("CDR\n got % x\nwant % x", c.b, want)
	}
	if s := schemaText(imageType); !strings.HasPrefix(s, definitions[imageType].text) ||
		!strings.Contains(s, "\nMSG: std_msgs/Header\n") || !strings.Contains(s, "\nMSG: builtin_interfaces/Time\nint32 sec\nuint32 nanosec\n") {
		t.Errorf("Image schema:\n%s", s)
	}
}

// TestExportCancel: a cancelled context stops the export with its error.
func TestExportCancel(t *testing.T) {
	bag := filepath.Join("..", "..", "testdata", "librealsense", "depth_color.bag")
	dev, err := playback.Open(bag, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer dev.Close()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Export(ctx, io.Discard, dev, nil); !errors.Is(err, context.Canceled) {
		t.Errorf("Export with a cancelled context: %v, want context.Canceled", err)
	}
}
