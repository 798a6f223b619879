package main

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"testing/synctest"

	"github.com/rsbag/rsbag/internal/lz4frame"
	"github.com/rsbag/rsbag/internal/testsupport/synthrig"
	"github.com/rsbag/rsbag/sensor"
	"github.com/rsbag/rsbag/software"
)

// lastBigChunk returns the offset and length of the last chunk record of a
// bag whose payload is more than one LZ4 block, walking its top-level
// records.
func lastBigChunk(t *testing.T, b []byte) (pos, n int) {
	t.Helper()
	for off := 13; off+8 <= len(b); {
		hl := int(binary.LittleEndian.Uint32(b[off:]))
		if off+4+hl+4 > len(b) {
			break
		}
		dl := int(binary.LittleEndian.Uint32(b[off+4+hl:]))
		end := off + 8 + hl + dl
		chunk, size := false, 0
		for h := b[off+4 : off+4+hl]; len(h) >= 4; {
			fl := int(binary.LittleEndian.Uint32(h))
			name, val, _ := bytes.Cut(h[4:4+fl], []byte("="))
			switch string(name) {
			case "op":
				chunk = bytes.Equal(val, []byte{5})
			case "size":
				size = int(binary.LittleEndian.Uint32(val))
			}
			h = h[4+fl:]
		}
		if chunk && size > lz4frame.BlockSize {
			pos, n = off, end-off
		}
		off = end
	}
	if n == 0 {
		t.Fatal("no chunk of more than one LZ4 block in the bag")
	}
	return pos, n
}

// infoAny runs info --json --allow-damaged and returns its exit status and
// what it says.
func infoAny(t *testing.T, bag string) (int, *bagInfo) {
	t.Helper()
	r := rsRecord(t, "info", "--json", "--allow-damaged", bag)
	var bi bagInfo
	if err := json.Unmarshal([]byte(r.stdout), &bi); err != nil {
		t.Fatalf("info --json %s: exit %d, %v\n%s%s", bag, r.code, err, r.stdout, r.stderr)
	}
	return rsRecord(t, "info", bag).code, &bi
}

