// Package baginfo describes a bag as "rs-record info" prints it: what rosbag
// info shows (version, duration, size, messages, compression, types,
// topics) and the RealSense view (file version, device, sensors, options,
// streams with their frame counts), with every part lost to damage. The
// description is read as the player reads it: its messages, from info's one
// pass over the bag, go to internal/description's Collector.
package baginfo

import (
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/rsbag/rsbag/internal/description"
	"github.com/rsbag/rsbag/internal/layout"
	"github.com/rsbag/rsbag/internal/tools/damage"
	"github.com/rsbag/rsbag/msgs"
	"github.com/rsbag/rsbag/rosbag"
	"github.com/rsbag/rsbag/sensor"
)

// Report is what "rs-record info" prints: the ROS view (as rosbag info)
// and the RealSense view. --json prints it as one object.
type Report struct {
	Path          string    `json:"path"`
	Version       string    `json:"version"` // bag format, "2.0"
	Size          int64     `json:"size"`
	Compression   []string  `json:"compression"`
	Chunks        int       `json:"chunks"`
	Messages      uint64    `json:"messages"`
	StartNs       uint64    `json:"start_ns"`
	EndNs         uint64    `json:"end_ns"`
	BagDurationNs uint64    `json:"bag_duration_ns"` // end - start over all messages
	Indexed       bool      `json:"indexed"`
	Quick         bool      `json:"quick,omitempty"` // read the index and description only (Options.Quick)
	Recovery      *Recovery `json:"recovery,omitempty"`
	Types         []Type    `json:"types"`
	Topics        []Topic   `json:"topics"`

	// RealSense view.
	FileVersion int     `json:"file_version"`
	DurationNs  uint64  `json:"duration_ns"` // from the first message to the last frame
	Device      []Field `json:"device"`
	// AdditionalInfo is what the /additional_info topic says about the
	// recording: the program and version that wrote it, the user's notes.
	AdditionalInfo []Field   `json:"additional_info,omitempty"`
	Sensors        []*Sensor `json:"sensors"`
	Streams        []Stream  `json:"streams"`
	Problems       []string  `json:"problems,omitempty"` // what the RealSense view could not read

	// Damage: whether data was lost, and each lost part (see internal/damage).
	Damaged bool          `json:"damaged"`
	Lost    []damage.Loss `json:"lost,omitempty"`
	// Chunks whose index disagreed with their records, read from the
	// records (nothing lost).
	Repaired []damage.Repair `json:"index_repaired,omitempty"`

	streamIndex map[streamID]int
	damage      *damage.Report
}

// Damage returns the report's losses with their frames counted for the
// streams a player shows.
func (rep *Report) Damage() *damage.Report { return rep.damage }

type Recovery struct {
	Reason             string `json:"reason"`
	Error              string `json:"error,omitempty"`
	RecoveredChunks    int    `json:"recovered_chunks"`
	RecoveredMessages  uint64 `json:"recovered_messages"`
	LostBytes          int64  `json:"lost_bytes"`
	LostMessages       int    `json:"lost_messages"`
	LostStartNs        uint64 `json:"lost_start_ns,omitempty"`
	LostEndNs          uint64 `json:"lost_end_ns,omitempty"`
	RecoverableDataEnd int64  `json:"data_end"`
}

type Type struct {
	Type string `json:"type"`
	MD5  string `json:"md5"`
}

type Topic struct {
	Topic       string `json:"topic"`
	Type        string `json:"type"`
	Messages    uint64 `json:"messages"`
	Connections int    `json:"connections"`
}

type Field struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

type Option struct {
	Name        string  `json:"name"`
	Value       float32 `json:"value"` // at the start of the recording
	Changes     int     `json:"changes,omitempty"`
	Description string  `json:"description,omitempty"`
}

type Sensor struct {
	Index   int       `json:"index"`
	Name    string    `json:"name"`
	Info    []Field   `json:"info"`
	Options []*Option `json:"options"`
}

type Stream struct {
	Sensor  int    `json:"sensor"`
	Stream  string `json:"stream"` // "Depth"
	Index   int    `json:"index"`
	Format  string `json:"format,omitempty"`
	Width   int    `json:"width,omitempty"`
	Height  int    `json:"height,omitempty"`
	FPS     int    `json:"fps"`
	Frames  uint64 `json:"frames"`
	FirstNs uint64 `json:"first_ns,omitempty"`
	LastNs  uint64 `json:"last_ns,omitempty"`

	hasStreamInfo bool
}

