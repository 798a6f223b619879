package rsdump

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestSyncGolden: the syncer's framesets of every reference bag equal
// librealsense's syncer's, line for line and token for token, but for the
// reader's name on the file line.
func TestSyncGolden(t *testing.T) {
	eachGolden(t, "sync/*.sync.expected.jsonl", func(t *testing.T, name, bag, want string) {
		var got bytes.Buffer
		if err := RunSync(&got, bag); err != nil {
			t.Fatal(err)
		}
		sameLines(t, got.Bytes(), want)
	})
}

// eachGolden runs check, as a subtest, for every reference file matching
// pattern (under testdata/librealsense) with its bag.
func eachGolden(t *testing.T, pattern string, check func(t *testing.T, name, bag, want string)) {
	files, _ := filepath.Glob("../../../testdata/librealsense/" + pattern)
	if len(files) == 0 {
		t.Fatalf("no reference files %s", pattern)
	}
	suffix := strings.TrimPrefix(pattern, filepath.Dir(pattern)+"/*")
	for _, file := range files {
		name := strings.TrimSuffix(filepath.Base(file), suffix)
		t.Run(name, func(t *testing.T) {
			bag := filepath.Join("../../../testdata/librealsense", name+".bag")
			if _, err := os.Stat(bag); err != nil {
				bag = filepath.Join("../../../testdata/librealsense/real", name+".bag")
			}
			check(t, name, bag, file)
		})
	}
}

// sameLines checks got against the reference file want line for line and
// token for token, but for the reader's name on the file line.
func sameLines(t *testing.T, got []byte, want string) {
	t.Helper()
	w, err := os.ReadFile(want)
	if err != nil {
		t.Fatal(err)
	}
	gl, wl := bytes.Split(bytes.TrimSpace(got), []byte("\n")), bytes.Split(bytes.TrimSpace(w), []byte("\n"))
	for i := 0; i < min(len(gl), len(wl)); i++ {
		g, w := tokens(t, gl[i]), tokens(t, wl[i])
		if i == 0 {
			g, w = dropKey(g, "librealsense"), dropKey(w, "librealsense")
		}
		if strings.Join(g, " ") != strings.Join(w, " ") {
			t.Fatalf("line %d:\n got %s\nwant %s", i+1, gl[i], wl[i])
		}
	}
	if len(gl) != len(wl) {
		t.Errorf("%d lines, want %d", len(gl), len(wl))
	}
}
