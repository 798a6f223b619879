package main

import (
	"context"
	"fmt"
	"github.com/rsbag/rsbag/internal/bagname"
	"io"
	"os"

	"github.com/rsbag/rsbag/internal/layout"
	"github.com/rsbag/rsbag/internal/outfile"
	"github.com/rsbag/rsbag/internal/tools/baginfo"
	"github.com/rsbag/rsbag/internal/tools/damage"
	"github.com/rsbag/rsbag/mcapbag"
	"github.com/rsbag/rsbag/mcapbag/ros2"
	"github.com/rsbag/rsbag/playback"
	"github.com/rsbag/rsbag/rosbag"
)

func runExport(e *env, args []string) error {
	fs := newFlagSet(e, "export", "export --mcap OUT.mcap [--profile ros1|ros2] [--compression zstd|lz4|none] BAG\n\n"+
		"--profile ros1 (the default) writes every message of the bag to an MCAP file of the\n"+
		"ros1 profile (schemas with the full ROS 1 definitions, one channel per topic, the\n"+
		"bag's bytes and times as they are, statistics, chunk and message indexes, the device\n"+
		"info as metadata), for Foxglove and the MCAP tools. 'rs-record import' turns it back\n"+
		"into the same bag.\n"+
		"--profile ros2 writes what the realsense2_camera ROS 2 wrapper publishes for a live\n"+
		"camera, CDR-encoded, on its topics: ~/depth/image_rect_raw, ~/color/image_raw,\n"+
		"~/NAME/camera_info, ~/NAME/metadata, ~/gyro/sample, ~/accel/imu_info,\n"+
		"~/extrinsics/depth_to_NAME and /tf_static, with ~ the --ros-namespace, so that\n"+
		"'ros2 bag play' and Foxglove show the recording as they show the camera.\n"+
		"A bag without index is read through recovery, and said so; messages of damaged\n"+
		"chunks are lost, listed, and make the exit status 3 (the MCAP keeps the rest).\n"+
		"A bag the player refuses as damaged (its device description lost) is not exported\n"+
		"(exit status 3, no output).\n"+
		"The output is written under a temporary name and renamed when complete.")
	out := fs.String("mcap", "", "write the MCAP file to `OUT`")
	profile := fs.String("profile", "ros1", "MCAP profile: ros1 (every message with its ROS 1 schema, as valid ROS 1) or ros2 (the ROS 2 wrapper's topics)")
	ns := fs.String("ros-namespace", ros2.DefaultNamespace, "ros2: the wrapper node's name space and name the topics start with")
	camera := fs.String("camera-name", ros2.DefaultCameraName, "ros2: the camera name that starts every frame id")
	comp := fs.String("compression", "zstd", "chunk compression: zstd, lz4 or none")
	allow := fs.Bool("allow-damaged", false, allowDamagedUsage)
	pos, err := parseArgs(fs, "export", args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return usageErrorf("export", "want exactly one BAG, got %d arguments", len(pos))
	}
	if *out == "" {
		return usageErrorf("export", "--mcap OUT is required")
	}
	if *profile != "ros1" && *profile != "ros2" {
		return usageErrorf("export", "--profile %q: want ros1 or ros2", *profile)
	}
	ros2Opts := &ros2.Options{Namespace: *ns, CameraName: *camera}
	if *ns == "" || *camera == "" {
		return usageErrorf("export", "--ros-namespace and --camera-name must not be empty")
	}
	if err := ros2Opts.CheckNames(); err != nil {
		return usageErrorf("export", "--ros-namespace %q, --camera-name %q: %v", *ns, *camera, err)
	}
	c, err := mcapbag.ParseCompression(*comp)
	if err != nil {
		return usageErrorf("export", "--compression %q: want zstd, lz4 or none", *comp)
	}
	bag := pos[0]
	if err := notInput("export", pos, *out); err != nil {
		return err
	}
	if err := regularFile(bag); err != nil {
		return fileError(bag, err)
	}
	if *profile == "ros2" {
		ros2Opts.Compression = c
		return exportROS2(e, bag, *out, ros2Opts, *allow)
	}
	defer holdOpen(bag)()
	if err := damage.Check(bag); err != nil {
		return fileError(bag, err)
	}
	r, err := rosbag.Open(bag, nil)
	if err != nil {
		return fileError(bag, err)
	}
	defer r.Close()
	// The streams the player plays, to count the frames of a damaged
	// part: read before the export's pass over the bag, whose first blocks
	// then come from the cache.
	names := damage.FrameNames(bag, r)
	var res *mcapbag.Result
	err = writeAtomically(*out, func(f *os.File) error {
		var err error
		res, err = mcapbag.Export(f, r, &mcapbag.ExportOptions{Compression: c, Query: &rosbag.Query{SkipCorrupt: true}})
		return err
	})
	if err != nil {
		return fileError(bag, err)
	}
	fmt.Fprintf(e.stdout, "%s: %d messages on %d topics, %.1f MB of message data\n", *out, res.Messages, res.Channels, float64(res.Bytes)/1e6)
	rep := damage.FromRecovery(r.Info().Recovery, names)
	for _, c := range res.Skipped {
		rep.Add(c, names)
	}
	rep.AddRepaired(res.Repaired)
	return reportDamage(e, bag, rep, *allow)
}

