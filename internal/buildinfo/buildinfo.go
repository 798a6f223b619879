// Package buildinfo says which build of the module is running, from the
// build information the Go toolchain records in the binary.
package buildinfo

import "runtime/debug"

// Version returns the main module's version of bi ("(devel)" for a build
// from a work tree) followed, when the toolchain recorded it, by
// " commit REV", with "-modified" when the work tree had changes.
func Version(bi *debug.BuildInfo) string {
	version := bi.Main.Version
	if version == "" {
		version = "(devel)"
	}
	rev, modified := "", false
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			modified = s.Value == "true"
		}
	}
	if rev != "" {
		version += " commit " + rev
		if modified {
			version += "-modified"
		}
	}
	return version
}
