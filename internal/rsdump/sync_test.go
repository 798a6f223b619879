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
	files, _ := filepath.Glob("../../testdata/librealsense/sync/*.sync.expected.jsonl")
	if len(files) == 0 {
		t.Fatal("no sync expectations")
	}
	for _, file := range files {
		name := strings.TrimSuffix(filepath.Base(file), ".sync.expected.jsonl")
		t.Run(name, func(t *testing.T) {
			bag := filepath.Join("../../testdata/librealsense", name+".bag")
			if _, err := os.Stat(bag); err != nil {
				bag = filepath.Join("../../testdata/librealsense/real", name+".bag")
			}
			var got bytes.Buffer
			if err := RunSync(&got, bag); err != nil {
				t.Fatal(err)
			}
			want, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			gl, wl := bytes.Split(bytes.TrimSpace(got.Bytes()), []byte("\n")), bytes.Split(bytes.TrimSpace(want), []byte("\n"))
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
		})
	}
}
