package main

import (
	"bufio"

	"github.com/rsbag/rsbag/internal/rsdump"
)

func runDump(e *env, args []string) error {
	fs := newFlagSet(e, "dump", "dump [--seek NANOS] [--limit N] BAG\n\n"+
		"Prints the bag as JSON lines as the playback device delivers it (real time off):\n"+
		"topology, then one line per frame, notifications and a summary.")
	seek := fs.Int64("seek", -1, "seek to bag time `NANOS` before playing (-1: no seek)")
	limit := fs.Int("limit", 0, "stop after `N` frames (0: no limit)")
	pos, err := parseArgs(fs, "dump", args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return usageErrorf("dump", "want exactly one BAG, got %d arguments", len(pos))
	}
	if *seek < -1 {
		return usageErrorf("dump", "--seek: %d is negative", *seek)
	}
	if *limit < 0 {
		return usageErrorf("dump", "--limit: %d is negative", *limit)
	}
	return dumpBag(e, pos[0], *seek, *limit)
}

func dumpBag(e *env, path string, seek int64, limit int) error {
	opts := rsdump.Options{Limit: limit}
	if seek >= 0 {
		opts.Seek = &seek
	}
	w := bufio.NewWriterSize(e.stdout, 64<<10)
	err := rsdump.Run(w, path, opts)
	if ferr := w.Flush(); err == nil && ferr != nil {
		err = ferr
	}
	return fileError(path, err)
}
