// Command rs-fleet validates, describes, exports or converts many RealSense
// bags at once, local or in object storage, as an Apache Beam pipeline.
//
// Usage:
//
//	rs-fleet validate|info|export|convert --input 'PATTERN or URLs' --output URL [flags] [beam flags]
//
// Each bag is one element of the pipeline and gives one result row (JSON):
// ok or damaged with what was lost, or the error that stopped it; file
// version, device, streams with frame counts and fps, duration, size and
// the output files written. The rows are printed, written sorted to
// OUTPUT/results.jsonl, and summed up in OUTPUT/summary.json and on the
// last line. A damaged, unreadable or slow bag is a row, never a failed run.
//
// The runner is chosen by Beam's flags: --runner=prism (the default, local)
// or direct, dataflow, flink, spark with their own flags (see README.md).
//
// Exit status: 0 when every bag is ok, 3 when a bag is damaged or failed
// (0 with --allow-damaged), 1 when the run itself fails, 2 on a usage error.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"runtime"
	"strings"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/x/beamx"
	_ "gocloud.dev/blob/azureblob"
	_ "gocloud.dev/blob/fileblob"
	_ "gocloud.dev/blob/gcsblob"
	_ "gocloud.dev/blob/s3blob"

	_ "github.com/rsbag/rsbag/blobfile"
	"github.com/rsbag/rsbag/fleet"
)

const usage = `Usage: rs-fleet validate|info|export|convert --input 'PATTERN or URLs' --output URL [flags]

  validate  read every message of every bag (as rs-record info)
  info      read each bag's index and description only (as rs-record info --quick)
  export    write each bag as OUTPUT/NAME.mcap (as rs-record export)
  convert   write each bag's frames as files under OUTPUT/NAME/ (as rs-record convert)

--input takes local paths, globs ('rec/*.bag'), object URLs (s3://bucket/key.bag,
gs://, azblob://, file://) and URLs with a glob as last element
('s3://bucket/2026-11/*.bag'); comma-separated or repeated.
--output is a local directory or a URL prefix (s3://bucket/runs/7).
The Beam runner is chosen with --runner (default prism, the local runner) and
the runner's own flags; rs-fleet -h lists them all.
`

type listFlag []string

func (l *listFlag) String() string { return strings.Join(*l, ",") }
func (l *listFlag) Set(v string) error {
	for _, s := range strings.Split(v, ",") {
		if s = strings.TrimSpace(s); s != "" {
			*l = append(*l, s)
		}
	}
	return nil
}

type usageError struct{ error }

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

func run(args []string, stdout, stderr io.Writer) int {
	// A runner starts the same binary as a worker with Beam's flags only.
	mode := ""
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		mode, args = args[0], args[1:]
	}
	var inputs, formats listFlag
	fs := flag.CommandLine
	fs.Init("rs-fleet", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprint(stderr, usage+"\nFlags (rs-fleet's, then Beam's):\n")
		fs.PrintDefaults()
	}
	fs.Var(&inputs, "input", "bags: `PATTERN or URLs`, comma-separated or repeated")
	output := fs.String("output", "", "write results and files to `URL` (or a local directory)")
	workers := fs.Int("workers", runtime.NumCPU(), "bags processed at once on the local runner (the pipeline's branches)")
	timeout := fs.Duration("bag-timeout", 0, "give up a bag after `DURATION` (its row says so; 0: no limit)")
	profile := fs.String("profile", "ros1", "export: MCAP profile ros1 (the bag as it is) or ros2 (the ROS 2 wrapper's topics)")
	comp := fs.String("compression", "zstd", "export: chunk compression zstd, lz4 or none")
	fs.Var(&formats, "formats", "convert: `LIST` of png, raw, csv, bin, ply")
	allow := fs.Bool("allow-damaged", false, "exit 0 even when bags are damaged or failed (their rows say so)")
	verbose := fs.Bool("verbose", false, "print the runner's log")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if !*verbose {
		slog.SetDefault(slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelWarn})))
	}
	beam.Init() // a worker started by a runner runs here and does not return
	job := fleet.Job{Mode: mode, Output: *output, Profile: *profile, Compression: *comp, Formats: formats, BagTimeout: *timeout}
	code, err := runJob(job, inputs, *workers, *allow, fs.NArg(), stdout)
	if err != nil {
		fmt.Fprintf(stderr, "rs-fleet: %v\n", err)
		var ue usageError
		if errors.As(err, &ue) {
			fmt.Fprint(stderr, "run rs-fleet -h for help\n")
			return 2
		}
		return 1
	}
	return code
}

func runJob(job fleet.Job, inputs []string, workers int, allow bool, extra int, stdout io.Writer) (int, error) {
	if job.Mode == "" {
		return 0, usageError{errors.New("want a command: validate, info, export or convert")}
	}
	if extra > 0 {
		return 0, usageError{errors.New("unexpected arguments: bags go in --input")}
	}
	if err := job.Check(); err != nil {
		return 0, usageError{err}
	}
	if len(inputs) == 0 {
		return 0, usageError{errors.New("--input is required")}
	}
	if workers < 1 || workers > 1024 {
		return 0, usageError{fmt.Errorf("--workers %d: want 1 to 1024", workers)}
	}
	ctx := context.Background()
	tasks, err := fleet.Expand(ctx, inputs)
	if err != nil {
		return 0, usageError{err}
	}
	if len(tasks) == 0 {
		return 0, usageError{errors.New("--input names no bag")}
	}
	// Beam's loopback environment (the local runner's) creates an empty
	// placeholder file in the temporary directory on every run and never
	// removes it: the job gets a temporary directory of its own, removed
	// when it ends. This runs once per process, after beam.Init.
	if tmp, err := os.MkdirTemp("", "rs-fleet-"); err == nil {
		defer os.RemoveAll(tmp)
		if prev, ok := os.LookupEnv("TMPDIR"); ok {
			defer os.Setenv("TMPDIR", prev)
		} else {
			defer os.Unsetenv("TMPDIR")
		}
		os.Setenv("TMPDIR", tmp)
	}
	sum, rows, err := fleet.Run(ctx, job, tasks, workers, beamx.Run)
	if err != nil {
		return 0, err
	}
	enc := json.NewEncoder(stdout)
	enc.SetEscapeHTML(false)
	for _, r := range rows {
		if err := enc.Encode(r); err != nil {
			return 0, err
		}
	}
	if err := enc.Encode(map[string]fleet.Summary{"summary": sum}); err != nil {
		return 0, err
	}
	if (sum.Damaged > 0 || sum.Errors > 0) && !allow {
		return 3, nil
	}
	return 0, nil
}
