package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/rsbag/rsbag/internal/testsupport/synthrig"
	"github.com/rsbag/rsbag/playback"
	"github.com/rsbag/rsbag/sensor"
	"github.com/rsbag/rsbag/software"
)

func TestParseTime(t *testing.T) {
	for _, tt := range []struct {
		in   string
		want time.Duration
		ok   bool
	}{
		{"1.5", 1500 * time.Millisecond, true},
		{"2", 2 * time.Second, true},
		{" .25 ", 250 * time.Millisecond, true},
		{"0", 0, true},
		{"1e-9", 1, true},
		{"1500ms", 1500 * time.Millisecond, true},
		{"2m30s", 150 * time.Second, true},
		{"500000000ns", 500 * time.Millisecond, true},
		{"1e7", 1e7 * time.Second, true},
		{"-1", 0, false},
		{"-1s", 0, false},
		{"NaN", 0, false},
		{"nan", 0, false},
		{"Inf", 0, false},
		{"+Inf", 0, false},
		{"0x10", 0, false},
		{"1e400", 0, false},
		{"10000001", 0, false},
		{"2778h", 0, false},
		{"1.5x", 0, false},
		{"", 0, false},
		{"s", 0, false},
	} {
		got, err := parseTime(tt.in)
		if (err == nil) != tt.ok || got != tt.want {
			t.Errorf("parseTime(%q) = %v, %v; want %v, ok %v", tt.in, got, err, tt.want, tt.ok)
		}
	}
}

// trimmedPart records 4 s of synthetic depth and cuts the part of
// positions [2 s, 4 s) out of it with edit trim.
func trimmedPart(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	whole := filepath.Join(dir, "whole.bag")
	synctest.Test(t, func(t *testing.T) {
		synthrig.Bag(t, whole, software.SyntheticConfig{
			Depth:    &software.Video{Width: 64, Height: 48, FPS: 30, Format: sensor.FormatZ16},
			Duration: 4 * time.Second,
			Speed:    1,
		})
	})
	part := filepath.Join(dir, "part.bag")
	if r := rsRecord(t, "edit", "trim", "--start", "2", "--end", "4", "-o", part, whole); r.code != 0 {
		t.Fatalf("trim: exit %d\n%s", r.code, r.stderr)
	}
	return part
}

var playedFrames = regexp.MustCompile(`Depth (\d+) frames`)

// played returns the depth frames play printed.
func played(t *testing.T, r result) int {
	t.Helper()
	m := playedFrames.FindStringSubmatch(r.stdout)
	if m == nil {
		t.Fatalf("no frame count in %q", r.stdout)
	}
	n, _ := strconv.Atoi(m[1])
	return n
}

