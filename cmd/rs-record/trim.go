package main

import (
	"errors"
	"fmt"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/rsbag/rsbag/internal/layout"
	"github.com/rsbag/rsbag/rosbag"
	"github.com/rsbag/rsbag/sensor"
)

// window is a part of a bag's timeline: bag times [from, to).
type window struct{ from, to rosbag.Time }

// streamFilter selects streams by "name" or "name/index" (empty: all).
type streamFilter []string

func (f streamFilter) keeps(st sensor.Stream, index int) bool {
	if len(f) == 0 {
		return true
	}
	for _, s := range f {
		n, idx, hasIdx := strings.Cut(s, "/")
		if t, _ := parseStreamName(n); t == st && (!hasIdx || idx == strconv.Itoa(index)) {
			return true
		}
	}
	return false
}

// streamTopic reports whether a topic kind belongs to one stream.
func streamTopic(k layout.TopicKind) bool {
	return describesStream(k) || k == layout.KindPoseAccel || k == layout.KindPoseTwist || k.IsFrameData() || k.IsMetadata()
}

// timeline is what trimming needs to know of a bag before copying it.
type timeline struct {
	first, last rosbag.Time // of the frames
	end         rosbag.Time // just after the bag's last message
	frames      int
	times       []rosbag.Time // of the frames, in order (one per frame)
	// optionAt returns the data of the last value message of an option
	// topic before t (the static one when there is no change before t).
	options map[uint32][]rosbag.Message
	topics  map[uint32]layout.Topic
	// truth holds the ground-truth connections (outside the layout, of
	// the stream their topic names: Stream and Index of topics).
	truth map[uint32]bool
}

// scanTimeline reads the frame times and the option values of r.
func scanTimeline(r *rosbag.Reader) (*timeline, error) {
	tl := &timeline{options: map[uint32][]rosbag.Message{}, topics: map[uint32]layout.Topic{}, truth: map[uint32]bool{},
		end: r.Info().End + 1}
	var frameConns, optConns []uint32
	for _, c := range r.Connections() {
		t := layout.Parse(c.Topic)
		if st, i, _, ok := layout.ParseGroundTruthTopic(c.Topic); ok {
			t.Stream, t.Index = st, i
			tl.truth[c.ID] = true
		}
		tl.topics[c.ID] = t
		switch {
		case t.Kind == layout.KindLegacyFileVersion:
			return nil, errors.New("file version 1 bags cannot be trimmed (their description is not at time 0)")
		case t.Kind.IsFrameData():
			frameConns = append(frameConns, c.ID)
		case t.Kind == layout.KindOptionValue:
			optConns = append(optConns, c.ID)
		}
	}
	if len(frameConns) > 0 {
		it := r.Messages(&rosbag.Query{Connections: frameConns, Start: rosbag.Time(layout.SamplesStartNs)})
		for it.Next() {
			t := it.Message().Time
			if tl.frames == 0 {
				tl.first = t
			}
			tl.times = append(tl.times, t)
			tl.last = max(tl.last, t)
			tl.frames++
		}
		if err := it.Err(); err != nil {
			return nil, err
		}
	}
	if len(optConns) > 0 {
		it := r.Messages(&rosbag.Query{Connections: optConns})
		for it.Next() {
			m := it.Message()
			m.Data = append([]byte(nil), m.Data...)
			tl.options[m.Conn.ID] = append(tl.options[m.Conn.ID], m)
		}
		if err := it.Err(); err != nil {
			return nil, err
		}
	}
	return tl, nil
}

// optionAt returns the value message data of option connection id in
// effect just before t.
func (tl *timeline) optionAt(id uint32, t rosbag.Time) []byte {
	var data []byte
	for _, m := range tl.options[id] {
		if m.Time >= t && m.Time > rosbag.Time(layout.StaticTimeNs) {
			break
		}
		data = m.Data
	}
	return data
}