// streamID names a stream in the topic grammar.
type streamID struct {
	sensor int
	stream sensor.Stream
	index  int
}

// Options select how much of the bag Inspect reads.
type Options struct {
	// Quick reads the index and the description only: the messages of the
	// topics that describe the device (file version, device, sensor and
	// stream info, camera info, options, extrinsics) and the index data
	// records at both ends of the bag. Frame counts come from the index, the
	// duration from the first and last frames' index entries; per-stream
	// first and last times and the chunk compression are not reported, and
	// damage inside chunks is not seen. A bag in object storage is described
	// from a small part of its bytes.
	Quick bool
}

// Inspect opens and reads the bag at path (a local path or a URL of a
// scheme registered with rosbag), as far as it can be read: an unindexed
// bag is recovered by a scan, and the parts lost to damage (a truncated end,
// corrupt chunks) are listed in the report. Damage that leaves nothing to
// read is an error.
func Inspect(path string, opts *Options) (*Report, error) {
	r, err := rosbag.Open(path, nil)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	return InspectReader(r, path, opts)
}

// InspectReader is Inspect of an open bag, named path in the report.
func InspectReader(r *rosbag.Reader, path string, opts *Options) (*Report, error) {
	var o Options
	if opts != nil {
		o = *opts
	}
	info := r.Info()
	rep := &Report{
		Path:        path,
		Version:     info.Version,
		Size:        info.Size,
		Quick:       o.Quick,
		Chunks:      info.Chunks,
		Messages:    info.Messages,
		StartNs:     uint64(info.Start),
		EndNs:       uint64(info.End),
		Indexed:     info.Indexed,
		streamIndex: map[streamID]int{},
	}
	if info.End > info.Start {
		rep.BagDurationNs = uint64(info.End - info.Start)
	}
	if rc := info.Recovery; rc != nil {
		rep.Recovery = &Recovery{
			Reason:             rc.Reason,
			RecoveredChunks:    rc.Chunks,
			RecoveredMessages:  rc.Messages,
			LostBytes:          rc.LostBytes,
			LostMessages:       rc.LostMessages,
			LostStartNs:        uint64(rc.LostStart),
			LostEndNs:          uint64(rc.LostEnd),
			RecoverableDataEnd: rc.DataEnd,
		}
		if rc.Err != nil {
			rep.Recovery.Error = rc.Err.Error()
		}
	}
	if !o.Quick {
		rep.Compression = r.Compression()
	}
	skipped, repaired, err := rep.readMessages(r, o.Quick)
	if err != nil {
		return nil, err
	}
	rep.playable()
	// The losses, with their frames counted for the streams a player shows.
	parsed := map[uint32]streamID{}
	for _, c := range r.Connections() {
		if t := layout.Parse(c.Topic); isFrame(&t) {
			parsed[c.ID] = streamID{sensor: t.Sensor, stream: t.Stream, index: t.Index}
		}
	}
	frames := func(id uint32) (string, bool) {
		sid, ok := parsed[id]
		if !ok {
			return "", false
		}
		if _, ok := rep.streamIndex[sid]; !ok {
			return "", false
		}
		return fmt.Sprintf("%s/%d", sid.stream, sid.index), true
	}
	rep.damage = damage.FromRecovery(info.Recovery, frames)
	losses := append(info.Recovery.Losses(), skipped...)
	for _, c := range skipped {
		rep.damage.Add(c, frames)
	}
	rep.damage.AddRepaired(repaired)
	rep.Damaged, rep.Lost, rep.Repaired = rep.damage.Damaged(), rep.damage.Lost, rep.damage.Repaired
	if rep.FileVersion == 0 {
		if len(losses) > 0 {
			return nil, fmt.Errorf("damaged bag: the device description (topic %s) is lost: %w", layout.FileVersionTopic, losses[0].Err)
		}
		rep.Problems = append(rep.Problems, fmt.Sprintf("no topic %s: not a RealSense bag, players show no streams", layout.FileVersionTopic))
	}
	return rep, nil
}

