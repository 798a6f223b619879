package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/rsbag/rsbag/internal/testsupport/await"
	"github.com/rsbag/rsbag/internal/testsupport/conformance"
)

// binPath is the rs-record binary built once by TestMain.
var binPath string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "rs-record-test")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	binPath = filepath.Join(dir, "rs-record")
	// A plain build: the race detector slows the synthetic camera and the
	// recorder down so much that real-time recordings drop frames.
	out, err := exec.Command("go", append(append([]string{"build"}, buildTags...), "-o", binPath, ".")...).CombinedOutput()
	if err != nil {
		fmt.Fprintf(os.Stderr, "build rs-record: %v\n%s", err, out)
		os.RemoveAll(dir)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

type result struct {
	code           int
	stdout, stderr string
}

// rsRecord runs the binary with args and returns its exit status and output.
func rsRecord(t *testing.T, args ...string) result {
	t.Helper()
	return runBinary(t, binPath, args...)
}

// runBinary runs the rs-record binary bin with args and returns its exit
// status and output.
func runBinary(t *testing.T, bin string, args ...string) result {
	t.Helper()
	cmd := exec.Command(bin, args...)
	var o, e bytes.Buffer
	cmd.Stdout, cmd.Stderr = &o, &e
	err := cmd.Run()
	r := result{stdout: o.String(), stderr: e.String()}
	var ee *exec.ExitError
	switch {
	case err == nil:
	case errors.As(err, &ee):
		r.code = ee.ExitCode()
	default:
		t.Fatalf("run rs-record %v: %v", args, err)
	}
	checkNoPanic(t, r)
	return r
}

func checkNoPanic(t *testing.T, r result) {
	t.Helper()
	for _, bad := range []string{"panic:", "goroutine ", "internal error", "DATA RACE"} {
		if strings.Contains(r.stderr, bad) {
			t.Fatalf("stderr contains %q:\n%s", bad, r.stderr)
		}
	}
}

// bagInfo is the part of "info --json" the tests look at.
type bagInfo struct {
	Path        string `json:"path"`
	FileVersion int    `json:"file_version"`
	DurationNs  int64  `json:"duration_ns"`
	Indexed     bool   `json:"indexed"`
	Messages    uint64 `json:"messages"`
	Compression []string
	Recovery    *struct {
		Reason            string `json:"reason"`
		RecoveredMessages uint64 `json:"recovered_messages"`
	} `json:"recovery"`
	Streams []struct {
		Sensor int    `json:"sensor"`
		Stream string `json:"stream"`
		Index  int    `json:"index"`
		Format string `json:"format"`
		Width  int    `json:"width"`
		Height int    `json:"height"`
		FPS    int    `json:"fps"`
		Frames uint64 `json:"frames"`
	} `json:"streams"`
	Device []struct{ Name, Value string } `json:"device"`
}

func (b *bagInfo) frames(stream string) uint64 {
	var n uint64
	for _, s := range b.Streams {
		if s.Stream == stream {
			n += s.Frames
		}
	}
	return n
}

func infoJSON(t *testing.T, bag string) *bagInfo {
	t.Helper()
	r := rsRecord(t, "info", "--json", bag)
	if r.code != 0 {
		t.Fatalf("info --json %s: exit %d\n%s", bag, r.code, r.stderr)
	}
	var bi bagInfo
	if err := json.Unmarshal([]byte(r.stdout), &bi); err != nil {
		t.Fatalf("info --json output is not one JSON object: %v\n%s", err, r.stdout)
	}
	return &bi
}

// checkStrict runs both conformance checkers of tools/conformance in strict
// mode on bag; one that is not set up skips that check outside CI and fails
// the test in CI.
func checkStrict(t *testing.T, bag string) {
	t.Helper()
	for _, tool := range []string{conformance.BagcheckROS, conformance.BagcheckJS} {
		p := conformance.Optional(t, tool)
		if p == "" {
			continue
		}
		out, err := exec.Command(p, "--json", bag).Output()
		var rep struct {
			OK   bool `json:"ok"`
			Bags []struct {
				Errors []any `json:"errors"`
			} `json:"bags"`
		}
		if jerr := json.Unmarshal(out, &rep); jerr != nil {
			t.Fatalf("%s %s: %v (output %q)", tool, bag, err, out)
		}
		if !rep.OK || err != nil {
			t.Errorf("%s rejects %s: %v", tool, bag, rep.Bags)
		}
	}
}

func TestUsage(t *testing.T) {
	t.Parallel()
	tests := []struct {
		args []string
		code int
		out  string // in stdout (code 0) or stderr
	}{
		{[]string{"-h"}, 0, "Commands:"},
		{[]string{"record", "-h"}, 0, "--file"},
		{[]string{"info", "-h"}, 0, "--json"},
		{[]string{"play", "-h"}, 0, "--rate"},
		{[]string{"dump", "-h"}, 0, "--seek"},
		{[]string{"--time", "-h"}, 2, "invalid value"},
		{[]string{"bogus"}, 2, `unknown command "bogus"`},
		{[]string{"record", "--bogus"}, 2, "flag provided but not defined"},
		{[]string{"record", "--depth", "848x480"}, 2, "WIDTHxHEIGHT@FPS"},
		{[]string{"record", "--color", "640x480@30:NOPE"}, 2, "unknown format"},
		{[]string{"record", "-t", "-1"}, 2, "want a number in [0, 1e+07], got -1"},
		{[]string{"record", "--metadata", "all"}, 2, "none, basic, rich"},
		{[]string{"record", "--chunk-size", "0"}, 2, "size"},
		{[]string{"record", "extra"}, 2, "unexpected argument"},
		{[]string{"record", "--depth", "off", "--color", "off", "--accel", "0", "--gyro", "0"}, 2, "nothing to record"},
		{[]string{"info"}, 2, "want exactly one BAG"},
		{[]string{"info", "a.bag", "b.bag"}, 2, "want exactly one BAG"},
		{[]string{"play", "x.bag", "--rate", "0"}, 2, "flag -rate: want a number in [0.001, 1000]"},
		{[]string{"play", "x.bag", "--streams", "sound"}, 2, "unknown stream"},
		{[]string{"dump"}, 2, "want a BAG, several bags of one session, or a session manifest"},
		{[]string{"dump", "--limit", "-3", "x.bag"}, 2, "negative"},
		{[]string{"dump", "--bogus", "x.bag"}, 2, "flag provided but not defined"},
		{[]string{"info", "--bogus", "x.bag"}, 2, "flag provided but not defined"},
		{[]string{"export", "--bogus", "x.bag"}, 2, "flag provided but not defined"},
		{[]string{"export", "-h"}, 0, "--mcap"},
		{[]string{"import", "-h"}, 0, "IN.mcap"},
		{[]string{"edit", "-h"}, 0, "reindex"},
		{[]string{"edit", "compress", "-h"}, 0, "-o"},
		{[]string{"dump", "--no-models", "x.bag"}, 2, "need --processing"},
		{[]string{"dump", "--sync", "--limit", "2", "x.bag"}, 2, "no other flag"},
		{[]string{"dump", "--processing", "--limit", "3", "x.bag"}, 2, "do not apply"},
		{[]string{"dump", "--processing", "--raw-dir", "/nonexistent/dir", "x.bag"}, 2, "not a directory"},
		{[]string{"info", "does-not-exist.bag"}, 1, "does-not-exist.bag"},
		{[]string{"view", "-h"}, 0, "--listen"},
		{[]string{"view", "--port", "-1", "x.bag"}, 2, "not a port"},
		{[]string{"view", "--port", "65536", "x.bag"}, 2, "not a port"},
		{[]string{"view", "--listen", "nowhere", "x.bag"}, 2, "HOST:PORT"},
		{[]string{"view", "--listen", "127.0.0.1:0", "--port", "1", "x.bag"}, 2, "exclude each other"},
		{[]string{"view", "a.bag", "b.bag"}, 2, "at most one BAG"},
		{[]string{"view", "--synthetic", "x.bag"}, 2, "cannot be given with a BAG"},
		{[]string{"view", "--autoplay", "--synthetic"}, 2, "--autoplay plays a BAG"},
		{[]string{"view", "--port", "0", "does-not-exist.bag"}, 1, "does-not-exist.bag"},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			t.Parallel()
			r := rsRecord(t, tt.args...)
			if r.code != tt.code {
				t.Fatalf("exit %d, want %d\nstdout: %s\nstderr: %s", r.code, tt.code, r.stdout, r.stderr)
			}
			out := r.stderr
			if tt.code == 0 {
				out = r.stdout
			}
			if !strings.Contains(out, tt.out) {
				t.Errorf("output does not contain %q:\n%s", tt.out, out)
			}
			if tt.code == 0 && strings.Count(out, "Usage:") != 1 {
				t.Errorf("usage printed %d times", strings.Count(out, "Usage:"))
			}
			if tt.code != 0 && r.stdout != "" {
				t.Errorf("a mistake wrote to stdout (usage and errors go to stderr):\nstdout: %s\nstderr: %s", r.stdout, r.stderr)
			}
			if tt.code == 1 && strings.Count(strings.TrimSpace(r.stderr), "\n") != 0 {
				t.Errorf("error is not one line:\n%s", r.stderr)
			}
		})
	}
}

