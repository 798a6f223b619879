package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/rsbag/rsbag/internal/layout"
	"github.com/rsbag/rsbag/internal/outfile"
	"github.com/rsbag/rsbag/rosbag"
)

const editSynopsis = "edit trim [--start T] [--end T] [--streams LIST] -o OUT.bag BAG\n" +
	"       edit split --every DURATION|SIZE -o PREFIX BAG\n" +
	"       edit compress|decompress -o OUT.bag BAG\n" +
	"       edit reindex BAG\n\n" +
	"trim keeps the frames of a window of positions (seconds or durations such as\n" +
	"1500ms from the start of the recording, as play shows them; --end excluded) and of\n" +
	"the chosen streams, and every message of the other topics in that window (ground\n" +
	"truth of the chosen streams, unit outputs, topics of your own; without --end, up to\n" +
	"the bag's last message); split cuts the bag into PREFIX_0.bag, PREFIX_1.bag, ... of\n" +
	"DURATION of bag time (10s, 1500ms) or about SIZE bytes of the file (5MB, 64MiB:\n" +
	"compressed chunks; the unit is required), never between a frame and its\n" +
	"metadata; a window without frames makes no part, and a\n" +
	"DURATION or SIZE that would make more parts than the bag has frames is refused.\n" +
	"Every part starts with the whole device description at time 0 (file version,\n" +
	"device, sensor and stream info, intrinsics, extrinsics, options with the values\n" +
	"they had at the cut), so librealsense and rs-record play it as the original plays\n" +
	"that window, with the same frame numbers, timestamps, metadata and bag times.\n" +
	"compress and decompress copy every connection and message of the bag, with its\n" +
	"time and bytes, into OUT with LZ4 or uncompressed chunks (a damaged bag is refused:\n" +
	"run 'rs-record info' on it). reindex rebuilds the index of a bag whose recording\n" +
	"was killed or whose index was damaged: it rebuilds a copy (keeping the complete\n" +
	"messages before the cut of a chunk the file cuts short), checks that the copy\n" +
	"opens indexed with every recovered message, and only then replaces the bag with it,\n" +
	"keeping its mode and owner. It says how much free space the copy needs, follows a\n" +
	"symbolic link, refuses a bag with other hard links, and leaves a file with nothing\n" +
	"to recover as it is."

func runEdit(e *env, args []string) error {
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "-help" {
		if len(args) == 0 {
			return usageErrorf("edit", "want a subcommand: trim, split, compress, decompress or reindex")
		}
		fmt.Fprintf(e.stdout, "Usage: %s %s\n", progName, editSynopsis)
		return flag.ErrHelp
	}
	sub, args := args[0], args[1:]
	switch sub {
	case "compress", "decompress":
		return editCopy(e, sub, args)
	case "reindex":
		return editReindex(e, args)
	case "trim":
		return editTrim(e, args)
	case "split":
		return editSplit(e, args)
	}
	return usageErrorf("edit", "unknown subcommand %q: want trim, split, compress, decompress or reindex", sub)
}

func editCopy(e *env, sub string, args []string) error {
	fs := newFlagSet(e, "edit "+sub, editSynopsis)
	out := fs.String("o", "", "write the copy to `OUT.bag`")
	pos, err := parseArgs(fs, "edit", args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return usageErrorf("edit", "%s: want exactly one BAG, got %d arguments", sub, len(pos))
	}
	if *out == "" {
		return usageErrorf("edit", "%s: -o OUT.bag is required", sub)
	}
	bag := pos[0]
	if err := notInput("edit", pos, *out); err != nil {
		return err
	}
	if err := regularFile(bag); err != nil {
		return fileError(bag, err)
	}
	r, err := openForEdit(bag)
	if err != nil {
		return fileError(bag, err)
	}
	defer r.Close()
	comp := "lz4"
	if sub == "decompress" {
		comp = "none"
	}
	var n int64
	err = writeAtomically(*out, func(f *os.File) error {
		w, err := rosbag.NewWriter(f, &rosbag.WriterOptions{Compression: comp})
		if err != nil {
			return err
		}
		n, err = copyBag(w, r)
		if cerr := w.Close(); err == nil {
			err = cerr
		}
		return err
	})
	if err != nil {
		return fileError(bag, err)
	}
	fmt.Fprintf(e.stdout, "%s: %d messages, %s chunks\n", *out, n, comp)
	return nil
}

// copyBag copies every connection (ids and header fields kept) and every
// message of r, in time order, to w, each message as valid ROS (canonical).
func copyBag(w *rosbag.Writer, r *rosbag.Reader) (int64, error) {
	ids := map[uint32]uint32{}
	kinds := map[uint32]layout.TopicKind{}
	for _, c := range r.Connections() {
		kinds[c.ID] = layout.Parse(c.Topic).Kind
		id, err := w.AddConnection(c.Topic, c.Type, c.MD5Sum, c.MessageDefinition, c.Extra)
		if err != nil {
			return 0, err
		}
		ids[c.ID] = id
	}
	it := r.Messages(nil)
	defer it.Close() // stops its read-ahead on an early return; idempotent
	var n int64
	var scratch []byte
	for it.Next() {
		m := it.Message()
		data, err := layout.Canonical(kinds[m.Conn.ID], m.Data, &scratch)
		if err != nil {
			return n, fmt.Errorf("message of %s at %v: %w", m.Conn.Topic, m.Time, err)
		}
		if err := w.WriteMessage(ids[m.Conn.ID], m.Time, data); err != nil {
			return n, fmt.Errorf("message of %s at %v: %w", m.Conn.Topic, m.Time, err)
		}
		n++
	}
	if err := it.Err(); err != nil {
		return n, err
	}
	return n, it.Close()
}

