package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rsbag/rsbag/internal/testsupport/testbags"
)

// TestEditCompress: decompress then compress gives bags that pass the
// strict checkers (librealsense's quirks rewritten as valid ROS), say their
// compression, and play exactly as the source.
func TestEditCompress(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	srcs := testbags.Librealsense(t, "../..")
	for _, src := range srcs {
		base := strings.TrimSuffix(filepath.Base(src), ".bag")
		none, lz4 := filepath.Join(dir, base+".none.bag"), filepath.Join(dir, base+".lz4.bag")
		if r := rsRecord(t, "edit", "decompress", "-o", none, src); r.code != 0 {
			t.Fatalf("decompress: exit %d\n%s", r.code, r.stderr)
		}
		if r := rsRecord(t, "edit", "compress", "-o", lz4, none); r.code != 0 {
			t.Fatalf("compress: exit %d\n%s", r.code, r.stderr)
		}
		d0 := rsRecord(t, "dump", src)
		for bag, want := range map[string]string{none: "none", lz4: "lz4"} {
			bi := infoJSON(t, bag)
			if len(bi.Compression) != 1 || bi.Compression[0] != want {
				t.Errorf("%s: compression %v, want %s", bag, bi.Compression, want)
			}
			d1 := rsRecord(t, "dump", bag)
			if d1.code != 0 || testbags.DumpBody(d0.stdout) != testbags.DumpBody(d1.stdout) {
				t.Errorf("%s plays differently from the source (exit %d)", bag, d1.code)
			}
			checkStrict(t, bag)
		}
	}
	// A recording of ours.
	own := filepath.Join(dir, "own.bag")
	if r := rsRecord(t, "record", "--synthetic", "--speed", "0", "--frames", "10", "--depth", "424x240@30",
		"--color", "424x240@30", "--no-compress", "-f", own); r.code != 0 {
		t.Fatalf("record: exit %d\n%s", r.code, r.stderr)
	}
	ownLZ4 := filepath.Join(dir, "own-lz4.bag")
	if r := rsRecord(t, "edit", "compress", "-o", ownLZ4, own); r.code != 0 {
		t.Fatalf("compress: exit %d\n%s", r.code, r.stderr)
	}
	checkStrict(t, ownLZ4)

	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"edit"}, 2, "subcommand"},
		{[]string{"edit", "shrink", own}, 2, "shrink"},
		{[]string{"edit", "compress", own}, 2, "-o"},
		{[]string{"edit", "compress", "-o", ownLZ4, ownLZ4}, 2, "output is an input"},
		{[]string{"edit", "compress", "-o", filepath.Join(dir, "x.bag"), filepath.Join(dir, "none-such.bag")}, 1, "none-such.bag"},
	} {
		if r := rsRecord(t, c.args...); r.code != c.code || !strings.Contains(r.stderr, c.want) {
			t.Errorf("%v: exit %d, stderr %q; want %d naming %q", c.args, r.code, r.stderr, c.code, c.want)
		}
	}
}

// TestEditReindex: an unindexed bag is replaced by an indexed one holding
// every recovered message; an indexed bag is left byte for byte alone.
func TestEditReindex(t *testing.T) {
	t.Parallel()
	var unindexed string
	for _, b := range brokenBags(t) {
		if filepath.Base(b) == "unindexed.bag" {
			unindexed = b
		}
	}
	if unindexed == "" {
		t.Fatal("no unindexed variant among the broken bags")
	}
	dir := t.TempDir()
	bag := filepath.Join(dir, "crashed.bag")
	data, err := os.ReadFile(unindexed)
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(bag, data, 0o644)
	before := infoJSON(t, bag)
	if before.Indexed || before.Recovery == nil {
		t.Fatalf("the crashed bag is already indexed: %+v", before)
	}
	r := rsRecord(t, "edit", "reindex", bag)
	if r.code != 0 || !strings.Contains(r.stdout, "reindexed") {
		t.Fatalf("reindex: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	after := infoJSON(t, bag)
	if !after.Indexed || after.Recovery != nil || after.Messages != before.Recovery.RecoveredMessages {
		t.Errorf("after reindex: indexed %v, recovery %v, %d messages; want indexed with the %d recovered",
			after.Indexed, after.Recovery, after.Messages, before.Recovery.RecoveredMessages)
	}
	checkStrict(t, bag)
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Errorf("left behind next to the bag: %v", entries)
	}
	indexed, _ := os.ReadFile(bag)
	if r := rsRecord(t, "edit", "reindex", bag); r.code != 0 || !strings.Contains(r.stdout, "already indexed") {
		t.Errorf("reindex of an indexed bag: exit %d %s%s", r.code, r.stdout, r.stderr)
	}
	if again, _ := os.ReadFile(bag); !bytes.Equal(again, indexed) {
		t.Error("reindex changed an indexed bag")
	}
}
