package rig_test

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/rsbag/rsbag/device"
	"github.com/rsbag/rsbag/internal/rigfiles"
	"github.com/rsbag/rsbag/internal/testsupport/synthrig"
	"github.com/rsbag/rsbag/rig"
)

// TestCreateOutputsCollide: a session whose files would be one file — a
// bag named as the manifest, or two serials giving one bag name — is
// refused before anything is created, and an existing file of that name
// stays as it was.
func TestCreateOutputsCollide(t *testing.T) {
	for _, c := range []struct {
		file    string
		serials []string
	}{
		{"x.json", []string{"session"}},
		{"x.bag", []string{"a/b", "a_b"}},
	} {
		dir := t.TempDir()
		file := filepath.Join(dir, c.file)
		manifest := rigfiles.ManifestPath(file)
		if err := os.WriteFile(manifest, []byte("kept"), 0o644); err != nil {
			t.Fatal(err)
		}
		var devs []device.Device
		for _, s := range c.serials {
			cam := synthrig.Camera(t, s)
			defer cam.Close()
			devs = append(devs, cam)
		}
		r, err := rig.Create(file, devs, nil)
		if !errors.Is(err, rig.ErrSameFile) {
			if r != nil {
				r.Close()
			}
			t.Errorf("%s with serials %q: %v, want ErrSameFile", c.file, c.serials, err)
		}
		if ents, _ := os.ReadDir(dir); len(ents) != 1 {
			t.Errorf("%s with serials %q: %d files, want only the existing one", c.file, c.serials, len(ents))
		}
		if b, _ := os.ReadFile(manifest); string(b) != "kept" {
			t.Errorf("%s with serials %q: the existing file holds %q", c.file, c.serials, b)
		}
	}
}
