// Package fleet processes many bags at once as an Apache Beam pipeline: one
// element per bag, each validated, described, exported to MCAP or converted
// to files by the rsbag packages, with one result row per bag.
//
// A bag that is damaged, unreadable or too slow never fails the run: its
// problem is its result row. Every file written to the output appears
// under its final name only when complete (gocloud.dev/blob writers commit
// on Close). The pipeline runs on any Beam runner; the rs-fleet command
// chooses it with Beam's standard flags (--runner, default the local prism
// runner).
package fleet

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/rsbag/rsbag/internal/bagname"
	"io"
	"os"
	"path"
	"path/filepath"
	"runtime/debug"
	"sort"
	"strings"
	"time"

	"github.com/rsbag/rsbag/blobfile"
	"github.com/rsbag/rsbag/internal/tools/baginfo"
	"github.com/rsbag/rsbag/internal/tools/convert"
	"github.com/rsbag/rsbag/internal/tools/damage"
	"github.com/rsbag/rsbag/mcapbag"
	"github.com/rsbag/rsbag/mcapbag/ros2"
	"github.com/rsbag/rsbag/playback"
	"github.com/rsbag/rsbag/rosbag"
)

// Modes of a Job.
const (
	// Validate reads every message of every bag (rs-record info).
	Validate = "validate"
	// Info reads each bag's index and description only (rs-record info
	// --quick): a bag in object storage is described from a few percent
	// of its bytes.
	Info = "info"
	// Export writes each bag as an MCAP file OUTPUT/STEM.mcap.
	Export = "export"
	// Convert writes each bag's frames as files under OUTPUT/STEM/ (as
	// rs-record convert and librealsense's rs-convert).
	Convert = "convert"
)

// Verdicts of a Row.
const (
	VerdictOK      = "ok"      // read completely
	VerdictDamaged = "damaged" // read as far as it could be; Lost (or Error, when nothing could be read) says what was lost
	VerdictError   = "error"   // not read: Error says why
)

// Job says what to do with each bag. Its fields travel to the workers.
type Job struct {
	Mode string `json:"mode"`
	// Output is the URL (or local directory) results and files go to.
	Output string `json:"output"`
	// Profile and Compression of Export: "ros1" or "ros2", "zstd", "lz4"
	// or "none".
	Profile     string `json:"profile,omitempty"`
	Compression string `json:"compression,omitempty"`
	// Formats of Convert: any of "png", "raw", "csv", "bin", "ply".
	Formats []string `json:"formats,omitempty"`
	// BagTimeout bounds the work on one bag (0: none); a bag that takes
	// longer is an error row and the run goes on.
	BagTimeout time.Duration `json:"bag_timeout,omitempty"`
}

// Check reports what is wrong with a Job, for a usage error.
func (j *Job) Check() error {
	switch j.Mode {
	case Validate, Info:
	case Export:
		if j.Profile != "ros1" && j.Profile != "ros2" {
			return fmt.Errorf("profile %q: want ros1 or ros2", j.Profile)
		}
		if _, err := mcapbag.ParseCompression(j.Compression); err != nil {
			return fmt.Errorf("compression %q: want zstd, lz4 or none", j.Compression)
		}
	case Convert:
		if len(j.Formats) == 0 {
			return errors.New("no format to convert to: want png, raw, csv, bin or ply")
		}
		for _, f := range j.Formats {
			if !(&convert.Options{}).SetOutput(f, "x") {
				return fmt.Errorf("format %q: want png, raw, csv, bin or ply", f)
			}
		}
	default:
		return fmt.Errorf("mode %q: want validate, info, export or convert", j.Mode)
	}
	if j.Output == "" {
		return errors.New("no output")
	}
	if j.BagTimeout < 0 {
		return fmt.Errorf("bag timeout %v is negative", j.BagTimeout)
	}
	return nil
}

