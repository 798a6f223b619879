package main

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/rsbag/rsbag/internal/testsupport/conformance"
	"github.com/rsbag/rsbag/internal/testsupport/testbags"
)

// TestExportImport: a fresh recording exported to MCAP passes mcapcheck-js
// with every compression, and imported back it plays exactly as the
// original and passes both bag checkers.
func TestExportImport(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	bag := filepath.Join(dir, "rec.bag")
	r := rsRecord(t, "record", "--synthetic", "--speed", "0", "--frames", "15", "--depth", "424x240@30",
		"--color", "424x240@30", "-f", bag)
	if r.code != 0 {
		t.Fatalf("record: exit %d\n%s", r.code, r.stderr)
	}
	var mcaps []string
	for _, comp := range []string{"zstd", "lz4", "none"} {
		out := filepath.Join(dir, "rec-"+comp+".mcap")
		r := rsRecord(t, "export", "--compression", comp, "--mcap", out, bag)
		if r.code != 0 || !strings.Contains(r.stdout, "messages on") {
			t.Fatalf("export --compression %s: exit %d\n%s%s", comp, r.code, r.stdout, r.stderr)
		}
		mcaps = append(mcaps, out)
	}
	for _, comp := range []string{"zstd", "lz4"} {
		out := filepath.Join(dir, "rec-ros2-"+comp+".mcap")
		r := rsRecord(t, "export", "--profile", "ros2", "--compression", comp, "--mcap", out, bag)
		if r.code != 0 || !strings.Contains(r.stdout, "messages on 16 topics") || r.stderr != "" {
			t.Fatalf("export --profile ros2 --compression %s: exit %d, want 16 topics (depth and color: image, info, metadata; gyro and accel: sample, imu_info, metadata; three extrinsics; /tf_static)\n%s%s", comp, r.code, r.stdout, r.stderr)
		}
		mcaps = append(mcaps, out)
	}
	if tool := conformance.Optional(t, conformance.MCAPcheckJS); tool != "" {
		if out, err := exec.Command(tool, append([]string{"-q"}, mcaps...)...).CombinedOutput(); err != nil {
			t.Errorf("mcapcheck-js rejects the exports: %v\n%s", err, out)
		}
	}
	back := filepath.Join(dir, "back.bag")
	if r := rsRecord(t, "import", mcaps[0], back); r.code != 0 {
		t.Fatalf("import: exit %d\n%s", r.code, r.stderr)
	}
	checkStrict(t, back)
	d0, d1 := rsRecord(t, "dump", bag), rsRecord(t, "dump", back)
	if d0.code != 0 || d1.code != 0 || testbags.DumpBody(d0.stdout) != testbags.DumpBody(d1.stdout) {
		t.Errorf("the imported bag plays differently (exit %d / %d)", d0.code, d1.code)
	}
	// Nothing but the outputs was written.
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if strings.Contains(e.Name(), "partial") {
			t.Errorf("left behind: %s", e.Name())
		}
	}
}

