// Package conformance finds, for tests, the project's conformance checkers
// in tools/conformance: bagcheck-ros (ROS's own Python reader, Debian's
// python3-rosbag), bagcheck-js (Foxglove's rosbag reader and ROS 1
// deserializer) and mcapcheck-js (the MCAP project's reader with Foxglove's
// ROS 1 and ROS 2 deserializers). tools/conformance/setup installs what
// they run on.
//
// Outside CI a test skips a check whose checker is not set up; in CI
// (the environment variable CI set, as .ci/run sets it) it fails.
package conformance

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
)

// Dir is the checkers' folder, relative to the repository root.
const Dir = "tools/conformance"

// The checkers.
const (
	BagcheckROS = "bagcheck-ros"
	BagcheckJS  = "bagcheck-js"
	MCAPcheckJS = "mcapcheck-js"
)

var (
	findOnce sync.Once
	dir      string
	dirErr   error
	pyOnce   sync.Once
	pyErr    error
)

// root finds tools/conformance from the working directory (a package's
// directory under go test, in either module of the repository).
func root() (string, error) {
	findOnce.Do(func() {
		wd, err := os.Getwd()
		if err != nil {
			dirErr = err
			return
		}
		for d := wd; ; d = filepath.Dir(d) {
			if _, err := os.Stat(filepath.Join(d, Dir, "setup")); err == nil {
				dir = filepath.Join(d, Dir)
				return
			}
			if d == filepath.Dir(d) {
				dirErr = fmt.Errorf("%s not found above %s", Dir, wd)
				return
			}
		}
	})
	return dir, dirErr
}

// Find returns the path of the checker name, or why it cannot run: not
// found, or what it runs on not installed (run tools/conformance/setup).
func Find(name string) (string, error) {
	d, err := root()
	if err != nil {
		return "", err
	}
	p := filepath.Join(d, name)
	if _, err := os.Stat(p); err != nil {
		return "", err
	}
	switch name {
	case BagcheckROS:
		pyOnce.Do(func() {
			out, err := exec.Command("/usr/bin/python3", "-s", "-c", "import rosbag, genpy, genmsg").CombinedOutput()
			if err != nil {
				pyErr = fmt.Errorf("python3-rosbag is not installed (run %s/setup): %v: %s", Dir, err, out)
			}
		})
		if pyErr != nil {
			return "", pyErr
		}
	case BagcheckJS, MCAPcheckJS:
		if _, err := exec.LookPath("node"); err != nil {
			return "", fmt.Errorf("node is not installed (run %s/setup): %w", Dir, err)
		}
		if _, err := os.Stat(filepath.Join(d, "node_modules", ".installed-lock.sha256")); err != nil {
			return "", fmt.Errorf("the npm packages are not installed (run %s/setup): %w", Dir, err)
		}
	default:
		return "", errors.New("unknown checker " + name)
	}
	return p, nil
}

// Tool returns the path of the checker name. When it cannot run, it fails
// the test in CI and skips it elsewhere.
func Tool(t testing.TB, name string) string {
	t.Helper()
	p := Optional(t, name)
	if p == "" {
		t.SkipNow()
	}
	return p
}

// Optional returns the path of the checker name, or "" when it cannot run
// outside CI (logged: the test goes on without that check). In CI it fails
// the test.
func Optional(t testing.TB, name string) string {
	t.Helper()
	p, err := Find(name)
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("%s: %v", name, err)
		}
		t.Logf("%s: %v: not checked", name, err)
	}
	return p
}

// Shared returns the path of the tool name of ../shared/conformance, the
// reference tooling a folder beside the repository may hold (make-broken-bags),
// or "" when there is none: tests use it only as extra input when present.
func Shared(name string) string {
	d, err := root()
	if err != nil {
		return ""
	}
	p := filepath.Join(d, "..", "..", "..", "shared", "conformance", name)
	if _, err := os.Stat(p); err != nil {
		return ""
	}
	return p
}
