// Package bagname knows the names of bags: local paths, and URLs of the
// schemes registered with rosbag.RegisterScheme (package blobfile's object
// storage). It holds the registry of schemes, so that rosbag, blobfile, the
// tools and the fleet module tell a URL from a path, check that a local bag
// is a regular file, and name a bag the same way.
package bagname

import (
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"sync"
)

var schemes sync.Map // scheme → opener (the func(name string) (rosbag.File, error) of rosbag.RegisterScheme)

// bare drops the "rosbag: " of an error wrapped into a message that says
// it already.
func bare(err error) error { return bareErr{err} }

type bareErr struct{ err error }

func (e bareErr) Error() string { return strings.TrimPrefix(e.err.Error(), "rosbag: ") }
func (e bareErr) Unwrap() error { return e.err }

// IsURL reports whether name has a scheme registered with Register
// (rosbag.RegisterScheme),
// so that Open reads it through that scheme and not as a local path.
func IsURL(name string) bool {
	_, ok := Lookup(name)
	return ok
}

// Register makes name of the form SCHEME://... a URL that open (the opener
// given to rosbag.RegisterScheme) opens; a later registration of a scheme
// replaces the earlier one.
func Register(scheme string, open any) {
	schemes.Store(strings.ToLower(scheme), open)
}

// Lookup returns the opener registered for name's scheme, matched in any
// case as URL schemes are (RFC 3986, 3.1).
func Lookup(name string) (any, bool) {
	scheme := urlScheme(name)
	if scheme == "" {
		return nil, false
	}
	return schemes.Load(strings.ToLower(scheme))
}

// urlScheme returns the scheme of a name of the form SCHEME://..., or "".
func urlScheme(name string) string {
	scheme, _, ok := strings.Cut(name, "://")
	if !ok || scheme == "" {
		return ""
	}
	for i, c := range scheme {
		letter := 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z'
		if !letter && (i == 0 || !('0' <= c && c <= '9' || c == '+' || c == '-' || c == '.')) {
			return ""
		}
	}
	return scheme
}

// ErrUnsupportedScheme is rosbag.ErrUnsupportedScheme.
var ErrUnsupportedScheme = errors.New("rosbag: unsupported URL scheme")

// ErrNotRegular is rosbag.ErrNotRegular.
var ErrNotRegular = errors.New("rosbag: not a regular file")

// unsupportedScheme is the error of a URL of an unregistered scheme.
func unsupportedScheme(path, scheme string) error {
	var known []string
	schemes.Range(func(k, _ any) bool {
		known = append(known, k.(string)+"://")
		return true
	})
	if len(known) == 0 {
		return fmt.Errorf("%s: %w %q: bags are read from local files (package blobfile adds object storage)", path, bare(ErrUnsupportedScheme), scheme)
	}
	slices.Sort(known)
	return fmt.Errorf("%s: %w %q: bags are read from local files and %s URLs", path, bare(ErrUnsupportedScheme), scheme, strings.Join(known, ", "))
}

// CheckRegular returns an error wrapping ErrNotRegular (and naming the
// path and what it is) when path is not a regular file, or the error of
// os.Stat. Files read at random offsets (bags, MCAP files) are checked
// before they are opened. A URL of a registered scheme (see IsURL) passes.
func CheckRegular(path string) error {
	if IsURL(path) {
		return nil
	}
	st, err := os.Stat(path)
	if err != nil {
		if scheme := urlScheme(path); scheme != "" && errors.Is(err, fs.ErrNotExist) {
			return unsupportedScheme(path, scheme)
		}
		return err
	}
	if !st.Mode().IsRegular() {
		return fmt.Errorf("%s: %w (%s)", path, bare(ErrNotRegular), FileKind(st.Mode()))
	}
	return nil
}

// FileKind names the type of a file that is not regular.
func FileKind(m os.FileMode) string {
	switch {
	case m.IsDir():
		return "a directory"
	case m&os.ModeNamedPipe != 0:
		return "a FIFO"
	case m&os.ModeSocket != 0:
		return "a socket"
	case m&os.ModeDevice != 0:
		return "a device"
	}
	return "mode " + m.String()
}

// BaseName returns the last element of a bag's name: of the URL's path
// (without its query) for a URL of a registered scheme, of the local path
// otherwise.
func BaseName(name string) string {
	if !IsURL(name) {
		return filepath.Base(name)
	}
	if u, err := url.Parse(name); err == nil && u.Path != "" {
		return path.Base(u.Path)
	}
	return filepath.Base(name)
}