// TestExportBadInput: each mistake is an error naming the file, with the
// documented exit status, and leaves no output behind.
func TestExportBadInput(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	ref := "../../testdata/librealsense/depth_color.bag"
	fifo := filepath.Join(dir, "fifo.bag")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	notBag := filepath.Join(dir, "text.bag")
	os.WriteFile(notBag, []byte("hello, not a bag\n"), 0o644)
	notMCAP := filepath.Join(dir, "text.mcap")
	os.WriteFile(notMCAP, []byte("hello, not an mcap file\n"), 0o644)
	out := filepath.Join(dir, "out.mcap")
	cases := []struct {
		name string
		args []string
		code int
		want string
	}{
		{"no output", []string{"export", ref}, 2, "--mcap"},
		{"two bags", []string{"export", "--mcap", out, ref, ref}, 2, "exactly one BAG"},
		{"bad compression", []string{"export", "--compression", "gzip", "--mcap", out, ref}, 2, "gzip"},
		{"unknown profile", []string{"export", "--profile", "ros3", "--mcap", out, ref}, 2, "ros3"},
		{"relative namespace", []string{"export", "--profile", "ros2", "--ros-namespace", "camera", "--mcap", out, ref}, 2, "--ros-namespace"},
		{"namespace with a space", []string{"export", "--profile", "ros2", "--ros-namespace", "/my camera", "--mcap", out, ref}, 2, "--ros-namespace"},
		{"camera name with a slash", []string{"export", "--profile", "ros2", "--camera-name", "a/b", "--mcap", out, ref}, 2, "--camera-name"},
		{"ros2 of a pose-only bag", []string{"export", "--profile", "ros2", "--mcap", out, "../../testdata/librealsense/pose.bag"}, 1, "no stream the ROS 2 wrapper publishes"},
		{"ros2 missing bag", []string{"export", "--profile", "ros2", "--mcap", out, filepath.Join(dir, "none.bag")}, 1, "none.bag"},
		{"ros2 not a bag", []string{"export", "--profile", "ros2", "--mcap", out, notBag}, 1, "text.bag"},
		{"missing bag", []string{"export", "--mcap", out, filepath.Join(dir, "none.bag")}, 1, "none.bag"},
		{"fifo", []string{"export", "--mcap", out, fifo}, 1, "not a regular file"},
		{"not a bag", []string{"export", "--mcap", out, notBag}, 1, "text.bag"},
		{"unwritable directory", []string{"export", "--mcap", filepath.Join(dir, "no", "such", "dir", "x.mcap"), ref}, 1, "cannot write"},
		{"import not mcap", []string{"import", notMCAP, filepath.Join(dir, "x.bag")}, 1, "text.mcap"},
		{"import one argument", []string{"import", notMCAP}, 2, "IN.mcap and OUT.bag"},
		{"import fifo", []string{"import", fifo, filepath.Join(dir, "x.bag")}, 1, "not a regular file"},
	}
	for _, c := range cases {
		r := rsRecord(t, c.args...)
		if r.code != c.code || !strings.Contains(r.stderr, c.want) {
			t.Errorf("%s: exit %d, stderr %q; want exit %d naming %q", c.name, r.code, r.stderr, c.code, c.want)
		}
	}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if n := e.Name(); n != "fifo.bag" && n != "text.bag" && n != "text.mcap" {
			t.Errorf("left behind: %s", n)
		}
	}
}

// TestMCAPGivenAsBag: an MCAP file given where a bag is expected is named
// as such, with the import command that turns it into a bag.
func TestMCAPGivenAsBag(t *testing.T) {
	t.Parallel()
	m := filepath.Join(t.TempDir(), "x.mcap")
	if r := rsRecord(t, "export", "--mcap", m, "../../testdata/librealsense/pose.bag"); r.code != 0 {
		t.Fatalf("export: exit %d\n%s", r.code, r.stderr)
	}
	want := "an MCAP file, not a ROS bag; 'rs-record import " + m + " OUT.bag' turns it into a bag"
	for _, args := range [][]string{{"info", m}, {"info", "--quick", m}, {"play", m}, {"dump", m}, {"export", "--mcap", m + ".out", m}} {
		if r := rsRecord(t, args...); r.code != 1 || !strings.Contains(r.stderr, want) {
			t.Errorf("%q: exit %d, stderr %q; want exit 1 and %q", args, r.code, r.stderr, want)
		}
	}
}

// TestExportDamaged: an unindexed bag is exported through recovery with a
// notice and exit 0; a bag with a damaged chunk exports the rest, lists
// the loss and exits 3, as info does; --allow-damaged makes that 0.
func TestExportDamaged(t *testing.T) {
	t.Parallel()
	for _, bag := range brokenBags(t) {
		for _, profile := range []string{"ros1", "ros2"} {
			name := strings.TrimSuffix(filepath.Base(bag), ".bag")
			t.Run(name+"/"+profile, func(t *testing.T) {
				exportDamaged(t, name, bag, profile)
			})
		}
	}
}

