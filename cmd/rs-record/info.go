package main

import (
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/rsbag/rsbag/internal/damage"
	"github.com/rsbag/rsbag/internal/layout"
	"github.com/rsbag/rsbag/msgs"
	"github.com/rsbag/rsbag/rosbag"
	"github.com/rsbag/rsbag/sensor"
)

// infoReport is what "rs-record info" prints: the ROS view (as rosbag info)
// and the RealSense view. --json prints it as one object.
type infoReport struct {
	Path          string        `json:"path"`
	Version       string        `json:"version"` // bag format, "2.0"
	Size          int64         `json:"size"`
	Compression   []string      `json:"compression"`
	Chunks        int           `json:"chunks"`
	Messages      uint64        `json:"messages"`
	StartNs       uint64        `json:"start_ns"`
	EndNs         uint64        `json:"end_ns"`
	BagDurationNs uint64        `json:"bag_duration_ns"` // end - start over all messages
	Indexed       bool          `json:"indexed"`
	Recovery      *recoveryInfo `json:"recovery,omitempty"`
	Types         []typeInfo    `json:"types"`
	Topics        []topicInfo   `json:"topics"`

	// RealSense view.
	FileVersion int           `json:"file_version"`
	DurationNs  uint64        `json:"duration_ns"` // between the first and last frame
	Device      []infoField   `json:"device"`
	Sensors     []*sensorInfo `json:"sensors"`
	Streams     []streamInfo  `json:"streams"`
	Problems    []string      `json:"problems,omitempty"` // what the RealSense view could not read

	// Damage: whether data was lost, and each lost part (see internal/damage).
	Damaged bool          `json:"damaged"`
	Lost    []damage.Loss `json:"lost,omitempty"`

	streamIndex map[streamID]int
	damage      *damage.Report
}

