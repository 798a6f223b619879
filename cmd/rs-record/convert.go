package main

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/rsbag/rsbag/internal/outfile"
	"github.com/rsbag/rsbag/internal/tools/convert"
	"github.com/rsbag/rsbag/playback"
	"github.com/rsbag/rsbag/sensor"
)

const convertSynopsis = "convert [-p|-r|-v|-b|-l PREFIX]... [-d|-c] [-s T] [-e T] [--frames A:B] BAG\n\n" +
	"Writes the frames of a bag to files, as librealsense's rs-convert does, under the\n" +
	"same names: PREFIX_<stream>_<timestamp>.<ext> and, for each, its metadata in\n" +
	"PREFIX_<stream>_metadata_<timestamp>.txt.\n" +
	"  -p  PNG pictures: depth colorized with the default colorizer; BGR8 and BGRA8\n" +
	"      with their colors right, YUYV and UYVY converted to RGB, Y16 as 16-bit gray\n" +
	"      (rs-convert writes their bytes as they are, which swaps red and blue, makes\n" +
	"      YUYV gray and alpha and loses the byte order of Y16)\n" +
	"  -r  RAW frame bytes, stride x height\n" +
	"  -v  CSV depth matrices in meters (six significant digits) and one CSV of the\n" +
	"      IMU and pose samples, PREFIX_<local time>_imu_pose.csv\n" +
	"  -b  BIN depth matrices, little-endian float32 meters\n" +
	"  -l  PLY point clouds of depth colored by the color frame nearest in time,\n" +
	"      PREFIX_<depth timestamp>.ply (binary; --ply-text for text); rs-convert's\n" +
	"      pipeline hands each depth frame the color frame it last held, which can be\n" +
	"      the previous one\n" +
	"The bag is played without dropping a frame; both cores write files, each under\n" +
	"its final name only once complete. A bag without index is read through\n" +
	"recovery, and said so; a damaged one is converted as far as it can be read, the\n" +
	"loss is listed and the exit status is 3."

