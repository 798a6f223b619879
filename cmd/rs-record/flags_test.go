package main

import (
	"errors"
	"flag"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/rsbag/rsbag/sensor"
)

func TestStreamSpec(t *testing.T) {
	tests := []struct {
		in   string
		want streamSpec
		err  bool
	}{
		{"848x480@30", streamSpec{848, 480, 30, sensor.FormatAny}, false},
		{"1280X720@15:rgb8", streamSpec{1280, 720, 15, sensor.FormatRGB8}, false},
		{"640x480@30:Y8", streamSpec{640, 480, 30, sensor.FormatY8}, false},
		{"off", streamSpec{}, false},
		{"0", streamSpec{}, false},
		{"848x480", streamSpec{}, true},
		{"848x480@", streamSpec{}, true},
		{"x480@30", streamSpec{}, true},
		{"848x480@30:BOGUS", streamSpec{}, true},
		{"848x480@-5", streamSpec{}, true},
	}
	for _, tt := range tests {
		var s streamSpec
		err := s.Set(tt.in)
		if (err != nil) != tt.err || (err == nil && s != tt.want) {
			t.Errorf("Set(%q) = %+v, %v; want %+v, error %v", tt.in, s, err, tt.want, tt.err)
		}
	}
	s := streamSpec{640, 480, 30, sensor.FormatZ16}
	if got := s.String(); got != "640x480@30:Z16" {
		t.Errorf("String() = %q", got)
	}
}

func TestSizeValue(t *testing.T) {
	for in, want := range map[string]int64{"768KiB": 768 << 10, "1M": 1 << 20, "4096": 4096, "2mib": 2 << 20, "1GiB": 1 << 30, "1G": 1 << 30, "1024MiB": 1 << 30} {
		var s sizeValue
		if err := s.Set(in); err != nil || int64(s) != want {
			t.Errorf("Set(%q) = %d, %v; want %d", in, s, err, want)
		}
	}
	for _, in := range []string{"", "0", "-1K", "2G", "2GiB", "1048577KiB", "abc"} {
		var s sizeValue
		if err := s.Set(in); err == nil {
			t.Errorf("Set(%q) accepted", in)
		}
	}
}

func TestParseArgsInterspersed(t *testing.T) {
	e := &env{stdout: &strings.Builder{}}
	fs := newFlagSet(e, "play", "play")
	rate := fs.Float64("rate", 1, "")
	loop := fs.Bool("loop", false, "")
	pos, err := parseArgs(fs, "play", []string{"a.bag", "--rate", "2", "--loop", "--", "-b.bag"})
	if err != nil || *rate != 2 || !*loop || !reflect.DeepEqual(pos, []string{"a.bag", "-b.bag"}) {
		t.Errorf("got %v %v %v %v", pos, err, *rate, *loop)
	}
	if _, err := parseArgs(fs, "play", []string{"-h"}); err != flag.ErrHelp {
		t.Errorf("-h: %v", err)
	}
}

func TestSummaryLine(t *testing.T) {
	s := &snapshot{
		Elapsed: 2 * time.Second,
		Streams: []streamStat{{Name: "Depth/0", Frames: 60}, {Name: "Infrared/1", Frames: 60}, {Name: "Infrared/2", Frames: 59}},
		Bytes:   4_000_000,
		Drops:   1,
	}
	got := summaryLine("recorded", "x.bag", s)
	want := "recorded x.bag: Depth 60, Infrared/1 60, Infrared/2 59 frames; 1 dropped; 4000000 bytes in 2.00 s, 2.0 MB/s"
	if got != want {
		t.Errorf("summary\n got %q\nwant %q", got, want)
	}
	prev := &snapshot{Elapsed: time.Second, Streams: []streamStat{{Name: "Depth/0", Frames: 30}, {Name: "Infrared/1", Frames: 30}, {Name: "Infrared/2", Frames: 30}}, Bytes: 2_000_000}
	if got := progressLine(prev, s); !strings.Contains(got, "Depth 30.0/s") || !strings.Contains(got, "2.0 MB/s") || !strings.Contains(got, "drops 1") {
		t.Errorf("progress %q", got)
	}
}

