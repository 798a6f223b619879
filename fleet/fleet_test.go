package fleet_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/x/beamx"
	_ "gocloud.dev/blob/fileblob"
	_ "gocloud.dev/blob/s3blob"

	_ "github.com/rsbag/rsbag/blobfile"
	"github.com/rsbag/rsbag/fleet"
	"github.com/rsbag/rsbag/internal/testsupport/conformance"
)

// rsRecord is the rs-record binary of the core module, built once.
var rsRecord string

func TestMain(m *testing.M) {
	flag.Parse()
	if !testing.Verbose() {
		slog.SetDefault(slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn})))
	}
	beam.Init()
	dir, err := os.MkdirTemp("", "fleet-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	// Beam's loopback environment leaves an empty placeholder file in the
	// temporary directory on every run: the tests' runs leave theirs in
	// dir, removed at the end.
	os.Setenv("TMPDIR", dir)
	rsRecord = filepath.Join(dir, "rs-record")
	cmd := exec.Command("go", "build", "-o", rsRecord, "./cmd/rs-record")
	cmd.Dir = ".."
	if out, err := cmd.CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "building rs-record: %v\n%s", err, out)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

func run(t testing.TB, name string, args ...string) {
	t.Helper()
	out, err := exec.Command(name, args...).CombinedOutput()
	if err != nil {
		t.Fatalf("%s %s: %v\n%s", filepath.Base(name), strings.Join(args, " "), err, out)
	}
}

// fleetBags writes 30 bags to dir: the reference bags, synthetic
// recordings, and the broken variants make-broken-bags makes of two of
// them (without it, the broken variants of rosbag/testdata/broken).
func fleetBags(t *testing.T, dir string) []string {
	t.Helper()
	var bags []string
	for _, p := range []string{"../testdata/librealsense/*.bag", "../testdata/librealsense/real/*.bag", "../testdata/spec/*.bag"} {
		m, _ := filepath.Glob(p)
		for _, b := range m {
			data, err := os.ReadFile(b)
			if err != nil {
				t.Fatal(err)
			}
			dst := filepath.Join(dir, "ref-"+filepath.Base(b))
			if err := os.WriteFile(dst, data, 0o644); err != nil {
				t.Fatal(err)
			}
			bags = append(bags, dst)
		}
	}
	for i, args := range [][]string{
		{"--depth", "424x240@30", "--color", "424x240@30", "--frames", "15"},
		{"--depth", "424x240@30", "--color", "off", "--no-compress", "--frames", "10"},
		{"--depth", "off", "--color", "424x240@15", "--accel", "0", "--gyro", "0", "--frames", "10"},
		{"--depth", "640x480@30", "--color", "640x480@30", "--metadata", "rich", "--frames", "8"},
		{"--depth", "424x240@30", "--color", "424x240@30", "--ir", "424x240@30", "--ir-count", "2", "--frames", "6"},
		{"--depth", "off", "--color", "off", "--frames", "40"},
		{"--depth", "480x270@30", "--color", "424x240@30", "--chunk-size", "64KiB", "--frames", "12"},
		{"--depth", "424x240@15", "--color", "424x240@15", "--accel", "63", "--gyro", "200", "--frames", "9"},
	} {
		bag := filepath.Join(dir, fmt.Sprintf("synthetic-%d.bag", i))
		run(t, rsRecord, append([]string{"record", "--synthetic", "--speed", "0", "-t", "0", "-f", bag}, args...)...)
		bags = append(bags, bag)
	}
	broken := map[string]string{ // name prefix -> folder of broken variants
		"lz4":  filepath.Join("..", "rosbag", "testdata", "broken", "lz4"),
		"none": filepath.Join("..", "rosbag", "testdata", "broken", "none"),
	}
	if mk := conformance.Shared("make-broken-bags"); mk != "" {
		broken = map[string]string{}
		for _, src := range []string{filepath.Join(dir, "ref-depth_color.bag"), filepath.Join(dir, "synthetic-1.bag")} {
			out := filepath.Join(t.TempDir(), "broken")
			run(t, mk, src, out)
			broken[strings.TrimSuffix(filepath.Base(src), ".bag")] = out
		}
	}
	for prefix, folder := range broken {
		m, _ := filepath.Glob(filepath.Join(folder, "*.bag"))
		for _, b := range m {
			data, err := os.ReadFile(b)
			if err != nil {
				t.Fatal(err)
			}
			dst := filepath.Join(dir, "broken-"+prefix+"-"+filepath.Base(b))
			if err := os.WriteFile(dst, data, 0o644); err != nil {
				t.Fatal(err)
			}
			bags = append(bags, dst)
		}
	}
	if len(bags) < 30 {
		t.Fatalf("%d bags, want 30", len(bags))
	}
	return bags
}

