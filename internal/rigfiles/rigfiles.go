// Package rigfiles names the files of a rig session (package rig): the bag
// of each device and the manifest, both derived from the name given to
// rs-record record -f. Package rig writes and opens them under these names;
// a user of rig gets them from rig.Recording (Paths, ManifestFile) and
// opens a session by its manifest's name.
package rigfiles

import (
	"path/filepath"
	"strings"
)

// ManifestSuffix ends the name of a session manifest.
const ManifestSuffix = ".session.json"

// IsManifest reports whether path names a session manifest (by its suffix).
func IsManifest(path string) bool { return strings.HasSuffix(path, ManifestSuffix) }

// ManifestPath returns the manifest path of a session recorded with -f
// file: "rig.bag" → "rig.session.json".
func ManifestPath(file string) string {
	return strings.TrimSuffix(file, filepath.Ext(file)) + ManifestSuffix
}

// BagPath returns the path of the bag of the device with this serial in a
// session recorded with -f file: "rig.bag" → "rig.<serial>.bag". Characters
// that cannot be part of a file name are replaced by '_'.
func BagPath(file, serial string) string {
	ext := filepath.Ext(file)
	if ext == "" {
		ext = ".bag"
	}
	safe := strings.Map(func(r rune) rune {
		if r == '/' || r == '\\' || r == 0 || r < ' ' {
			return '_'
		}
		return r
	}, serial)
	return strings.TrimSuffix(file, filepath.Ext(file)) + "." + safe + ext
}
