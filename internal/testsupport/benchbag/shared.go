package benchbag

import (
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"
)

var shared struct {
	sync.Mutex
	dir   string
	paths map[string]string
	bytes map[string]int64
}

// Shared returns the path of a benchmark bag (as Write makes it) of that
// compression and size, written once per test binary into a temporary
// directory that Main removes, and its bytes of frame data.
func Shared(tb testing.TB, compression string, size int64) (path string, frameBytes int64) {
	tb.Helper()
	shared.Lock()
	defer shared.Unlock()
	key := fmt.Sprintf("%s-%d", compression, size)
	if p, ok := shared.paths[key]; ok {
		return p, shared.bytes[key]
	}
	p := filepath.Join(dirLocked(tb), "bench-"+key+".bag")
	n := Write(tb, p, compression, size)
	shared.paths[key], shared.bytes[key] = p, n
	return p, n
}

// Dir returns the temporary directory of the shared bags (created if
// needed), for files derived from them; Main removes it.
func Dir(tb testing.TB) string {
	tb.Helper()
	shared.Lock()
	defer shared.Unlock()
	return dirLocked(tb)
}

func dirLocked(tb testing.TB) string {
	if shared.dir == "" {
		dir, err := os.MkdirTemp("", "rsbag-bench")
		if err != nil {
			tb.Fatal(err)
		}
		shared.dir = dir
		shared.paths, shared.bytes = map[string]string{}, map[string]int64{}
	}
	return shared.dir
}

// Main runs m's tests and benchmarks, removes the shared bags and exits: a
// TestMain body.
func Main(m *testing.M) {
	code := m.Run()
	shared.Lock()
	if shared.dir != "" {
		os.RemoveAll(shared.dir)
	}
	shared.Unlock()
	os.Exit(code)
}