func TestRecordSyntheticInfo(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for _, tc := range []struct {
		name string
		args []string
		comp string
	}{
		{"lz4", nil, "lz4"},
		// Smaller frames keep the strict checkers quick.
		{"none", []string{"--no-compress", "--color", "424x240@30", "--depth", "424x240@30"}, "none"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			recordAndCheck(t, filepath.Join(dir, tc.name+".bag"), tc.args, tc.comp)
		})
	}
}

func recordAndCheck(t *testing.T, bag string, args []string, comp string) {
	t.Helper()
	name := filepath.Base(bag)
	// A 2 s recording counted in frames (61 per stream, t = 0 to 2 s at
	// 30 fps) on the real-time path, whatever the machine's speed.
	const frames = 61
	r := rsRecord(t, append([]string{"record", "--synthetic", "--frames", strconv.Itoa(frames), "-f", bag}, args...)...)
	if r.code != 0 {
		t.Fatalf("record: exit %d\n%s", r.code, r.stderr)
	}
	// Without a terminal: nothing but the summary line.
	lines := strings.Split(strings.TrimSpace(r.stdout), "\n")
	if len(lines) != 1 || !strings.HasPrefix(lines[0], "recorded "+bag+":") || !strings.Contains(lines[0], "MB/s") {
		t.Errorf("stdout is not one summary line:\n%s", r.stdout)
	}
	if strings.Contains(r.stdout, "\r") {
		t.Errorf("progress line written without a terminal: %q", r.stdout)
	}
	// The camera delivered every frame; the recorder, in real time, may
	// drop some on a loaded machine, and says how many.
	var dropped uint64
	if _, err := fmt.Sscanf(lines[0][strings.Index(lines[0], "frames; ")+len("frames; "):], "%d dropped", &dropped); err != nil ||
		!strings.Contains(lines[0], fmt.Sprintf(": Depth %d, Color %d, Accel %d, Gyro %d frames; ", frames, frames, frames, frames)) {
		t.Fatalf("summary %q does not say %d frames of each default stream and the frames dropped (%v)", lines[0], frames, err)
	}
	bi := infoJSON(t, bag)
	if bi.FileVersion != 3 || !bi.Indexed {
		t.Errorf("%s: file_version %d indexed %v, want 3 true", name, bi.FileVersion, bi.Indexed)
	}
	// D435i-like defaults: depth and color at 30 fps, accel 250 Hz, gyro
	// 200 Hz; every frame the camera delivered is in the bag or counted
	// as dropped.
	var missing uint64
	for _, w := range []struct {
		stream string
		fps    int
	}{{"Depth", 30}, {"Color", 30}, {"Accel", 250}, {"Gyro", 200}} {
		got := bi.frames(w.stream)
		if got > frames {
			t.Errorf("%s: %d %s frames, want at most %d", name, got, w.stream, frames)
		}
		missing += frames - min(got, frames)
		for _, s := range bi.Streams {
			if s.Stream == w.stream && s.FPS != w.fps {
				t.Errorf("%s: %s at %d fps, want %d", name, w.stream, s.FPS, w.fps)
			}
		}
	}
	if missing != dropped {
		t.Errorf("%s: %d frames missing from the bag, the summary says %d dropped", name, missing, dropped)
	}
	// Its duration is bag time, on the wall clock of a real-time
	// recording: not pinned here.
	if bi.DurationNs <= 0 {
		t.Errorf("%s: duration %d ns", name, bi.DurationNs)
	}
	if len(bi.Compression) != 1 || bi.Compression[0] != comp {
		t.Errorf("%s: compression %v, want [%s]", name, bi.Compression, comp)
	}
	checkStrict(t, bag)
}

