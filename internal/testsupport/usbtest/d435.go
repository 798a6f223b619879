package usbtest

import (
	"bufio"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"io"
	"strings"

	"github.com/rsbag/rsbag/internal/usbio"
	"github.com/rsbag/rsbag/internal/uvc"
)

// The D435/D435i configuration descriptor built here follows the interface
// layout visible in public `lsusb -v` dumps of D435 cameras (an interface
// association per function: VideoControl 0 with VideoStreaming 1 (depth) and
// 2 (infrared), VideoControl 3 with VideoStreaming 4 (color), HID 5 on the
// D435i, a vendor-specific interface 6) and the stream modes of the Intel
// RealSense D400 Series datasheet (doc 337029) and librealsense's D400
// profile tables. Descriptor layouts are those of USB 2.0 chapter 9, UVC 1.5
// (§3.7, §3.9, Payload_uncompressed) and HID 1.11. The bytes are
// constructed from those documents, not captured from a camera.

type frameSpec struct {
	w, h int
	fps  []int
}

var (
	depthFrames = []frameSpec{
		{1280, 720, []int{30, 15, 6}},
		{848, 480, []int{90, 60, 30, 15, 6}},
		{640, 480, []int{90, 60, 30, 15, 6}},
		{640, 360, []int{90, 60, 30, 15, 6}},
		{480, 270, []int{90, 60, 30, 15, 6}},
		{424, 240, []int{90, 60, 30, 15, 6}},
	}
	calibFrames = []frameSpec{{1280, 800, []int{25, 15}}}
	colorFrames = []frameSpec{
		{1920, 1080, []int{30, 15, 6}},
		{1280, 720, []int{30, 15, 6}},
		{960, 540, []int{60, 30, 15, 6}},
		{848, 480, []int{60, 30, 15, 6}},
		{640, 480, []int{60, 30, 15, 6}},
		{640, 360, []int{60, 30, 15, 6}},
		{424, 240, []int{60, 30, 15, 6}},
		{320, 240, []int{60, 30, 6}},
		{320, 180, []int{60, 30, 6}},
	}
)

// desc is one descriptor with a label for the hex rendering.
type desc struct {
	b    []byte
	name string
}

func guidFourCC(cc string) []byte {
	g := []byte(cc)
	return append(g, 0x00, 0x00, 0x10, 0x00, 0x80, 0x00, 0x00, 0xAA, 0x00, 0x38, 0x9B, 0x71)
}

func le16(v int) []byte { return binary.LittleEndian.AppendUint16(nil, uint16(v)) }
func le32(v int) []byte { return binary.LittleEndian.AppendUint32(nil, uint32(v)) }

func cat(parts ...[]byte) []byte {
	var b []byte
	for _, p := range parts {
		b = append(b, p...)
	}
	return b
}

func withLen(body ...[]byte) []byte {
	b := cat(body...)
	return append([]byte{byte(len(b) + 1)}, b...)
}

func intf(num, nEP int, class, sub byte) desc {
	return desc{withLen([]byte{0x04, byte(num), 0, byte(nEP), class, sub, 0, 0}), fmt.Sprintf("interface %d", num)}
}

func endpoint(addr, attr byte, maxPacket int, interval byte) desc {
	return desc{withLen([]byte{0x05, addr, attr}, le16(maxPacket), []byte{interval}), fmt.Sprintf("endpoint %#02x", addr)}
}

type fmtSpec struct {
	cc     string
	bpp    int
	frames []frameSpec
}