// playable keeps the streams a player shows, as the playback device finds
// them (file version 2 and later): a stream needs its StreamInfo and its
// sensor's info topic. The others are named in Problems.
func (rep *Report) playable() {
	if rep.FileVersion < 2 {
		return
	}
	hasInfo := map[int]bool{}
	for _, s := range rep.Sensors {
		if len(s.Info) > 0 {
			hasInfo[s.Index] = true
		}
	}
	ids := make([]streamID, len(rep.Streams))
	for id, i := range rep.streamIndex {
		ids[i] = id
	}
	var keep []Stream
	idx := map[streamID]int{}
	for i, id := range ids {
		st := rep.Streams[i]
		switch {
		case !hasInfo[id.sensor]:
			rep.Problems = append(rep.Problems, fmt.Sprintf("stream %s/%d of sensor %d (%d frames) is not played: the bag has no info topic for sensor %d",
				st.Stream, st.Index, id.sensor, st.Frames, id.sensor))
		case !st.hasStreamInfo:
			rep.Problems = append(rep.Problems, fmt.Sprintf("stream %s/%d of sensor %d (%d frames) is not played: it has no StreamInfo",
				st.Stream, st.Index, id.sensor, st.Frames))
		default:
			idx[id] = len(keep)
			keep = append(keep, st)
		}
	}
	sort.Strings(rep.Problems)
	rep.Streams, rep.streamIndex = keep, idx
}