// infoResult is what rs-record info --json says of a bag.
type infoResult struct {
	code int
	rep  struct {
		Size        int64  `json:"size"`
		Indexed     bool   `json:"indexed"`
		FileVersion int    `json:"file_version"`
		DurationNs  uint64 `json:"duration_ns"`
		Messages    uint64 `json:"messages"`
		Device      []struct{ Name, Value string }
		Streams     json.RawMessage `json:"streams"`
		Damaged     bool            `json:"damaged"`
		Lost        []json.RawMessage
	}
}

func info(t *testing.T, bag string) infoResult {
	t.Helper()
	cmd := exec.Command(rsRecord, "info", "--json", bag)
	var out bytes.Buffer
	cmd.Stdout = &out
	err := cmd.Run()
	var r infoResult
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		r.code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	if out.Len() > 0 {
		if err := json.Unmarshal(out.Bytes(), &r.rep); err != nil {
			t.Fatalf("%s: %v", bag, err)
		}
	}
	return r
}

// TestValidateMatchesInfo runs validate on 30 bags with the local runner:
// each row has the verdict and counts rs-record info --json gives for the
// same file.
func TestValidateMatchesInfo(t *testing.T) {
	dir := t.TempDir()
	bags := fleetBags(t, dir)
	out := t.TempDir()
	tasks, err := fleet.Expand(context.Background(), []string{filepath.Join(dir, "*.bag")})
	if err != nil {
		t.Fatal(err)
	}
	if len(tasks) != len(bags) {
		t.Fatalf("Expand found %d bags, want %d", len(tasks), len(bags))
	}
	sum, rows, err := fleet.Run(context.Background(), fleet.Job{Mode: fleet.Validate, Output: out}, tasks, 2, beamx.Run)
	if err != nil {
		t.Fatal(err)
	}
	verdicts := map[string]int{}
	for _, row := range rows {
		verdicts[row.Verdict]++
		want := info(t, row.Bag)
		name := filepath.Base(row.Bag)
		wantVerdict := map[int]string{0: fleet.VerdictOK, 3: fleet.VerdictDamaged, 1: fleet.VerdictError}[want.code]
		if row.Verdict != wantVerdict {
			t.Errorf("%s: verdict %s (%s), rs-record info exits %d", name, row.Verdict, row.Error, want.code)
			continue
		}
		if row.Verdict == fleet.VerdictError {
			if row.Error == "" {
				t.Errorf("%s: error row without its error", name)
			}
			continue
		}
		w := want.rep
		if row.Size != w.Size || row.Indexed != w.Indexed || row.FileVersion != w.FileVersion || row.DurationNs != w.DurationNs ||
			row.Messages != w.Messages || len(row.Lost) != len(w.Lost) || len(row.Device) != len(w.Device) {
			t.Errorf("%s: row %+v, info %+v", name, row, w)
		}
		rb, err := json.Marshal(row.Streams)
		if err != nil {
			t.Fatal(err)
		}
		var rv []any
		if err := json.Unmarshal(rb, &rv); err != nil {
			t.Fatal(err)
		}
		rs, _ := json.Marshal(rv)
		var ws []any
		if len(w.Streams) > 0 {
			if err := json.Unmarshal(w.Streams, &ws); err != nil {
				t.Fatal(err)
			}
		}
		wb, _ := json.Marshal(ws)
		if a, b := string(rs), string(wb); a != b {
			t.Errorf("%s: streams %s, info %s", name, a, b)
		}
	}
	t.Logf("summary %+v", sum)
	if sum.Bags != len(bags) || sum.OK != verdicts[fleet.VerdictOK] || sum.Damaged != verdicts[fleet.VerdictDamaged] ||
		sum.Errors != verdicts[fleet.VerdictError] || sum.OK < 16 || sum.Damaged < 4 || sum.Errors < 2 {
		t.Errorf("summary %+v, verdicts %v", sum, verdicts)
	}
	// The results file is the rows, sorted by bag, one per line.
	data, err := os.ReadFile(filepath.Join(out, fleet.ResultsFile))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(data)), "\n")
	if len(lines) != len(bags) {
		t.Fatalf("%s has %d lines", fleet.ResultsFile, len(lines))
	}
	for i, l := range lines {
		var r fleet.Row
		if err := json.Unmarshal([]byte(l), &r); err != nil || r.Bag != rows[i].Bag || (i > 0 && rows[i-1].Bag >= r.Bag) {
			t.Errorf("line %d: %v %s", i, err, l)
		}
	}
	if _, err := os.Stat(filepath.Join(out, fleet.SummaryFile)); err != nil {
		t.Error(err)
	}
}

