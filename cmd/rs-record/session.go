package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/rsbag/rsbag/device"
	"github.com/rsbag/rsbag/internal/rigfiles"
	"github.com/rsbag/rsbag/internal/tools/damage"
	"github.com/rsbag/rsbag/rig"
	"github.com/rsbag/rsbag/sensor"
	"github.com/rsbag/rsbag/usb"
)

// runRecordSession records several cameras together (--devices, --device):
// one bag per camera and the session manifest (package rig).
func runRecordSession(ctx context.Context, e *env, c *recordConfig) error {
	devs, synthetic, err := openSessionDevices(ctx, e, c)
	if err != nil {
		return err
	}
	defer func() {
		for _, d := range devs {
			d.Close()
		}
	}()
	if !synthetic && c.film.truth {
		return errNoTruth
	}
	// Every camera must meet the request before any file is created.
	picks := make([][]pick, len(devs))
	for i, d := range devs {
		dc := c
		if !synthetic {
			dc = c.fromCamera(d)
		}
		if picks[i], err = pickProfiles(d, dc); err != nil {
			return fmt.Errorf("camera %s: %w", d.Info()[sensor.CameraInfoSerialNumber], err)
		}
	}
	files := []string{rigfiles.ManifestPath(c.file)}
	for _, d := range devs {
		files = append(files, rigfiles.BagPath(c.file, d.Info()[sensor.CameraInfoSerialNumber]))
	}
	if err := refuseExisting(c.force, files...); err != nil {
		return err
	}
	r, err := rig.Create(c.file, devs, recordOptions(c, synthetic, devs...))
	if err != nil {
		return fileError(c.file, err)
	}
	sts := make([]*streams, len(devs))
	for i, rec := range r.Devices {
		if sts[i], err = startStreams(rec, picks[i], c); err != nil {
			for _, st := range sts[:i] {
				st.stop()
			}
			r.Close()
			for _, p := range append(r.Paths, r.ManifestFile) {
				os.Remove(p) // nothing was recorded
			}
			return fileError(r.Paths[i], err)
		}
	}
	started := time.Now()
	limit, stopLimit := timeLimit(c.seconds)
	defer stopLimit()
	allDone := make(chan struct{})
	go func() {
		for _, st := range sts {
			<-st.done
		}
		close(allDone)
	}()
	recordUntil(ctx, limit, allDone, func() bool {
		for _, rec := range r.Devices {
			if rec.Stats().Err != nil {
				return false
			}
		}
		return true
	})
	elapsed := time.Since(started)
	var errs []error
	for i, st := range sts {
		if err := st.stop(); err != nil {
			errs = append(errs, fileError(r.Paths[i], err))
		}
	}
	for i, rec := range r.Devices {
		if err := rec.Close(); err != nil {
			errs = append(errs, fileError(r.Paths[i], err))
			continue
		}
		fmt.Fprintln(e.stdout, summaryLine("recorded", r.Paths[i], recordSummary(sts[i], rec.Stats(), elapsed, r.Paths[i])))
		if l := cameraLosses(devs[i]); l != "" {
			fmt.Fprintln(e.stdout, l)
		}
	}
	fmt.Fprintf(e.stdout, "session %s: %d bags\n", r.ManifestFile, len(r.Paths))
	return errors.Join(errs...)
}

// openSessionDevices opens the cameras of a session: the live cameras
// named by --device (or the first --devices N), or, with --synthetic or
// when no camera is attached, that many synthetic cameras with distinct
// serial numbers.
func openSessionDevices(ctx context.Context, e *env, c *recordConfig) ([]device.Device, bool, error) {
	n := max(c.devices, len(c.serials))
	devs, synthetic, err := device.LiveOrSynthetic(c.synthetic, len(c.serials) > 0,
		func() ([]device.Device, error) { return openLiveCameras(ctx, e, c, n) },
		func(liveErr error) ([]device.Device, error) {
			if liveErr != nil {
				fmt.Fprintf(e.stderr, "%s: %s; recording %d synthetic cameras\n", progName, noCamera(liveErr), n)
			}
			return openSynthetics(c, n)
		})
	switch {
	case err == nil:
		return devs, synthetic, nil
	case synthetic:
		err = fmt.Errorf("synthetic camera: %w", err)
	default:
		err = fmt.Errorf("open cameras: %w (use --synthetic to record synthetic cameras)", err)
	}
	return nil, synthetic, err
}

// openSynthetics opens n synthetic cameras with distinct serial numbers:
// those of --device, else the synthetic camera's own counted up.
func openSynthetics(c *recordConfig, n int) ([]device.Device, error) {
	var devs []device.Device
	base := ""
	for i := range n {
		serial := ""
		switch {
		case len(c.serials) > 0:
			serial = c.serials[i]
		case i > 0:
			serial = nextSerial(base, i)
		}
		d, err := openSynthetic(c, serial)
		if err != nil {
			for _, d := range devs {
				d.Close()
			}
			return nil, err
		}
		if i == 0 {
			base = d.Info()[sensor.CameraInfoSerialNumber]
		}
		devs = append(devs, d)
	}
	return devs, nil
}

