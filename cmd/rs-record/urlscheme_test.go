package main

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestURLSchemes: a URL of a scheme no opener reads names its scheme and
// the supported ones (not "no such file"); schemes match in any case; a
// FIFO named by a file:// URL is refused as a FIFO is by its path.
func TestURLSchemes(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	data, err := os.ReadFile("../../testdata/librealsense/depth_color.bag")
	if err != nil {
		t.Fatal(err)
	}
	bag := filepath.Join(dir, "a.bag")
	if err := os.WriteFile(bag, data, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, u := range []string{"http://example.com/a.bag", "https://example.com/a.bag", "ftp://example.com/a.bag", "HTTP://example.com/a.bag"} {
		for _, cmd := range [][]string{{"info"}, {"play"}, {"view", "--port", "0"}, {"export", "--mcap", filepath.Join(dir, "x.mcap")}} {
			r := rsRecord(t, append(cmd, u)...)
			scheme, _, _ := strings.Cut(u, "://")
			if r.code != 1 || !strings.Contains(r.stderr, `unsupported URL scheme "`+scheme+`"`) || !strings.Contains(r.stderr, "s3") || strings.Contains(r.stderr, "no such file") {
				t.Errorf("%s %s: exit %d, stderr %q; want exit 1 naming the scheme and the supported ones", cmd[0], u, r.code, r.stderr)
			}
		}
	}
	if r := rsRecord(t, "info", "FILE://"+bag); r.code != 0 {
		t.Errorf("info FILE://: exit %d, stderr %q", r.code, r.stderr)
	}

	fifo := filepath.Join(dir, "fifo.bag")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	// Held open for reading and writing, so that a reader that opens it
	// does not block: it would read nothing.
	w, err := os.OpenFile(fifo, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	for _, cmd := range [][]string{{"info"}, {"dump"}, {"export", "--mcap", filepath.Join(dir, "y.mcap")}} {
		r := rsRecord(t, append(cmd, "file://"+fifo)...)
		if r.code != 1 || !strings.Contains(r.stderr, "not a regular file (a FIFO)") {
			t.Errorf("%s file://FIFO: exit %d, stderr %q; want exit 1 refusing the FIFO", cmd[0], r.code, r.stderr)
		}
	}
}
