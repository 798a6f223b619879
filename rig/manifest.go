// Package rig records and plays several cameras as one session.
//
// librealsense records one device per bag file. A rig session keeps that
// format — each camera's bag stays playable by librealsense and every ROS
// tool — and adds a manifest, NAME.session.json, that names the bags of the
// session and the instant their bag times count from. The record side
// (rs-record record --devices N) gives every bag of a session the same time
// origin, so that their bag times compare directly: a frame at bag time t
// in one bag and a frame at t in another were captured at the same instant.
//
// A Session plays the bags of a manifest, or a list of bags, as one device
// set: one clock, one speed, one pause, one seek for all of them, and in
// non-real-time mode the frames of all devices are delivered one at a time
// in common bag-time order (equal times in the order the bags are listed).
package rig

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/rsbag/rsbag/internal/outfile"
	"time"
)

// manifestFormat is the value of a manifest's "format" field, and
// manifestVersion the version this package writes and reads.
const (
	manifestFormat  = "rsbag-session"
	manifestVersion = 1
)

// Manifest describes a session: the bags recorded together and the instant
// their bag times count from.
type Manifest struct {
	Format  string `json:"format"`
	Version int    `json:"version"`
	// Start is the wall-clock instant of bag time 0 in every bag of the
	// session.
	Start time.Time `json:"start"`
	// Bags are the session's bags, one per device.
	Bags []ManifestBag `json:"bags"`
}

// ManifestBag is one bag of a session.
type ManifestBag struct {
	// File is the bag's path, relative to the manifest's directory.
	File string `json:"file"`
	// Serial is the serial number of the device recorded in it.
	Serial string `json:"serial"`
	// Name is the device's name (informative).
	Name string `json:"name,omitempty"`
}

// Check reports the first problem of m: wrong format or version, no bag,
// a bag without file or serial, two bags with one file or one serial.
func (m *Manifest) Check() error {
	switch {
	case m.Format != manifestFormat:
		return fmt.Errorf("format %q, want %q", m.Format, manifestFormat)
	case m.Version != manifestVersion:
		return fmt.Errorf("version %d, this reader reads version %d", m.Version, manifestVersion)
	case len(m.Bags) == 0:
		return errors.New("no bags")
	}
	files, serials := map[string]bool{}, map[string]bool{}
	for i, b := range m.Bags {
		switch {
		case b.File == "":
			return fmt.Errorf("bags[%d]: no file", i)
		case filepath.IsAbs(b.File):
			return fmt.Errorf("bags[%d]: file %q is absolute; it must be relative to the manifest", i, b.File)
		case b.Serial == "":
			return fmt.Errorf("bags[%d] (%s): no serial", i, b.File)
		case files[b.File]:
			return fmt.Errorf("bags[%d]: file %s named twice", i, b.File)
		case serials[b.Serial]:
			return fmt.Errorf("bags[%d] (%s): serial %s named twice", i, b.File, b.Serial)
		}
		files[b.File], serials[b.Serial] = true, true
	}
	return nil
}

// ReadManifest reads and checks the manifest at path.
func ReadManifest(path string) (*Manifest, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("rig: %w", err)
	}
	var m Manifest
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, fmt.Errorf("rig: manifest %s: %w", path, err)
	}
	if err := m.Check(); err != nil {
		return nil, fmt.Errorf("rig: manifest %s: %w", path, err)
	}
	return &m, nil
}

// Paths returns the bags' paths, resolved against the directory of the
// manifest at manifestPath.
func (m *Manifest) Paths(manifestPath string) []string {
	dir := filepath.Dir(manifestPath)
	ps := make([]string, len(m.Bags))
	for i, b := range m.Bags {
		ps[i] = filepath.Join(dir, filepath.FromSlash(b.File))
	}
	return ps
}

// WriteFile checks m and writes it to path atomically: to a temporary file
// in the same directory, synced, then renamed, so that no half-written
// manifest is ever visible under path.
func (m *Manifest) WriteFile(path string) error {
	if err := m.Check(); err != nil {
		return fmt.Errorf("rig: manifest %s: %w", path, err)
	}
	b, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return fmt.Errorf("rig: manifest %s: %w", path, err)
	}
	b = append(b, '\n')
	if err := outfile.Write(path, func(f *os.File) error {
		_, err := f.Write(b)
		return err
	}); err != nil {
		return fmt.Errorf("rig: manifest: %w", err)
	}
	return nil
}
