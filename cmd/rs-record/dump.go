package main

func runDump(e *env, args []string) error {
	fs := newFlagSet(e, "dump", "dump [--seek NANOS] [--limit N] BAG\n\n"+
		"Prints the bag as JSON lines as the playback device delivers it (real time off):\n"+
		"topology, then one line per frame, notifications and a summary.")
	seek := fs.Int64("seek", -1, "seek to bag time `NANOS` (from the start) before playing")
	limit := fs.Int("limit", 0, "stop after `N` frames (0: no limit)")
	pos, err := parseArgs(fs, "dump", args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return usageErrorf("dump", "want exactly one BAG, got %d arguments", len(pos))
	}
	if *limit < 0 {
		return usageErrorf("dump", "--limit: %d is negative", *limit)
	}
	return dumpBag(e, pos[0], *seek, *limit)
}

func dumpBag(e *env, path string, seek int64, limit int) error {
	return fileError(path, errNotBuilt)
}