func TestRecordWithoutCameraFallsBack(t *testing.T) {
	t.Parallel()
	bag := filepath.Join(t.TempDir(), "x.bag")
	r := rsRecord(t, "record", "-t", "0.5", "--speed", "0", "--color", "off", "-f", bag)
	if r.code != 0 {
		t.Fatalf("record: exit %d\n%s", r.code, r.stderr)
	}
	if !strings.Contains(r.stderr, "no RealSense camera found") {
		t.Skipf("a camera seems to be attached (stderr %q)", r.stderr)
	}
	if n := strings.Count(strings.TrimSpace(r.stderr), "\n"); n != 0 {
		t.Errorf("fallback notice is %d lines:\n%s", n+1, r.stderr)
	}
}

// startRecording starts a long synthetic recording and waits until its
// file holds more than one flushed chunk, looking at it after each write
// (fileEvents). It returns the process, its stdout and stderr, and a wait
// for its end (which a test calls instead of cmd.Wait).
func startRecording(t *testing.T, bag string) (*exec.Cmd, *bytes.Buffer, *bytes.Buffer, func() error) {
	t.Helper()
	written := fileEvents(t, filepath.Dir(bag), evCreate|evWrite)
	cmd := exec.Command(binPath, "record", "--synthetic", "-t", "60", "-f", bag)
	var o, e bytes.Buffer
	cmd.Stdout, cmd.Stderr = &o, &e
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{})
	var waitErr error
	go func() {
		waitErr = cmd.Wait()
		close(exited)
	}()
	wait := func() error {
		await.Recv(t, "the end of the recording", exited)
		return waitErr
	}
	t.Cleanup(func() {
		cmd.Process.Kill()
		<-exited
	})
	// Past 4 MiB, then one more flush (the writer flushes chunks as they
	// fill, and at least every second).
	var first int64
	for {
		fi, err := os.Stat(bag)
		if err == nil && first == 0 && fi.Size() > 4<<20 {
			first = fi.Size()
		}
		if err == nil && first > 0 && fi.Size() > first {
			break
		}
		select {
		case <-written:
		case <-exited:
			t.Fatalf("the recording ended before its file grew: %v\n%s", waitErr, e.String())
		}
	}
	return cmd, &o, &e, wait
}