// Task is one element of the pipeline: a bag and the stem of the names of
// its output files (unique in the run).
type Task struct {
	Bag  string `json:"bag"`
	Stem string `json:"stem"`
	Size int64  `json:"size"` // when listed, for balancing
}

// Row is the result of one bag.
type Row struct {
	Bag     string `json:"bag"`
	Verdict string `json:"verdict"`
	Error   string `json:"error,omitempty"`
	Size    int64  `json:"size"`
	Indexed bool   `json:"indexed"`
	// FileVersion, Device, Streams and DurationNs are those of rs-record
	// info --json (with --quick for Info).
	FileVersion int              `json:"file_version"`
	Device      []baginfo.Field  `json:"device,omitempty"`
	Streams     []baginfo.Stream `json:"streams,omitempty"`
	DurationNs  uint64           `json:"duration_ns"`
	Messages    uint64           `json:"messages"`
	Lost        []damage.Loss    `json:"lost,omitempty"`
	// Outputs are the URLs of the files written for the bag.
	Outputs []string `json:"outputs,omitempty"`
}

// Process does the job's work on one bag. It returns a row in every case:
// errors and panics become the row's error.
func Process(ctx context.Context, t Task, job Job) (row Row) {
	row = Row{Bag: t.Bag}
	if job.BagTimeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, job.BagTimeout)
		defer cancel()
	}
	done := make(chan Row, 1)
	go func() {
		r := Row{Bag: t.Bag}
		defer func() {
			if p := recover(); p != nil {
				r.Verdict, r.Error = VerdictError, fmt.Sprintf("internal error: %v\n%s", p, debug.Stack())
			}
			done <- r
		}()
		if err := process(ctx, t, job, &r); err != nil {
			// Damage that leaves nothing to read (the description lost,
			// a message that does not decode) is damage, as for
			// rs-record (exit status 3); anything else is an error.
			r.Verdict, r.Error = VerdictError, err.Error()
			if damage.Is(err) {
				r.Verdict = VerdictDamaged
			}
		}
	}()
	select {
	case row = <-done:
		return row
	case <-ctx.Done():
		row.Verdict = VerdictError
		row.Error = fmt.Sprintf("%s: %v", t.Bag, context.Cause(ctx))
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			row.Error = fmt.Sprintf("%s: not done after %v (the bag timeout)", t.Bag, job.BagTimeout)
		}
		return row
	}
}

func process(ctx context.Context, t Task, job Job, row *Row) error {
	rep, err := inspect(ctx, t.Bag, job.Mode != Validate)
	if err != nil {
		return err
	}
	row.fill(rep)
	// The verdict every command of rs-record gives: a bag the player
	// refuses (its description lost, no stream to play) is refused here.
	// Its losses are those info reports beside that verdict.
	if err := damage.Check(t.Bag); err != nil {
		if d := rep.Damage(); d.Damaged() {
			row.Lost = d.Lost
		}
		return err
	}
	dmg := rep.Damage()
	out, err := OpenOutput(ctx, job.Output)
	if err != nil {
		return err
	}
	defer out.Close()
	switch job.Mode {
	case Export:
		dmg, err = export(ctx, t, job, out, row)
	case Convert:
		dmg, err = convertBag(ctx, t, job, out, row)
	}
	if err != nil {
		return err
	}
	row.Lost = nil
	row.Verdict = VerdictOK
	if dmg.Damaged() {
		row.Verdict, row.Lost = VerdictDamaged, dmg.Lost
	}
	return nil
}

// openBag opens a bag by path or URL; the requests of a bag in object
// storage are bounded by ctx.
func openBag(ctx context.Context, name string) (*rosbag.Reader, error) {
	if !bagname.IsURL(name) {
		return rosbag.Open(name, nil)
	}
	f, err := blobfile.Open(ctx, name, nil)
	if err != nil {
		return nil, err
	}
	return rosbag.OpenFile(f, name, nil)
}