// vsInterface builds a VideoStreaming interface: input header, formats and
// frames, bulk endpoint.
func vsInterface(num int, ep byte, link byte, formats []fmtSpec) []desc {
	var cs []desc
	for fi, f := range formats {
		// UVC 1.5 Payload_uncompressed Tables 3-1 and 3-2; an MJPEG format
		// (Payload_MJPEG Tables 3-1 and 3-2: bmFlags, bDefaultFrameIndex,
		// aspect ratio, interlace and copy protection after the frame
		// count) has no GUID, and its frames the uncompressed frames'
		// layout, the maximum frame size being that of 16 bits per pixel.
		formatDesc := desc{withLen([]byte{0x24, 0x04, byte(fi + 1), byte(len(f.frames))}, guidFourCC(f.cc),
			[]byte{byte(f.bpp), 1, 0, 0, 0, 0}), fmt.Sprintf("VS format %d uncompressed %q", fi+1, f.cc)}
		frameSub := byte(0x05)
		if f.cc == "MJPG" {
			formatDesc = desc{withLen([]byte{0x24, 0x06, byte(fi + 1), byte(len(f.frames)), 0, 1, 0, 0, 0, 0}), fmt.Sprintf("VS format %d MJPEG", fi+1)}
			frameSub = 0x07
		}
		cs = append(cs, formatDesc)
		for ri, fr := range f.frames {
			size := fr.w * fr.h * f.bpp / 8
			body := cat([]byte{0x24, frameSub, byte(ri + 1), 0}, le16(fr.w), le16(fr.h),
				le32(size*8*fr.fps[len(fr.fps)-1]), le32(size*8*fr.fps[0]), le32(size), le32(10_000_000/fr.fps[0]),
				[]byte{byte(len(fr.fps))})
			for _, fps := range fr.fps {
				body = append(body, le32(10_000_000/fps)...)
			}
			cs = append(cs, desc{withLen(body), fmt.Sprintf("VS frame %d %dx%d %v fps", ri+1, fr.w, fr.h, fr.fps)})
		}
	}
	total := 14 // input header: bLength 13+p*n with one format control byte
	for _, d := range cs {
		total += len(d.b)
	}
	hdr := withLen([]byte{0x24, 0x01, byte(len(formats))}, le16(total), []byte{ep, 0, link, 0, 0, 0, 1}, make([]byte, len(formats)))
	out := []desc{intf(num, 1, 0x0E, 0x02), {hdr, "VS input header"}}
	out = append(out, cs...)
	return append(out, endpoint(ep, 0x02, 1024, 0))
}

// vcInterface builds a VideoControl interface with a camera terminal, a
// processing unit, an optional extension unit and an output terminal.
func vcInterface(num int, streams []int, puControls []byte, xu []byte, xuControls []byte, intEP byte) []desc {
	var cs []desc
	cs = append(cs, desc{withLen([]byte{0x24, 0x02, 1}, le16(0x0201), []byte{0, 0}, le16(0), le16(0), le16(0), []byte{3, 0x0A, 0x00, 0x00}),
		"VC input terminal 1 (camera)"})
	cs = append(cs, desc{withLen([]byte{0x24, 0x05, 2, 1}, le16(0), []byte{byte(len(puControls))}, puControls, []byte{0, 0}),
		"VC processing unit 2"})
	src := byte(2)
	if xu != nil {
		cs = append(cs, desc{withLen([]byte{0x24, 0x06, 3}, xu, []byte{byte(8 * len(xuControls)), 1, 2, byte(len(xuControls))}, xuControls, []byte{0}),
			"VC extension unit 3 (depth XU)"})
		src = 3
	}
	cs = append(cs, desc{withLen([]byte{0x24, 0x03, 4}, le16(0x0101), []byte{0, src, 0}), "VC output terminal 4 (streaming)"})
	total := 12 + len(streams)
	for _, d := range cs {
		total += len(d.b)
	}
	coll := make([]byte, len(streams))
	for i, s := range streams {
		coll[i] = byte(s)
	}
	hdr := withLen([]byte{0x24, 0x01}, le16(0x0110), le16(total), le32(0x00E4E1C0), []byte{byte(len(streams))}, coll)
	out := []desc{
		{withLen([]byte{0x0B, byte(num), byte(1 + len(streams)), 0x0E, 0x03, 0x00, 0}), fmt.Sprintf("interface association %d", num)},
		intf(num, 1, 0x0E, 0x01), {hdr, "VC header UVC 1.10"},
	}
	out = append(out, cs...)
	return append(out, endpoint(intEP, 0x03, 64, 8), desc{[]byte{0x05, 0x25, 0x03, 0x40, 0x00}, "VC interrupt endpoint (class-specific)"})
}

// mjpegColorFrames are the frames of the color MJPEG format of
// D435MJPEGConfig: 1920x1080 at 60 fps and 320x180 at 90 fps only as
// MJPEG, 1920x1080 at 30 fps in YUYV too.
var mjpegColorFrames = []frameSpec{{1920, 1080, []int{60, 30}}, {320, 180, []int{90}}}