// trimBag copies to w the part of r that a player needs to play the frames
// of w's window and of the selected streams as the original plays them:
// the whole description at time 0 (file version, device and sensor info,
// the selected streams' info, intrinsics and extrinsics, options with the
// values they had at the start of the window), then every message of the
// window — frames with their metadata, option changes, notifications,
// the messages of topics outside the RealSense layout (the ground truth
// of the selected streams, unit outputs, a user's own topics) — with its
// own time and bytes, and the connections' headers as they are. It returns the number of messages written.
func trimBag(w *rosbag.Writer, r *rosbag.Reader, tl *timeline, win window, streams streamFilter) (int64, error) {
	static := rosbag.Time(layout.StaticTimeNs)
	ids := map[uint32]uint32{}
	conn := func(c *rosbag.Connection) (uint32, error) {
		if id, ok := ids[c.ID]; ok {
			return id, nil
		}
		id, err := w.AddConnection(c.Topic, c.Type, c.MD5Sum, c.MessageDefinition, c.Extra)
		if err != nil {
			return 0, err
		}
		ids[c.ID] = id
		return id, nil
	}
	// Three reads in time order, each of the chunks it needs only (a
	// part costs its window and the description, not the whole bag): the
	// static description, the stream descriptions written before the
	// window, the window.
	var descConns []uint32
	for id, t := range tl.topics {
		if describesStream(t.Kind) {
			descConns = append(descConns, id)
		}
	}
	slices.Sort(descConns)
	reads := []*rosbag.Query{{End: static + 1}}
	if len(descConns) > 0 && win.from > static+1 {
		reads = append(reads, &rosbag.Query{Connections: descConns, Start: static + 1, End: win.from})
	}
	reads = append(reads, &rosbag.Query{Start: max(win.from, static+1), End: win.to})
	var n int64
	var scratch []byte
	for _, q := range reads {
		if err := trimRead(w, r.Messages(q), tl, win, streams, conn, &n, &scratch); err != nil {
			return n, err
		}
	}
	return n, nil
}

// trimRead writes the messages of it that trimBag keeps to w, counting
// them in n.
func trimRead(w *rosbag.Writer, it *rosbag.Iterator, tl *timeline, win window, streams streamFilter,
	conn func(c *rosbag.Connection) (uint32, error), n *int64, scratch *[]byte) error {
	static := rosbag.Time(layout.StaticTimeNs)
	defer it.Close()
	for it.Next() {
		m := it.Message()
		t := tl.topics[m.Conn.ID]
		if (streamTopic(t.Kind) || tl.truth[m.Conn.ID]) && !streams.keeps(t.Stream, t.Index) {
			continue
		}
		data, at := m.Data, m.Time
		switch {
		case m.Time <= static:
			if t.Kind == layout.KindOptionValue {
				data = tl.optionAt(m.Conn.ID, win.from) // the value at the cut
			}
		case m.Time < win.from && describesStream(t.Kind):
			// A stream started after the first frame: its description,
			// written when it started, is part of the description at the
			// start of the trimmed bag.
			at = static
		case m.Time < win.from || m.Time >= win.to:
			continue
		}
		id, err := conn(m.Conn)
		if err != nil {
			return err
		}
		if data, err = layout.Canonical(t.Kind, data, scratch); err != nil {
			return fmt.Errorf("message of %s at %v: %w", m.Conn.Topic, m.Time, err)
		}
		if err := w.WriteMessage(id, at, data); err != nil {
			return fmt.Errorf("message of %s at %v: %w", m.Conn.Topic, m.Time, err)
		}
		*n++
	}
	if err := it.Err(); err != nil {
		return err
	}
	return it.Close()
}

// describesStream reports whether a topic kind is part of a stream's
// description, which the recorder writes when the stream starts (spec §7):
// stream info, intrinsics, extrinsics.
func describesStream(k layout.TopicKind) bool {
	switch k {
	case layout.KindStreamInfo, layout.KindCameraInfo, layout.KindImuIntrinsic, layout.KindExtrinsics:
		return true
	}
	return false
}