func inspect(ctx context.Context, bag string, quick bool) (*baginfo.Report, error) {
	r, err := openBag(ctx, bag)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	return baginfo.InspectReader(r, bag, &baginfo.Options{Quick: quick})
}

func (row *Row) fill(rep *baginfo.Report) {
	row.Size, row.Indexed, row.FileVersion = rep.Size, rep.Indexed, rep.FileVersion
	row.Device, row.DurationNs, row.Messages = rep.Device, rep.DurationNs, rep.Messages
	row.Streams = rep.Streams
}

func export(ctx context.Context, t Task, job Job, out *Output, row *Row) (*damage.Report, error) {
	c, err := mcapbag.ParseCompression(job.Compression)
	if err != nil {
		return nil, err
	}
	key := t.Stem + ".mcap"
	var dmg *damage.Report
	if job.Profile == "ros2" {
		dev, err := playback.Open(t.Bag, &playback.Options{NonRealTime: true})
		if err != nil {
			return nil, err
		}
		defer dev.Close()
		err = out.Write(ctx, key, func(w io.Writer) error {
			_, err := ros2.Export(ctx, w, dev, &ros2.Options{Compression: c})
			return err
		})
		if err != nil {
			return nil, err
		}
		dmg = damage.FromPlayback(dev)
	} else {
		r, err := openBag(ctx, t.Bag)
		if err != nil {
			return nil, err
		}
		defer r.Close()
		frames := damage.FrameNames(t.Bag, r) // before the export's pass: its first blocks then come from the cache
		var res *mcapbag.Result
		err = out.Write(ctx, key, func(w io.Writer) error {
			var err error
			res, err = mcapbag.Export(w, r, &mcapbag.ExportOptions{Compression: c, Query: &rosbag.Query{SkipCorrupt: true}})
			return err
		})
		if err != nil {
			return nil, err
		}
		dmg = damage.FromRecovery(r.Info().Recovery, frames)
		dmg.AddRepaired(res.Repaired)
		for _, s := range res.Skipped {
			dmg.Add(s, frames)
		}
	}
	row.Outputs = append(row.Outputs, out.URL(key))
	return dmg, nil
}

func convertBag(ctx context.Context, t Task, job Job, out *Output, row *Row) (*damage.Report, error) {
	dir, err := os.MkdirTemp("", "rs-fleet-convert-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	var o convert.Options
	prefix := filepath.Join(dir, t.Stem)
	for _, f := range job.Formats {
		if !o.SetOutput(f, prefix) {
			return nil, fmt.Errorf("format %q: want png, raw, csv, bin or ply", f)
		}
	}
	res, err := convert.Run(ctx, t.Bag, o)
	if err != nil {
		return nil, err
	}
	var files []string
	err = filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			files = append(files, p)
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	sort.Strings(files)
	for _, f := range files {
		rel, err := filepath.Rel(dir, f)
		if err != nil {
			return nil, err
		}
		key := path.Join(t.Stem, filepath.ToSlash(rel))
		if err := out.Copy(ctx, key, f); err != nil {
			return nil, err
		}
		row.Outputs = append(row.Outputs, out.URL(key))
	}
	return res.Damage, nil
}

// Stems gives each bag a unique stem for its output names: the file name
// without .bag, with -2, -3, ... for bags of the same name.
func Stems(bags []string) []Task {
	seen := map[string]int{}
	tasks := make([]Task, len(bags))
	for i, b := range bags {
		stem := strings.TrimSuffix(bagname.BaseName(b), ".bag")
		seen[stem]++
		if n := seen[stem]; n > 1 {
			stem = fmt.Sprintf("%s-%d", stem, n)
		}
		tasks[i] = Task{Bag: b, Stem: stem}
	}
	return tasks
}

// MarshalRow encodes a row as one JSON line (without newline).
func MarshalRow(r Row) (string, error) {
	b, err := json.Marshal(r)
	return string(b), err
}
