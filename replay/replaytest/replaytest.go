// Package replaytest compares what user code makes of a recording with a
// golden file, as Go's golden-file tests do: the first run with -update
// writes testdata/<TestName>.golden, later runs replay the bag (package
// replay) and fail at the first output that differs, naming the bag time,
// the input frame, the output and both values.
//
// The golden file starts with a header naming each bag's file, serial
// number, file version, size and SHA-256, the window and the streams: a
// golden file made from another bag (or another version of it) is reported
// as such, not as a diff.
//
// This package defines the -update flag of the test binary that imports
// it; such a test package must not define its own.
package replaytest

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rsbag/rsbag/replay"
)

var update = flag.Bool("update", false, "write the golden files of replaytest.Golden instead of comparing with them")

// goldenFormat is the golden file's header "format" value and
// goldenVersion its version.
const (
	goldenFormat  = "rsbag-replay-golden"
	goldenVersion = 1
)

// goldenHeader is the first line of a golden file.
type goldenHeader struct {
	Format  string   `json:"format"`
	Version int      `json:"version"`
	Bags    []bagSum `json:"bags"`
	StartNs int64    `json:"start_ns"`
	EndNs   int64    `json:"end_ns"`
	Streams []string `json:"streams"`
	Outputs int      `json:"outputs"`
}

// bagSum identifies a bag's contents.
type bagSum struct {
	File        string `json:"file"`
	Serial      string `json:"serial"`
	FileVersion int    `json:"file_version"`
	Size        int64  `json:"size"`
	SHA256      string `json:"sha256"`
}

// Path returns the golden file of the test t: testdata/<t.Name()>.golden,
// subtest separators and other characters unsafe in file names replaced by
// '_'.
func Path(t testing.TB) string {
	name := strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '-', r == '.':
			return r
		}
		return '_'
	}, t.Name())
	return filepath.Join("testdata", name+".golden")
}

// Golden replays bag (a bag, or a session manifest) through h with opts and
// compares the outputs with the test's golden file (Path), or writes it
// when the test runs with -update. It fails the test at the first
// divergence, when a bag lost frames to damage, and when the golden file
// was made from other bags; it returns the replay's result.
func Golden(t testing.TB, bag string, h replay.Handlers, opts *replay.Options) *replay.Result {
	t.Helper()
	return golden(t, Path(t), []string{bag}, h, opts, *update)
}

// GoldenFile is Golden with the golden file's path and the bags given.
func GoldenFile(t testing.TB, path string, bags []string, h replay.Handlers, opts *replay.Options) *replay.Result {
	t.Helper()
	return golden(t, path, bags, h, opts, *update)
}

func golden(t testing.TB, path string, bags []string, h replay.Handlers, opts *replay.Options, write bool) *replay.Result {
	t.Helper()
	res, err := replay.Run(context.Background(), bags, h, opts)
	if err != nil {
		t.Fatalf("replaytest: %v", err)
	}
	check(t, path, res, opts, write)
	return res
}

// GoldenResult compares the result of a replay made by another runner
// (units.Result.Replay gives a graph's) with the golden file at path, or
// writes it when the test runs with -update, as Golden does; opts are the
// options the replay ran with (its window and streams), for the header.
func GoldenResult(t testing.TB, path string, res *replay.Result, opts *replay.Options) {
	t.Helper()
	check(t, path, res, opts, *update)
}

func check(t testing.TB, path string, res *replay.Result, opts *replay.Options, write bool) {
	t.Helper()
	if res.Damaged() {
		t.Fatalf("replaytest: %s", damage(res))
	}
	hdr, err := header(res, opts)
	if err != nil {
		t.Fatalf("replaytest: %v", err)
	}
	if write {
		if err := writeGolden(path, hdr, res); err != nil {
			t.Fatalf("replaytest: %v", err)
		}
		t.Logf("replaytest: wrote %s (%d outputs)", path, len(res.Outputs))
		return
	}
	if err := compare(path, hdr, res); err != nil {
		t.Fatalf("replaytest: %v", err)
	}
}

func damage(res *replay.Result) string {
	var b strings.Builder
	for i, ls := range res.Losses {
		for _, l := range ls {
			fmt.Fprintf(&b, "%s lost %d messages at offset %d (bag time %v to %v): %v; ", res.Bags[i].Path, l.Messages, l.Offset, l.Start, l.End, l.Err)
		}
	}
	return "the bag is damaged, a replay of it is not a baseline: " + strings.TrimSuffix(b.String(), "; ")
}

