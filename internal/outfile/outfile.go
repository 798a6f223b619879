// Package outfile writes the tools' output files safely: each under a
// temporary name in its directory, renamed to its final name only when
// complete; never over one of the inputs; and the temporary files of a run
// that was killed are removed by the next run that writes there.
//
// A temporary file is named ".NAME.partial-RANDOM" next to NAME, created
// with the permissions of os.Create (0666 less the umask), and holds an
// exclusive advisory lock (flock) for as long as its writer has it open.
// The kernel drops the lock when the writer exits, however it exits, so a
// file of that name that can be locked is proven stale: its writer is gone.
// RemoveStale removes those and leaves alone the ones another running
// writer holds.
package outfile

import (
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// marker separates a temporary file's target name from its random part.
const marker = ".partial-"

// tempPrefix starts the names of path's temporary files.
func tempPrefix(path string) string { return "." + filepath.Base(path) + marker }

// File is an output file being written under a temporary name.
type File struct {
	*os.File
	path string // the final name
}

// Create creates a temporary file for path, locked, in path's directory.
// Commit renames it to path; Abort removes it. Create does not look for
// stale temporary files (a writer of many files calls RemoveStale once).
func Create(path string) (*File, error) {
	f, err := createLocked(filepath.Dir(path), tempPrefix(path))
	if err != nil {
		return nil, fmt.Errorf("cannot write %s: %w", path, err)
	}
	return &File{File: f, path: path}, nil
}

// createLocked creates a new file in dir named prefix+RANDOM with
// os.Create's permissions (0666 less the umask) and locks it. A file that
// a concurrent RemoveStale removed between its creation and its lock is
// created again under another name.
func createLocked(dir, prefix string) (*os.File, error) {
	for range 10000 {
		name := filepath.Join(dir, prefix+strconv.FormatUint(uint64(rand.Uint32()), 10))
		f, err := os.OpenFile(name, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o666)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		if err != nil {
			var pe *fs.PathError
			if errors.As(err, &pe) {
				err = pe.Err
			}
			return nil, err
		}
		if err := lock(f); err != nil {
			f.Close()
			os.Remove(name)
			return nil, err
		}
		if fi, err := f.Stat(); err == nil {
			if on, err := os.Lstat(name); err == nil && os.SameFile(fi, on) {
				return f, nil
			}
		}
		f.Close() // removed before it was locked: take another name
	}
	return nil, errors.New("no free temporary file name")
}

// Commit syncs the file and renames it to its final name while still
// holding its lock, then closes it. On error the temporary file is
// removed and the final name is untouched.
func (f *File) Commit() error { return f.commit(true) }

// CommitUnsynced is Commit without the sync, for writers of many small
// files (one per frame) where a sync per file would cost more than the
// writing: the name still never holds part of a file the writer wrote,
// but a crash of the machine may leave it empty.
func (f *File) CommitUnsynced() error { return f.commit(false) }

func (f *File) commit(sync bool) error {
	var err error
	if sync {
		err = f.Sync()
	}
	if err == nil {
		err = os.Rename(f.Name(), f.path)
	}
	if cerr := f.File.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(f.Name())
		return fmt.Errorf("writing %s: %w", f.path, err)
	}
	return nil
}

// Abort removes the temporary file and closes it; the final name is
// untouched. It may follow a failed Commit.
func (f *File) Abort() {
	os.Remove(f.Name())
	f.File.Close()
}

// Write removes the stale temporary files of path (see RemoveStale) and
// writes path through fill into a temporary file (see Create), synced and
// renamed to path only when fill succeeds; otherwise the temporary file is
// removed and path is untouched.
func Write(path string, fill func(f *os.File) error) error {
	RemoveStale(filepath.Dir(path), filepath.Base(path))
	f, err := Create(path)
	if err != nil {
		return err
	}
	if err := fill(f.File); err != nil {
		f.Abort()
		return fmt.Errorf("writing %s: %w (nothing written under that name)", path, err)
	}
	if err := f.Commit(); err != nil {
		return fmt.Errorf("%w (nothing written under that name)", err)
	}
	return nil
}

// RemoveStale removes, in dir, the temporary files of every output whose
// name starts with prefix that no running writer holds (their writer was
// killed), and returns their paths. A file it cannot prove stale is left.
func RemoveStale(dir, prefix string) []string {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	var removed []string
	for _, e := range ents {
		name := e.Name()
		if !e.Type().IsRegular() || !isTemp(name, prefix) {
			continue
		}
		p := filepath.Join(dir, name)
		if removeIfStale(p) {
			removed = append(removed, p)
		}
	}
	return removed
}

