package usb_test

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/rsbag/rsbag/internal/testsupport/usbtest"
	"github.com/rsbag/rsbag/internal/usbio"
	"github.com/rsbag/rsbag/sensor"
	"github.com/rsbag/rsbag/usb"
)

// defaults lists the default profiles of d.
func defaults(d *usb.Device) []string {
	var out []string
	for _, s := range d.Sensors() {
		for _, p := range s.Profiles() {
			if p.Default {
				out = append(out, p.String())
			}
		}
	}
	slices.Sort(out)
	return out
}

// TestProductDefaults pins the default profiles per product line to
// librealsense's (get_profiles_tags in src/ds/d400/d400-factory.cpp:
// rs435i_device, rs435_device): a stream is a default only where the
// camera has it, color is RGB8 (converted from YUYV), the D435 has a
// 640x480 color default and no IMU, and on USB 2 the defaults are
// 640x480@15.
func TestProductDefaults(t *testing.T) {
	d435 := usbtest.D435Desc()
	usb2 := usbtest.D435iDesc()
	usb2.BCDUSB = 0x0210
	for _, tc := range []struct {
		name string
		desc usbio.DeviceDesc
		imu  bool
		want []string
	}{
		{"D435i", usbtest.D435iDesc(), true, []string{"Accel/0 MOTION_XYZ32F @63", "Color/0 RGB8 1280x720@30", "Depth/0 Z16 848x480@30", "Gyro/0 MOTION_XYZ32F @200"}},
		{"D435", d435, false, []string{"Color/0 RGB8 640x480@30", "Depth/0 Z16 848x480@30"}},
		{"D435i on USB 2", usb2, true, []string{"Accel/0 MOTION_XYZ32F @63", "Color/0 RGB8 640x480@15", "Depth/0 Z16 640x480@15", "Gyro/0 MOTION_XYZ32F @200"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fake := usbtest.NewDevice(tc.desc, usbtest.D435Config(tc.imu), usbtest.DefaultFirmware().OpenOps(tc.imu)...)
			d, err := usb.Open(usbio.WithTransport(context.Background(), usbtest.New(fake)), &usb.Options{Watchdog: time.Minute})
			if err != nil {
				t.Fatal(err)
			}
			defer d.Close()
			if got := defaults(d); fmt.Sprint(got) != fmt.Sprint(tc.want) {
				t.Errorf("defaults %v\nwant     %v", got, tc.want)
			}
			for _, s := range d.Sensors() {
				for _, p := range s.Profiles() {
					if p.Default && p.Stream == sensor.StreamColor && p.Format != sensor.FormatRGB8 {
						t.Errorf("default color %v, want RGB8", p)
					}
				}
			}
		})
	}
}

// TestColorConvertedOnHost: an RGB8 (or BGR8, Y8) color profile streams the
// camera's YUYV mode (format 1 of interface 4) and delivers each frame
// converted as librealsense converts it.
func TestColorConvertedOnHost(t *testing.T) {
	const w, h = 320, 180 // frame 9 of the color format
	for _, to := range []sensor.Format{sensor.FormatRGB8, sensor.FormatBGR8, sensor.FormatY8} {
		t.Run(to.String(), func(t *testing.T) {
			ops := append(probeOps(4, 0x0110, 1, 9, 333333, uint32(w*h*2)), stopOps(4, 0x84)...)
			d, fake, _ := openD435i(t, ops...)
			color := byName(d, "RGB Camera")
			p := find(color, sensor.StreamColor, to, w, h, 30)
			if p == nil {
				t.Fatalf("no %s %dx%d@30 color profile", to, w, h)
			}
			if err := color.Open(p); err != nil {
				t.Fatal(err)
			}
			col := newCollector()
			if err := color.Start(col); err != nil {
				t.Fatal(err)
			}
			img := image(w*h*2, 5)
			fake.Stream(0x84).Send(usbtest.Payload(usbtest.EOF, 2_000_000, usbtest.CaptureTiming(3, 1, 1), img))
			fs := col.wait(t, 1)
			if err := color.Stop(); err != nil {
				t.Fatal(err)
			}
			if err := d.Close(); err != nil {
				t.Fatal(err)
			}
			ob := map[sensor.Format]int{sensor.FormatRGB8: 3, sensor.FormatBGR8: 3, sensor.FormatY8: 1}[to]
			f := fs[0]
			if f.Profile != p || f.BPP != 8*ob || f.Stride != w*ob || len(f.Data) != w*h*ob {
				t.Fatalf("frame %v bpp %d stride %d len %d", f.Profile, f.BPP, f.Stride, len(f.Data))
			}
			// Pixel 0 and 1 share U and V (img[1], img[3]); spot checks with
			// the formula C = Y-16, D = U-128, E = V-128.
			for x := 0; x < 2; x++ {
				c, dd, e := int32(img[2*x])-16, int32(img[1])-128, int32(img[3])-128
				cl := func(v int32) byte { return byte(min(max(v>>8, 0), 255)) }
				r, g, b := cl(298*c+409*e+128), cl(298*c-100*dd-208*e+128), cl(298*c+516*dd+128)
				px := f.Data[x*ob : (x+1)*ob]
				want := map[sensor.Format][]byte{sensor.FormatRGB8: {r, g, b}, sensor.FormatBGR8: {b, g, r}, sensor.FormatY8: {img[2*x]}}[to]
				if string(px) != string(want) {
					t.Errorf("pixel %d: % d, want % d", x, px, want)
				}
			}
		})
	}
}