func editReindex(e *env, args []string) error {
	fs := newFlagSet(e, "edit reindex", editSynopsis)
	pos, err := parseArgs(fs, "edit", args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return usageErrorf("edit", "reindex: want exactly one BAG, got %d arguments", len(pos))
	}
	bag := pos[0]
	// A symbolic link is followed: the bag it names is reindexed, the
	// link stays.
	path, err := filepath.EvalSymlinks(bag)
	if err != nil {
		return fileError(bag, err)
	}
	if err := regularFile(path); err != nil {
		return fileError(bag, err)
	}
	st, err := os.Stat(path)
	if err != nil {
		return fileError(bag, err)
	}
	uid, gid, links, owned := fileOwner(st)
	if owned && links > 1 {
		return fileError(bag, fmt.Errorf("the bag has %d hard links: the rebuilt copy would replace this name only and leave the other names with the unindexed bytes; not changed (copy the bag and reindex the copy)", links))
	}
	r, err := rosbag.Open(path, nil)
	if err != nil {
		return fileError(bag, err)
	}
	unindexed := r.Unindexed()
	size, err := r.ReindexSize()
	r.Close()
	if unindexed == nil {
		fmt.Fprintf(e.stdout, "%s: already indexed; not changed\n", bag)
		return nil
	}
	if err != nil {
		// Nothing recovered: a damaged file (exit status 3, as info says)
		// or one that holds no bag data; either way it is left alone.
		return fileError(bag, fmt.Errorf("%w; not changed", err))
	}
	// The copy is the whole file, then truncated and given its index.
	need := max(st.Size(), size)
	room, err := checkRoom(filepath.Dir(path), need)
	if err != nil {
		return fileError(bag, fmt.Errorf("%w; not changed", err))
	}
	fmt.Fprintf(e.stdout, "%s: %s\n", bag, room)
	// Rebuild a copy next to the bag; the bag itself is replaced only by a
	// rename once the copy is proven. The copy keeps the bag's mode and
	// owner.
	var rc *rosbag.Recovery
	err = writeAtomically(path, func(f *os.File) error {
		if err := f.Chmod(st.Mode().Perm()); err != nil {
			return err
		}
		if owned {
			if err := keepOwner(f, uid, gid); err != nil {
				return err
			}
		}
		src, err := os.Open(path)
		if err != nil {
			return err
		}
		_, err = io.Copy(f, src)
		src.Close()
		if err != nil {
			return err
		}
		if err := f.Sync(); err != nil {
			return err
		}
		if rc, err = rosbag.Reindex(f.Name()); err != nil {
			return err
		}
		if rc == nil {
			return errors.New("the copy needed no index: the bag changed while it was read")
		}
		check, err := rosbag.Open(f.Name(), nil)
		if err != nil {
			return fmt.Errorf("the rebuilt copy does not open: %w", err)
		}
		defer check.Close()
		if got := check.Info().Messages; got != rc.Messages {
			return fmt.Errorf("the rebuilt copy holds %d messages, the scan recovered %d", got, rc.Messages)
		}
		// Reindex wrote through its own handle; reopen ours at the end so
		// that the caller's sync covers the file as it is now.
		_, err = f.Seek(0, io.SeekEnd)
		return err
	})
	if err != nil {
		return fileError(bag, err)
	}
	fmt.Fprintf(e.stdout, "%s: reindexed: %d chunks, %d messages", bag, rc.Chunks, rc.Messages)
	if rc.Salvaged > 0 {
		fmt.Fprintf(e.stdout, " (%d of them salvaged from the chunk the file cuts short)", rc.Salvaged)
	}
	if rc.LostBytes > 0 {
		fmt.Fprintf(e.stdout, "; %d damaged bytes from offset %d dropped (%d messages seen there lost)", rc.LostBytes, rc.LostFrom, rc.LostMessages)
	}
	fmt.Fprintln(e.stdout)
	return nil
}

// notInput refuses, as a usage error of cmd, an output that names one of
// the inputs (through symbolic or hard links too): every command that
// writes checks its outputs with it before writing anything.
func notInput(cmd string, inputs []string, outs ...string) error {
	if err := outfile.CheckOutputs(inputs, outs...); err != nil {
		return usageErrorf(cmd, "%v; write it elsewhere", err)
	}
	return nil
}

// checkRoom says how much room a rebuilt copy of need bytes takes in dir,
// or returns an error saying so when the file system has less free.
func checkRoom(dir string, need int64) (string, error) {
	free, ok, err := freeSpace(dir)
	switch {
	case err != nil:
		return "", fmt.Errorf("free space in %s: %w", dir, err)
	case !ok:
		return fmt.Sprintf("reindexing needs %d bytes free in %s for the rebuilt copy", need, dir), nil
	case free < need:
		return "", fmt.Errorf("reindexing needs %d bytes free in %s for the rebuilt copy, %d are free", need, dir, free)
	}
	return fmt.Sprintf("reindexing needs %d bytes free in %s for the rebuilt copy (%d free)", need, dir, free), nil
}

// keepOwner gives f the owner uid and group gid, when they are not its
// own already.
func keepOwner(f *os.File, uid, gid int) error {
	st, err := f.Stat()
	if err != nil {
		return err
	}
	if u, g, _, ok := fileOwner(st); ok && u == uid && g == gid {
		return nil
	}
	if err := f.Chown(uid, gid); err != nil {
		return fmt.Errorf("cannot give the rebuilt copy the bag's owner %d:%d (reindex it as its owner or as root): %w", uid, gid, err)
	}
	return nil
}