// TestRecordRateFlags: --accel, --gyro and --pose take a rate in Hz or one of
// the words that turn a stream off, as the help and the errors say.
func TestRecordRateFlags(t *testing.T) {
	tests := []struct {
		args             []string
		accel, gyro, pos int
		usage            bool
	}{
		{nil, defaultAccelHz, defaultGyroHz, 0, false},
		{[]string{"--accel", "off"}, 0, defaultGyroHz, 0, false},
		{[]string{"--gyro", "off", "--accel", "OFF"}, 0, 0, 0, false},
		{[]string{"--pose", "off"}, defaultAccelHz, defaultGyroHz, 0, false},
		{[]string{"--accel=none", "--gyro=0"}, 0, 0, 0, false},
		{[]string{"--accel", "63", "--gyro", "400"}, 63, 400, 0, false},
		{[]string{"--pose", "200"}, defaultAccelHz, defaultGyroHz, 200, false},
		{[]string{"--accel", "fast"}, 0, 0, 0, true},
		{[]string{"--gyro", "-5"}, 0, 0, 0, true},
		{[]string{"--pose", "1.5"}, 0, 0, 0, true},
		{[]string{"--accel", "4001"}, 0, 0, 0, true},
	}
	for _, tt := range tests {
		e := &env{stdout: &strings.Builder{}, stderr: &strings.Builder{}}
		c, err := parseRecordFlags(e, tt.args)
		if tt.usage {
			var ue *usageError
			if !errors.As(err, &ue) {
				t.Errorf("%q: err %v, want a usage error", tt.args, err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%q: %v", tt.args, err)
			continue
		}
		if c.accel != tt.accel || c.gyro != tt.gyro || c.pose != tt.pos {
			t.Errorf("%q: accel %d gyro %d pose %d, want %d %d %d", tt.args, c.accel, c.gyro, c.pose, tt.accel, tt.gyro, tt.pos)
		}
	}
}

// TestUsageErrorLongValues: a usage error quotes a huge flag value or
// argument cut short (with its length), not in full, and still names the
// flag.
func TestUsageErrorLongValues(t *testing.T) {
	t.Parallel()
	huge := strings.Repeat("x", 100<<10)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"record", "--depth", huge}, "-depth"},
		{[]string{"record", "--speed", huge}, "-speed"},
		{[]string{"record", "--" + huge}, "not defined"},
		{[]string{"record", huge}, "unexpected argument"},
		{[]string{"export", "--profile", huge, "--mcap", "x.mcap", "y.bag"}, "--profile"},
		{[]string{"edit", huge}, "unknown subcommand"},
		{[]string{"play", "--streams", huge, "y.bag"}, "--streams"},
	} {
		r := rsRecord(t, c.args...)
		if r.code != 2 || len(r.stderr) > 1000 || !strings.Contains(r.stderr, c.want) || !strings.Contains(r.stderr, "102400 bytes") {
			t.Errorf("%s %.20s...: exit %d, %d bytes on stderr (%.300q); want exit 2, naming %q and the value's length, in under 1000 bytes",
				c.args[0], c.args[1], r.code, len(r.stderr), r.stderr, c.want)
		}
	}
}

// TestRecordSpeedTooSmall: a positive --speed too small to mean anything
// (below the slowest playback rate) is a usage error, not "as fast as
// possible".
func TestRecordSpeedTooSmall(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for _, v := range []string{"1e-300", "5e-324", "1e-9"} {
		out := filepath.Join(dir, "s.bag")
		r := rsRecord(t, "record", "--synthetic", "--speed", v, "--frames", "2", "--depth", "64x48@30", "--color", "off", "--accel", "0", "--gyro", "0", "-f", out)
		if r.code != 2 || !strings.Contains(r.stderr, "--speed") || !strings.Contains(r.stderr, "0.001") {
			t.Errorf("--speed %s: exit %d, stderr %q; want exit 2 naming --speed and its range", v, r.code, r.stderr)
		}
		if _, err := os.Stat(out); !os.IsNotExist(err) {
			t.Errorf("--speed %s: %s was created (%v)", v, out, err)
			os.Remove(out)
		}
	}
}
