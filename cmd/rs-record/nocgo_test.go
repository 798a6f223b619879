package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestWithoutCgo: rs-record built without cgo (CGO_ENABLED=0: no libusb,
// as when cross-compiled) records the synthetic camera, plays, converts
// and exports bags, and says that live cameras need a cgo build: record
// names that reason for taking the synthetic camera, and devices fails
// with it (exit 1, not a link failure).
func TestWithoutCgo(t *testing.T) {
	if testing.Short() {
		t.Skip("builds rs-record without cgo")
	}
	t.Parallel()
	dir := t.TempDir()
	bin := filepath.Join(dir, "rs-record-nocgo")
	build := exec.Command("go", append(append([]string{"build"}, buildTags...), "-o", bin, ".")...)
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("CGO_ENABLED=0 go build: %v\n%s", err, out)
	}
	const needsCgo = "live cameras need a build with cgo"
	bag := filepath.Join(dir, "x.bag")
	r := runBinary(t, bin, "record", "--speed", "0", "--frames", "3", "--depth", "64x48@30", "--color", "64x48@30",
		"--accel", "off", "--gyro", "off", "-f", bag)
	if r.code != 0 || !strings.Contains(r.stderr, needsCgo+" (this one has none); recording the synthetic camera") {
		t.Fatalf("record: exit %d, %q; want 0 and the reason for the synthetic camera", r.code, r.stderr)
	}
	for _, args := range [][]string{
		{"info", bag},
		{"play", "--realtime=false", bag},
		{"convert", "-r", filepath.Join(dir, "raw"), bag},
		{"export", "--mcap", filepath.Join(dir, "x.mcap"), bag},
	} {
		if r := runBinary(t, bin, args...); r.code != 0 {
			t.Errorf("%s: exit %d\n%s", strings.Join(args, " "), r.code, r.stderr)
		}
	}
	r = runBinary(t, bin, "devices")
	if r.code != 1 || !strings.Contains(r.stderr, "built without cgo") || !strings.Contains(r.stderr, "live cameras unavailable") {
		t.Errorf("devices: exit %d, %q; want 1 and that live cameras need a cgo build", r.code, r.stderr)
	}
}
