package main

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/signal"
	"strconv"
	"syscall"

	"github.com/rsbag/rsbag/cmd/rs-record/internal/viewer"
	"github.com/rsbag/rsbag/device"
	"github.com/rsbag/rsbag/playback"
	"github.com/rsbag/rsbag/sensor"
)

// defaultViewPort is the port rs-record view listens on unless told
// otherwise (--port 0 picks a free one).
const defaultViewPort = 8765

// viewConfig holds the flags of "rs-record view".
type viewConfig struct {
	path      string // the bag; "" shows a camera
	addr      string // listen address
	loop      bool
	autoplay  bool
	open      bool
	synthetic bool
	serial    string // --device: the camera to show
}

func parseViewFlags(e *env, args []string) (*viewConfig, error) {
	c := &viewConfig{}
	fs := newFlagSet(e, "view", "view [flags] [BAG]\n\n"+
		"Serves a viewer of BAG (or, without BAG, of the attached camera, or the synthetic camera when none is\n"+
		"attached) to the browser: every stream side by side, depth colorized, IMU plots, the device's options,\n"+
		"a timeline with play/pause, step, seek, speed and loop, a 3D point cloud, the depth filters, a ruler and\n"+
		"snapshots, and the unit outputs recorded in BAG (their values at the position); a camera's options are set and the camera recorded (into the current directory) from the page.\n"+
		"BAG may be a URL, as for info; it opens paused at its first frames until a page presses play (--autoplay\n"+
		"plays at once). The first line printed is the page's URL.\n"+
		"The server listens on 127.0.0.1 only unless --listen says otherwise; beyond loopback it prints one URL\n"+
		"per address, each with a token the page and its WebSocket need. Ctrl-C stops it.")
	port := fs.Int("port", defaultViewPort, "listen on 127.0.0.1:`N` (0: any free port)")
	fs.StringVar(&c.addr, "listen", "", "listen on `ADDR` (host:port) instead, e.g. 0.0.0.0:8765 to expose the viewer to the network")
	fs.BoolVar(&c.loop, "loop", false, "play the bag again from the start when it ends")
	fs.BoolVar(&c.autoplay, "autoplay", false, "play the bag at once (without it the bag opens paused at its first frames)")
	fs.BoolVar(&c.open, "open", false, "open the page in the default browser")
	fs.BoolVar(&c.synthetic, "synthetic", false, "show the synthetic camera even when a camera is attached")
	fs.StringVar(&c.serial, "device", "", "show the camera with serial number `SERIAL` (an error when none has it)")
	pos, err := parseArgs(fs, "view", args)
	if err != nil {
		return nil, err
	}
	if len(pos) > 1 {
		return nil, usageErrorf("view", "want at most one BAG, got %d arguments", len(pos))
	}
	if len(pos) == 1 {
		c.path = pos[0]
	}
	if flagSet(fs, "listen") && flagSet(fs, "port") {
		return nil, usageErrorf("view", "--port and --listen exclude each other")
	}
	if *port < 0 || *port > 65535 {
		return nil, usageErrorf("view", "--port: %d is not a port (0 to 65535)", *port)
	}
	if c.addr == "" {
		c.addr = net.JoinHostPort("127.0.0.1", strconv.Itoa(*port))
	} else if _, _, err := net.SplitHostPort(c.addr); err != nil {
		return nil, usageErrorf("view", "--listen %q: want HOST:PORT (%v)", c.addr, err)
	}
	if c.path != "" && (c.synthetic || c.serial != "") {
		return nil, usageErrorf("view", "--synthetic and --device show a camera; they cannot be given with a BAG")
	}
	if c.path == "" && c.autoplay {
		return nil, usageErrorf("view", "--autoplay plays a BAG; a camera streams at once")
	}
	return c, nil
}

