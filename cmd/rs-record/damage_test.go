package main

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/rsbag/rsbag/internal/testsupport/await"
	"github.com/rsbag/rsbag/internal/testsupport/conformance"
	"github.com/rsbag/rsbag/internal/testsupport/testbags"
	"github.com/rsbag/rsbag/rosbag"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
)

// variant is a damaged (or not) copy of a reference bag.
type variant struct {
	name, path string
	// want is the verdict every command must give: 0 (whole, or recovered
	// whole), 3 (damaged), or -1 (any, as long as all agree).
	want int
	// wantLost: frames must be reported lost.
	wantLost bool
}

// bagVariants writes damaged copies of bag into dir: the file cut at five
// seeded offsets after its header, six seeded single-byte flips, index_pos
// set to 0 (a recorder killed after its last chunk) and past the end of the
// file, and make-broken-bags' variants when the tool is installed.
func bagVariants(t *testing.T, bag, dir string) []variant {
	t.Helper()
	data, err := os.ReadFile(bag)
	if err != nil {
		t.Fatal(err)
	}
	base := strings.TrimSuffix(filepath.Base(bag), ".bag")
	var out []variant
	add := func(name string, b []byte, want int) {
		p := filepath.Join(dir, base+"."+name+".bag")
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		out = append(out, variant{name: name, path: p, want: want})
	}
	add("whole", data, 0)
	// The bag header's index_pos field: "index_pos=" and 8 bytes.
	ip := bytes.Index(data[:min(len(data), 4096)], []byte("index_pos="))
	if ip < 0 {
		t.Fatalf("%s: no index_pos field", bag)
	}
	ip += len("index_pos=")
	indexPos := int(binary.LittleEndian.Uint64(data[ip:]))
	set := func(v uint64) []byte {
		b := bytes.Clone(data)
		binary.LittleEndian.PutUint64(b[ip:], v)
		return b
	}
	add("unindexed", set(0), 0)
	add("index-pos-past-eof", set(uint64(len(data)+4096)), 0)
	rng := rand.New(rand.NewPCG(uint64(len(data)), 15))
	const dataStart = 4117 // 13 bytes of version line + the 4104-byte bag header record
	for i := range 5 {
		// Cut in the chunk section: something is always lost.
		at := dataStart + 1 + rng.IntN(indexPos-dataStart-1)
		add(fmt.Sprintf("cut-%d", at), data[:at], 3)
		_ = i
	}
	for range 6 {
		at := dataStart + rng.IntN(len(data)-dataStart)
		b := bytes.Clone(data)
		b[at] ^= 0xff
		add(fmt.Sprintf("flip-%d", at), b, -1)
	}
	// A flip in the payload of a compressed chunk in the middle of the
	// file: the chunk's frames are lost, the ones after it are played.
	if c := bytes.Index(data[len(data)/3:], []byte("compression=lz4")); c >= 0 {
		at := len(data)/3 + c + 3000
		b := bytes.Clone(data)
		b[at] ^= 0xff
		add(fmt.Sprintf("chunkflip-%d", at), b, 3)
		out[len(out)-1].wantLost = true
	}
	if tool := conformance.Shared("make-broken-bags"); tool != "" {
		bdir := filepath.Join(dir, base+".broken")
		if b, err := exec.Command(tool, bag, bdir).CombinedOutput(); err != nil {
			t.Logf("make-broken-bags %s: %v\n%s", bag, err, b)
		} else {
			bags, _ := filepath.Glob(filepath.Join(bdir, "*.bag"))
			for _, p := range bags {
				name := strings.TrimSuffix(filepath.Base(p), ".bag")
				want := -1
				switch name {
				case "unindexed", "index-pos-past-eof", "message-trailing-bytes":
					want = 0
				case "truncated", "flipped-byte-in-chunk", "short-message":
					want = 3
				case "wrong-md5sum":
					want = 1 // not damage: the wrong type
				}
				out = append(out, variant{name: "broken-" + name, path: p, want: want})
			}
		}
	}
	return out
}

// verdict is what one command said of a bag.
type verdict struct {
	code   int
	frames map[string]uint64 // per stream; nil when the command printed none
	lost   map[string]uint64 // frames lost to damage per stream
	stderr string
}

var playLine = regexp.MustCompile(`(?m)^(\S+/\d+)\s+(\d+) frames .* dropped(?:\s+(\d+) lost to damage)?$`)

