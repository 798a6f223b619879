package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"os"
	"os/signal"
	"runtime/debug"
	"slices"
	"syscall"

	"github.com/rsbag/rsbag/internal/buildinfo"
	"github.com/rsbag/rsbag/internal/usbio"
	"github.com/rsbag/rsbag/sensor"
	"github.com/rsbag/rsbag/usb"
)

// cameraReport is one attached camera as "rs-record devices" lists it
// (librealsense's rs-enumerate-devices): its camera info, and every sensor
// with its stream profiles.
type cameraReport struct {
	Name     string         `json:"name"`
	Serial   string         `json:"serial"`
	Firmware string         `json:"firmware,omitempty"`
	USBType  string         `json:"usb_type,omitempty"`
	Info     []infoField    `json:"info"`
	Sensors  []sensorReport `json:"sensors"`
}

type infoField struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

type sensorReport struct {
	Name     string          `json:"name"`
	Profiles []profileReport `json:"profiles"`
}

type profileReport struct {
	Stream  string `json:"stream"`
	Index   int    `json:"index"`
	Format  string `json:"format"`
	Width   int    `json:"width,omitempty"`
	Height  int    `json:"height,omitempty"`
	FPS     int    `json:"fps"`
	Default bool   `json:"default,omitempty"`
}

func runDevices(e *env, args []string) error {
	fs := newFlagSet(e, "devices", "devices [--json]\n\n"+
		"Lists the attached RealSense cameras, as librealsense's rs-enumerate-devices: name, serial number,\n"+
		"firmware, USB type and the other camera info, then every sensor with its stream profiles (the\n"+
		"default ones marked). Without a camera it fails with \"no RealSense device found\".")
	asJSON := fs.Bool("json", false, "print the cameras as one JSON array")
	pos, err := parseArgs(fs, "devices", args)
	if err != nil {
		return err
	}
	if len(pos) != 0 {
		return usageErrorf("devices", "takes no arguments, got %d", len(pos))
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	cams, err := describeCameras(ctx, e.usb)
	if err != nil {
		return err
	}
	if *asJSON {
		enc := json.NewEncoder(e.stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(cams)
	}
	writeCameras(e.stdout, cams)
	return nil
}

// describeCameras opens every camera t sees (nil: libusb) and describes it.
func describeCameras(ctx context.Context, t usbio.Transport) ([]cameraReport, error) {
	if t == nil {
		dt, err := usbio.Default()
		if err != nil {
			return nil, err
		}
		defer dt.Close()
		t = dt
	}
	ctx = usbio.WithTransport(ctx, t)
	found, err := usb.Devices(ctx)
	if err != nil {
		return nil, err
	}
	var out []cameraReport
	for _, cam := range found {
		sn := cam.Info[sensor.CameraInfoSerialNumber]
		dev, err := usb.Open(ctx, &usb.Options{Serial: sn})
		if err != nil {
			return nil, fmt.Errorf("camera %s: %w", sn, err)
		}
		info := dev.Info()
		r := cameraReport{Name: info[sensor.CameraInfoName], Serial: sn,
			Firmware: info[sensor.CameraInfoFirmwareVersion], USBType: info[sensor.CameraInfoUsbTypeDescriptor]}
		for _, k := range slices.Sorted(maps.Keys(info)) {
			r.Info = append(r.Info, infoField{k.String(), info[k]})
		}
		for _, s := range dev.Sensors() {
			sr := sensorReport{Name: s.Info()[sensor.CameraInfoName], Profiles: []profileReport{}}
			for _, p := range s.Profiles() {
				sr.Profiles = append(sr.Profiles, profileReport{Stream: p.Stream.String(), Index: p.Index, Format: p.Format.String(),
					Width: p.Width, Height: p.Height, FPS: p.FPS, Default: p.Default})
			}
			r.Sensors = append(r.Sensors, sr)
		}
		if err := dev.Close(); err != nil {
			return nil, fmt.Errorf("camera %s: %w", sn, err)
		}
		out = append(out, r)
	}
	return out, nil
}

// writeCameras prints cams as rs-enumerate-devices does: the camera info,
// then the profiles of each sensor, one a line.
func writeCameras(w io.Writer, cams []cameraReport) {
	for i, c := range cams {
		if i > 0 {
			fmt.Fprintln(w)
		}
		fmt.Fprintln(w, "Device info:")
		for _, f := range c.Info {
			fmt.Fprintf(w, "    %-30s: %s\n", f.Name, f.Value)
		}
		for _, s := range c.Sensors {
			fmt.Fprintf(w, "\nStream Profiles supported by %s\n", s.Name)
			fmt.Fprintf(w, "    %-10s %-12s %-8s %s\n", "STREAM", "RESOLUTION", "FORMAT", "FPS")
			for _, p := range s.Profiles {
				res := "N/A"
				if p.Width > 0 {
					res = fmt.Sprintf("%dx%d", p.Width, p.Height)
				}
				name := p.Stream
				if p.Index > 0 {
					name = fmt.Sprintf("%s %d", p.Stream, p.Index)
				}
				def := ""
				if p.Default {
					def = " (default)"
				}
				fmt.Fprintf(w, "    %-10s %-12s %-8s @ %d Hz%s\n", name, res, p.Format, p.FPS, def)
			}
		}
	}
}

// versionLine is what --version prints: the module version and the commit
// it was built from (with "-modified" when the work tree had changes), as
// the Go toolchain records them in the binary.
func versionLine() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return progName + " (no build information)"
	}
	return formatVersion(bi)
}

// formatVersion formats the build information bi as --version prints it.
func formatVersion(bi *debug.BuildInfo) string {
	return fmt.Sprintf("%s %s %s %s", progName, bi.Main.Path, buildinfo.Version(bi), bi.GoVersion)
}
