package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/rsbag/rsbag/internal/testsupport/usbtest"
	"github.com/rsbag/rsbag/internal/usbio"
)

// fakeD435i is the scripted D435i of package usbtest (serial
// 012345678901) with the firmware replies of one open.
func fakeD435i() *usbtest.Device {
	return usbtest.NewDevice(usbtest.D435iDesc(), usbtest.D435Config(true), usbtest.DefaultFirmware().OpenOps(true)...)
}

// runIn runs the command line in this process with the given USB transport
// and returns its exit status and output.
func runIn(t testing.TB, tr usbio.Transport, args ...string) result {
	t.Helper()
	var o, e bytes.Buffer
	code := run(args, &env{stdout: &o, stderr: &e, usb: tr})
	return result{code: code, stdout: o.String(), stderr: e.String()}
}

// TestUnknownSerialIsAnError: a --device serial no camera has is an error
// naming the serial and the cameras found, for record and view, and
// nothing is written.
func TestUnknownSerialIsAnError(t *testing.T) {
	for _, tc := range []struct {
		name  string
		tr    func() usbio.Transport
		found string
	}{
		{"no camera", func() usbio.Transport { return usbtest.New() }, "no RealSense device found"},
		{"another camera", func() usbio.Transport { return usbtest.New(fakeD435i()) }, "among the 1 found: 012345678901 (Intel RealSense D435I)"},
	} {
		for _, args := range [][]string{{"record", "-t", "1"}, {"view", "--port", "0"}} {
			t.Run(tc.name+"/"+args[0], func(t *testing.T) {
				dir := t.TempDir()
				args := append(args, "--device", "123456")
				if args[0] == "record" {
					args = append(args, "-f", filepath.Join(dir, "e.bag"))
				}
				r := runIn(t, tc.tr(), args...)
				if r.code != exitError || !strings.Contains(r.stderr, "camera 123456: ") || !strings.Contains(r.stderr, tc.found) {
					t.Errorf("%v: exit %d, stderr %q: want 1 and an error naming 123456 and %q", args, r.code, r.stderr, tc.found)
				}
				if strings.Contains(r.stdout+r.stderr, "synthetic") {
					t.Errorf("%v fell back to the synthetic camera:\n%s%s", args, r.stdout, r.stderr)
				}
				if ents, _ := os.ReadDir(dir); len(ents) != 0 {
					t.Errorf("%v wrote %d files (%s ...)", args, len(ents), ents[0].Name())
				}
			})
		}
	}
}

// TestDevices lists the scripted D435i as rs-enumerate-devices does, in
// text and JSON; without a camera the command fails with librealsense's
// words.
func TestDevices(t *testing.T) {
	r := runIn(t, usbtest.New(fakeD435i()), "devices", "--json")
	if r.code != 0 {
		t.Fatalf("devices --json: exit %d\n%s", r.code, r.stderr)
	}
	var cams []cameraReport
	if err := json.Unmarshal([]byte(r.stdout), &cams); err != nil {
		t.Fatalf("devices --json: %v\n%s", err, r.stdout)
	}
	if len(cams) != 1 {
		t.Fatalf("%d cameras, want 1", len(cams))
	}
	c := cams[0]
	if c.Serial != "012345678901" || c.Name != "Intel RealSense D435I" || c.USBType != "3.2" || c.Firmware == "" {
		t.Errorf("camera %+v", c)
	}
	var sensors []string
	depthDefault := false
	for _, s := range c.Sensors {
		sensors = append(sensors, s.Name)
		for _, p := range s.Profiles {
			if p.Stream == "Depth" && p.Format == "Z16" && p.Width == 848 && p.Height == 480 && p.FPS == 30 && p.Default {
				depthDefault = true
			}
		}
	}
	if got := strings.Join(sensors, ","); got != "Stereo Module,RGB Camera,Motion Module" {
		t.Errorf("sensors %s", got)
	}
	if !depthDefault {
		t.Error("no default Depth Z16 848x480@30 profile listed")
	}

	r = runIn(t, usbtest.New(fakeD435i()), "devices")
	for _, want := range []string{"Serial Number                 : 012345678901", "Stream Profiles supported by Stereo Module",
		"Depth      848x480      Z16      @ 30 Hz (default)"} {
		if r.code != 0 || !strings.Contains(r.stdout, want) {
			t.Errorf("devices: exit %d, output lacks %q:\n%s", r.code, want, r.stdout)
		}
	}

	r = runIn(t, usbtest.New(), "devices")
	if r.code != exitError || strings.TrimSpace(r.stderr) != "rs-record: no RealSense device found" {
		t.Errorf("devices without a camera: exit %d, stderr %q", r.code, r.stderr)
	}
}

