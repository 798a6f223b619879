package main

import (
	"encoding/json"

	"github.com/rsbag/rsbag/internal/tools/baginfo"
	"github.com/rsbag/rsbag/internal/tools/damage"
)

func runInfo(e *env, args []string) (err error) {
	fs := newFlagSet(e, "info", "info [--json] [--quick] BAG\n\n"+
		"Describes a bag: what rosbag info shows (version, duration, start, end, size, messages,\n"+
		"compression, types, topics) and the RealSense view (file version, indexed or recovered,\n"+
		"device, sensors, options, streams with their frame counts). Every message is read, so\n"+
		"a damaged bag is reported: every lost part, and exit status 3.\n"+
		"BAG may be a file:// URL, and in the cloud build of rs-record (go build -tags cloud)\n"+
		"a URL of object storage (s3://BUCKET/KEY, gs://, azblob://), read with range requests;\n"+
		"--quick then reads only the index and the device description.")
	asJSON := fs.Bool("json", false, "print one JSON object")
	quick := fs.Bool("quick", false, "read only the index and the messages that describe the device: frame counts\n"+
		"from the index, no per-stream times or compression, damage inside chunks not seen")
	allow := fs.Bool("allow-damaged", false, allowDamagedUsage)
	pos, err := parseArgs(fs, "info", args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return usageErrorf("info", "want exactly one BAG, got %d arguments", len(pos))
	}
	// The verdict is the player's (damage.Check), as in every other
	// command. It is asked first: the chunks the player opens with (the
	// first and the last) are then still cached in a bag in object storage
	// when info's pass comes to them.
	defer holdOpen(pos[0])()
	var verdict error
	if !*quick {
		verdict = damage.Check(pos[0])
	}
	rep, err := baginfo.Inspect(pos[0], &baginfo.Options{Quick: *quick})
	if err != nil {
		// A bag the player refuses gets the player's verdict, whatever
		// else is wrong with it.
		if verdict != nil {
			err = verdict
		}
		return fileError(pos[0], err)
	}
	defer func() {
		if err == nil {
			err = reportDamage(e, pos[0], rep.Damage(), *allow)
		}
	}()
	if *asJSON {
		enc := json.NewEncoder(e.stdout)
		enc.SetIndent("", "  ")
		enc.SetEscapeHTML(false) // URLs keep their &
		if err := enc.Encode(rep); err != nil {
			return err
		}
	} else {
		rep.WriteText(e.stdout)
	}
	// The verdict is the player's: a bag it refuses is refused here too,
	// after the description of what could be read. (--quick reads the index
	// and the description only, and says so: it does not load the chunks
	// of the first and last frames that the player opens with.)
	if verdict != nil {
		return fileError(pos[0], verdict)
	}
	return nil
}
