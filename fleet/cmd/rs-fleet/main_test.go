package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestCommand runs the rs-fleet binary: usage errors exit 2, a run of good
// bags 0 with their rows and a summary line, a run with a damaged bag 3
// (0 with --allow-damaged). A run leaves nothing in the temporary
// directory.
func TestCommand(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "rs-fleet")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	dir := t.TempDir()
	data, err := os.ReadFile("../../../testdata/librealsense/depth_color.bag")
	if err != nil {
		t.Fatal(err)
	}
	good := filepath.Join(dir, "good.bag")
	cut := filepath.Join(dir, "cut.bag")
	if err := os.WriteFile(good, data, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(cut, data[:len(data)/2], 0o644); err != nil {
		t.Fatal(err)
	}
	tmp := t.TempDir()
	runFleet := func(args ...string) (int, string, string) {
		cmd := exec.Command(bin, args...)
		cmd.Env = append(os.Environ(), "TMPDIR="+tmp)
		var o, e bytes.Buffer
		cmd.Stdout, cmd.Stderr = &o, &e
		err := cmd.Run()
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			return ee.ExitCode(), o.String(), e.String()
		} else if err != nil {
			t.Fatal(err)
		}
		return 0, o.String(), e.String()
	}
	out := t.TempDir()
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--input", good, "--output", out}, "want a command"},
		{[]string{"frobnicate", "--input", good, "--output", out}, "mode"},
		{[]string{"validate", "--output", out}, "--input is required"},
		{[]string{"validate", "--input", good}, "no output"},
		{[]string{"validate", "--input", good, "--output", out, "--workers", "0"}, "--workers"},
		{[]string{"validate", "--input", filepath.Join(dir, "*.none"), "--output", out}, "matches no file"},
		{[]string{"export", "--profile", "ros9", "--input", good, "--output", out}, "profile"},
		{[]string{"validate", "--input", good, "--output", out, "extra.bag"}, "unexpected arguments"},
		{[]string{"validate", "--nosuchflag"}, "not defined"},
	} {
		code, _, stderr := runFleet(c.args...)
		if code != 2 || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d, stderr %q; want 2 and %q", c.args, code, stderr, c.want)
		}
	}
	code, stdout, stderr := runFleet("validate", "--input", good, "--output", out)
	lines := strings.Split(strings.TrimSpace(stdout), "\n")
	if code != 0 || len(lines) != 2 || stderr != "" {
		t.Fatalf("validate good: exit %d\n%s\n%s", code, stdout, stderr)
	}
	var sum struct {
		Summary struct{ Bags, OK int } `json:"summary"`
	}
	if err := json.Unmarshal([]byte(lines[1]), &sum); err != nil || sum.Summary.Bags != 1 || sum.Summary.OK != 1 {
		t.Errorf("summary line %s: %v", lines[1], err)
	}
	if left, err := os.ReadDir(tmp); err != nil || len(left) > 0 {
		t.Errorf("the run left %d entries in its temporary directory (%v): %v", len(left), err, left)
	}
	code, stdout, _ = runFleet("validate", "--input", good+","+cut, "--output", out)
	if code != 3 || !strings.Contains(stdout, `"verdict":"damaged"`) {
		t.Errorf("with a damaged bag: exit %d\n%s", code, stdout)
	}
	if code, _, _ = runFleet("validate", "--allow-damaged", "--input", good, "--input", cut, "--output", out); code != 0 {
		t.Errorf("--allow-damaged: exit %d", code)
	}
}