// TestTrimmedPartOneOrigin: on a part cut from positions 2 s to 4 s of a
// recording, every command and the Go API take and show positions from
// the start of the recording, as play shows them.
func TestTrimmedPartOneOrigin(t *testing.T) {
	t.Parallel()
	part := trimmedPart(t)

	// play --start inside the part plays its frames after it.
	r := rsRecord(t, "play", "--realtime=false", "--start", "2.5", part)
	if r.code != 0 || played(t, r) < 10 {
		t.Errorf("play --start 2.5: exit %d, %s%s", r.code, r.stdout, r.stderr)
	}
	// --start and --duration take seconds and Go durations alike.
	r = rsRecord(t, "play", "--realtime=false", "--start", "2500ms", "--duration", "0.5", part)
	if n := played(t, r); r.code != 0 || n < 14 || n > 16 {
		t.Errorf("play --start 2500ms --duration 0.5: exit %d, %d frames, want 15\n%s", r.code, n, r.stderr)
	}
	// A window before the part's frames is an error naming where they are.
	r = rsRecord(t, "play", "--realtime=false", "--duration", "0.5", part)
	if r.code != 1 || !strings.Contains(r.stderr, "holds no frame") || !strings.Contains(r.stderr, "the frames are at 2") {
		t.Errorf("play --duration 0.5: exit %d, want 1 naming the frames' positions\n%s", r.code, r.stderr)
	}

	// convert -s/-e (and their long names) are positions too.
	out := filepath.Join(t.TempDir(), "raw")
	if r := rsRecord(t, "convert", "-r", out, "--start-time", "2.5", "--end-time", "2.6", "--input", part); r.code != 0 {
		t.Errorf("convert -s 2.5 -e 2.6: exit %d\n%s", r.code, r.stderr)
	}
	if files, _ := filepath.Glob(out + "_Depth_*.raw"); len(files) < 2 || len(files) > 4 {
		t.Errorf("convert -s 2.5 -e 2.6 wrote %d depth files, want 3", len(files))
	}
	r = rsRecord(t, "convert", "-r", out+"2", "-s", "0.5", "-e", "0.6", part)
	if r.code != 1 || !strings.Contains(r.stderr, "holds no frame") {
		t.Errorf("convert -s 0.5 -e 0.6: exit %d, want 1\n%s", r.code, r.stderr)
	}

	// trim again inside the part, by the positions play shows.
	again := filepath.Join(t.TempDir(), "again.bag")
	if r := rsRecord(t, "edit", "trim", "--start", "2.5", "--end", "3s", "-o", again, part); r.code != 0 {
		t.Errorf("trim --start 2.5 --end 3s of the part: exit %d\n%s", r.code, r.stderr)
	}

	// info's two durations agree.
	r = rsRecord(t, "info", "--json", part)
	var bi struct {
		BagDurationNs int64 `json:"bag_duration_ns"`
		DurationNs    int64 `json:"duration_ns"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &bi); err != nil || r.code != 0 {
		t.Fatalf("info: exit %d, %v", r.code, err)
	}
	if bi.DurationNs != bi.BagDurationNs || bi.DurationNs < int64(3900*time.Millisecond) {
		t.Errorf("info durations %d and %d ns, want equal, about 4 s", bi.DurationNs, bi.BagDurationNs)
	}

	// The Go API (and so the viewer's "position / duration" and seek
	// bar): every position lies in [0, Duration], and Seek accepts them.
	dev, err := playback.Open(part, &playback.Options{NonRealTime: true})
	if err != nil {
		t.Fatal(err)
	}
	defer dev.Close()
	first, last := dev.Span()
	if first < 2*time.Second || dev.Duration() != last {
		t.Errorf("Span %v to %v, Duration %v: want the frames from 2 s, Duration the last frame's position", first, last, dev.Duration())
	}
	if err := dev.Seek(first + (last-first)/2); err != nil {
		t.Errorf("seek inside the part: %v", err)
	}
}

// TestDumpSeekTime: dump --seek takes the same time values as every other
// time flag, and a bare number is seconds.
func TestDumpSeekTime(t *testing.T) {
	t.Parallel()
	part := trimmedPart(t)
	var outs []string
	for _, v := range []string{"3", "3s", "3000ms", "3000000000ns"} {
		r := rsRecord(t, "dump", "--seek", v, "--limit", "2", part)
		if r.code != 0 {
			t.Fatalf("dump --seek %s: exit %d\n%s", v, r.code, r.stderr)
		}
		outs = append(outs, r.stdout)
	}
	for i, o := range outs[1:] {
		if o != outs[0] {
			t.Errorf("dump --seek %d differs from --seek 3", i+1)
		}
	}
	if !strings.Contains(outs[0], `"position_ns":3`) {
		t.Errorf("dump --seek 3 does not start at 3 s:\n%.600s", outs[0])
	}
}

// TestSplitSizeFileBytes: split --every SIZE counts the bytes of the file
// (compressed chunks) and needs the unit.
func TestSplitSizeFileBytes(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	bag := filepath.Join(dir, "lz4.bag")
	if r := rsRecord(t, "record", "--synthetic", "--speed", "0", "--frames", "120", "--depth", "424x240@30",
		"--color", "off", "--accel", "0", "--gyro", "0", "--compress", "--chunk-size", "64KiB", "-f", bag); r.code != 0 {
		t.Fatalf("record: exit %d\n%s", r.code, r.stderr)
	}
	for _, v := range []string{"2", "0.5"} {
		r := rsRecord(t, "edit", "split", "--every", v, "-o", filepath.Join(dir, "bare"), bag)
		if r.code != 2 || !strings.Contains(r.stderr, "unit") {
			t.Errorf("split --every %s: exit %d, want 2 asking for a unit\n%s", v, r.code, r.stderr)
		}
	}
	st, err := os.Stat(bag)
	if err != nil {
		t.Fatal(err)
	}
	const every = 256 << 10
	prefix := filepath.Join(dir, "part")
	if r := rsRecord(t, "edit", "split", "--every", "256KiB", "-o", prefix, bag); r.code != 0 {
		t.Fatalf("split --every 256KiB: exit %d\n%s", r.code, r.stderr)
	}
	parts, _ := filepath.Glob(prefix + "_*.bag")
	if want := int(st.Size()/every) + 1; len(parts) < want-1 || len(parts) > want+1 {
		t.Errorf("%d bytes split every 256KiB into %d parts, want about %d", st.Size(), len(parts), want)
	}
	for _, p := range parts[:len(parts)-1] {
		if fi, err := os.Stat(p); err != nil || fi.Size() < every/2 || fi.Size() > 2*every {
			t.Errorf("%s: %d bytes, want about %d", p, fi.Size(), every)
		}
	}
}
