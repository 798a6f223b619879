package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestDumpRawDirCreated: dump --processing --raw-dir creates a missing
// directory (whose parent exists) and writes the first frame's outputs
// there; a file in its place is refused.
func TestDumpRawDirCreated(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	bag := depthColorBag(t, dir)
	raw := filepath.Join(dir, "raw")
	if r := rsRecord(t, "dump", "--processing", "--raw-dir", raw, bag); r.code != 0 {
		t.Fatalf("dump --raw-dir (missing): exit %d\n%s", r.code, r.stderr)
	}
	if files, err := os.ReadDir(raw); err != nil || len(files) == 0 {
		t.Errorf("%s: %d files, %v", raw, len(files), err)
	}
	file := filepath.Join(dir, "file")
	os.WriteFile(file, nil, 0o644)
	if r := rsRecord(t, "dump", "--processing", "--raw-dir", file, bag); r.code != 2 || !strings.Contains(r.stderr, "not a directory") {
		t.Errorf("dump --raw-dir FILE: exit %d, want 2\n%s", r.code, r.stderr)
	}
}

// TestPlayStreamsNamesIndex: a stream played alone keeps its index in
// the summary unless it is 0.
func TestPlayStreamsNamesIndex(t *testing.T) {
	t.Parallel()
	bag := filepath.Join(t.TempDir(), "ir.bag")
	if r := rsRecord(t, "record", "--synthetic", "--speed", "0", "--frames", "3", "--depth", "64x48@30",
		"--color", "off", "--ir", "64x48@30", "--ir-count", "2", "--accel", "0", "--gyro", "0", "-f", bag); r.code != 0 {
		t.Fatalf("record: exit %d\n%s", r.code, r.stderr)
	}
	for _, tt := range []struct{ streams, want string }{
		{"infrared/2", "Infrared/2 3 frames"},
		{"infrared/1", "Infrared/1 3 frames"},
		{"depth", "Depth 3 frames"},
	} {
		r := rsRecord(t, "play", "--realtime=false", "--streams", tt.streams, bag)
		if r.code != 0 || !strings.Contains(r.stdout, tt.want) {
			t.Errorf("play --streams %s: exit %d, want %q in\n%s%s", tt.streams, r.code, tt.want, r.stdout, r.stderr)
		}
	}
}

// TestConvertLongFlags: convert takes rs-convert's long flags, and its -h
// shows one-letter flags with one dash beside their long names.
func TestConvertLongFlags(t *testing.T) {
	t.Parallel()
	r := rsRecord(t, "convert", "-h")
	for _, want := range []string{"-i, --input", "-d, --depth", "-c, --color", "-s, --start-time", "-e, --end-time", "-p, --output-png"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("convert -h lacks %q", want)
		}
	}
	for _, bad := range []string{"--p ", "--i ", "--s ", "--d\n"} {
		if strings.Contains(r.stdout, bad) {
			t.Errorf("convert -h shows %q", bad)
		}
	}
	dir := t.TempDir()
	bag := depthColorBag(t, dir)
	out := filepath.Join(dir, "out")
	if r := rsRecord(t, "convert", "--output-raw", out, "--depth", "--input", bag); r.code != 0 {
		t.Fatalf("convert --output-raw --depth --input: exit %d\n%s", r.code, r.stderr)
	}
	depth, _ := filepath.Glob(out + "_Depth_*.raw")
	color, _ := filepath.Glob(out + "_Color_*.raw")
	if len(depth) != 2 || len(color) != 0 {
		t.Errorf("--depth wrote %d depth and %d color files, want 2 and 0", len(depth), len(color))
	}
}

// depthColorBag records 2 frames of synthetic 64x48 depth and color into
// dir and returns the bag's path.
func depthColorBag(t *testing.T, dir string) string {
	t.Helper()
	bag := filepath.Join(dir, "dc.bag")
	if r := rsRecord(t, "record", "--synthetic", "--speed", "0", "--frames", "2", "--depth", "64x48@30",
		"--color", "64x48@30", "--accel", "0", "--gyro", "0", "-f", bag); r.code != 0 {
		t.Fatalf("record: exit %d\n%s", r.code, r.stderr)
	}
	return bag
}