func TestSIGINTLeavesIndexedBag(t *testing.T) {
	t.Parallel()
	bag := filepath.Join(t.TempDir(), "int.bag")
	cmd, o, e, wait := startRecording(t, bag)
	cmd.Process.Signal(syscall.SIGINT)
	err := wait()
	checkNoPanic(t, result{stderr: e.String()})
	if err != nil {
		t.Fatalf("record after SIGINT: %v\n%s", err, e.String())
	}
	if !strings.HasPrefix(o.String(), "recorded ") {
		t.Errorf("no summary line after SIGINT: %q", o.String())
	}
	bi := infoJSON(t, bag)
	if !bi.Indexed || bi.Recovery != nil {
		t.Errorf("bag after SIGINT: indexed %v, recovery %v", bi.Indexed, bi.Recovery)
	}
	// info has read and decoded every message: the bag is complete.
	if bi.frames("Depth") == 0 || bi.frames("Color") == 0 || bi.frames("Accel") == 0 || bi.frames("Gyro") == 0 {
		t.Errorf("bag after SIGINT misses streams: %+v", bi.Streams)
	}
}

func TestSIGKILLLeavesRecoverableBag(t *testing.T) {
	t.Parallel()
	bag := filepath.Join(t.TempDir(), "kill.bag")
	cmd, _, _, wait := startRecording(t, bag)
	cmd.Process.Kill()
	wait()
	bi := infoJSON(t, bag)
	if bi.Indexed || bi.Recovery == nil {
		t.Fatalf("bag after SIGKILL: indexed %v, recovery %v", bi.Indexed, bi.Recovery)
	}
	if bi.Messages == 0 || bi.frames("Depth") == 0 {
		t.Errorf("nothing recovered: %d messages, streams %+v", bi.Messages, bi.Streams)
	}
	r := rsRecord(t, "info", bag)
	if r.code != 0 || !strings.Contains(r.stdout, "recovered") {
		t.Errorf("info text does not report recovery (exit %d):\n%s%s", r.code, r.stdout, r.stderr)
	}
}