func header(res *replay.Result, opts *replay.Options) (*goldenHeader, error) {
	if opts == nil {
		opts = &replay.Options{}
	}
	hdr := &goldenHeader{Format: goldenFormat, Version: goldenVersion, StartNs: int64(opts.Start), EndNs: int64(opts.End),
		Streams: []string{}, Outputs: len(res.Outputs)}
	for _, k := range opts.Streams {
		hdr.Streams = append(hdr.Streams, k.String())
	}
	for _, b := range res.Bags {
		size, sum, err := hashFile(b.Path)
		if err != nil {
			return nil, err
		}
		hdr.Bags = append(hdr.Bags, bagSum{File: filepath.Base(b.Path), Serial: b.Serial, FileVersion: b.FileVersion, Size: size, SHA256: sum})
	}
	return hdr, nil
}

func hashFile(path string) (int64, string, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, "", err
	}
	defer f.Close()
	h := sha256.New()
	n, err := io.Copy(h, f)
	if err != nil {
		return 0, "", fmt.Errorf("hashing %s: %w", path, err)
	}
	return n, hex.EncodeToString(h.Sum(nil)), nil
}

// writeGolden writes the golden file atomically.
func writeGolden(path string, hdr *goldenHeader, res *replay.Result) error {
	var buf bytes.Buffer
	b, err := json.Marshal(hdr)
	if err != nil {
		return err
	}
	buf.Write(append(b, '\n'))
	if err := res.WriteOutputs(&buf); err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, buf.Bytes(), 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

// ErrOtherBag reports a golden file made from other bags, a window or
// streams other than the replay's.
var ErrOtherBag = errors.New("replaytest: golden file made from another replay")

func compare(path string, hdr *goldenHeader, res *replay.Result) error {
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("%s does not exist: run the test with -update to create it", path)
	}
	if err != nil {
		return err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 64<<20)
	if !sc.Scan() {
		return fmt.Errorf("%s: empty, want a header line: run with -update to rewrite it", path)
	}
	var want goldenHeader
	if err := json.Unmarshal(sc.Bytes(), &want); err != nil || want.Format != goldenFormat {
		return fmt.Errorf("%s: line 1 is not a %s header (%v)", path, goldenFormat, err)
	}
	if want.Version != goldenVersion {
		return fmt.Errorf("%s: golden version %d, this package reads version %d", path, want.Version, goldenVersion)
	}
	if err := sameReplay(&want, hdr); err != nil {
		return fmt.Errorf("%s: %w: %v; if the change is intended, run the test with -update", path, ErrOtherBag, err)
	}
	for i, got := range res.Outputs {
		if !sc.Scan() {
			if err := sc.Err(); err != nil {
				return fmt.Errorf("%s: %w", path, err)
			}
			return fmt.Errorf("replay diverges from %s at output %d: bag time %v, input %s (device %s): output %q = %s is not in the golden file, which ends after %d outputs",
				path, i, got.Time, got.Input, got.Device, got.Name, got.Value, i)
		}
		var exp replay.Output
		if err := json.Unmarshal(sc.Bytes(), &exp); err != nil {
			return fmt.Errorf("%s: line %d: %w", path, i+2, err)
		}
		if exp.Time != got.Time || exp.Device != got.Device || exp.Input != got.Input || exp.Name != got.Name || !bytes.Equal(exp.Value, got.Value) {
			return fmt.Errorf("replay diverges from %s at output %d: golden: bag time %v, input %s (device %s), %q = %s; got: bag time %v, input %s (device %s), %q = %s",
				path, i, exp.Time, exp.Input, exp.Device, exp.Name, exp.Value, got.Time, got.Input, got.Device, got.Name, got.Value)
		}
	}
	if sc.Scan() {
		var exp replay.Output
		json.Unmarshal(sc.Bytes(), &exp)
		return fmt.Errorf("replay diverges from %s at output %d: the replay ended, the golden file goes on with bag time %v, input %s (device %s), %q = %s",
			path, len(res.Outputs), exp.Time, exp.Input, exp.Device, exp.Name, exp.Value)
	}
	return sc.Err()
}

func sameReplay(want, got *goldenHeader) error {
	if len(want.Bags) != len(got.Bags) {
		return fmt.Errorf("golden made from %d bags, replay of %d", len(want.Bags), len(got.Bags))
	}
	for i, w := range want.Bags {
		g := got.Bags[i]
		if w != g {
			return fmt.Errorf("golden made from %s (serial %s, file version %d, %d bytes, sha256 %s), replay of %s (serial %s, file version %d, %d bytes, sha256 %s)",
				w.File, w.Serial, w.FileVersion, w.Size, w.SHA256, g.File, g.Serial, g.FileVersion, g.Size, g.SHA256)
		}
	}
	if want.StartNs != got.StartNs || want.EndNs != got.EndNs {
		return fmt.Errorf("golden window [%d, %d) ns, replay window [%d, %d) ns", want.StartNs, want.EndNs, got.StartNs, got.EndNs)
	}
	if strings.Join(want.Streams, ",") != strings.Join(got.Streams, ",") {
		return fmt.Errorf("golden streams %v, replay streams %v", want.Streams, got.Streams)
	}
	return nil
}
