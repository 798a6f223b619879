//go:build cloud

package main

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/rsbag/rsbag/internal/testsupport/fakes3"
)

// TestBagByURL reads bags from an S3 server: info, dump, export and
// convert give what they give for the local file, view shows it, and a
// bag truncated in the store is reported damaged as locally (exit 3, the
// same losses).
func TestBagByURL(t *testing.T) {
	root := t.TempDir()
	dir := filepath.Join(root, "rec")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile("../../testdata/librealsense/depth_color.bag")
	if err != nil {
		t.Fatal(err)
	}
	local := filepath.Join(dir, "depth_color.bag")
	cut := filepath.Join(dir, "cut.bag")
	if err := os.WriteFile(local, data, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(cut, data[:len(data)*3/5], 0o644); err != nil {
		t.Fatal(err)
	}
	srv := fakes3.New(t, root)
	url := srv.URL("rec", "depth_color.bag")
	cutURL := srv.URL("rec", "cut.bag")

	same := func(what string, a, b result) {
		t.Helper()
		if a.code != b.code || a.stdout != b.stdout {
			t.Errorf("%s: by URL exit %d, %d bytes of output; local exit %d, %d bytes\nURL stderr: %s",
				what, a.code, len(a.stdout), b.code, len(b.stdout), a.stderr)
		}
	}
	noPath := func(r result, path string) result {
		r.stdout = strings.ReplaceAll(r.stdout, path, "BAG")
		return r
	}
	for _, quick := range []string{"--quick=false", "--quick"} {
		same("info "+quick, noPath(rsRecord(t, "info", "--json", quick, url), url), noPath(rsRecord(t, "info", "--json", quick, local), local))
	}
	same("dump", rsRecord(t, "dump", url), rsRecord(t, "dump", local))
	// The viewer opens the bag by URL as the other commands do.
	view, line, e := startView(t, "--port", "0", url)
	if st, file := viewState(t, strings.TrimSpace(line), func(string, string) bool { return true }); st != "Paused" || file != url {
		t.Errorf("view by URL: the page shows %q, %s; want %q, Paused", file, st, url)
	}
	view.Process.Signal(syscall.SIGINT)
	if err := view.Wait(); err != nil {
		t.Errorf("view by URL after SIGINT: %v\n%s", err, e.String())
	}
	upper := "S3" + strings.TrimPrefix(url, "s3") // schemes match in any case
	same("info S3://", noPath(rsRecord(t, "info", "--json", upper), upper), noPath(rsRecord(t, "info", "--json", local), local))
	out := t.TempDir()
	a := rsRecord(t, "export", "--mcap", filepath.Join(out, "a.mcap"), url)
	b := rsRecord(t, "export", "--mcap", filepath.Join(out, "b.mcap"), local)
	if a.code != 0 || b.code != 0 {
		t.Fatalf("export: exit %d, %d\n%s", a.code, b.code, a.stderr)
	}
	ma, _ := os.ReadFile(filepath.Join(out, "a.mcap"))
	mb, _ := os.ReadFile(filepath.Join(out, "b.mcap"))
	if len(ma) == 0 || string(ma) != string(mb) {
		t.Errorf("export by URL: %d bytes, local: %d bytes, not equal", len(ma), len(mb))
	}
	if r := rsRecord(t, "convert", "-r", filepath.Join(out, "u"), url); r.code != 0 {
		t.Errorf("convert by URL: exit %d\n%s", r.code, r.stderr)
	} else if m, _ := filepath.Glob(filepath.Join(out, "u_*")); len(m) == 0 {
		t.Error("convert by URL wrote nothing")
	}

	dc, dl := rsRecord(t, "info", "--json", cutURL), rsRecord(t, "info", "--json", cut)
	if dc.code != 3 || !strings.Contains(dc.stderr, "damaged") {
		t.Errorf("truncated bag in the store: exit %d, stderr %q; want 3 and damaged", dc.code, dc.stderr)
	}
	same("info of the truncated bag", noPath(dc, cutURL), noPath(dl, cut))
	if r := rsRecord(t, "info", srv.URL("rec", "missing.bag")); r.code != 1 || !strings.Contains(r.stderr, "missing.bag") {
		t.Errorf("missing object: exit %d, %q", r.code, r.stderr)
	}
}