func exportDamaged(t *testing.T, name, bag, profile string) {
	out := filepath.Join(t.TempDir(), "out.mcap")
	r := rsRecord(t, "export", "--profile", profile, "--mcap", out, bag)
	info := rsRecord(t, "info", bag)
	switch {
	case name == "unindexed":
		if r.code != 0 || !strings.Contains(r.stderr, "recovered") {
			t.Errorf("exit %d, want 0 and a recovery notice:\n%s", r.code, r.stderr)
		}
	case r.code != info.code:
		t.Errorf("export exits %d, info %d:\nexport: %s\ninfo: %s", r.code, info.code, r.stderr, info.stderr)
	case r.code == 3 && fileExists(out):
		// Read as far as it could be: accepted by the flag.
		if a := rsRecord(t, "export", "--profile", profile, "--allow-damaged", "--mcap", out, bag); a.code != 0 || !strings.Contains(a.stderr, "damaged") {
			t.Errorf("--allow-damaged: exit %d, want 0 with the loss reported:\n%s", a.code, a.stderr)
		}
	case r.code != 0 && !strings.Contains(r.stderr, bag):
		t.Errorf("exit %d without naming the bag: %q", r.code, r.stderr)
	}
	if r.code == 0 {
		if _, err := os.Stat(out); err != nil {
			t.Errorf("exit 0 without output: %v", err)
		}
	}
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

// TestOutputFull: export and convert run out of room (a file size limit,
// which fails writes as a full disk does, with EFBIG instead of ENOSPC):
// a one-line error naming the output and the cause, exit status 1, no
// partial file left under any name, the source untouched.
func TestOutputFull(t *testing.T) {
	t.Parallel()
	src := "../../testdata/librealsense/depth_color.bag"
	before, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"export", "--mcap", "OUT/o.mcap", src},
		{"export", "--mcap", "OUT/o.mcap", "--compression", "none", src},
		{"export", "--profile", "ros2", "--mcap", "OUT/o.mcap", "--compression", "none", src},
		{"convert", "-r", "OUT/r", src},
		{"edit", "decompress", "-o", "OUT/d.bag", src},
	} {
		out := t.TempDir()
		for i := range args {
			args[i] = strings.Replace(args[i], "OUT", out, 1)
		}
		// 100 KiB (bash counts ulimit -f in 1024-byte blocks).
		cmd := exec.Command("bash", append([]string{"-c", `ulimit -f 100 && exec "$0" "$@"`, binPath}, args...)...)
		var stderr strings.Builder
		cmd.Stderr = &stderr
		err := cmd.Run()
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() != 1 {
			t.Errorf("%v: %v, want exit status 1\n%s", args, err, stderr.String())
		}
		if msg := strings.TrimSpace(stderr.String()); strings.Count(msg, "\n") != 0 || !strings.Contains(msg, "file too large") || !strings.Contains(msg, out) {
			t.Errorf("%v: stderr %q, want one line naming the output and the cause", args, msg)
		}
		if left, _ := os.ReadDir(out); len(left) != 0 {
			t.Errorf("%v: left %d files, e.g. %s", args, len(left), left[0].Name())
		}
	}
	after, err := os.ReadFile(src)
	if err != nil || !bytes.Equal(before, after) {
		t.Errorf("the source bag changed (%v)", err)
	}
}

// TestExportRefusesLostDescription: a bag whose device description is lost
// (a corrupt first chunk) is refused by the player, so export refuses it
// too, in both profiles: exit 3, the loss named, and no MCAP written under
// any name (once imported it would not play).
func TestExportRefusesLostDescription(t *testing.T) {
	t.Parallel()
	data, err := os.ReadFile("../../testdata/librealsense/depth_color.bag")
	if err != nil {
		t.Fatal(err)
	}
	first := bytes.Index(data, []byte("compression=lz4"))
	if first < 0 {
		t.Fatal("no LZ4 chunk")
	}
	b := bytes.Clone(data)
	b[first+600] ^= 0xff // inside the first chunk's LZ4 frame
	dir := t.TempDir()
	bag := filepath.Join(dir, "lost-description.bag")
	if err := os.WriteFile(bag, b, 0o644); err != nil {
		t.Fatal(err)
	}
	if r := rsRecord(t, "play", "--realtime=false", bag); r.code != 3 || !strings.Contains(r.stderr, "description") {
		t.Fatalf("play: exit %d, %q; want 3, the description lost", r.code, r.stderr)
	}
	for _, profile := range []string{"ros1", "ros2"} {
		outDir := t.TempDir()
		out := filepath.Join(outDir, "out.mcap")
		r := rsRecord(t, "export", "--profile", profile, "--mcap", out, bag)
		left, _ := os.ReadDir(outDir)
		if r.code != 3 || !strings.Contains(r.stderr, "description") || len(left) != 0 {
			t.Errorf("export --profile %s: exit %d, %d files written, stderr %q; want exit 3 naming the description, no file",
				profile, r.code, len(left), r.stderr)
		}
	}
}