// TestExportAndConvert exports bags of object storage (file:// URLs, a glob)
// in both profiles to an output URL: the MCAPs pass mcapcheck-js; convert
// writes its files under one directory per bag.
func TestExportAndConvert(t *testing.T) {
	check := conformance.Tool(t, conformance.MCAPcheckJS)
	// Bags this project wrote: librealsense's own carry bytes a strict
	// ROS 1 reader refuses, which a lossless export keeps.
	in := t.TempDir()
	for i, args := range [][]string{
		{"--depth", "424x240@30", "--color", "424x240@30", "--frames", "10"},
		{"--depth", "424x240@30", "--color", "off", "--metadata", "rich", "--frames", "10"},
		{"--depth", "off", "--color", "424x240@15", "--frames", "10", "--no-compress"},
	} {
		bag := filepath.Join(in, fmt.Sprintf("rec-%d.bag", i))
		run(t, rsRecord, append([]string{"record", "--synthetic", "--speed", "0", "-t", "0", "-f", bag}, args...)...)
	}
	if data, err := os.ReadFile("../testdata/librealsense/depth_color.bag"); err != nil {
		t.Fatal(err)
	} else if err := os.WriteFile(filepath.Join(in, "depth_color.ref"), data, 0o644); err != nil {
		t.Fatal(err)
	}
	src := "file://" + filepath.ToSlash(in) + "/*.bag"
	tasks, err := fleet.Expand(context.Background(), []string{src})
	if err != nil || len(tasks) != 3 || !strings.HasPrefix(tasks[0].Bag, "file://") || tasks[0].Size == 0 {
		t.Fatalf("Expand: %+v, %v", tasks, err)
	}
	for _, profile := range []string{"ros1", "ros2"} {
		out := t.TempDir()
		job := fleet.Job{Mode: fleet.Export, Output: "file://" + filepath.ToSlash(out), Profile: profile, Compression: "lz4"}
		sum, rows, err := fleet.Run(context.Background(), job, tasks, 2, beamx.Run)
		if err != nil {
			t.Fatal(err)
		}
		if sum.OK != 3 || sum.Outputs != 3 {
			t.Fatalf("%s: %+v %+v", profile, sum, rows)
		}
		var mcaps []string
		for _, r := range rows {
			if len(r.Outputs) != 1 || !strings.HasSuffix(r.Outputs[0], ".mcap") {
				t.Fatalf("%s: outputs %v", r.Bag, r.Outputs)
			}
			mcaps = append(mcaps, r.Outputs[0])
		}
		run(t, check, append([]string{"-q"}, mcaps...)...)
		if left, _ := filepath.Glob(filepath.Join(out, "*.tmp")); len(left) > 0 {
			t.Errorf("temporary files left: %v", left)
		}
	}
	out := t.TempDir()
	ref := fleet.Stems([]string{filepath.Join(in, "depth_color.ref")})
	sum, rows, err := fleet.Run(context.Background(), fleet.Job{Mode: fleet.Convert, Output: out, Formats: []string{"png", "csv"}}, ref, 2, beamx.Run)
	if err != nil {
		t.Fatal(err)
	}
	if sum.OK != 1 || len(rows[0].Outputs) < 30 {
		t.Fatalf("convert: %+v, %d outputs", sum, len(rows[0].Outputs))
	}
	for _, o := range rows[0].Outputs {
		if filepath.Dir(o) != filepath.Join(out, "depth_color.ref") {
			t.Fatalf("output %s not under %s", o, filepath.Join(out, "depth_color.ref"))
		}
		if st, err := os.Stat(o); err != nil || st.Size() == 0 {
			t.Fatalf("output %s: %v", o, err)
		}
	}
}