// openForEdit opens a bag that an edit reads whole: an unindexed bag must
// be reindexed first, a damaged one is refused.
func openForEdit(bag string) (*rosbag.Reader, error) {
	r, err := rosbag.Open(bag, nil)
	if err != nil {
		return nil, err
	}
	if err := r.Unindexed(); err != nil {
		r.Close()
		return nil, fmt.Errorf("%w; run 'rs-record edit reindex' on it first", err)
	}
	return r, nil
}

// openTimeline opens a bag to trim or split and scans its timeline; the
// error names the bag.
func openTimeline(bag, verb string) (*rosbag.Reader, *timeline, error) {
	r, err := openForEdit(bag)
	if err != nil {
		return nil, nil, fileError(bag, err)
	}
	tl, err := scanTimeline(r)
	if err == nil && tl.frames == 0 {
		err = fmt.Errorf("the bag has no frames to %s", verb)
	}
	if err != nil {
		r.Close()
		return nil, nil, fileError(bag, err)
	}
	return r, tl, nil
}

// writeTrimmed writes the window of r to out (atomically).
func writeTrimmed(out string, r *rosbag.Reader, tl *timeline, win window, streams streamFilter, comp string) (int64, error) {
	var n int64
	err := writeAtomically(out, func(f *os.File) error {
		w, err := rosbag.NewWriter(f, &rosbag.WriterOptions{Compression: comp})
		if err != nil {
			return err
		}
		n, err = trimBag(w, r, tl, win, streams)
		if cerr := w.Close(); err == nil {
			err = cerr
		}
		return err
	})
	return n, err
}

// bagCompression is the chunk compression of the output: lz4 when the
// source has lz4 chunks, none otherwise.
func bagCompression(r *rosbag.Reader) string {
	for _, c := range r.Compression() {
		if c == "lz4" {
			return "lz4"
		}
	}
	return "none"
}

func editTrim(e *env, args []string) error {
	fs := newFlagSet(e, "edit trim", editSynopsis)
	var start, end time.Duration
	timeFlag(fs, &start, "start", 0, "keep from position `T` (seconds, or a duration such as 1500ms, from the start of the recording, as play shows it)")
	timeFlag(fs, &end, "end", 0, "keep up to position `T`, excluded (0: to the end)")
	out := fs.String("o", "", "write the trimmed bag to `OUT.bag`")
	list := fs.String("streams", "", "keep only these streams, comma-separated `LIST` (e.g. depth,color or infrared/1)")
	pos, err := parseArgs(fs, "edit", args)
	if err != nil {
		return err
	}
	switch {
	case len(pos) != 1:
		return usageErrorf("edit", "trim: want exactly one BAG, got %d arguments", len(pos))
	case *out == "":
		return usageErrorf("edit", "trim: -o OUT.bag is required")
	case end != 0 && end <= start:
		return usageErrorf("edit", "trim: --end %s is not after --start %s", fmtTime(end), fmtTime(start))
	}
	streams, err := parseStreamList(*list)
	if err != nil {
		return usageErrorf("edit", "trim: --streams: %v", err)
	}
	bag := pos[0]
	if err := notInput("edit", pos, *out); err != nil {
		return err
	}
	r, tl, err := openTimeline(bag, "trim")
	if err != nil {
		return err
	}
	defer r.Close()
	if first, last := time.Duration(tl.first), time.Duration(tl.last); !inWindow(start, end, first, last) {
		return fileError(bag, windowError("--start", "--end", start, end, first, last, nil))
	}
	win := window{from: max(rosbag.Time(layout.SamplesStartNs), rosbag.Time(start)), to: tl.end}
	if end > 0 {
		win.to = rosbag.Time(end)
	}
	n, err := writeTrimmed(*out, r, tl, win, streams, bagCompression(r))
	if err != nil {
		return fileError(bag, err)
	}
	fmt.Fprintf(e.stdout, "%s: %d messages, bag time %v to %v\n", *out, n, win.from, min(win.to-1, tl.last))
	return nil
}