// d435Descriptors returns the labelled descriptors of a D435 (imu false) or
// D435i (imu true) configuration; with mjpeg, the color interface has an
// MJPEG format (mjpegColorFrames) before its YUYV one.
func d435Descriptors(imu, mjpeg bool) []desc {
	depthXU := uvc.DepthXU[:]
	var ds []desc
	// Processing unit of the depth VC: gain only (bmControls bit 9). Depth
	// XU controls: HW monitor, emitter, exposure, laser power (selectors
	// 1-4, bits 0-3) and auto exposure (selector 0xB, bit 10).
	ds = append(ds, vcInterface(0, []int{1, 2}, []byte{0x00, 0x02, 0x00}, depthXU, []byte{0x0F, 0x04, 0x00}, 0x87)...)
	ds = append(ds, vsInterface(1, 0x82, 4, []fmtSpec{{"Z16 ", 16, depthFrames}})...)
	ds = append(ds, vsInterface(2, 0x83, 4, []fmtSpec{{"GREY", 8, depthFrames}, {"Y8I ", 16, depthFrames}, {"Y12I", 24, calibFrames}})...)
	// Processing unit of the RGB VC: brightness..WB temperature (bits 0-6),
	// backlight, gain, power line (8-10), WB auto (12).
	ds = append(ds, vcInterface(3, []int{4}, []byte{0x7F, 0x17, 0x00}, nil, nil, 0x88)...)
	color := []fmtSpec{{"YUY2", 16, colorFrames}}
	if mjpeg {
		color = append([]fmtSpec{{"MJPG", 16, mjpegColorFrames}}, color...)
	}
	ds = append(ds, vsInterface(4, 0x84, 4, color)...)
	n := 6
	if imu {
		ds = append(ds, intf(5, 1, 0x03, 0x00), desc{withLen([]byte{0x21}, le16(0x0111), []byte{0, 1, 0x22}, le16(0x30)), "HID descriptor"},
			endpoint(0x85, 0x03, 32, 1))
		n = 7
	}
	ds = append(ds, intf(n-1, 2, 0xFF, 0x00), endpoint(0x01, 0x02, 1024, 0), endpoint(0x81, 0x02, 1024, 0))
	total := 9
	for _, d := range ds {
		total += len(d.b)
	}
	cfg := withLen([]byte{0x02}, le16(total), []byte{byte(n), 1, 0, 0x80, 0x64})
	return append([]desc{{cfg, "configuration"}}, ds...)
}

// D435Config returns the raw configuration descriptor of a D435 (imu false)
// or D435i (imu true).
func D435Config(imu bool) []byte { return config(d435Descriptors(imu, false)) }

// D435MJPEGConfig returns D435Config with an MJPEG color format listed
// first (format 1 of interface 4, the YUYV one becoming format 2): frame 1
// is 1920x1080 at 60 fps (a mode only MJPEG offers) and 30 fps (also in
// YUYV), frame 2 is 320x180 at 90 fps (only MJPEG), as cameras offer their
// fastest or largest color modes compressed.
func D435MJPEGConfig(imu bool) []byte { return config(d435Descriptors(imu, true)) }

func config(ds []desc) []byte {
	var b []byte
	for _, d := range ds {
		b = append(b, d.b...)
	}
	return b
}

// FormatD435Hex renders D435Config as readable hex, one descriptor per line
// with a "# label" comment.
func FormatD435Hex(w io.Writer, imu bool) error {
	for _, d := range d435Descriptors(imu, false) {
		if _, err := fmt.Fprintf(w, "%s  # %s\n", strings.ToUpper(hex.EncodeToString(d.b)), d.name); err != nil {
			return err
		}
	}
	return nil
}

// ParseHex reads hex bytes, ignoring whitespace and "#" comments.
func ParseHex(r io.Reader) ([]byte, error) {
	var out []byte
	sc := bufio.NewScanner(r)
	sc.Buffer(nil, 1<<20)
	line := 0
	for sc.Scan() {
		line++
		s := sc.Text()
		if i := strings.IndexByte(s, '#'); i >= 0 {
			s = s[:i]
		}
		s = strings.Join(strings.Fields(s), "")
		b, err := hex.DecodeString(s)
		if err != nil {
			return nil, fmt.Errorf("usbtest: hex line %d: %w", line, err)
		}
		out = append(out, b...)
	}
	return out, sc.Err()
}

// D435iDesc is the device descriptor of a scripted D435i on bus 2, port 1
// (USB 3.2, serial "012345678901").
func D435iDesc() usbio.DeviceDesc {
	return usbio.DeviceDesc{Bus: 2, Address: 3, Path: []int{1}, Vendor: usbio.IntelVID, Product: 0x0B3A, BCDUSB: 0x0320,
		BCDDev: 0x5010, Serial: "012345678901", Name: "Intel(R) RealSense(TM) Depth Camera 435i"}
}

// D435Desc is the device descriptor of a scripted D435 (no IMU; script it
// with D435Config(false) and OpenOps(false)), otherwise D435iDesc's.
func D435Desc() usbio.DeviceDesc {
	d := D435iDesc()
	d.Product, d.Name = 0x0B07, "Intel(R) RealSense(TM) Depth Camera 435"
	return d
}
