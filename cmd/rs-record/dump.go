package main

import (
	"bufio"
	"context"
	"errors"
	iofs "io/fs"
	"os"
	"sort"
	"strings"
	"time"

	"github.com/rsbag/rsbag/internal/rigfiles"
	"github.com/rsbag/rsbag/internal/tools/damage"
	"github.com/rsbag/rsbag/internal/tools/rsdump"
	"github.com/rsbag/rsbag/units"
)

func runDump(e *env, args []string) error {
	fs := newFlagSet(e, "dump", "dump [--seek T] [--limit N] BAG\n"+
		"       dump BAG BAG... | dump SESSION.session.json\n"+
		"       dump --processing [--no-models] [--raw-dir DIR] BAG\n"+
		"       dump --sync BAG\n"+
		"       dump --units BAG...\n\n"+
		"Prints the bag as JSON lines as the playback device delivers it (real time off):\n"+
		"topology, then one line per frame, notifications and a summary.\n"+
		"With --processing, prints what the processing blocks make of it instead: the\n"+
		"distortion models' geometry, the recommended blocks, and for every depth frame\n"+
		"the hash of each block's output (colorizer, point cloud, align, filters) and\n"+
		"geometry samples, as librealsense's processing reference files.\n"+
		"With --sync, prints the framesets the syncer makes of the frames (one line per\n"+
		"frameset, with the frame whose arrival released it), as librealsense's syncer\n"+
		"reference files.\n"+
		"With --units, prints the outputs of units recorded in the bag (package units, topics\n"+
		"/units/...) instead, one JSON line each, in bag-time order.\n"+
		"With several bags of one session, or its manifest, prints every frame of every bag in\n"+
		"common bag-time order, each frame line naming its device.")
	var seekAt time.Duration
	timeFlag(fs, &seekAt, "seek", 0, "seek to position `T` before playing (seconds, or a duration such as 1500ms or 500000000ns, from the start of the recording)")
	limit := fs.Int("limit", 0, "stop after `N` frames (0: no limit)")
	proc := fs.Bool("processing", false, "print the processing blocks' outputs instead of the frames")
	syncer := fs.Bool("sync", false, "print the syncer's framesets instead of the frames")
	unitsOut := fs.Bool("units", false, "print the recorded unit outputs instead of the frames")
	noModels := fs.Bool("no-models", false, "with --processing: leave out the distortion model lines")
	allow := fs.Bool("allow-damaged", false, allowDamagedUsage)
	rawDir := fs.String("raw-dir", "", "with --processing: write the outputs of the first depth frame, gzipped, to `DIR`")
	pos, err := parseArgs(fs, "dump", args)
	if err != nil {
		return err
	}
	seek := new(int64)
	*seek = -1
	if flagSet(fs, "seek") {
		*seek = int64(seekAt)
	}
	if len(pos) == 0 {
		return usageErrorf("dump", "want a BAG, several bags of one session, or a session manifest")
	}
	if *unitsOut {
		if *proc || *syncer || *noModels || *rawDir != "" || *seek != -1 || *limit != 0 || *allow {
			return usageErrorf("dump", "--units takes no other flag")
		}
		return dumpUnits(e, pos)
	}
	if len(pos) > 1 || rigfiles.IsManifest(pos[0]) {
		if *proc || *syncer || *noModels || *rawDir != "" || *seek != -1 || *limit != 0 {
			return usageErrorf("dump", "a session dump (several bags or a manifest) takes only --allow-damaged")
		}
		return dumpSession(e, pos, *allow)
	}
	if *limit < 0 {
		return usageErrorf("dump", "--limit: %d is negative", *limit)
	}
	if *syncer {
		if *proc || *noModels || *rawDir != "" || *seek != -1 || *limit != 0 {
			return usageErrorf("dump", "--sync takes no other flag")
		}
		w := bufio.NewWriterSize(e.stdout, 64<<10)
		err := rsdump.RunSync(w, pos[0])
		if ferr := w.Flush(); err == nil && ferr != nil {
			err = ferr
		}
		return fileError(pos[0], err)
	}
	if !*proc {
		if *noModels || *rawDir != "" {
			return usageErrorf("dump", "--no-models and --raw-dir need --processing")
		}
		return dumpBag(e, pos[0], *seek, *limit, *allow)
	}
	if *seek != -1 || *limit != 0 {
		return usageErrorf("dump", "--seek and --limit do not apply to --processing")
	}
	if *rawDir != "" {
		// A missing directory is created (its parent must exist, as for
		// the outputs of convert's prefixes); a file is refused.
		if err := os.Mkdir(*rawDir, 0o777); err != nil && !errors.Is(err, iofs.ErrExist) {
			return usageErrorf("dump", "--raw-dir: %s is not a directory and cannot be created: %v", *rawDir, errors.Unwrap(err))
		}
		if st, err := os.Stat(*rawDir); err != nil || !st.IsDir() {
			return usageErrorf("dump", "--raw-dir: %s is not a directory", *rawDir)
		}
	}
	w := bufio.NewWriterSize(e.stdout, 64<<10)
	err = rsdump.RunProcessing(w, pos[0], rsdump.ProcOptions{NoModels: *noModels, RawDir: *rawDir})
	if ferr := w.Flush(); err == nil && ferr != nil {
		err = ferr
	}
	return fileError(pos[0], err)
}

// dumpSession dumps the bags of a session in common bag-time order.
func dumpSession(e *env, paths []string, allow bool) error {
	w := bufio.NewWriterSize(e.stdout, 64<<10)
	err := rsdump.RunSession(context.Background(), w, paths)
	if ferr := w.Flush(); err == nil && ferr != nil {
		err = ferr
	}
	var db *rsdump.DamagedBag
	if errors.As(err, &db) {
		return reportDamage(e, db.Path, db.Err.Report, allow)
	}
	return fileError(strings.Join(paths, " "), err)
}

func dumpBag(e *env, path string, seek int64, limit int, allow bool) error {
	opts := rsdump.Options{Limit: limit}
	if seek >= 0 {
		opts.Seek = &seek
	}
	w := bufio.NewWriterSize(e.stdout, 64<<10)
	err := rsdump.Run(w, path, opts)
	if ferr := w.Flush(); err == nil && ferr != nil {
		err = ferr
	}
	var de *damage.Error
	if errors.As(err, &de) {
		return reportDamage(e, path, de.Report, allow)
	}
	return fileError(path, err)
}

// dumpUnits prints the unit outputs recorded in the bags as JSON lines, in
// bag-time order (equal times in topic order).
func dumpUnits(e *env, bags []string) error {
	rec, err := units.ReadRecorded(bags)
	if err != nil {
		return fileError(bags[0], err)
	}
	var all []units.Record
	for _, rs := range rec.Outputs {
		all = append(all, rs...)
	}
	sort.SliceStable(all, func(i, j int) bool {
		return all[i].Time < all[j].Time || all[i].Time == all[j].Time && all[i].Topic < all[j].Topic
	})
	w := bufio.NewWriterSize(e.stdout, 64<<10)
	if err := units.WriteRecords(w, all); err != nil {
		return err
	}
	return w.Flush()
}