// TestBadBagsAreRows: a bag that is missing, not a bag, a FIFO, or stuck
// in a store that never answers is a row with its error; the others are
// processed.
func TestBadBagsAreRows(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "good.bag")
	data, err := os.ReadFile("../testdata/librealsense/pose.bag")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(good, data, 0o644); err != nil {
		t.Fatal(err)
	}
	text := filepath.Join(dir, "text.bag")
	if err := os.WriteFile(text, []byte("not a bag\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	fifo := filepath.Join(dir, "fifo.bag")
	run(t, "mkfifo", fifo)
	release := make(chan struct{})
	stuck := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	defer stuck.Close()
	defer close(release)
	stuckURL := fmt.Sprintf("s3://b/stuck.bag?endpoint=%s&use_path_style=true&anonymous=true&region=us-east-1", url.QueryEscape(stuck.URL))
	missing := filepath.Join(dir, "missing.bag")
	tasks := fleet.Stems([]string{good, text, fifo, missing, stuckURL})
	job := fleet.Job{Mode: fleet.Info, Output: t.TempDir(), BagTimeout: 2e9}
	sum, rows, err := fleet.Run(context.Background(), job, tasks, 2, beamx.Run)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		good: "", text: "not a bag", fifo: "FIFO", missing: "no such file", stuckURL: "not done after 2s",
	}
	for _, r := range rows {
		w := want[r.Bag]
		if w == "" {
			if r.Verdict != fleet.VerdictOK {
				t.Errorf("%s: %s %s", r.Bag, r.Verdict, r.Error)
			}
			continue
		}
		if r.Verdict != fleet.VerdictError || !strings.Contains(r.Error, w) {
			t.Errorf("%s: verdict %s, error %q; want an error saying %q", r.Bag, r.Verdict, r.Error, w)
		}
	}
	if sum.OK != 1 || sum.Errors != 4 {
		t.Errorf("summary %+v", sum)
	}
}

// TestOutputIsAtomic: a write that fails leaves nothing under its name.
func TestOutputIsAtomic(t *testing.T) {
	dir := t.TempDir()
	out, err := fleet.OpenOutput(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	defer out.Close()
	err = out.Write(context.Background(), "x.mcap", func(w io.Writer) error {
		if _, err := w.Write(make([]byte, 1<<20)); err != nil {
			return err
		}
		return errors.New("disk full")
	})
	if err == nil || !strings.Contains(err.Error(), "disk full") || !strings.Contains(err.Error(), "nothing written") {
		t.Errorf("error %v", err)
	}
	if m, _ := filepath.Glob(filepath.Join(dir, "*")); len(m) != 0 {
		t.Errorf("left %v", m)
	}
	if err := out.Write(context.Background(), "sub/y.json", func(w io.Writer) error { _, err := io.WriteString(w, "{}"); return err }); err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(filepath.Join(dir, "sub", "y.json")); err != nil || string(b) != "{}" {
		t.Errorf("%q %v", b, err)
	}
}

func TestJobCheck(t *testing.T) {
	for _, c := range []struct {
		job fleet.Job
		err string
	}{
		{fleet.Job{Mode: "validate", Output: "o"}, ""},
		{fleet.Job{Mode: "nope", Output: "o"}, "mode"},
		{fleet.Job{Mode: "info"}, "no output"},
		{fleet.Job{Mode: "export", Output: "o", Profile: "ros3", Compression: "zstd"}, "profile"},
		{fleet.Job{Mode: "export", Output: "o", Profile: "ros1", Compression: "gzip"}, "compression"},
		{fleet.Job{Mode: "convert", Output: "o"}, "no format"},
		{fleet.Job{Mode: "convert", Output: "o", Formats: []string{"jpg"}}, "format"},
		{fleet.Job{Mode: "info", Output: "o", BagTimeout: -1}, "negative"},
	} {
		err := c.job.Check()
		if (c.err == "") != (err == nil) || err != nil && !strings.Contains(err.Error(), c.err) {
			t.Errorf("%+v: %v, want %q", c.job, err, c.err)
		}
	}
}

func TestStems(t *testing.T) {
	got := fleet.Stems([]string{"a/x.bag", "b/x.bag", "s3://b/k/x.bag?region=r", "y.bag"})
	want := []string{"x", "x-2", "x-3", "y"}
	for i, g := range got {
		if g.Stem != want[i] {
			t.Errorf("%s: stem %s, want %s", g.Bag, g.Stem, want[i])
		}
	}
}
