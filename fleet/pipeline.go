package fleet

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"reflect"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/register"
	"gocloud.dev/blob"

	"github.com/rsbag/rsbag/blobfile"
)

func init() {
	beam.RegisterType(reflect.TypeOf((*Task)(nil)).Elem())
	register.DoFn3x1[context.Context, Task, func(string), error](&processFn{})
	register.Emitter1[string]()
	register.DoFn3x1[context.Context, int, func(*string) bool, error](&writeResultsFn{})
	register.Iter1[string]()
}

// Names of the files a run writes to its output.
const (
	ResultsFile = "results.jsonl" // one Row per line, by bag name
	SummaryFile = "summary.json"  // the Summary
)

// Build adds the job to the pipeline of s: the tasks are spread over
// workers branches (largest bags first, each to the branch with the least
// bytes), so that a local runner works on several bags at once; each branch
// reshuffles its bags, so that a distributed runner spreads them over its
// machines. Each bag gives one row; all rows are written, sorted by bag, to
// the output's ResultsFile.
func Build(s beam.Scope, job Job, tasks []Task, workers int) {
	workers = max(1, min(workers, len(tasks)))
	branches := make([][]Task, workers)
	load := make([]int64, workers)
	order := slices.Clone(tasks)
	sort.SliceStable(order, func(i, j int) bool { return order[i].Size > order[j].Size })
	for _, t := range order {
		w := slices.Index(load, slices.Min(load))
		branches[w] = append(branches[w], t)
		load[w] += max(t.Size, 1)
	}
	var rows []beam.PCollection
	for i, b := range branches {
		bs := s.Scope(fmt.Sprintf("bags%d", i))
		in := beam.Reshuffle(bs, beam.CreateList(bs, b))
		rows = append(rows, beam.ParDo(bs, &processFn{Job: job}, in))
	}
	all := beam.Flatten(s, rows...)
	grouped := beam.GroupByKey(s, beam.AddFixedKey(s, all))
	beam.ParDo0(s, &writeResultsFn{Output: job.Output}, grouped)
}

// processFn processes one bag; its problems are its row, never an error.
type processFn struct {
	Job Job `json:"job"`
}

func (f *processFn) ProcessElement(ctx context.Context, t Task, emit func(string)) error {
	line, err := MarshalRow(Process(ctx, t, f.Job))
	if err != nil {
		return err
	}
	emit(line)
	return nil
}

// writeResultsFn writes every row, sorted by bag, to ResultsFile.
type writeResultsFn struct {
	Output string `json:"output"`
}

func (f *writeResultsFn) ProcessElement(ctx context.Context, _ int, rows func(*string) bool) error {
	var lines []string
	var l string
	for rows(&l) {
		lines = append(lines, l)
	}
	sort.Strings(lines) // rows start with their bag
	out, err := OpenOutput(ctx, f.Output)
	if err != nil {
		return err
	}
	defer out.Close()
	return out.Write(ctx, ResultsFile, func(w io.Writer) error {
		for _, l := range lines {
			if _, err := io.WriteString(w, l+"\n"); err != nil {
				return err
			}
		}
		return nil
	})
}

// Summary sums up a run.
type Summary struct {
	Mode       string  `json:"mode"`
	Bags       int     `json:"bags"`
	OK         int     `json:"ok"`
	Damaged    int     `json:"damaged"`
	Errors     int     `json:"errors"`
	Bytes      int64   `json:"bytes"`  // of the bags
	Frames     uint64  `json:"frames"` // in the bags' streams
	Outputs    int     `json:"outputs"`
	Workers    int     `json:"workers"`
	ElapsedNs  int64   `json:"elapsed_ns"`
	BagsPerMin float64 `json:"bags_per_min"`
	MBPerSec   float64 `json:"mb_per_s"`
	Results    string  `json:"results"` // the URL of ResultsFile
}

// Summarize sums rows up.
func Summarize(job Job, rows []Row, workers int, elapsed time.Duration) Summary {
	s := Summary{Mode: job.Mode, Bags: len(rows), Workers: workers, ElapsedNs: int64(elapsed)}
	for _, r := range rows {
		switch r.Verdict {
		case VerdictOK:
			s.OK++
		case VerdictDamaged:
			s.Damaged++
		default:
			s.Errors++
		}
		s.Bytes += r.Size
		for _, st := range r.Streams {
			s.Frames += st.Frames
		}
		s.Outputs += len(r.Outputs)
	}
	if sec := elapsed.Seconds(); sec > 0 {
		s.BagsPerMin = float64(len(rows)) / sec * 60
		s.MBPerSec = float64(s.Bytes) / 1e6 / sec
	}
	return s
}