func runConvert(e *env, args []string) error {
	fs := newFlagSet(e, "convert", convertSynopsis)
	var o convert.Options
	for _, f := range []struct {
		p           *string
		short, long string
		what        string
	}{
		{&o.PNG, "p", "output-png", "PNG pictures"},
		{&o.RAW, "r", "output-raw", "RAW frames"},
		{&o.CSV, "v", "output-csv", "CSV depth matrices and the IMU/pose CSV"},
		{&o.BIN, "b", "output-bin", "BIN depth matrices"},
		{&o.PLY, "l", "output-ply", "PLY point clouds"},
	} {
		fs.StringVar(f.p, f.long, "", "write "+f.what+" under the path `PREFIX`")
		fs.StringVar(f.p, f.short, "", "alias:"+f.long)
	}
	input := fs.String("input", "", "the `BAG` (or give it as the argument)")
	fs.StringVar(input, "i", "", "alias:input")
	fs.BoolVar(&o.PLYText, "ply-text", false, "write PLY files as text instead of binary")
	depth := fs.Bool("depth", false, "convert only depth frames (PNG, RAW, CSV)")
	fs.BoolVar(depth, "d", false, "alias:depth")
	color := fs.Bool("color", false, "convert only color frames (PNG, RAW)")
	fs.BoolVar(color, "c", false, "alias:color")
	var start, end time.Duration
	timeFlag(fs, &start, "start-time", 0, "skip frames before position `T` (seconds, or a duration such as 1500ms, from the start of the recording, as play shows it)")
	fs.Var(timeValue{&start}, "s", "alias:start-time")
	timeFlag(fs, &end, "end-time", 0, "skip frames after position `T` (0: to the end)")
	fs.Var(timeValue{&end}, "e", "alias:end-time")
	frames := fs.String("frames", "", "convert only frames whose number is in `A:B` (inclusive; A: or :B leave a side open)")
	allow := fs.Bool("allow-damaged", false, allowDamagedUsage)
	pos, err := parseArgs(fs, "convert", args)
	if err != nil {
		return err
	}
	if *input != "" {
		pos = append([]string{*input}, pos...)
	}
	switch {
	case len(pos) != 1:
		return usageErrorf("convert", "want exactly one BAG, got %d arguments", len(pos))
	case o.PNG == "" && o.RAW == "" && o.CSV == "" && o.BIN == "" && o.PLY == "":
		return usageErrorf("convert", "choose an output: -p, -r, -v, -b or -l PREFIX")
	case *depth && *color:
		return usageErrorf("convert", "-d and -c exclude each other")
	case end != 0 && end < start:
		return usageErrorf("convert", "-e %s is before -s %s", fmtTime(end), fmtTime(start))
	}
	switch {
	case *depth:
		o.Stream = sensor.StreamDepth
	case *color:
		o.Stream = sensor.StreamColor
	}
	if *frames != "" {
		r, err := parseFrameRange(*frames)
		if err != nil {
			return usageErrorf("convert", "--frames %q: %v", *frames, err)
		}
		o.Frames = r
	}
	o.Start, o.End = start, end
	bag := pos[0]
	if err := regularFile(bag); err != nil {
		return fileError(bag, err)
	}
	for _, p := range []string{o.PNG, o.RAW, o.CSV, o.BIN, o.PLY} {
		if err := writableDir(p); err != nil {
			return err
		}
	}

	if start > 0 || end > 0 {
		if first, last := spanOf(bag); last > 0 && !inWindow(start, end, first, last) {
			return fileError(bag, windowError("-s", "-e", start, end, first, last, nil))
		}
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	line := &liveLine{w: e.stdout}
	if e.stdoutTTY {
		var last time.Time
		o.Progress = func(pos, dur time.Duration) {
			if now := time.Now(); now.Sub(last) >= 200*time.Millisecond && dur > 0 {
				last = now
				line.show(progressBar(pos, dur))
			}
		}
	}
	started := time.Now()
	res, err := convert.Run(ctx, bag, o)
	line.clear()
	if err != nil {
		if errors.Is(err, playback.ErrOutOfRange) {
			first, last := spanOf(bag)
			err = windowError("-s", "-e", start, end, first, last, err)
		}
		if res != nil && res.Files > 0 {
			err = fmt.Errorf("%w (the %d files written before are complete)", err, res.Files)
		}
		return fileError(bag, err)
	}
	for _, out := range res.Outputs() {
		var parts []string
		for _, s := range sortedKeys(res.Converted[out]) {
			parts = append(parts, fmt.Sprintf("%s %d", s, res.Converted[out][s]))
		}
		fmt.Fprintf(e.stdout, "%-4s %s\n", out, strings.Join(parts, ", "))
	}
	for _, k := range sortedKeys(res.Skipped) {
		fmt.Fprintf(e.stderr, "%s: %s: not converted: %s\n", progName, k, res.Skipped[k])
	}
	secs := time.Since(started).Seconds()
	fmt.Fprintf(e.stdout, "converted %s: %d files, %.1f MB in %.2f s\n", bag, res.Files, float64(res.Bytes)/1e6, secs)
	return reportDamage(e, bag, res.Damage, *allow)
}

// progressBar is "[#####.....]  42%  1.2 s / 3.0 s".
func progressBar(pos, dur time.Duration) string {
	const width = 30
	frac := min(max(float64(pos)/float64(dur), 0), 1)
	n := int(frac * width)
	return fmt.Sprintf("[%s%s] %3d%%  %s / %s", strings.Repeat("#", n), strings.Repeat(".", width-n), int(frac*100), fmtSecs(pos), fmtSecs(dur))
}

// parseFrameRange parses "A:B", "A:" or ":B".
func parseFrameRange(s string) (*convert.FrameRange, error) {
	a, b, ok := strings.Cut(s, ":")
	if !ok {
		return nil, errors.New("want A:B (frame numbers)")
	}
	r := &convert.FrameRange{Last: ^uint64(0)}
	var err error
	if a = strings.TrimSpace(a); a != "" {
		if r.First, err = strconv.ParseUint(a, 10, 64); err != nil {
			return nil, fmt.Errorf("first frame %q is not a frame number", a)
		}
	}
	if b = strings.TrimSpace(b); b != "" {
		if r.Last, err = strconv.ParseUint(b, 10, 64); err != nil {
			return nil, fmt.Errorf("last frame %q is not a frame number", b)
		}
	}
	if r.Last < r.First {
		return nil, fmt.Errorf("last frame %d is before first frame %d", r.Last, r.First)
	}
	return r, nil
}

// writableDir checks that files can be created next to prefix.
func writableDir(prefix string) error {
	if prefix == "" {
		return nil
	}
	f, err := outfile.Create(prefix) // a temporary file, as the outputs' own
	if err != nil {
		return fileError(filepath.Dir(prefix), fmt.Errorf("output directory not writable: %w", errors.Unwrap(err)))
	}
	f.Abort()
	return nil
}

func sortedKeys[V any](m map[string]V) []string { return slices.Sorted(maps.Keys(m)) }