type recoveryInfo struct {
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

type typeInfo struct {
	Type string `json:"type"`
	MD5  string `json:"md5"`
}

type topicInfo struct {
	Topic       string `json:"topic"`
	Type        string `json:"type"`
	Messages    uint64 `json:"messages"`
	Connections int    `json:"connections"`
}

type infoField struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

type optionInfo struct {
	Name        string  `json:"name"`
	Value       float32 `json:"value"` // at the start of the recording
	Changes     int     `json:"changes,omitempty"`
	Description string  `json:"description,omitempty"`
	seen        bool
}

type sensorInfo struct {
	Index   int           `json:"index"`
	Name    string        `json:"name"`
	Info    []infoField   `json:"info"`
	Options []*optionInfo `json:"options"`
}

type streamInfo struct {
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

func runInfo(e *env, args []string) (err error) {
	fs := newFlagSet(e, "info", "info [--json] BAG\n\n"+
		"Describes a bag: what rosbag info shows (version, duration, start, end, size, messages,\n"+
		"compression, types, topics) and the RealSense view (file version, indexed or recovered,\n"+
		"device, sensors, options, streams with their frame counts). Every message is read, so\n"+
		"a damaged bag is reported: every lost part, and exit status 3.")
	asJSON := fs.Bool("json", false, "print one JSON object")
	allow := fs.Bool("allow-damaged", false, allowDamagedUsage)
	pos, err := parseArgs(fs, "info", args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return usageErrorf("info", "want exactly one BAG, got %d arguments", len(pos))
	}
	rep, err := inspect(pos[0])
	if err != nil {
		return fileError(pos[0], err)
	}
	defer func() {
		if err == nil {
			err = reportDamage(e, pos[0], rep.damage, *allow)
		}
	}()
	if *asJSON {
		enc := json.NewEncoder(e.stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(rep); err != nil {
			return err
		}
	} else {
		rep.writeText(e.stdout)
	}
	return nil
}

// inspect opens and reads the whole bag, as far as it can be read: an
// unindexed bag is recovered by a scan, and the parts lost to damage (a
// truncated end, corrupt chunks) are listed in the report's damage. Damage
// that leaves nothing to read is an error.
func inspect(path string) (*infoReport, error) {
	r, err := rosbag.Open(path, nil)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	info := r.Info()
	rep := &infoReport{
		Path:        path,
		Version:     info.Version,
		Size:        info.Size,
		Compression: info.Compression,
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
		rep.Recovery = &recoveryInfo{
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
	skipped, err := rep.readMessages(r)
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
	rep.Damaged, rep.Lost = rep.damage.Damaged(), rep.damage.Lost
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
func (rep *infoReport) playable() {
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
	var keep []streamInfo
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
// counts and times, the file version, and a check of every message.
func (rep *infoReport) readMessages(r *rosbag.Reader) ([]rosbag.SkippedChunk, error) {
	conns := r.Connections()
	type topicAcc struct {
		typ   string
		n     uint64
		conns int
	}
	topics := map[string]*topicAcc{}
	types := map[string]string{}
	for _, c := range conns {
		if old, ok := types[c.Type]; ok && old != c.MD5Sum {
			return nil, fmt.Errorf("type %s has two md5sums: %s and %s", c.Type, old, c.MD5Sum)
		}
		types[c.Type] = c.MD5Sum
		t := topics[c.Topic]
		if t == nil {
			t = &topicAcc{typ: c.Type}
			topics[c.Topic] = t
		}
		t.conns++
		if err := checkType(c); err != nil {
			return nil, err
		}
	}
	var first, last uint64
	var total uint64
	dec := decoders{}
	parsed := make(map[uint32]*layout.Topic, len(conns))
	for _, c := range conns {
		t := layout.Parse(c.Topic)
		parsed[c.ID] = &t
	}
	it := r.Messages(&rosbag.Query{SkipCorrupt: true})
	defer it.Close()
	for it.Next() {
		m := it.Message()
		total++
		topics[m.Conn.Topic].n++
		v, err := dec.decode(m)
		if err != nil {
			return nil, err
		}
		t := parsed[m.Conn.ID]
		if t == nil { // a connection the index did not list
			p := layout.Parse(m.Conn.Topic)
			t = &p
		}
		if t.Kind == layout.KindFileVersion || t.Kind == layout.KindLegacyFileVersion {
			if u, ok := v.(*msgs.UInt32); ok {
				rep.FileVersion = int(u.Data)
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
		} else if v != nil {
			rep.collect(t, v)
		}
	}
	if err := it.Err(); err != nil {
		return nil, err
	}
	var lostIdx uint64
	for _, c := range it.Skipped() {
		lostIdx += uint64(c.Messages)
	}
	if total+lostIdx != rep.Messages && rep.Indexed {
		return nil, fmt.Errorf("the index counts %d messages but %d were read", rep.Messages, total)
	}
	rep.Messages = total
	if last > first {
		rep.DurationNs = last - first
	}
	for name, md5 := range types {
		rep.Types = append(rep.Types, typeInfo{name, md5})
	}
	sort.Slice(rep.Types, func(i, j int) bool { return rep.Types[i].Type < rep.Types[j].Type })
	for name, t := range topics {
		rep.Topics = append(rep.Topics, topicInfo{Topic: name, Type: t.typ, Messages: t.n, Connections: t.conns})
	}
	sort.Slice(rep.Topics, func(i, j int) bool { return rep.Topics[i].Topic < rep.Topics[j].Topic })
	return it.Skipped(), nil
}

func (rep *infoReport) stream(id streamID) *streamInfo {
	i, ok := rep.streamIndex[id]
	if !ok {
		i = len(rep.Streams)
		rep.streamIndex[id] = i
		rep.Streams = append(rep.Streams, streamInfo{Sensor: id.sensor, Stream: id.stream.String(), Index: id.index})
	}
	return &rep.Streams[i]
}

func (rep *infoReport) writeText(w io.Writer) {
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
	if comp == "" {
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

func (s *streamInfo) describe() string {
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