// TestEditReindexCutChunk cuts a synthetic recording in the middle of its
// last chunk of several LZ4 blocks (a color frame is more than a block): the complete messages before the cut are kept by
// reindex, which says so; info and dump of the cut bag and of the
// reindexed one agree on the messages and on every frame.
func TestEditReindexCutChunk(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	good := filepath.Join(dir, "good.bag")
	synctest.Test(t, func(t *testing.T) {
		synthrig.Bag(t, good, software.SyntheticConfig{
			Depth:    &software.Video{Width: 424, Height: 240, FPS: 30, Format: sensor.FormatZ16},
			Color:    &software.Video{Width: 1280, Height: 720, FPS: 30, Format: sensor.FormatRGB8},
			AccelFPS: 250,
			GyroFPS:  200,
			Frames:   4,
		})
	})
	b, err := os.ReadFile(good)
	if err != nil {
		t.Fatal(err)
	}
	pos, n := lastBigChunk(t, b)
	cut := filepath.Join(dir, "cut.bag")
	os.WriteFile(cut, b[:pos+n*3/4], 0o644)
	before := filepath.Join(dir, "before.bag") // the bag up to the cut chunk
	os.WriteFile(before, b[:pos], 0o644)

	code, cutInfo := infoAny(t, cut)
	if code != 3 {
		t.Errorf("info of the cut bag: exit %d, want 3", code)
	}
	_, beforeInfo := infoAny(t, before)
	if cutInfo.Messages <= beforeInfo.Messages {
		t.Errorf("the cut bag reads %d messages, the bag without the cut chunk %d: nothing salvaged from the cut chunk", cutInfo.Messages, beforeInfo.Messages)
	}
	cutFrames := dumpLines(t, cut, "--allow-damaged")["frame"]
	r := rsRecord(t, "edit", "reindex", cut)
	if r.code != 0 || !strings.Contains(r.stdout, "salvaged") {
		t.Fatalf("reindex: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	after := infoJSON(t, cut)
	if !after.Indexed || after.Messages != cutInfo.Messages {
		t.Errorf("reindexed: indexed %v, %d messages; the cut bag reads %d", after.Indexed, after.Messages, cutInfo.Messages)
	}
	for _, s := range cutInfo.Streams {
		if got := after.frames(s.Stream); got != cutInfo.frames(s.Stream) {
			t.Errorf("%s: %d frames after reindex, %d in the cut bag", s.Stream, got, cutInfo.frames(s.Stream))
		}
	}
	var want, got []string
	for _, f := range cutFrames {
		want = append(want, frameKey(f))
	}
	for _, f := range dumpLines(t, cut)["frame"] {
		got = append(got, frameKey(f))
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("the reindexed bag plays %d frames, the cut bag %d (or other ones)", len(got), len(want))
	}
	checkStrict(t, cut)
	t.Logf("%d bytes cut to %d: %d messages without the cut chunk, %d with what it salvaged", len(b), pos+n*3/4, beforeInfo.Messages, after.Messages)
}

// TestEditReindexKeepsFile: reindex keeps the bag's mode (and owner, as
// root), follows a symbolic link to the bag it names, refuses a bag with
// other hard links, says how much room it needs, and leaves alone a file
// with nothing to recover (with the damaged status that info gives it).
func TestEditReindexKeepsFile(t *testing.T) {
	t.Parallel()
	data, err := os.ReadFile("../../rosbag/testdata/broken/lz4/unindexed.bag")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()

	private := filepath.Join(dir, "private.bag")
	os.WriteFile(private, data, 0o600)
	os.Chmod(private, 0o600)
	root := os.Geteuid() == 0
	if root {
		if err := os.Chown(private, 4242, 4343); err != nil {
			t.Fatal(err)
		}
	}
	r := rsRecord(t, "edit", "reindex", private)
	if r.code != 0 {
		t.Fatalf("reindex: exit %d\n%s", r.code, r.stderr)
	}
	if m := regexp.MustCompile(`needs (\d+) bytes free`).FindStringSubmatch(r.stdout); m == nil || m[1] != fmt.Sprint(len(data)) {
		t.Errorf("reindex does not say it needs room for a %d-byte copy:\n%s", len(data), r.stdout)
	}
	st, err := os.Stat(private)
	if err != nil {
		t.Fatal(err)
	}
	if st.Mode().Perm() != 0o600 {
		t.Errorf("mode %v after reindex, want 0600", st.Mode().Perm())
	}
	if uid, gid, _, ok := fileOwner(st); root && ok && (uid != 4242 || gid != 4343) {
		t.Errorf("owner %d:%d after reindex, want 4242:4343", uid, gid)
	}

	target := filepath.Join(dir, "target.bag")
	os.WriteFile(target, data, 0o644)
	link := filepath.Join(dir, "link.bag")
	if err := os.Symlink("target.bag", link); err != nil {
		t.Fatal(err)
	}
	if r := rsRecord(t, "edit", "reindex", link); r.code != 0 {
		t.Fatalf("reindex through a link: exit %d\n%s", r.code, r.stderr)
	}
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Errorf("the link is no longer a link: %v %v", fi, err)
	}
	if !infoJSON(t, target).Indexed {
		t.Error("the bag the link names is not indexed")
	}

	hard := filepath.Join(dir, "hard.bag")
	other := filepath.Join(dir, "other.bag")
	os.WriteFile(hard, data, 0o644)
	if err := os.Link(hard, other); err != nil {
		t.Fatal(err)
	}
	r = rsRecord(t, "edit", "reindex", hard)
	if r.code != 1 || !strings.Contains(r.stderr, "2 hard links") {
		t.Errorf("reindex of a bag with two names: exit %d\n%s; want 1 naming the 2 hard links", r.code, r.stderr)
	}
	if got, _ := os.ReadFile(other); !bytes.Equal(got, data) {
		t.Error("a refused reindex changed the bag")
	}

	empty := filepath.Join(dir, "empty.bag")
	os.WriteFile(empty, []byte("#ROSBAG V2.0\n"), 0o644)
	info := rsRecord(t, "info", empty)
	r = rsRecord(t, "edit", "reindex", empty)
	if info.code != 3 || r.code != info.code || !strings.Contains(r.stderr, "nothing to recover") {
		t.Errorf("the version line alone: info exit %d, reindex exit %d\n%s; want both 3, reindex saying there is nothing to recover", info.code, r.code, r.stderr)
	}
	if got, _ := os.ReadFile(empty); string(got) != "#ROSBAG V2.0\n" {
		t.Errorf("reindex changed the version line alone into %d bytes", len(got))
	}
}

// TestCheckRoom: a copy that fits is allowed and its need said; one that
// does not is refused with both the need and the free space.
func TestCheckRoom(t *testing.T) {
	dir := t.TempDir()
	free, ok, err := freeSpace(dir)
	if err != nil || !ok {
		t.Skipf("the free space is not known here: %v", err)
	}
	if msg, err := checkRoom(dir, 1000); err != nil || !strings.Contains(msg, "needs 1000 bytes") {
		t.Errorf("1000 bytes: %q %v", msg, err)
	}
	need := 2*free + 1
	_, err = checkRoom(dir, need)
	if err == nil || !strings.Contains(err.Error(), fmt.Sprintf("needs %d bytes", need)) || !strings.Contains(err.Error(), "are free") {
		t.Errorf("%d bytes with %d free: %v", need, free, err)
	}
}