// parseStreamList parses "depth,color,infrared/1".
func parseStreamList(s string) (streamFilter, error) {
	var f streamFilter
	for _, x := range strings.Split(s, ",") {
		if x = strings.ToLower(strings.TrimSpace(x)); x != "" {
			name, idx, hasIdx := strings.Cut(x, "/")
			if _, ok := parseStreamName(name); !ok {
				return nil, fmt.Errorf("unknown stream %q (e.g. depth, color, infrared/1, accel, gyro, pose)", x)
			}
			if _, err := strconv.Atoi(idx); hasIdx && err != nil {
				return nil, fmt.Errorf("stream %q: the index after / is not a number", x)
			}
			f = append(f, x)
		}
	}
	return f, nil
}

func editSplit(e *env, args []string) error {
	fs := newFlagSet(e, "edit split", editSynopsis)
	every := fs.String("every", "", "cut every `DURATION` of bag time (10s, 1500ms, 1m) or every SIZE of the file, with its unit (100MB, 64MiB)")
	prefix := fs.String("o", "", "write the parts to `PREFIX`_0.bag, PREFIX_1.bag, ...")
	pos, err := parseArgs(fs, "edit", args)
	if err != nil {
		return err
	}
	switch {
	case len(pos) != 1:
		return usageErrorf("edit", "split: want exactly one BAG, got %d arguments", len(pos))
	case *prefix == "":
		return usageErrorf("edit", "split: -o PREFIX is required")
	case *every == "":
		return usageErrorf("edit", "split: --every DURATION or SIZE is required")
	}
	var dur time.Duration
	var size sizeValue
	if isSize(*every) {
		if err := size.setFileSize(*every); err != nil {
			return usageErrorf("edit", "split: --every %s: %v", *every, err)
		}
	} else if _, err := strconv.ParseFloat(strings.TrimSpace(*every), 64); err == nil {
		return usageErrorf("edit", "split: --every %s: a bare number is ambiguous here: give a duration with its unit (%[1]ss) or a size with its unit (%[1]sMB, B, KB, KiB, MiB, GB, GiB)", *every)
	} else if d, err := parseTime(*every); err != nil {
		return usageErrorf("edit", "split: --every %s: want a duration (10s, 1500ms, 1m) or a size with its unit (100MB, 64MiB): %v", *every, err)
	} else if d == 0 {
		return usageErrorf("edit", "split: --every %s: want a duration over 0", *every)
	} else {
		dur = d
	}
	bag := pos[0]
	r, tl, err := openTimeline(bag, "split")
	if err != nil {
		return err
	}
	defer r.Close()
	// The number of parts is decided before anything is written: never
	// more than the bag has frames.
	var cuts []rosbag.Time // starts of the parts after the first
	if dur > 0 {
		span := tl.last - tl.first
		if n := uint64(span)/uint64(dur) + 1; n > uint64(tl.frames) {
			least := roundUp2(int64(span)/int64(tl.frames) + 1)
			return usageErrorf("edit", "split: --every %s would cut the %.3f s of bag time of %s into %d parts, more than its %d frames; use --every %v or more",
				*every, float64(span)/1e9, bag, n, tl.frames, time.Duration(least))
		}
		cuts = durationCuts(tl, rosbag.Time(dur))
	} else {
		var total int64
		if cuts, total, err = sizeCuts(r, int64(size)); err != nil {
			return fileError(bag, err)
		}
		if n := len(cuts) + 1; n > tl.frames {
			least := sizeValue(min(roundUp2(2*((total+int64(tl.frames)-1)/int64(tl.frames))), 1<<30))
			return usageErrorf("edit", "split: --every %s would cut the %d bytes of chunks of %s into %d parts, more than its %d frames; use --every %v or more",
				*every, total, bag, n, tl.frames, &least)
		}
		cuts = framedCuts(cuts, tl.times)
	}
	parts := make([]string, len(cuts)+1)
	for i := range parts {
		parts[i] = fmt.Sprintf("%s_%d.bag", *prefix, i)
	}
	if err := notInput("edit", pos, parts...); err != nil {
		return err
	}
	comp := bagCompression(r)
	from := rosbag.Time(layout.SamplesStartNs)
	for i := 0; i <= len(cuts); i++ {
		to := tl.end
		if i < len(cuts) {
			to = cuts[i]
		}
		out := parts[i]
		n, err := writeTrimmed(out, r, tl, window{from, to}, nil, comp)
		if err != nil {
			return fileError(bag, err)
		}
		fmt.Fprintf(e.stdout, "%s: %d messages, bag time %v to %v\n", out, n, max(from, tl.first), min(to-1, tl.last))
		from = to
	}
	return nil
}

