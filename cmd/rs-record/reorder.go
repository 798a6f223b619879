package main

import (
	"cmp"
	"fmt"
	"os"
	"slices"

	"github.com/rsbag/rsbag/internal/layout"
	"github.com/rsbag/rsbag/rosbag"
)

// reorderBag rewrites the bag at path (atomically) in an order that does
// not depend on the order its messages reached the recorder: connections
// in topic order after the file version's (first, as librealsense writes
// it, and as readers expect the first connection to be), messages in time order and those of one bag time in
// topic order (each topic's in their own order), chunks cut by size only
// (chunk bytes and compression as in opts). A recorder fed by several
// sensors' goroutines at once writes their messages of one bag time in
// arrival order; for a source that is not real time (a synthetic camera
// as fast as possible, whose bag times come from its timestamps) this
// makes one seed one file. It reads and writes the bag once more, so only
// such recordings pay for it.
func reorderBag(path string, opts rosbag.WriterOptions) error {
	r, err := openForEdit(path)
	if err != nil {
		return err
	}
	defer r.Close()
	opts.FlushInterval = -1 // a chunk's end must not depend on the clock
	return writeAtomically(path, func(f *os.File) error {
		w, err := rosbag.NewWriter(f, &opts)
		if err != nil {
			return err
		}
		err = writeReordered(w, r)
		if cerr := w.Close(); err == nil {
			err = cerr
		}
		return err
	})
}

// writeReordered writes the connections and messages of r to w in the
// order reorderBag describes.
func writeReordered(w *rosbag.Writer, r *rosbag.Reader) error {
	conns := slices.Clone(r.Connections())
	slices.SortStableFunc(conns, func(a, b *rosbag.Connection) int {
		return cmp.Or(cmp.Compare(versionLast(a), versionLast(b)), cmp.Compare(a.Topic, b.Topic))
	})
	ids := map[uint32]uint32{}
	topics := map[uint32]string{}
	for _, c := range conns {
		id, err := w.AddConnection(c.Topic, c.Type, c.MD5Sum, c.MessageDefinition, c.Extra)
		if err != nil {
			return err
		}
		ids[c.ID], topics[c.ID] = id, c.Topic
	}
	type msg struct{ conn, from, to uint32 } // data: arena[from:to]
	var group []msg                          // the messages of one bag time
	var arena []byte
	var at rosbag.Time
	flush := func() error {
		slices.SortStableFunc(group, func(a, b msg) int { return cmp.Compare(topics[a.conn], topics[b.conn]) })
		for _, m := range group {
			if err := w.WriteMessage(ids[m.conn], at, arena[m.from:m.to]); err != nil {
				return fmt.Errorf("message of %s at %v: %w", topics[m.conn], at, err)
			}
		}
		group, arena = group[:0], arena[:0]
		return nil
	}
	it := r.Messages(nil)
	defer it.Close()
	for it.Next() {
		m := it.Message()
		if m.Time != at && len(group) > 0 {
			if err := flush(); err != nil {
				return err
			}
		}
		at = m.Time
		arena = append(arena, m.Data...)
		group = append(group, msg{m.Conn.ID, uint32(len(arena) - len(m.Data)), uint32(len(arena))})
	}
	if err := it.Err(); err != nil {
		return err
	}
	if err := flush(); err != nil {
		return err
	}
	return it.Close()
}

// versionLast is 0 for the connection of the file version, 1 for the others.
func versionLast(c *rosbag.Connection) int {
	switch layout.Parse(c.Topic).Kind {
	case layout.KindFileVersion, layout.KindLegacyFileVersion:
		return 0
	}
	return 1
}