// nextSerial is the serial number of the i-th synthetic camera of a
// session: the synthetic camera's own (base) counted up by i, or base-i
// when it is not a number.
func nextSerial(base string, i int) string {
	if v, err := strconv.ParseUint(base, 10, 64); err == nil {
		return strconv.FormatUint(v+uint64(i), 10)
	}
	return base + "-" + strconv.Itoa(i)
}

// openLiveCameras opens n live cameras: those named by --device, else the
// first n found.
func openLiveCameras(ctx context.Context, e *env, c *recordConfig, n int) ([]device.Device, error) {
	serials := c.serials
	if len(serials) == 0 {
		cams, err := listCameras(ctx, e)
		if err != nil {
			return nil, err
		}
		if len(cams) < n {
			return nil, fmt.Errorf("%d cameras requested, %d found", n, len(cams))
		}
		for _, cam := range cams[:n] {
			serials = append(serials, cam.Info[sensor.CameraInfoSerialNumber])
		}
	}
	var devs []device.Device
	for _, sn := range serials {
		d, err := usb.Open(e.usbContext(ctx), &usb.Options{Serial: sn})
		if err != nil {
			for _, d := range devs {
				d.Close()
			}
			return nil, fmt.Errorf("camera %s: %w", sn, err)
		}
		devs = append(devs, d)
	}
	return devs, nil
}

// runPlaySession plays several bags of one session (or its manifest)
// together and prints the frames per device and stream.
func runPlaySession(ctx context.Context, e *env, c *playConfig) error {
	startAt, endAt := c.window()
	label := strings.Join(c.paths, " ")
	s, err := rig.Open(c.paths, &rig.Options{NonRealTime: !c.realtime, Speed: c.rate, Start: startAt, End: endAt})
	if err != nil {
		return fileError(label, err)
	}
	defer s.Close()
	serials := s.Serials()
	// Counters per device and stream, made before the first frame.
	p := &playStreams{streams: streams{keys: map[streamKey]int{}}}
	index := map[[2]int]int{} // device, uid → counter
	for i, d := range s.Devices() {
		for _, sn := range d.Sensors() {
			for _, pr := range sn.Profiles() {
				if c.selected(pr) {
					index[[2]int{i, pr.UID}] = len(p.names)
					p.names = append(p.names, serials[i]+" "+pr.Name())
				}
			}
		}
	}
	if len(p.names) == 0 {
		return fileError(label, fmt.Errorf("no stream matches --streams %s", strings.Join(c.streams, ",")))
	}
	p.counts = make([]atomic.Uint64, len(p.names))
	// In real time, reading begins with a device's first started sensor;
	// starting them all while paused gives every stream its first frames.
	if err := s.Pause(); err != nil {
		return fileError(label, err)
	}
	err = s.Start(func(dev int, p2 *sensor.StreamProfile) bool { return c.selected(p2) }, func(dev int, _ time.Duration, f *sensor.Frame) {
		if i, ok := index[[2]int{dev, f.Profile.UID}]; ok {
			p.counts[i].Add(1)
			p.bytes.Add(int64(len(f.Data)))
		}
	})
	if err == nil {
		err = s.Resume()
	}
	if err != nil {
		return fileError(label, err)
	}
	// snap adds the bytes delivered and the frames each device dropped.
	snap := func(elapsed time.Duration) *snapshot {
		sn := p.streams.snapshot(elapsed)
		sn.Bytes = p.bytes.Load()
		for i, d := range s.Devices() {
			for _, ps := range d.Stats() {
				if ps.Profile == nil {
					continue
				}
				if k, ok := index[[2]int{i, ps.Profile.UID}]; ok {
					sn.Streams[k].Drops = ps.Dropped
					sn.Drops += ps.Dropped
				}
			}
		}
		return sn
	}
	line := &liveLine{w: e.stdout}
	started := time.Now()
	runErr := controlLoop(ctx, e, s, s.Done(), func(prev *snapshot) *snapshot {
		cur := snap(time.Since(started))
		out := progressLine(prev, cur)
		line.show(fmt.Sprintf("%s / %s  %s", fmtSecs(s.Position()), fmtSecs(s.Duration()), s.Status()) + out[strings.IndexByte(out, 's')+1:])
		return cur
	})
	elapsed := time.Since(started)
	stopErr := s.Stop()
	final := snap(elapsed)
	closeErr := s.Close()
	line.clear()
	if err := errors.Join(runErr, stopErr, closeErr, s.Err()); err != nil {
		return fileError(label, err)
	}
	for _, st := range final.Streams {
		fps := 0.0
		if elapsed > 0 {
			fps = float64(st.Frames) / elapsed.Seconds()
		}
		fmt.Fprintf(e.stdout, "%-24s %8d frames %8.2f fps %6d dropped\n", st.Name, st.Frames, fps, st.Drops)
	}
	fmt.Fprintln(e.stdout, summaryLine("played", label, final))
	var errs []error
	for _, d := range s.Devices() {
		errs = append(errs, reportDamage(e, d.Filename(), damage.FromPlayback(d), c.allow))
	}
	return errors.Join(errs...)
}

// listCameras lists the cameras of e.usb, or of libusb.
func listCameras(ctx context.Context, e *env) ([]usb.Camera, error) {
	return usb.Devices(e.usbContext(ctx))
}