// Run builds the job's pipeline for tasks, runs it with run (beamx.Run for
// the runner Beam's flags choose), reads the rows back and writes the
// summary to the output's SummaryFile.
func Run(ctx context.Context, job Job, tasks []Task, workers int, run func(context.Context, *beam.Pipeline) error) (Summary, []Row, error) {
	if err := job.Check(); err != nil {
		return Summary{}, nil, err
	}
	if len(tasks) == 0 {
		return Summary{}, nil, errors.New("no bags")
	}
	out, err := OpenOutput(ctx, job.Output)
	if err != nil {
		return Summary{}, nil, err
	}
	defer out.Close()
	p, s := beam.NewPipelineWithRoot()
	Build(s, job, tasks, workers)
	start := time.Now()
	if err := run(ctx, p); err != nil {
		return Summary{}, nil, fmt.Errorf("pipeline: %w", err)
	}
	elapsed := time.Since(start)
	data, err := out.ReadAll(ctx, ResultsFile)
	if err != nil {
		return Summary{}, nil, err
	}
	var rows []Row
	dec := json.NewDecoder(bytes.NewReader(data))
	for {
		var r Row
		if err := dec.Decode(&r); err == io.EOF {
			break
		} else if err != nil {
			return Summary{}, nil, fmt.Errorf("%s: %w", out.URL(ResultsFile), err)
		}
		rows = append(rows, r)
	}
	if len(rows) != len(tasks) {
		return Summary{}, rows, fmt.Errorf("%s: %d rows for %d bags", out.URL(ResultsFile), len(rows), len(tasks))
	}
	sum := Summarize(job, rows, max(1, min(workers, len(tasks))), elapsed)
	sum.Results = out.URL(ResultsFile)
	err = out.Write(ctx, SummaryFile, func(w io.Writer) error {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(sum)
	})
	return sum, rows, err
}

// Expand lists the bags that inputs name, in order, without duplicates.
// An input is a local path, a local glob ("rec/*.bag"), a URL of an object
// ("s3://bucket/a.bag?region=eu-west-1") or a URL whose last path element
// is a glob ("gs://bucket/2026-11/*.bag"), which lists the bucket. Each task
// gets the bag's size (for balancing; 0 when it cannot be read, in which
// case the bag's row will say why) and a unique stem for its outputs.
func Expand(ctx context.Context, inputs []string) ([]Task, error) {
	var bags []string
	var sizes []int64
	seen := map[string]bool{}
	add := func(b string, size int64) {
		if !seen[b] {
			seen[b] = true
			bags, sizes = append(bags, b), append(sizes, size)
		}
	}
	for _, in := range inputs {
		if in == "" {
			continue
		}
		if !strings.Contains(in, "://") {
			if !hasMeta(in) {
				var size int64
				if st, err := os.Stat(in); err == nil {
					size = st.Size()
				}
				add(in, size)
				continue
			}
			m, err := filepath.Glob(in)
			if err != nil {
				return nil, fmt.Errorf("input %q: %w", in, err)
			}
			if len(m) == 0 {
				return nil, fmt.Errorf("input %q matches no file", in)
			}
			for _, p := range m {
				if st, err := os.Stat(p); err == nil && st.Mode().IsRegular() {
					add(p, st.Size())
				}
			}
			continue
		}
		found, err := listURL(ctx, in)
		if err != nil {
			return nil, err
		}
		for _, f := range found {
			add(f.url, f.size)
		}
	}
	tasks := Stems(bags)
	for i := range tasks {
		tasks[i].Size = sizes[i]
	}
	return tasks, nil
}

func hasMeta(s string) bool { return strings.ContainsAny(s, `*?[`) }

type object struct {
	url  string
	size int64
}

// listURL lists the objects a URL (perhaps with a glob as its last
// element) names.
func listURL(ctx context.Context, in string) ([]object, error) {
	bucketURL, key, err := blobfile.SplitURL(in)
	if err != nil {
		return nil, fmt.Errorf("input: %w", err)
	}
	b, err := blob.OpenBucket(ctx, bucketURL)
	if err != nil {
		return nil, fmt.Errorf("input %s: %w", in, err)
	}
	defer b.Close()
	u, err := url.Parse(in)
	if err != nil {
		return nil, fmt.Errorf("input %q: %w", in, err)
	}
	if !hasMeta(key) {
		var size int64
		if a, err := b.Attributes(ctx, key); err == nil {
			size = a.Size
		}
		return []object{{in, size}}, nil
	}
	dir, pattern := path.Split(key)
	if hasMeta(dir) {
		return nil, fmt.Errorf("input %q: a glob only in the last path element", in)
	}
	if _, err := path.Match(pattern, ""); err != nil {
		return nil, fmt.Errorf("input %q: %w", in, err)
	}
	var found []object
	it := b.List(&blob.ListOptions{Prefix: dir, Delimiter: "/"})
	for {
		o, err := it.Next(ctx)
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("input %s: listing: %w", in, err)
		}
		if o.IsDir {
			continue
		}
		if ok, _ := path.Match(pattern, path.Base(o.Key)); ok {
			found = append(found, object{objectURL(u, o.Key), o.Size})
		}
	}
	if len(found) == 0 {
		return nil, fmt.Errorf("input %q matches no object", in)
	}
	return found, nil
}

// objectURL is the URL of key in the bucket of u (same scheme, host and
// query).
func objectURL(u *url.URL, key string) string {
	o := *u
	o.RawPath = ""
	if u.Scheme == "file" {
		dir, _ := path.Split(u.Path)
		o.Path = dir + key
	} else {
		o.Path = "/" + key
	}
	return o.String()
}