// exportROS2 writes the ros2 profile export of bag to out.
func exportROS2(e *env, bag, out string, opts *ros2.Options, allow bool) error {
	dev, err := playback.Open(bag, &playback.Options{NonRealTime: true})
	if err != nil {
		return fileError(bag, err)
	}
	defer dev.Close()
	if err := damage.Playable(dev); err != nil {
		return fileError(bag, err)
	}
	var res *ros2.Result
	err = writeAtomically(out, func(f *os.File) error {
		var err error
		res, err = ros2.Export(context.Background(), f, dev, opts)
		return err
	})
	if err != nil {
		return fileError(bag, err)
	}
	fmt.Fprintf(e.stdout, "%s: %d messages on %d topics, %.1f MB of message data\n", out, res.Messages, res.Channels, float64(res.Bytes)/1e6)
	for _, k := range sortedKeys(res.Skipped) {
		fmt.Fprintf(e.stderr, "%s: %s: not exported: %s\n", progName, k, res.Skipped[k])
	}
	return reportDamage(e, bag, damage.FromPlayback(dev), allow)
}

func runImport(e *env, args []string) error {
	fs := newFlagSet(e, "import", "import [--compression lz4|none] IN.mcap OUT.bag\n\n"+
		"Turns an MCAP file of the ros1 profile, as 'rs-record export' writes it, back into\n"+
		"a bag: one connection per channel (type, definition, md5sum and header fields\n"+
		"from its schema and metadata), every message with its bytes and its log time.\n"+
		"When the MCAP's summary section is unusable (a corrupt record, statistics that\n"+
		"disagree, or schemas that would make a bag the reader refuses), its data section is\n"+
		"read instead, as 'mcap recover' does, and said so. The bag is opened and checked\n"+
		"before it is kept: an MCAP whose messages cannot all be read is refused.\n"+
		"The output is written under a temporary name and renamed when complete.")
	comp := fs.String("compression", "lz4", "chunk compression of the bag: lz4 or none")
	pos, err := parseArgs(fs, "import", args)
	if err != nil {
		return err
	}
	if len(pos) != 2 {
		return usageErrorf("import", "want IN.mcap and OUT.bag, got %d arguments", len(pos))
	}
	if *comp != "lz4" && *comp != "none" {
		return usageErrorf("import", "--compression %q: want lz4 or none", *comp)
	}
	in, out := pos[0], pos[1]
	if err := notInput("import", pos[:1], out); err != nil {
		return err
	}
	if err := regularFile(in); err != nil {
		return fileError(in, err)
	}
	src, err := os.Open(in)
	if err != nil {
		return fileError(in, err)
	}
	defer src.Close()
	var res *mcapbag.Result
	err = writeAtomically(out, func(f *os.File) error {
		var err error
		res, err = importInto(f, src, *comp, mcapbag.Import)
		if err == nil && res.Unusable == "" {
			if bad := checkImported(f.Name(), res); bad != nil {
				// Its summary makes a bag the reader refuses: the data
				// section says what the file holds.
				res, err = importInto(f, src, *comp, mcapbag.ImportDataSection)
				if res != nil {
					res.Unusable = bad.Error()
				}
			}
		}
		if err == nil {
			err = checkImported(f.Name(), res)
		}
		return err
	})
	if err != nil {
		return fileError(in, err)
	}
	if res.Unusable != "" {
		fmt.Fprintf(e.stderr, "%s: %s: the summary section is unusable (%s): every message was read from the data section\n", progName, in, res.Unusable)
	}
	fmt.Fprintf(e.stdout, "%s: %d messages on %d topics\n", out, res.Messages, res.Channels)
	return nil
}