// durationCuts returns the starts of the parts after the first when the
// bag is cut every d of bag time from its first frame: the starts of the
// windows that hold frames (a window without frames makes no part).
func durationCuts(tl *timeline, d rosbag.Time) []rosbag.Time {
	var cuts []rosbag.Time
	var k rosbag.Time
	for _, t := range tl.times {
		if w := (t - tl.first) / d; w != k {
			cuts = append(cuts, tl.first+w*d)
			k = w
		}
	}
	return cuts
}

// framedCuts drops from cuts (ascending starts of the parts after the
// first) those that would leave a part without frames (times, ascending):
// such a part's messages join the part after it (the last part's, the
// part before it).
func framedCuts(cuts, times []rosbag.Time) []rosbag.Time {
	var out []rosbag.Time
	j := 0
	for _, c := range cuts {
		n := j
		for j < len(times) && times[j] < c {
			j++
		}
		if j > n {
			out = append(out, c)
		}
	}
	if len(out) > 0 && j == len(times) {
		out = out[:len(out)-1]
	}
	return out
}

// roundUp2 rounds n > 0 up to two significant digits (252000001 → 260000000).
func roundUp2(n int64) int64 {
	unit := int64(1)
	for n/unit >= 100 {
		unit *= 10
	}
	return (n + unit - 1) / unit * unit
}

// sizeCuts returns the bag times at which parts of about size bytes of the
// file (after the description) begin, and the bytes of the file they
// count: each chunk's stored (compressed) bytes are shared among its
// messages in proportion to their lengths, and a part ends before the
// message time at which it would pass size, never between messages of one
// time (a frame and its metadata).
func sizeCuts(r *rosbag.Reader, size int64) ([]rosbag.Time, int64, error) {
	chunkBytes := r.ChunkBytes()
	// The message bytes of each chunk, for the share of each message.
	held := make([]int64, len(chunkBytes))
	q := &rosbag.Query{Start: rosbag.Time(layout.SamplesStartNs)}
	it := r.Messages(q)
	for it.Next() {
		if c := it.Message().Chunk; c >= 0 && c < len(held) {
			held[c] += int64(len(it.Message().Data))
		}
	}
	err := it.Err()
	it.Close()
	if err != nil {
		return nil, 0, err
	}
	var cuts []rosbag.Time
	it = r.Messages(q)
	defer it.Close()
	var acc, total, curBytes float64
	var cur rosbag.Time
	for it.Next() {
		m := it.Message()
		var n float64
		if c := m.Chunk; c >= 0 && c < len(held) && held[c] > 0 {
			n = float64(chunkBytes[c]) * float64(len(m.Data)) / float64(held[c])
		}
		total += n
		if m.Time != cur {
			if acc > 0 && acc+curBytes > float64(size) {
				cuts = append(cuts, cur)
				acc = 0
			}
			acc += curBytes
			cur, curBytes = m.Time, 0
		}
		curBytes += n
	}
	if acc > 0 && acc+curBytes > float64(size) {
		cuts = append(cuts, cur)
	}
	return cuts, int64(math.Round(total)), it.Err()
}