func runView(e *env, args []string) error {
	c, err := parseViewFlags(e, args)
	if err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()

	var (
		dev     device.Device
		cfg     viewer.Config
		cameras viewer.Cameras
	)
	if c.path != "" {
		// A path or a URL, opened as by the other commands (the viewer
		// seeks in the bag: a FIFO or a device is refused).
		pb, err := playback.Open(c.path, nil)
		if err != nil {
			return fileError(c.path, err)
		}
		dev, cfg.Device = pb, pb
	} else {
		rc, err := parseRecordFlags(e, nil) // the record command's default streams
		if err != nil {
			return err
		}
		rc.synthetic = c.synthetic
		if c.serial != "" {
			rc.serials = []string{c.serial}
		}
		rc.frames = 0
		var synthetic bool
		if cfg, synthetic, err = viewCamera(ctx, e, rc); err != nil {
			return err
		}
		dev = cfg.Device
		if !synthetic {
			// The page switches to another attached camera.
			cameras = &usbCameras{e: e, rc: rc}
		}
	}
	defer dev.Close()

	ln, err := net.Listen("tcp", c.addr)
	if err != nil {
		return fmt.Errorf("listen on %s: %w", c.addr, err)
	}
	defer ln.Close()
	cfg.Loop, cfg.Autoplay, cfg.Cameras = c.loop, c.autoplay, cameras
	beyond := !ln.Addr().(*net.TCPAddr).IP.IsLoopback()
	if beyond {
		// Beyond loopback the token, printed once in the URLs, guards the
		// page and its WebSocket.
		cfg.Token = rand.Text()
		if host, _, _ := net.SplitHostPort(c.addr); host != "" && net.ParseIP(host) == nil {
			cfg.Hosts = []string{host}
		}
	}
	srv, err := viewer.Start(cfg)
	if err != nil {
		return fileError(c.path, err)
	}
	defer srv.Close()
	urls := srv.PageURLs(ln.Addr())
	if len(urls) == 0 {
		return fmt.Errorf("listen on %s: no address of this machine to reach it at", c.addr)
	}
	for _, u := range urls {
		fmt.Fprintln(e.stdout, u)
	}
	if beyond {
		where := "on " + ln.Addr().String()
		if ln.Addr().(*net.TCPAddr).IP.IsUnspecified() {
			where = "on all interfaces (" + ln.Addr().String() + ")"
		}
		fmt.Fprintf(e.stderr, "%s: warning: the viewer listens beyond loopback, %s: anyone who can reach this machine and has the token in the URLs above can watch and control it\n", progName, where)
	}
	url := urls[0]
	if c.open {
		if err := exec.Command("xdg-open", url).Start(); err != nil {
			fmt.Fprintf(e.stderr, "%s: cannot open a browser (%v); open %s yourself\n", progName, err, url)
		}
	}
	if err := srv.Serve(ctx, ln); err != nil && !errors.Is(err, context.Canceled) {
		return err
	}
	return nil
}

// viewCamera opens the camera of rc (the synthetic one when rc says so or,
// without a serial, when none is attached) and returns the viewer's Config
// that shows its default streams and records it into the current directory.
func viewCamera(ctx context.Context, e *env, rc *recordConfig) (viewer.Config, bool, error) {
	cam, synthetic, err := openRecordDevice(ctx, e, rc)
	if err != nil {
		return viewer.Config{}, false, err
	}
	if !synthetic {
		rc = rc.fromCamera(cam)
	}
	picks, err := pickProfiles(cam, rc)
	if err != nil {
		cam.Close()
		return viewer.Config{}, false, err
	}
	cfg := viewer.Config{Device: cam, RecordOptions: recordOptions(rc, synthetic)}
	for _, p := range picks {
		cfg.Profiles = append(cfg.Profiles, p.p)
	}
	// The page records the camera into the directory view was started in.
	if cfg.RecordDir, err = os.Getwd(); err != nil {
		cam.Close()
		return viewer.Config{}, false, fmt.Errorf("record from the page: %w", err)
	}
	return cfg, synthetic, nil
}

// usbCameras are the attached cameras a page switches to.
type usbCameras struct {
	e  *env
	rc *recordConfig // the view's streams, before the first camera's defaults
}

func (u *usbCameras) List(ctx context.Context) ([]viewer.Camera, error) {
	cams, err := listCameras(ctx, u.e)
	if err != nil {
		return nil, err
	}
	out := make([]viewer.Camera, 0, len(cams))
	for _, c := range cams {
		out = append(out, viewer.Camera{Serial: c.Info[sensor.CameraInfoSerialNumber], Name: c.Info[sensor.CameraInfoName]})
	}
	return out, nil
}

func (u *usbCameras) Open(ctx context.Context, serial string) (viewer.Config, error) {
	rc := *u.rc
	rc.serials, rc.synthetic = []string{serial}, false
	cfg, _, err := viewCamera(ctx, u.e, &rc)
	return cfg, err
}
