package rosbag

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

func TestReindex(t *testing.T) {
	for _, tc := range []struct {
		file string
		msgs uint64
	}{
		{"none/truncated.bag", 170},
		{"none/unindexed.bag", 301},
		{"lz4/unindexed.bag", 2616},
		{"lz4/index-pos-past-eof.bag", 2616},
		{"lz4/truncated.bag", 0},
	} {
		b, err := os.ReadFile(filepath.Join("testdata", "broken", tc.file))
		if err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(t.TempDir(), "x.bag")
		os.WriteFile(path, b, 0o644)
		rc, err := Reindex(path)
		if err != nil || rc == nil {
			t.Fatalf("%s: reindex: %v %v", tc.file, rc, err)
		}
		r, err := Open(path, nil)
		if err != nil {
			t.Fatalf("%s: after reindex: %v", tc.file, err)
		}
		if got := r.Info().Messages; got != tc.msgs {
			t.Errorf("%s: %d messages, want %d", tc.file, got, tc.msgs)
		}
		r.Close()
		if rc2, err := Reindex(path); rc2 != nil || err != nil {
			t.Errorf("%s: second reindex: %v %v", tc.file, rc2, err)
		}
		if rep, ok := runChecker(t, "bagcheck-ros", path, "--lenient"); ok && !rep.OK && tc.msgs > 0 {
			t.Errorf("%s: bagcheck-ros after reindex: %v", tc.file, rep.Errors)
		}
	}
	if _, err := Reindex(filepath.Join(t.TempDir(), "missing.bag")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing file: %v", err)
	}
}