// TestVersion: --version prints the module, its version and the commit the
// binary was built from, as the Go toolchain recorded them in the binary.
func TestVersion(t *testing.T) {
	r := rsRecord(t, "--version")
	if r.code != 0 || !regexp.MustCompile(`^rs-record github\.com/rsbag/rsbag \S+( commit [0-9a-f]{40}(-modified)?)? go\S+\n$`).MatchString(r.stdout) {
		t.Fatalf("--version: exit %d, %q", r.code, r.stdout)
	}
	// The binary's own build information (a build outside a git work tree,
	// or with -buildvcs=false, records no commit).
	out, err := exec.Command("go", "version", "-m", binPath).Output()
	if err != nil {
		t.Fatal(err)
	}
	if m := regexp.MustCompile(`vcs\.revision=([0-9a-f]+)`).FindSubmatch(out); m != nil && !strings.Contains(r.stdout, " commit "+string(m[1])) {
		t.Errorf("--version %q does not name the commit %s", r.stdout, m[1])
	}
	for _, tc := range []struct {
		bi   debug.BuildInfo
		want string
	}{
		{debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Path: "github.com/rsbag/rsbag", Version: "v1.4.0"},
			Settings: []debug.BuildSetting{{Key: "vcs.revision", Value: "8db6971157daa11b9f7b50ed9c64a44d7d0c0ac6"}, {Key: "vcs.modified", Value: "false"}}},
			"rs-record github.com/rsbag/rsbag v1.4.0 commit 8db6971157daa11b9f7b50ed9c64a44d7d0c0ac6 go1.26.8"},
		{debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Path: "github.com/rsbag/rsbag", Version: "(devel)"},
			Settings: []debug.BuildSetting{{Key: "vcs.revision", Value: "8db6971157daa11b9f7b50ed9c64a44d7d0c0ac6"}, {Key: "vcs.modified", Value: "true"}}},
			"rs-record github.com/rsbag/rsbag (devel) commit 8db6971157daa11b9f7b50ed9c64a44d7d0c0ac6-modified go1.26.8"},
		{debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Path: "github.com/rsbag/rsbag"}},
			"rs-record github.com/rsbag/rsbag (devel) go1.26.8"},
	} {
		if got := formatVersion(&tc.bi); got != tc.want {
			t.Errorf("got  %q\nwant %q", got, tc.want)
		}
	}
}

// TestLiveDefaultsFromCamera: without stream flags, a live camera records
// its own default streams (librealsense's for its product line): a D435
// without IMU records depth and its 640x480 RGB8 color and no motion, where
// the D435i defaults used to ask it for an Accel stream; a flag given is
// kept.
func TestLiveDefaultsFromCamera(t *testing.T) {
	d435 := usbtest.D435Desc()
	for _, tc := range []struct {
		name string
		desc usbio.DeviceDesc
		imu  bool
		args []string
		want []string
	}{
		{"D435", d435, false, nil, []string{"Depth/0 Z16 848x480@30", "Color/0 RGB8 640x480@30"}},
		{"D435 with --color", d435, false, []string{"--color", "1280x720@15"}, []string{"Depth/0 Z16 848x480@30", "Color/0 RGB8 1280x720@15"}},
		{"D435i", usbtest.D435iDesc(), true, nil, []string{"Depth/0 Z16 848x480@30", "Color/0 RGB8 1280x720@30", "Accel/0 MOTION_XYZ32F @63", "Gyro/0 MOTION_XYZ32F @200"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fake := usbtest.NewDevice(tc.desc, usbtest.D435Config(tc.imu), usbtest.DefaultFirmware().OpenOps(tc.imu)...)
			e := &env{stdout: &bytes.Buffer{}, stderr: &bytes.Buffer{}, usb: usbtest.New(fake)}
			c, err := parseRecordFlags(e, tc.args)
			if err != nil {
				t.Fatal(err)
			}
			dev, synthetic, err := openRecordDevice(context.Background(), e, c)
			if err != nil || synthetic {
				t.Fatalf("open: %v (synthetic %v)", err, synthetic)
			}
			defer dev.Close()
			picks, err := pickProfiles(dev, c.fromCamera(dev))
			if err != nil {
				t.Fatalf("the camera's defaults: %v", err)
			}
			var got []string
			for _, p := range picks {
				got = append(got, p.p.String())
			}
			if strings.Join(got, ", ") != strings.Join(tc.want, ", ") {
				t.Errorf("picked %v\nwant   %v", got, tc.want)
			}
		})
	}
}

// TestRecordUSBCapturesTheCamera: --record-usb opens the camera through a
// recorder of its USB exchange and writes that exchange when the device is
// closed: one line per operation, the firmware commands of the open among
// them, as many as the scripted camera answered.
func TestRecordUSBCapturesTheCamera(t *testing.T) {
	trace := filepath.Join(t.TempDir(), "usb.txt")
	fake := fakeD435i()
	e := &env{stdout: &bytes.Buffer{}, stderr: &bytes.Buffer{}, usb: usbtest.New(fake)}
	c, err := parseRecordFlags(e, []string{"--record-usb", trace})
	if err != nil {
		t.Fatal(err)
	}
	dev, synthetic, err := openRecordDevice(context.Background(), e, c)
	if err != nil || synthetic {
		t.Fatalf("open: %v (synthetic %v)", err, synthetic)
	}
	if err := dev.Close(); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(trace)
	if err != nil {
		t.Fatal(err)
	}
	controls := 0
	for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		if strings.HasPrefix(l, "control ") {
			controls++
		}
	}
	if want := len(usbtest.DefaultFirmware().OpenOps(true)); controls < want {
		t.Errorf("trace has %d control transfers, want at least the %d of the open:\n%s", controls, want, b)
	}
}