func infoVerdict(t *testing.T, bag string) verdict {
	r := rsRecord(t, "info", "--json", bag)
	v := verdict{code: r.code, stderr: r.stderr}
	if r.stdout == "" {
		return v
	}
	var rep struct {
		Streams []struct {
			Stream string `json:"stream"`
			Index  int    `json:"index"`
			Frames uint64 `json:"frames"`
		} `json:"streams"`
		Damaged bool `json:"damaged"`
		Lost    []struct {
			Frames map[string]uint64 `json:"frames"`
		} `json:"lost"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &rep); err != nil {
		t.Fatalf("info --json %s: %v\n%s", bag, err, r.stdout)
	}
	v.frames, v.lost = map[string]uint64{}, map[string]uint64{}
	for _, s := range rep.Streams {
		v.frames[fmt.Sprintf("%s/%d", s.Stream, s.Index)] += s.Frames
	}
	for _, l := range rep.Lost {
		for k, n := range l.Frames {
			v.lost[k] += n
		}
	}
	if rep.Damaged != (len(rep.Lost) > 0) {
		t.Errorf("info --json %s: damaged %v with %d lost parts", bag, rep.Damaged, len(rep.Lost))
	}
	return v
}

func playVerdict(t *testing.T, bag string) verdict {
	r := rsRecord(t, "play", "--realtime=false", bag)
	v := verdict{code: r.code, stderr: r.stderr}
	for _, m := range playLine.FindAllStringSubmatch(r.stdout, -1) {
		if v.frames == nil {
			v.frames, v.lost = map[string]uint64{}, map[string]uint64{}
		}
		n, _ := strconv.ParseUint(m[2], 10, 64)
		v.frames[m[1]] = n
		if m[3] != "" {
			l, _ := strconv.ParseUint(m[3], 10, 64)
			if l > 0 {
				v.lost[m[1]] = l
			}
		}
	}
	return v
}

func dumpVerdict(t *testing.T, bag string) verdict {
	r := rsRecord(t, "dump", bag)
	v := verdict{code: r.code, stderr: r.stderr}
	lines := strings.Split(strings.TrimSpace(r.stdout), "\n")
	var sum struct {
		Type     string            `json:"type"`
		Status   string            `json:"status"`
		Frames   map[string]uint64 `json:"frames_per_stream"`
		Recovery *struct{}         `json:"recovered"`
		Lost     []struct {
			Frames map[string]uint64 `json:"frames"`
		} `json:"lost"`
	}
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), &sum); err != nil || sum.Type != "summary" {
		return v
	}
	v.frames, v.lost = sum.Frames, map[string]uint64{}
	for _, l := range sum.Lost {
		for k, n := range l.Frames {
			v.lost[k] += n
		}
	}
	if (sum.Status == "damaged") != (len(sum.Lost) > 0) {
		t.Errorf("dump %s: status %q with %d lost parts", bag, sum.Status, len(sum.Lost))
	}
	return v
}

// TestDamageVerdictsAgree: for every reference bag and damaged copies of it
// (truncations, byte flips, a lost or wrong index, make-broken-bags'
// variants), info, play and dump give the same exit status (0 whole or
// recovered whole, 3 damaged, 1 another error), the same frame counts per
// stream and the same frames lost to damage; a damaged bag is never
// reported as whole, and every stderr message is one line per fact naming
// the file.
func TestDamageVerdictsAgree(t *testing.T) {
	t.Parallel()
	bags := testbags.Librealsense(t, "../..")
	dir := t.TempDir()
	var mu sync.Mutex
	counts := map[int]int{}
	for _, bag := range bags {
		for _, v := range bagVariants(t, bag, dir) {
			t.Run(filepath.Base(v.path), func(t *testing.T) {
				t.Parallel()
				info, play, dump := infoVerdict(t, v.path), playVerdict(t, v.path), dumpVerdict(t, v.path)
				mu.Lock()
				counts[info.code]++
				mu.Unlock()
				if info.code != play.code || info.code != dump.code {
					t.Fatalf("exit status: info %d, play %d, dump %d\ninfo: %splay: %sdump: %s",
						info.code, play.code, dump.code, info.stderr, play.stderr, dump.stderr)
				}
				if v.want >= 0 && info.code != v.want {
					t.Fatalf("exit status %d, want %d\n%s", info.code, v.want, info.stderr)
				}
				if info.code != 0 && info.code != 1 && info.code != 3 {
					t.Fatalf("exit status %d", info.code)
				}
				for _, x := range []verdict{info, play, dump} {
					for _, l := range strings.Split(strings.TrimSpace(x.stderr), "\n") {
						if l != "" && (!strings.HasPrefix(l, "rs-record: ") || !strings.Contains(l, v.path)) {
							t.Errorf("stderr line does not name the file: %q", l)
						}
					}
				}
				if info.code == 0 && v.name != "whole" && strings.Contains(v.name, "index") &&
					!strings.Contains(info.stderr, "recovered") {
					t.Errorf("a bag recovered whole gives no notice: %q", info.stderr)
				}
				if info.code == 3 && info.frames != nil {
					for _, x := range []verdict{info, play, dump} {
						if !strings.Contains(x.stderr, "damaged") {
							t.Errorf("exit 3 without the word damaged on stderr: %q", x.stderr)
						}
					}
				}
				if info.frames == nil || dump.frames == nil {
					if info.code == 0 {
						t.Fatalf("exit 0 without frame counts: info %v, dump %v", info.frames, dump.frames)
					}
					return
				}
				if play.frames == nil {
					play.frames = map[string]uint64{} // "the bag has no streams"
				}
				for k, n := range info.frames {
					if n == 0 {
						delete(info.frames, k)
					}
				}
				if fmt.Sprint(info.frames) != fmt.Sprint(dump.frames) ||
					(play.code != 1 && fmt.Sprint(info.frames) != fmt.Sprint(play.frames)) {
					t.Errorf("frames: info %v, play %v, dump %v", info.frames, play.frames, dump.frames)
				}
				if v.wantLost && len(info.lost) == 0 {
					t.Errorf("no frames reported lost")
				}
				if fmt.Sprint(info.lost) != fmt.Sprint(dump.lost) || fmt.Sprint(info.lost) != fmt.Sprint(play.lost) {
					t.Errorf("frames lost to damage: info %v, play %v, dump %v", info.lost, play.lost, dump.lost)
				}
			})
		}
	}
	t.Cleanup(func() { t.Logf("verdicts (exit status: bags): %v", counts) })
}

// copyWithout copies the bag src to dst without the topics drop rejects.
func copyWithout(t *testing.T, src, dst string, drop func(topic string) bool) {
	t.Helper()
	testbags.Copy(t, src, dst, nil, func(m *rosbag.Message) bool { return !drop(m.Conn.Topic) })
}

// TestErrorsNameTheProblem: each command's error says what is wrong with
// the file, and info, play and dump agree.
func TestErrorsNameTheProblem(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	ref := "../../testdata/librealsense/depth_color_ir2_uncompressed.bag"
	data, err := os.ReadFile(ref)
	if err != nil {
		t.Fatal(err)
	}
	write := func(name string, b []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	// The md5sum of std_msgs/UInt32 (only /file_version has that type),
	// in every connection record: index and (uncompressed) chunk.
	wrongMD5 := write("md5.bag", bytes.ReplaceAll(data, []byte("304a39449588c7f8ce2df6e8001c5fce"), []byte("004a39449588c7f8ce2df6e8001c5fce")))
	cutFirst := write("cut-first-chunk.bag", data[:4117+2000])
	magic := write("magic.bag", data[:13])
	noSensorInfo := filepath.Join(dir, "no-sensor-info.bag")
	copyWithout(t, ref, noSensorInfo, func(topic string) bool {
		return regexp.MustCompile(`^/device_0/sensor_\d+/info$`).MatchString(topic)
	})
	missing := filepath.Join(dir, "missing.bag")
	cases := []struct {
		bag     string
		code    int
		want    string // on stderr of info, play and dump
		notWant string // in any output
	}{
		{wrongMD5, 1, "md5sum 004a39449588c7f8ce2df6e8001c5fce, want 304a39449588c7f8ce2df6e8001c5fce", "want std_msgs/UInt32"},
		{cutFirst, 3, "truncated", "does not contain"},
		{magic, 3, "truncated", "file version: 0"},
		{missing, 1, missing + ": no such file or directory", "open: open"},
	}
	for _, c := range cases {
		for _, cmd := range [][]string{{"info"}, {"play", "--realtime=false"}, {"dump"}} {
			r := rsRecord(t, append(cmd, c.bag)...)
			if r.code != c.code || !strings.Contains(r.stderr, c.want) || strings.Contains(r.stdout+r.stderr, c.notWant) {
				t.Errorf("%s %s: exit %d, stderr %q; want exit %d naming %q, without %q", cmd[0], filepath.Base(c.bag), r.code, r.stderr, c.code, c.want, c.notWant)
			}
			if cmd[0] != "dump" && strings.Count(r.stderr, c.bag) != strings.Count(r.stderr, "\n") {
				t.Errorf("%s %s: the file is not named once per line: %q", cmd[0], filepath.Base(c.bag), r.stderr)
			}
		}
	}

	// A bag whose sensors have no info topic: players show no streams,
	// and info says so instead of listing them, with the players' verdict
	// (exit 1, "the bag has no streams").
	inf := rsRecord(t, "info", "--json", noSensorInfo)
	var rep struct {
		Streams  []json.RawMessage `json:"streams"`
		Problems []string          `json:"problems"`
	}
	if err := json.Unmarshal([]byte(inf.stdout), &rep); err != nil || inf.code != 1 || !strings.Contains(inf.stderr, "no streams") {
		t.Fatalf("info: exit %d, %v\n%s", inf.code, err, inf.stderr)
	}
	play := rsRecord(t, "play", "--realtime=false", noSensorInfo)
	dump := dumpVerdict(t, noSensorInfo)
	if len(rep.Streams) != 0 || len(rep.Problems) == 0 || !strings.Contains(rep.Problems[0], "not played") ||
		play.code != 1 || !strings.Contains(play.stderr, "no streams") || len(dump.frames) != 0 {
		t.Errorf("no sensor info: info streams %d problems %q; play exit %d %q; dump frames %v: want no streams in all three",
			len(rep.Streams), rep.Problems, play.code, play.stderr, dump.frames)
	}
}

// TestNumericFlags: every numeric flag refuses NaN, infinities and values
// out of its range with exit 2 and a message naming the flag and the range;
// sizes and rates beyond the largest RealSense profile are refused before
// anything is allocated.
func TestNumericFlags(t *testing.T) {
	t.Parallel()
	bag := "../../testdata/librealsense/depth_color.bag"
	out := filepath.Join(t.TempDir(), "x.bag")
	type flagCase struct {
		cmd  []string // command and flag, the value is appended
		name string   // as the message names it
		bad  []string
	}
	nonFinite := []string{"NaN", "nan", "Inf", "+Inf", "-Inf", "1e300", "-1e300"}
	cases := []flagCase{
		{[]string{"play", "--rate"}, "-rate", append(nonFinite, "0", "-1", "1e-300", "1001")},
		{[]string{"play", "--start"}, "-start", append(nonFinite, "-1", "1e20", "9.3e9")},
		{[]string{"play", "--duration"}, "-duration", append(nonFinite, "-0.5", "1e20")},
		{[]string{"record", "-t"}, "-t", append(nonFinite, "-1", "1e8")},
		{[]string{"record", "--time"}, "-time", nonFinite},
		{[]string{"record", "--speed"}, "-speed", append(nonFinite, "-1", "1e6")},
		{[]string{"record", "--depth"}, "-depth", []string{"100000x100000@30", "8193x10@30", "640x480@1001", "640x480@NaN", "NaNx480@30"}},
		{[]string{"record", "--color"}, "-color", []string{"24000x24000@30"}},
		{[]string{"record", "--accel"}, "accel", []string{"4001", "-1", "99999999999999999999"}},
		{[]string{"record", "--frames"}, "frames", []string{"-1", "1e3", "99999999999999999999"}},
		{[]string{"record", "--chunk-size"}, "-chunk-size", []string{"0", "2GiB", "NaN"}},
		{[]string{"dump", "--limit"}, "limit", []string{"-1", "1.5"}},
		{[]string{"dump", "--seek"}, "seek", []string{"-2", "NaN"}},
	}
	for _, c := range cases {
		for _, v := range c.bad {
			args := append(append([]string{}, c.cmd...), v)
			if c.cmd[0] == "record" {
				args = append(args, "--synthetic", "-f", out)
			} else {
				args = append(args, bag)
			}
			r := rsRecord(t, args...)
			if r.code != 2 || !strings.Contains(r.stderr, c.name) || r.stdout != "" {
				t.Errorf("%v: exit %d, stderr %q; want exit 2 naming %s", args, r.code, r.stderr, c.name)
			}
		}
	}
	if _, err := os.Stat(out); err == nil {
		t.Errorf("a refused record command wrote %s", out)
	}
}

// TestPlayWindow: play --start S --duration D plays the frames with bag
// time in [S, S+D), the same ones in real time and non-real-time mode,
// every run (counting a real-time drop as played: it was due).
func TestPlayWindow(t *testing.T) {
	t.Parallel()
	bag := "../../testdata/librealsense/depth_color.bag"
	d := rsRecord(t, "dump", bag)
	want := map[string]uint64{}
	for _, l := range strings.Split(strings.TrimSpace(d.stdout), "\n") {
		var f struct {
			Type     string `json:"type"`
			Stream   string `json:"stream"`
			Index    int    `json:"index"`
			Position int64  `json:"position_ns"`
		}
		if err := json.Unmarshal([]byte(l), &f); err != nil {
			t.Fatal(err)
		}
		if f.Type == "frame" && f.Position >= 200e6 && f.Position < 700e6 {
			want[fmt.Sprintf("%s/%d", f.Stream, f.Index)]++
		}
	}
	if len(want) == 0 {
		t.Fatal("no frame in the window")
	}
	drops := regexp.MustCompile(`(?m)^(\S+/\d+)\s+(\d+) frames .*?(\d+) dropped`)
	for _, rt := range []string{"--realtime=false", "--realtime=true", "--realtime=false", "--realtime=true"} {
		r := rsRecord(t, "play", rt, "--start", "0.2", "--duration", "0.5", bag)
		got := map[string]uint64{}
		for _, m := range drops.FindAllStringSubmatch(r.stdout, -1) {
			n, _ := strconv.ParseUint(m[2], 10, 64)
			dr, _ := strconv.ParseUint(m[3], 10, 64)
			got[m[1]] = n + dr
		}
		if r.code != 0 || fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("play %s: exit %d, frames %v, want %v\n%s%s", rt, r.code, got, want, r.stdout, r.stderr)
		}
	}
	if r := rsRecord(t, "play", "--start", "5", bag); r.code != 1 || !strings.Contains(r.stderr, "--start 5") {
		t.Errorf("--start after the last frame: exit %d, %q", r.code, r.stderr)
	}
}

// TestSignals: play on a FIFO is refused at once (it would block in open);
// SIGINT and SIGTERM stop a looping playback, in either mode, whether they
// arrive while it starts or once it reads the bag, with the summary of what
// was played.
func TestSignals(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo.bag")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	for _, cmd := range []string{"play", "info", "dump", "export"} {
		args := []string{cmd, fifo}
		if cmd == "export" {
			args = []string{cmd, "--mcap", filepath.Join(dir, "x.mcap"), fifo}
		}
		if r := rsRecord(t, args...); r.code != 1 || !strings.Contains(r.stderr, "not a regular file (a FIFO)") {
			t.Errorf("%s on a FIFO: exit %d, %q", cmd, r.code, r.stderr)
		}
	}
	bag, err := filepath.Abs("../../testdata/librealsense/depth_color.bag")
	if err != nil {
		t.Fatal(err)
	}
	read := fileEvents(t, bag, evRead) // by any process: play's, or another test's
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
		for _, mode := range []string{"--realtime=true", "--realtime=false"} {
			for _, stage := range []string{"start", "reading"} {
				cmd := exec.Command(binPath, "play", "--loop", mode, bag)
				var o, e bytes.Buffer
				cmd.Stdout, cmd.Stderr = &o, &e
				if err := cmd.Start(); err != nil {
					t.Fatal(err)
				}
				done := make(chan error, 1)
				go func() { done <- cmd.Wait() }()
				if stage == "reading" {
					// Wait until play reads the bag: after each read of
					// it, see whether /proc lists it among play's files.
					for !hasOpen(cmd.Process.Pid, bag) {
						select {
						case <-read:
						case err := <-done:
							t.Fatalf("play ended before it read the bag: %v\n%s", err, e.String())
						}
					}
				}
				cmd.Process.Signal(sig)
				err := await.Recv(t, fmt.Sprintf("the end of play after %v %s at %s", sig, mode, stage), done)
				var ee *exec.ExitError
				switch {
				case err == nil:
					if !strings.Contains(o.String(), "played ") {
						t.Errorf("%v %s at %s: exit 0 without a summary: %q", sig, mode, stage, o.String())
					}
				case errors.As(err, &ee) && ee.ProcessState.Sys().(syscall.WaitStatus).Signaled() && stage == "start":
					// The signal came before the handler was installed:
					// its default action ended the process.
				default:
					t.Errorf("%v %s at %s: %v\n%s", sig, mode, stage, err, e.String())
				}
			}
		}
	}
}

// hasOpen reports whether process pid has path open (/proc lists it).
func hasOpen(pid int, path string) bool {
	links, _ := filepath.Glob(fmt.Sprintf("/proc/%d/fd/*", pid))
	for _, l := range links {
		if p, _ := os.Readlink(l); p == path {
			return true
		}
	}
	return false
}