// brokenBags returns the broken variants of a small bag: made with
// make-broken-bags when it is installed, else rosbag/testdata/broken.
func brokenBags(t *testing.T) []string {
	t.Helper()
	if tool := conformance.Shared("make-broken-bags"); tool != "" {
		dir := t.TempDir()
		good := filepath.Join(dir, "good.bag")
		r := rsRecord(t, "record", "--synthetic", "--speed", "0", "--frames", "10", "--depth", "424x240@30",
			"--color", "424x240@30", "-f", good)
		if r.code != 0 {
			t.Fatalf("record: exit %d\n%s", r.code, r.stderr)
		}
		out := filepath.Join(dir, "broken")
		if b, err := exec.Command(tool, good, out).CombinedOutput(); err == nil {
			bags, _ := filepath.Glob(filepath.Join(out, "*.bag"))
			if len(bags) > 0 {
				return bags
			}
		} else {
			t.Logf("make-broken-bags: %v\n%s", err, b)
		}
	}
	bags, _ := filepath.Glob("../../rosbag/testdata/broken/*.bag")
	if len(bags) == 0 {
		t.Skip("no broken bags: make-broken-bags is not installed and rosbag/testdata/broken is empty")
	}
	return bags
}

func TestInfoBrokenBags(t *testing.T) {
	t.Parallel()
	for _, bag := range brokenBags(t) {
		name := strings.TrimSuffix(filepath.Base(bag), ".bag")
		t.Run(name, func(t *testing.T) {
			r := rsRecord(t, "info", bag)
			switch name {
			case "unindexed", "index-pos-past-eof":
				// Nothing lost: recovered, with a notice.
				if r.code != 0 || !strings.Contains(r.stdout, "recovered") || !strings.Contains(r.stderr, "recovered") {
					t.Errorf("exit %d, want 0 and a recovery report:\n%s%s", r.code, r.stdout, r.stderr)
				}
				return
			case "message-trailing-bytes":
				if r.code == 0 {
					return // tolerated, as librealsense does
				}
			}
			want := 3 // damaged
			if name == "wrong-md5sum" {
				want = 1
			}
			if r.code != want {
				t.Fatalf("exit %d, want %d\n%s%s", r.code, want, r.stdout, r.stderr)
			}
			msg := strings.TrimSpace(r.stderr)
			for _, l := range strings.Split(msg, "\n") {
				if !strings.HasPrefix(l, "rs-record: ") || !strings.Contains(l, bag) {
					t.Errorf("stderr line does not name the file: %q", l)
				}
			}
			t.Logf("%s", msg)
		})
	}
}