// importInto writes into f (emptied first) the bag that imp makes of the
// MCAP file src.
func importInto(f *os.File, src io.ReadSeeker, comp string, imp func(*rosbag.Writer, io.ReadSeeker) (*mcapbag.Result, error)) (*mcapbag.Result, error) {
	if err := f.Truncate(0); err != nil {
		return nil, err
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return nil, err
	}
	if _, err := src.Seek(0, io.SeekStart); err != nil {
		return nil, err
	}
	w, err := rosbag.NewWriter(f, &rosbag.WriterOptions{Compression: comp})
	if err != nil {
		return nil, err
	}
	res, err := imp(w, src)
	if cerr := w.Close(); err == nil {
		err = cerr
	}
	return res, err
}

// checkImported opens the bag just written at path as info does (its
// index, its connections' types and md5sums, its description) and refuses
// one our reader would refuse, or that does not hold the res.Messages
// messages imported.
func checkImported(path string, res *mcapbag.Result) error {
	r, err := rosbag.Open(path, nil)
	if err != nil {
		return fmt.Errorf("the imported bag would not read: %w", err)
	}
	defer r.Close()
	if _, err := baginfo.InspectReader(r, path, &baginfo.Options{Quick: true}); err != nil {
		return fmt.Errorf("the imported bag would be refused: %w", err)
	}
	md5s := map[string]string{}
	for _, c := range r.Connections() {
		if t, ok := layout.LookupType(c.Type); ok && t.MD5 != c.MD5Sum {
			return fmt.Errorf("the imported bag would be refused: topic %s: type %s has md5sum %s, want %s", c.Topic, c.Type, c.MD5Sum, t.MD5)
		}
		if old, ok := md5s[c.Type]; ok && old != c.MD5Sum {
			return fmt.Errorf("the imported bag would be refused: type %s has two md5sums: %s and %s", c.Type, old, c.MD5Sum)
		}
		md5s[c.Type] = c.MD5Sum
	}
	if n := r.Info().Messages; int64(n) != res.Messages || !r.Info().Indexed {
		return fmt.Errorf("the imported bag holds %d messages, %d were imported", n, res.Messages)
	}
	return nil
}

// regularFile refuses what is not a regular file (a FIFO, a directory, a
// device), which the readers would block on or misread.
func regularFile(path string) error { return bagname.CheckRegular(path) }

// writeAtomically writes path through fill into a temporary file in the
// same directory, synced and renamed to path only when fill succeeds;
// otherwise the temporary file is removed and path is untouched. Stale
// temporary files of path left by a killed run are removed first.
func writeAtomically(path string, fill func(f *os.File) error) error {
	return outfile.Write(path, fill)
}

// holdOpen keeps a bag in object storage open while a command opens it
// more than once (its own pass and the player's verdict, damage.Check),
// so that every open reads through one cache and each block is fetched
// once (package blobfile shares one File per URL while any is open). A
// local path needs nothing. The returned func releases the bag.
func holdOpen(path string) func() {
	if !bagname.IsURL(path) {
		return func() {}
	}
	f, err := rosbag.OpenURL(path)
	if err != nil { // the command's own open reports it
		return func() {}
	}
	return func() { f.Close() }
}
