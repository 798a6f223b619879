package main

import (
	"bytes"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rsbag/rsbag/internal/outfile"
)

// refBag is a small librealsense recording of depth and color.
const refBag = "../../testdata/librealsense/depth_color.bag"

// copyFile copies src to dst.
func copyFile(t *testing.T, src, dst string) []byte {
	t.Helper()
	b, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(dst, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return b
}

// firstFile is the first file name in dir that matches pattern.
func firstFile(t *testing.T, dir, pattern string) string {
	t.Helper()
	m, _ := filepath.Glob(filepath.Join(dir, pattern))
	if len(m) == 0 {
		t.Fatalf("no %s in %s", pattern, dir)
	}
	return filepath.Base(m[0])
}

// TestOutputIsInput: every command that writes refuses an output that is
// its input — by name, through a symbolic link or through a hard link —
// and the input stays as it was.
func TestOutputIsInput(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()

	// The names convert and dump --processing give their outputs.
	probe := filepath.Join(dir, "probe")
	os.Mkdir(probe, 0o755)
	if r := rsRecord(t, "convert", "-r", filepath.Join(probe, "P"), "--frames", "0:3", refBag); r.code != 0 {
		t.Fatalf("convert: exit %d\n%s", r.code, r.stderr)
	}
	rawName := firstFile(t, probe, "P_Depth_*.raw")
	if r := rsRecord(t, "dump", "--processing", "--no-models", "--raw-dir", probe, refBag); r.code != 0 {
		t.Fatalf("dump --processing: exit %d\n%s", r.code, r.stderr)
	}
	gzName := firstFile(t, probe, "depth_color.*.bin.gz")

	cases := []struct {
		name string
		// args given the input path; link is how the output names it:
		// "" the same name, "sym" a symbolic link, "hard" a hard link
		args func(in, out string) []string
		in   string // the input's file name
		out  string // the output's file name (when not the input's)
		// code is 2 where the command knows its outputs before it starts
		// (a usage error), 1 where it finds one on the way (an error)
		code  int
		links []string // "": the same name
	}{
		{name: "export", in: "S", code: 2, args: func(in, out string) []string { return []string{"export", "--mcap", out, in} }},
		{name: "export ros2", in: "S", code: 2, args: func(in, out string) []string {
			return []string{"export", "--profile", "ros2", "--mcap", out, in}
		}},
		{name: "import", in: "M.mcap", code: 2, args: func(in, out string) []string { return []string{"import", in, out} }},
		{name: "edit compress", in: "S", code: 2, args: func(in, out string) []string { return []string{"edit", "compress", "-o", out, in} }},
		{name: "edit trim", in: "S", code: 2, args: func(in, out string) []string { return []string{"edit", "trim", "-o", out, in} }},
		{name: "edit split", in: "P_1.bag", out: "P_1.bag", code: 2, args: func(in, out string) []string {
			return []string{"edit", "split", "--every", "0.5s", "-o", filepath.Join(filepath.Dir(out), "P"), in}
		}},
		{name: "convert", in: rawName, out: rawName, code: 1, args: func(in, out string) []string {
			return []string{"convert", "-r", filepath.Join(filepath.Dir(out), "P"), in}
		}},
		{name: "dump --raw-dir", in: "depth_color.bag", out: gzName, code: 1, links: []string{"sym", "hard"}, args: func(in, out string) []string {
			return []string{"dump", "--processing", "--no-models", "--raw-dir", filepath.Dir(out), in}
		}},
	}
	for _, c := range cases {
		if c.links == nil {
			c.links = []string{"", "sym", "hard"}
		}
		for _, link := range c.links {
			name := c.name + " " + link
			if c.out == "" && link == "" {
				name = c.name + " same name"
			}
			d := filepath.Join(dir, strings.NewReplacer(" ", "_", "-", "").Replace(name))
			if err := os.Mkdir(d, 0o755); err != nil {
				t.Fatal(err)
			}
			in := filepath.Join(d, c.in)
			var want []byte
			if c.name == "import" {
				if r := rsRecord(t, "export", "--mcap", in, refBag); r.code != 0 {
					t.Fatalf("export: exit %d\n%s", r.code, r.stderr)
				}
				want, _ = os.ReadFile(in)
			} else {
				want = copyFile(t, refBag, in)
			}
			out := in
			if c.out != "" || link != "" {
				out = filepath.Join(d, "out")
				if c.out != "" {
					out = filepath.Join(d, c.out)
				}
				if c.in == c.out { // the input must be found under another name
					in = filepath.Join(d, "input.bag")
					if err := os.Rename(out, in); err != nil {
						t.Fatal(err)
					}
				}
				var err error
				switch link {
				case "sym":
					err = os.Symlink(filepath.Base(in), out)
				case "hard":
					err = os.Link(in, out)
				case "":
					err = os.Rename(in, out)
					in = out
				}
				if err != nil {
					t.Fatal(err)
				}
			}
			r := rsRecord(t, c.args(in, out)...)
			if r.code != c.code || !strings.Contains(r.stderr, "output is an input") {
				t.Errorf("%s: exit %d, stderr %q; want exit %d saying the output is an input", name, r.code, r.stderr, c.code)
			}
			if got, err := os.ReadFile(in); err != nil || !bytes.Equal(got, want) {
				t.Errorf("%s: the input %s changed (%v)", name, in, err)
			}
		}
	}
}

// TestRecordRefusesExisting: record never replaces an existing file
// without --force, nor a session's bag or manifest, and says so; with
// --force it replaces it.
func TestRecordRefusesExisting(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	bag := filepath.Join(dir, "keep.bag")
	want := []byte("the user's data")
	os.WriteFile(bag, want, 0o644)
	args := []string{"record", "--synthetic", "--speed", "0", "--frames", "3", "--depth", "424x240@30", "--color", "off", "--accel", "0", "--gyro", "0"}
	r := rsRecord(t, append(args, "-f", bag)...)
	if r.code != 1 || !strings.Contains(r.stderr, "keep.bag") || !strings.Contains(r.stderr, "--force") {
		t.Errorf("record over an existing file: exit %d, stderr %q; want exit 1 naming it and --force", r.code, r.stderr)
	}
	if got, _ := os.ReadFile(bag); !bytes.Equal(got, want) {
		t.Errorf("the existing file changed: %q", got)
	}

	manifest := filepath.Join(dir, "rig.session.json")
	os.WriteFile(manifest, want, 0o644)
	r = rsRecord(t, append(args, "--devices", "2", "-f", filepath.Join(dir, "rig.bag"))...)
	if r.code != 1 || !strings.Contains(r.stderr, "rig.session.json") {
		t.Errorf("session over an existing manifest: exit %d, stderr %q; want exit 1 naming it", r.code, r.stderr)
	}
	if got, _ := os.ReadFile(manifest); !bytes.Equal(got, want) {
		t.Errorf("the existing manifest changed: %q", got)
	}
	if m, _ := filepath.Glob(filepath.Join(dir, "rig.*.bag")); len(m) != 0 {
		t.Errorf("a refused session created %q", m)
	}

	if r := rsRecord(t, "record", "--record-usb", bag, "-f", dir+"/./keep.bag"); r.code != 2 || !strings.Contains(r.stderr, "--record-usb") {
		t.Errorf("--record-usb naming the bag: exit %d, stderr %q; want exit 2", r.code, r.stderr)
	}
	if r := rsRecord(t, append(args, "--force", "-f", bag)...); r.code != 0 {
		t.Fatalf("record --force: exit %d\n%s", r.code, r.stderr)
	}
	if info := infoJSON(t, bag); info.frames("Depth") != 3 {
		t.Errorf("record --force: %d depth frames, want 3", info.frames("Depth"))
	}
}

// TestStaleTemporaryFiles: the temporary file a killed run left next to
// its output (no process holds its lock) is removed by the next run
// writing that output; the temporary file of a run still writing is not.
func TestStaleTemporaryFiles(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	out := filepath.Join(dir, "out.mcap")
	stale := filepath.Join(dir, ".out.mcap.partial-12345")
	os.WriteFile(stale, []byte("left by a killed export"), 0o600)
	live, err := outfile.Create(out) // a writer still running
	if err != nil {
		t.Fatal(err)
	}
	defer live.Abort()
	staleRaw := filepath.Join(dir, ".F_Depth_1.raw.partial-777")
	os.WriteFile(staleRaw, []byte("left by a killed convert"), 0o600)
	staleBag := filepath.Join(dir, ".b.bag.partial-42")
	os.WriteFile(staleBag, []byte("left by a killed edit"), 0o600)

	for _, args := range [][]string{
		{"export", "--mcap", out, refBag},
		{"convert", "-r", filepath.Join(dir, "F"), "--frames", "0:1", refBag},
		{"edit", "compress", "-o", filepath.Join(dir, "b.bag"), refBag},
	} {
		if r := rsRecord(t, args...); r.code != 0 {
			t.Fatalf("%v: exit %d\n%s", args, r.code, r.stderr)
		}
	}
	for _, p := range []string{stale, staleRaw, staleBag} {
		if _, err := os.Stat(p); !os.IsNotExist(err) {
			t.Errorf("%s: not removed (%v)", filepath.Base(p), err)
		}
	}
	if _, err := os.Stat(live.Name()); err != nil {
		t.Errorf("the running writer's temporary file was removed: %v", err)
	}
}

// TestOutputMode: every file the commands write gets the permissions
// os.Create gives, 0666 less the umask, as other tools' outputs.
func TestOutputMode(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	raw := filepath.Join(dir, "raw")
	os.Mkdir(raw, 0o755)
	for _, args := range [][]string{
		{"export", "--mcap", filepath.Join(dir, "a.mcap"), refBag},
		{"import", filepath.Join(dir, "a.mcap"), filepath.Join(dir, "b.bag")},
		{"edit", "compress", "-o", filepath.Join(dir, "c.bag"), refBag},
		{"convert", "-r", filepath.Join(dir, "F"), "--frames", "0:1", refBag},
		{"dump", "--processing", "--no-models", "--raw-dir", raw, refBag},
		{"record", "--synthetic", "--speed", "0", "--frames", "2", "--depth", "64x48@30", "--color", "off", "--accel", "0", "--gyro", "0", "--devices", "2", "-f", filepath.Join(dir, "rig.bag")},
	} {
		// umask 027: the outputs must be rw-r----- (not 0600, not 0644).
		cmd := exec.Command("sh", append([]string{"-c", `umask 027 && exec "$0" "$@"`, binPath}, args...)...)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("%v: %v\n%s", args, err, out)
		}
	}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		if got := fi.Mode().Perm(); got != 0o640 {
			t.Errorf("%s: mode %v, want -rw-r----- (umask 027)", p, got)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