// isTemp reports whether name is that of a temporary file (see Create)
// of an output whose name starts with prefix: ".PREFIX...partial-DIGITS".
func isTemp(name, prefix string) bool {
	i := strings.LastIndex(name, marker)
	if !strings.HasPrefix(name, "."+prefix) || i < 1+len(prefix) || i+len(marker) == len(name) {
		return false
	}
	for _, c := range name[i+len(marker):] {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// removeIfStale removes the temporary file p if it can take its lock (no
// writer holds it) and p still names the file it locked.
func removeIfStale(p string) bool {
	f, err := os.OpenFile(p, os.O_RDONLY|noFollow, 0)
	if err != nil {
		return false
	}
	defer f.Close()
	if !tryLock(f) {
		return false
	}
	fi, err := f.Stat()
	if err != nil || !fi.Mode().IsRegular() {
		return false
	}
	on, err := os.Lstat(p)
	if err != nil || !os.SameFile(fi, on) {
		return false
	}
	return os.Remove(p) == nil
}

// ErrInput reports an output that names one of the inputs.
var ErrInput = errors.New("the output is an input")

// Inputs are the files a command reads, to check that no output names one.
type Inputs struct {
	names []string
	infos []os.FileInfo
}

// NewInputs records the files named, as paths or file:// URLs (other URLs
// and missing files are not files an output could name, and are left out).
func NewInputs(names ...string) *Inputs {
	in := &Inputs{}
	for _, n := range names {
		p := n
		if scheme, rest, ok := strings.Cut(n, "://"); ok && strings.EqualFold(scheme, "file") {
			if u, err := url.Parse("file://" + rest); err == nil {
				p = u.Path
			}
		}
		if fi, err := os.Stat(p); err == nil {
			in.names = append(in.names, n)
			in.infos = append(in.infos, fi)
		}
	}
	return in
}

// Check returns an error wrapping ErrInput if out names one of the inputs,
// through symbolic or hard links too.
func (in *Inputs) Check(out string) error {
	if len(in.infos) == 0 {
		return nil
	}
	fi, err := os.Stat(out)
	if err != nil {
		return nil
	}
	for i, info := range in.infos {
		if os.SameFile(fi, info) {
			if in.names[i] == out {
				return fmt.Errorf("%s: %w: writing it would destroy what is read", out, ErrInput)
			}
			return fmt.Errorf("%s: %w (%s is the same file): writing it would destroy what is read", out, ErrInput, in.names[i])
		}
	}
	return nil
}

// CheckOutputs returns an error wrapping ErrInput if one of outs names one
// of inputs.
func CheckOutputs(inputs []string, outs ...string) error {
	in := NewInputs(inputs...)
	for _, o := range outs {
		if err := in.Check(o); err != nil {
			return err
		}
	}
	return nil
}

// Aside is an existing file moved aside while a new one is made under its
// name (see SetAside).
type Aside struct {
	f         *os.File // the moved file, locked
	path, tmp string
}

// SetAside moves the regular file at path (through symbolic links) to a
// locked temporary name next to it, so that a new file can be created at
// path without touching it: Restore puts it back, Drop removes it. It
// returns nil, nil when path does not exist or is not a regular file
// (nothing to keep). Should the process be killed in between, the file is
// left under the temporary name, as a stale temporary file of path.
func SetAside(path string) (*Aside, error) {
	real, err := filepath.EvalSymlinks(path)
	if err != nil {
		return nil, nil
	}
	f, err := os.OpenFile(real, os.O_RDONLY|noFollow, 0)
	if err != nil {
		return nil, nil
	}
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		f.Close()
		return nil, nil
	}
	if err := lock(f); err != nil {
		f.Close()
		return nil, fmt.Errorf("%s: another program is writing it: %w", path, err)
	}
	slot, err := createLocked(filepath.Dir(real), tempPrefix(real))
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("cannot move %s aside: %w", path, err)
	}
	slot.Close()
	if err := os.Rename(real, slot.Name()); err != nil {
		os.Remove(slot.Name())
		f.Close()
		return nil, fmt.Errorf("cannot move %s aside: %w", path, err)
	}
	return &Aside{f: f, path: real, tmp: slot.Name()}, nil
}

// Restore puts the file back under its name, replacing what was made
// there since SetAside. A nil Aside does nothing.
func (a *Aside) Restore() error {
	if a == nil {
		return nil
	}
	defer a.f.Close()
	if err := os.Rename(a.tmp, a.path); err != nil {
		return fmt.Errorf("%s was kept as %s: %w", a.path, a.tmp, err)
	}
	return nil
}

// Drop removes the file set aside. A nil Aside does nothing.
func (a *Aside) Drop() {
	if a == nil {
		return
	}
	os.Remove(a.tmp)
	a.f.Close()
}