// readMessages reads every message: per-topic counts, per-stream frame
// counts and times, the file version, and a check of every message. With
// quick, it reads the messages that describe the device only and takes the
// counts from the index (see Options.Quick).
func (rep *Report) readMessages(r *rosbag.Reader, quick bool) ([]rosbag.SkippedChunk, []rosbag.RepairedChunk, error) {
	conns := r.Connections()
	type topicAcc struct {
		typ   string
		n     uint64
		conns int
	}
	topics := map[string]*topicAcc{}
	types := map[string]string{}
	// A connection whose type has another md5sum than the type's is
	// described as a problem and its messages are not decoded; whether the
	// bag is refused for it is the player's verdict (damage.Check): it
	// refuses such a file version, description or frame topic and skips
	// such optional parts, as librealsense does.
	wrong := map[uint32]bool{}
	for _, c := range conns {
		if old, ok := types[c.Type]; ok && old != c.MD5Sum {
			rep.Problems = append(rep.Problems, fmt.Sprintf("type %s has two md5sums: %s and %s", c.Type, old, c.MD5Sum))
		} else {
			types[c.Type] = c.MD5Sum
		}
		t := topics[c.Topic]
		if t == nil {
			t = &topicAcc{typ: c.Type}
			topics[c.Topic] = t
		}
		t.conns++
		if err := checkType(c); err != nil {
			rep.Problems = append(rep.Problems, err.Error())
			wrong[c.ID] = true
		}
	}
	var first, last uint64
	var total uint64
	dec := decoders{}
	desc := description.NewCollector()
	parsed := make(map[uint32]*layout.Topic, len(conns))
	for _, c := range conns {
		t := layout.Parse(c.Topic)
		parsed[c.ID] = &t
	}
	q := &rosbag.Query{SkipCorrupt: true}
	var frameConns []uint32
	if quick {
		q.Connections = []uint32{}
		for _, c := range conns {
			switch t := parsed[c.ID]; {
			case isFrame(t):
				frameConns = append(frameConns, c.ID)
			case description.Describes(*t), c.Topic == layout.AdditionalInfoTopic:
				q.Connections = append(q.Connections, c.ID)
			}
		}
	}
	it := r.Messages(q)
	defer it.Close()
	for (!quick || len(q.Connections) > 0) && it.Next() {
		m := it.Message()
		total++
		if !quick {
			topics[m.Conn.Topic].n++
		}
		t := parsed[m.Conn.ID]
		if t == nil { // a connection the index did not list
			p := layout.Parse(m.Conn.Topic)
			t = &p
		}
		var v msgs.Message
		if t.Kind != layout.KindUnknown && !wrong[m.Conn.ID] { // the messages a player reads
			var err error
			if v, err = dec.decode(m, t); err != nil {
				return nil, nil, err
			}
		}
		if isFrame(t) {
			id := streamID{sensor: t.Sensor, stream: t.Stream, index: t.Index}
			ns := uint64(m.Time)
			s := rep.stream(id)
			s.Frames++
			if s.FirstNs == 0 || ns < s.FirstNs {
				s.FirstNs = ns
			}
			if ns > s.LastNs {
				s.LastNs = ns
			}
			if first == 0 || ns < first {
				first = ns
			}
			if ns > last {
				last = ns
			}
		} else if m.Conn.Topic == layout.AdditionalInfoTopic && m.Conn.Type == "diagnostic_msgs/KeyValue" {
			// Not a message a player reads: shown when it decodes, never
			// a verdict.
			var kv msgs.KeyValue
			if msgs.Unmarshal(m.Data, &kv) == nil {
				rep.AdditionalInfo = append(rep.AdditionalInfo, Field{kv.Key, kv.Value})
			}
		} else if v != nil && description.Describes(*t) {
			if err := desc.Add(m.Conn.Topic, *t, m.Time, v); err != nil {
				rep.Problems = append(rep.Problems, err.Error())
			}
			// A stream is listed when its stream info or camera info is
			// first read, in bag order.
			if st := desc.Stream(description.KeyOf(*t)); st != nil &&
				(t.Kind == layout.KindStreamInfo && st.InfoSeq >= 0 || t.Kind == layout.KindCameraInfo && st.Cam != nil) {
				rep.stream(streamID{sensor: t.Sensor, stream: t.Stream, index: t.Index})
			}
		}
	}
	if err := it.Err(); err != nil {
		return nil, nil, err
	}
	rep.describe(desc)
	if quick {
		counts := r.Info().MessageCounts
		for _, c := range conns {
			topics[c.Topic].n += counts[c.ID]
		}
		for _, id := range frameConns {
			t := parsed[id]
			rep.stream(streamID{sensor: t.Sensor, stream: t.Stream, index: t.Index}).Frames += counts[id]
		}
		f, l, ok, err := r.Span(frameConns)
		if err != nil {
			return nil, nil, err
		}
		if ok {
			first, last = uint64(f), uint64(l)
		}
	} else {
		var lostIdx uint64
		for _, c := range it.Skipped() {
			lostIdx += uint64(c.Messages)
		}
		if total+lostIdx != rep.Messages && rep.Indexed && len(it.Repaired()) == 0 {
			return nil, nil, fmt.Errorf("the index counts %d messages but %d were read", rep.Messages, total)
		}
		rep.Messages = total
	}
	if last > first && last > rep.StartNs {
		// From the bag's first message, the origin of every position
		// (play, the viewer, the Go API), to the last frame: in a part
		// cut by edit, whose frames keep their bag times, as in a whole
		// recording.
		rep.DurationNs = last - rep.StartNs
	}
	for name, md5 := range types {
		rep.Types = append(rep.Types, Type{name, md5})
	}
	sort.Slice(rep.Types, func(i, j int) bool { return rep.Types[i].Type < rep.Types[j].Type })
	for name, t := range topics {
		rep.Topics = append(rep.Topics, Topic{Topic: name, Type: t.typ, Messages: t.n, Connections: t.conns})
	}
	sort.Slice(rep.Topics, func(i, j int) bool { return rep.Topics[i].Topic < rep.Topics[j].Topic })
	return it.Skipped(), it.Repaired(), nil
}

func (rep *Report) stream(id streamID) *Stream {
	i, ok := rep.streamIndex[id]
	if !ok {
		i = len(rep.Streams)
		rep.streamIndex[id] = i
		rep.Streams = append(rep.Streams, Stream{Sensor: id.sensor, Stream: id.stream.String(), Index: id.index})
	}
	return &rep.Streams[i]
}

