// Command units records a camera (or, when none is attached, the synthetic
// camera) together with what an example graph of units makes of it, into
// one bag:
//
//	go run ./examples/units -t 3 -f robot.bag
//
// The graph (graph.go) finds the nearest obstacle in depth, the pitch from
// the accelerometer, and warns when the camera tilts toward a near
// obstacle. The bag plays in librealsense and rs-record as any recording
// (the outputs are extra topics), and main_test.go replays it through the
// same graph deterministically, as CI does, comparing with what the robot
// published.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"sort"
	"time"

	"github.com/rsbag/rsbag/device"
	"github.com/rsbag/rsbag/record"
	"github.com/rsbag/rsbag/sensor"
	"github.com/rsbag/rsbag/software"
	"github.com/rsbag/rsbag/units"
	_ "github.com/rsbag/rsbag/usb" // live cameras
)

func main() {
	os.Exit(run(context.Background(), os.Args[1:], os.Stdout, os.Stderr))
}

// run is the program: exit status 0 ok, 1 error, 2 usage.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("units", flag.ContinueOnError)
	fs.SetOutput(stderr)
	secs := fs.Float64("t", 3, "record for `SECONDS`")
	file := fs.String("f", "robot.bag", "write the recording to `PATH`")
	synthetic := fs.Bool("synthetic", false, "record the synthetic camera even if a camera is attached")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if *secs <= 0 || fs.NArg() > 0 {
		fmt.Fprintln(stderr, "units: usage: units [-t SECONDS] [-f PATH] [--synthetic]; -t must be > 0")
		return 2
	}
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt)
	defer stop()
	dev, err := openCamera(ctx, *synthetic, stderr)
	if err != nil {
		fmt.Fprintf(stderr, "units: %v\n", err)
		return 1
	}
	defer dev.Close()
	if err := recordGraph(ctx, dev, *file, time.Duration(*secs*float64(time.Second)), stdout); err != nil {
		fmt.Fprintf(stderr, "units: %v\n", err)
		return 1
	}
	return 0
}

// openCamera opens the first camera (package usb, imported for its
// cameras, registers them), or the synthetic camera.
func openCamera(ctx context.Context, synthetic bool, stderr io.Writer) (device.Device, error) {
	dev, isSynthetic, err := device.LiveOrSynthetic(synthetic, false,
		func() (device.Device, error) { return device.OpenCamera(ctx, "") },
		func(liveErr error) (device.Device, error) {
			if liveErr != nil {
				fmt.Fprintln(stderr, "units: no RealSense camera found; recording the synthetic camera")
			}
			return software.NewSynthetic(SyntheticConfig(0))
		})
	switch {
	case err == nil:
		return dev, nil
	case isSynthetic:
		return nil, err
	default:
		return nil, fmt.Errorf("open camera: %w (use --synthetic for the synthetic camera)", err)
	}
}

// SyntheticConfig is the synthetic camera the example records: depth
// 640x480 and the accelerometer at 100 Hz, in real time, for d (0: until
// stopped).
func SyntheticConfig(d time.Duration) software.SyntheticConfig {
	return software.SyntheticConfig{
		Depth:    &software.Video{Width: 640, Height: 480, FPS: 30, Format: sensor.FormatZ16},
		AccelFPS: 100,
		Duration: d,
		Speed:    1,
	}
}

// recordGraph runs the graph live on dev for d, recording the camera and
// the graph's outputs into the bag at path.
func recordGraph(ctx context.Context, dev device.Device, path string, d time.Duration, stdout io.Writer) error {
	g, err := NewGraph(DefaultParams)
	if err != nil {
		return err
	}
	rec, err := record.Create(dev, path, nil)
	if err != nil {
		return err
	}
	l, err := units.Start(ctx, g, []device.Device{rec}, &units.LiveOptions{Record: rec})
	if err != nil {
		rec.Close()
		os.Remove(path)
		return err
	}
	select {
	case <-time.After(d):
	case <-ctx.Done():
	}
	runErr := l.Stop()
	if err := rec.Close(); err != nil {
		return err
	}
	stats := l.Stats()
	var names []string
	for k := range stats {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		s := stats[k]
		fmt.Fprintf(stdout, "%-18s %6d calls %4d dropped %d errors\n", k, s.Calls, s.Dropped, s.Errors)
	}
	fmt.Fprintf(stdout, "recorded %s: %d frames and the outputs of %d units\n", path, rec.Stats().Frames, len(g.Units()))
	return runErr
}