// summaryRecords returns the offsets of the records of the summary section
// of the MCAP file in data with opcode op.
func summaryRecords(t *testing.T, data []byte, op byte) []int {
	t.Helper()
	footer := len(data) - 8 - (1 + 8 + 20) // magic, footer record
	if footer < 0 || data[footer] != 0x02 {
		t.Fatalf("no MCAP footer at %d", footer)
	}
	var out []int
	for at := int(binary.LittleEndian.Uint64(data[footer+9:])); at > 0 && at < footer; {
		if data[at] == op {
			out = append(out, at)
		}
		at += 1 + 8 + int(binary.LittleEndian.Uint64(data[at+1:]))
	}
	return out
}

// TestImportUnusableSummary: an MCAP whose summary section is unusable —
// a Channel record's opcode turned into Footer's, or a bit flipped in a
// schema's name or id — while its data section is intact is imported from the
// data section, with a notice: every message, into a bag that info accepts
// and that dumps as the original does. One whose data section is corrupt
// too is refused: nothing is written.
func TestImportUnusableSummary(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	bag := "../../testdata/librealsense/depth_color.bag"
	mc := filepath.Join(dir, "x.mcap")
	if r := rsRecord(t, "export", "--mcap", mc, bag); r.code != 0 {
		t.Fatalf("export: exit %d\n%s", r.code, r.stderr)
	}
	data, err := os.ReadFile(mc)
	if err != nil {
		t.Fatal(err)
	}
	want := testbags.DumpBody(rsRecord(t, "dump", bag).stdout)
	variants := map[string][]byte{}
	if ch := summaryRecords(t, data, 0x04); len(ch) > 0 {
		b := bytes.Clone(data)
		b[ch[0]] = 0x02 // Channel → Footer
		variants["channel-opcode-footer"] = b
	}
	for i, at := range summaryRecords(t, data, 0x03) {
		if i >= 3 {
			break
		}
		b := bytes.Clone(data)
		b[at+1+8+2+4+1] ^= 0x04 // the second letter of the schema's name
		variants[fmt.Sprintf("schema%d-name", i)] = b
		b = bytes.Clone(data)
		b[at+1+8] ^= 0x01 // its id: another schema's
		variants[fmt.Sprintf("schema%d-id", i)] = b
	}
	if len(variants) != 7 {
		t.Fatalf("%d variants, want 7", len(variants))
	}
	// With a chunk of the data section corrupt too, messages would be lost:
	// refused, and nothing written.
	lost := bytes.Clone(variants["channel-opcode-footer"])
	lost[len(lost)/3] ^= 0xff
	in := filepath.Join(dir, "lost.mcap")
	if err := os.WriteFile(in, lost, 0o644); err != nil {
		t.Fatal(err)
	}
	outDir := t.TempDir()
	if r := rsRecord(t, "import", in, filepath.Join(outDir, "back.bag")); r.code == 0 || !strings.Contains(r.stderr, "data section") {
		t.Errorf("import losing messages: exit %d, stderr %q; want an error naming the data section", r.code, r.stderr)
	}
	if left, _ := os.ReadDir(outDir); len(left) != 0 {
		t.Errorf("import losing messages left %d files", len(left))
	}
	for name, b := range variants {
		t.Run(name, func(t *testing.T) {
			in := filepath.Join(t.TempDir(), name+".mcap")
			if err := os.WriteFile(in, b, 0o644); err != nil {
				t.Fatal(err)
			}
			out := filepath.Join(t.TempDir(), "back.bag")
			r := rsRecord(t, "import", in, out)
			if r.code != 0 {
				t.Fatalf("import: exit %d, stderr %q; want 0", r.code, r.stderr)
			}
			if inf := rsRecord(t, "info", out); inf.code != 0 {
				t.Errorf("info of the imported bag: exit %d\n%s", inf.code, inf.stderr)
			}
			if got := testbags.DumpBody(rsRecord(t, "dump", out).stdout); got != want {
				t.Errorf("the imported bag does not dump as the original (%d and %d bytes); import said %q", len(got), len(want), r.stdout)
			}
			if !strings.Contains(r.stderr, "data section") {
				t.Errorf("import: stderr %q; want a notice that the data section was read", r.stderr)
			}
		})
	}
}
