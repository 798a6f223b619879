package outfile

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"syscall"
	"testing"
)

// needFlock skips where a lock cannot prove a temporary file stale.
func needFlock(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no flock: temporary files are never proven stale")
	}
}

// TestRemoveStale: a temporary file its writer no longer holds (the writer
// was killed: nothing holds its lock) is removed by the next run writing
// the same output; one a running writer holds, the outputs themselves and
// other files are not.
func TestRemoveStale(t *testing.T) {
	needFlock(t)
	dir := t.TempDir()
	out := filepath.Join(dir, "out.mcap")
	stale := filepath.Join(dir, ".out.mcap.partial-123")
	other := filepath.Join(dir, ".other.mcap.partial-5")
	keep := []string{out, filepath.Join(dir, ".out.mcap"), filepath.Join(dir, "out.mcap.partial-7"), other,
		filepath.Join(dir, ".out.mcap.partial-notes"), filepath.Join(dir, ".out.mcap.partial-")}
	for _, p := range append([]string{stale}, keep...) {
		if err := os.WriteFile(p, []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	live, err := Create(out) // a running writer of the same output
	if err != nil {
		t.Fatal(err)
	}
	defer live.Abort()
	// The next run writing the same output.
	if err := Write(out, func(f *os.File) error { return nil }); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(stale); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the stale temporary file is still there (%v)", err)
	}
	if _, err := os.Stat(live.Name()); err != nil {
		t.Errorf("a running writer's temporary file was removed: %v", err)
	}
	for _, p := range keep {
		if _, err := os.Stat(p); err != nil {
			t.Errorf("%s was removed: %v", p, err)
		}
	}
	if got := RemoveStale(dir, "other"); !slices.Equal(got, []string{other}) {
		t.Errorf("RemoveStale(other) = %q, want %q", got, other)
	}
}

// TestWriteMode: outputs get os.Create's permissions, 0666 less the umask.
func TestWriteMode(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no umask")
	}
	old := syscall.Umask(0o027)
	defer syscall.Umask(old)
	dir := t.TempDir()
	p := filepath.Join(dir, "a.bin")
	if err := Write(p, func(f *os.File) error { _, err := f.WriteString("data"); return err }); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	if got := fi.Mode().Perm(); got != 0o640 {
		t.Errorf("mode %v, want -rw-r----- (0666 less umask 027)", got)
	}
}

// TestWriteFailure: a failed fill leaves the final name untouched and no
// temporary file.
func TestWriteFailure(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "a.bin")
	if err := os.WriteFile(p, []byte("before"), 0o644); err != nil {
		t.Fatal(err)
	}
	boom := errors.New("boom")
	err := Write(p, func(f *os.File) error { f.WriteString("partial"); return boom })
	if !errors.Is(err, boom) {
		t.Fatalf("err = %v, want boom", err)
	}
	if b, _ := os.ReadFile(p); string(b) != "before" {
		t.Errorf("%s holds %q", p, b)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 1 {
		t.Errorf("left %d files", len(ents))
	}
}

// TestInputs: an output naming an input, directly or through a symbolic or
// hard link, is refused.
func TestInputs(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "in.bag")
	if err := os.WriteFile(in, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	sym, hard := filepath.Join(dir, "sym.bag"), filepath.Join(dir, "hard.bag")
	if err := os.Symlink("in.bag", sym); err != nil {
		t.Skip(err)
	}
	if err := os.Link(in, hard); err != nil {
		t.Skip(err)
	}
	for _, tc := range []struct {
		out  string
		want bool
	}{{in, true}, {sym, true}, {hard, true}, {filepath.Join(dir, "new.bag"), false}, {dir, false}} {
		err := CheckOutputs([]string{in, "s3://b/k.bag"}, tc.out)
		if got := errors.Is(err, ErrInput); got != tc.want {
			t.Errorf("CheckOutputs(%s) = %v, want refused %v", tc.out, err, tc.want)
		}
	}
}

// TestSetAside: a file set aside is back, unchanged, after Restore (also
// when reached through a symbolic link and replaced meanwhile), and gone
// after Drop; while set aside it is not stale.
func TestSetAside(t *testing.T) {
	needFlock(t)
	dir := t.TempDir()
	p := filepath.Join(dir, "keep.bag")
	link := filepath.Join(dir, "link.bag")
	if err := os.Symlink("keep.bag", link); err != nil {
		t.Skip(err)
	}
	for _, drop := range []bool{false, true} {
		if err := os.WriteFile(p, []byte("old"), 0o644); err != nil {
			t.Fatal(err)
		}
		a, err := SetAside(link)
		if err != nil || a == nil {
			t.Fatalf("SetAside: %v, %v", a, err)
		}
		if _, err := os.Stat(p); !os.IsNotExist(err) {
			t.Errorf("still at its name after SetAside (%v)", err)
		}
		if err := os.WriteFile(link, []byte("new"), 0o644); err != nil { // through the link
			t.Fatal(err)
		}
		if got := RemoveStale(dir, "keep.bag"); len(got) != 0 {
			t.Errorf("RemoveStale removed the file set aside: %q", got)
		}
		want := "old"
		if drop {
			a.Drop()
			want = "new"
		} else if err := a.Restore(); err != nil {
			t.Fatal(err)
		}
		if b, _ := os.ReadFile(p); string(b) != want {
			t.Errorf("drop %v: %s holds %q, want %q", drop, p, b, want)
		}
		if ents, _ := os.ReadDir(dir); len(ents) != 2 {
			t.Errorf("drop %v: %d files left, want 2", drop, len(ents))
		}
	}
	if a, err := SetAside(filepath.Join(dir, "none.bag")); a != nil || err != nil {
		t.Errorf("SetAside of a missing file: %v, %v", a, err)
	}
}