func TestDumpReferenceBag(t *testing.T) {
	t.Parallel()
	r := rsRecord(t, "dump", "--limit", "5", "../../testdata/librealsense/depth_color.bag")
	if r.code != 0 {
		t.Fatalf("dump: exit %d\n%s", r.code, r.stderr)
	}
	types := map[string]int{}
	for _, line := range strings.Split(strings.TrimSpace(r.stdout), "\n") {
		var v struct{ Type string }
		if err := json.Unmarshal([]byte(line), &v); err != nil {
			t.Fatalf("not a JSON line: %q", line)
		}
		types[v.Type]++
	}
	if types["frame"] != 5 || types["summary"] != 1 || types["device"] != 1 {
		t.Errorf("dump line types %v, want 5 frames, 1 device, 1 summary", types)
	}
}

// TestDumpReferences: rs-record dump --processing and dump --sync print
// librealsense's processing and syncer reference files of a bag line for
// line (all but the file line, which names the reader).
func TestDumpReferences(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ flag, bag, want string }{
		{"--processing", "depth_color.bag", "processing/depth_color.proc.expected.jsonl"},
		{"--sync", "metadata_rich.bag", "sync/metadata_rich.sync.expected.jsonl"},
	} {
		t.Run(c.flag, func(t *testing.T) {
			t.Parallel()
			r := rsRecord(t, "dump", c.flag, "../../testdata/librealsense/"+c.bag)
			if r.code != 0 {
				t.Fatalf("dump %s: exit %d\n%s", c.flag, r.code, r.stderr)
			}
			want, err := os.ReadFile("../../testdata/librealsense/" + c.want)
			if err != nil {
				t.Fatal(err)
			}
			got := strings.Split(strings.TrimSpace(r.stdout), "\n")
			wl := strings.Split(strings.TrimSpace(string(want)), "\n")
			if len(got) != len(wl) {
				t.Fatalf("%d lines, want %d", len(got), len(wl))
			}
			for i := 1; i < len(wl); i++ {
				if got[i] != wl[i] {
					t.Fatalf("line %d:\n got %.300s\nwant %.300s", i+1, got[i], wl[i])
				}
			}
		})
	}
}

func TestPlayNonRealTime(t *testing.T) {
	t.Parallel()
	r := rsRecord(t, "play", "../../testdata/librealsense/depth_color.bag", "--realtime=false")
	if r.code != 0 {
		t.Fatalf("play: exit %d\n%s", r.code, r.stderr)
	}
	for _, want := range []string{"Depth/0", "Color/0", "played "} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("play output lacks %q:\n%s", want, r.stdout)
		}
	}
}

// TestRecordSpeed0KeepsFrameTiming records the synthetic camera as fast as
// possible: the bag holds the frames' own timing, 90 frames at 30 fps over
// 89/30 s, not the wall time the recording took.
func TestRecordSpeed0KeepsFrameTiming(t *testing.T) {
	t.Parallel()
	bag := filepath.Join(t.TempDir(), "fast.bag")
	r := rsRecord(t, "record", "--synthetic", "--speed", "0", "--frames", "90", "--depth", "424x240@30", "--color", "424x240@30", "-f", bag)
	if r.code != 0 {
		t.Fatalf("record: exit %d\n%s", r.code, r.stderr)
	}
	bi := infoJSON(t, bag)
	want := 89 * time.Second / 30
	if d := time.Duration(bi.DurationNs); d < want-time.Second/30 || d > want+time.Second/30 {
		t.Errorf("duration %v, want %v within a frame period", d, want)
	}
	for _, s := range []string{"Depth", "Color"} {
		if n := bi.frames(s); n != 90 {
			t.Errorf("%s: %d frames, want 90", s, n)
		}
	}
}