func (rep *Report) WriteText(w io.Writer) {
	p := func(label, format string, args ...any) {
		if label != "" {
			label += ":"
		}
		fmt.Fprintf(w, "%-13s %s\n", label, fmt.Sprintf(format, args...))
	}
	p("path", "%s", rep.Path)
	p("version", "%s", rep.Version)
	p("duration", "%s", fmtDuration(rep.BagDurationNs))
	p("start", "%s", rosbag.Time(rep.StartNs))
	p("end", "%s", rosbag.Time(rep.EndNs))
	p("size", "%s (%d bytes)", fmtSize(rep.Size), rep.Size)
	p("messages", "%d", rep.Messages)
	comp := strings.Join(rep.Compression, ", ")
	switch {
	case rep.Quick:
		comp = "not read (quick)"
	case comp == "":
		comp = "none"
	}
	p("compression", "%s [%d chunks]", comp, rep.Chunks)
	for i, t := range rep.Types {
		label := ""
		if i == 0 {
			label = "types"
		}
		p(label, "%s [%s]", t.Type, t.MD5)
	}
	width := 0
	for _, t := range rep.Topics {
		width = max(width, len(t.Topic))
	}
	for i, t := range rep.Topics {
		label := ""
		if i == 0 {
			label = "topics"
		}
		conns := ""
		if t.Connections > 1 {
			conns = fmt.Sprintf(" (%d connections)", t.Connections)
		}
		p(label, "%-*s %7d msgs : %s%s", width, t.Topic, t.Messages, t.Type, conns)
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, "RealSense:")
	p("file version", "%d", rep.FileVersion)
	if rep.Indexed {
		p("indexed", "yes")
	} else if rc := rep.Recovery; rc != nil {
		p("indexed", "no: recovered %d messages in %d chunks (%s)", rc.RecoveredMessages, rc.RecoveredChunks, rc.Reason)
	}
	if !rep.Damaged {
		p("damaged", "no")
	}
	for _, l := range rep.Lost {
		s := fmt.Sprintf("%d bytes at offset %d", l.Bytes, l.Offset)
		if l.Messages > 0 {
			s += fmt.Sprintf(", %d messages from %s to %s", l.Messages, rosbag.Time(l.StartNs), rosbag.Time(l.EndNs))
		}
		if n := l.FramesLost(); n > 0 {
			s += fmt.Sprintf(", %d frames", n)
		}
		if l.Error != "" {
			s += " (" + l.Error + ")"
		}
		p("lost", "%s", s)
	}
	p("duration", "%s", fmtDuration(rep.DurationNs))
	for i, f := range rep.Device {
		label := ""
		if i == 0 {
			label = "device"
		}
		p(label, "%s: %s", f.Name, f.Value)
	}
	for i, f := range rep.AdditionalInfo {
		label := ""
		if i == 0 {
			label = "recording"
		}
		p(label, "%s: %s", f.Name, f.Value)
	}
	for _, s := range rep.Sensors {
		fmt.Fprintf(w, "sensor %d:     %s\n", s.Index, s.Name)
		for _, o := range s.Options {
			ch := ""
			if o.Changes > 0 {
				ch = fmt.Sprintf(" (changed %d times)", o.Changes)
			}
			fmt.Fprintf(w, "  option      %s = %v%s\n", o.Name, o.Value, ch)
		}
		for _, st := range rep.Streams {
			if st.Sensor == s.Index {
				fmt.Fprintf(w, "  stream      %s\n", st.describe())
			}
		}
	}
	if len(rep.Sensors) == 0 {
		for _, st := range rep.Streams {
			p("stream", "%s", st.describe())
		}
	}
	for _, pr := range rep.Problems {
		p("problem", "%s", pr)
	}
}

func (s *Stream) describe() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s/%d", s.Stream, s.Index)
	if s.Format != "" {
		fmt.Fprintf(&b, " %s", s.Format)
	}
	switch {
	case s.Width > 0:
		fmt.Fprintf(&b, " %dx%d@%d", s.Width, s.Height, s.FPS)
	case s.FPS > 0:
		fmt.Fprintf(&b, " %d Hz", s.FPS)
	}
	fmt.Fprintf(&b, ": %d frames", s.Frames)
	if s.Frames > 1 && s.LastNs > s.FirstNs {
		fmt.Fprintf(&b, " (%.2f/s)", float64(s.Frames-1)/(float64(s.LastNs-s.FirstNs)/1e9))
	}
	return b.String()
}

func fmtDuration(ns uint64) string {
	return fmt.Sprintf("%.3fs (%s s)", float64(ns)/1e9, rosbag.Time(ns))
}

func fmtSize(n int64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.1f GiB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d B", n)
}
