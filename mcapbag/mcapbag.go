// Package mcapbag converts RealSense bags to MCAP files and back.
//
// Export writes every message of a bag into an MCAP file with the ros1
// profile: one schema per message type (encoding "ros1msg", the full
// definition text of the bag's connection), one channel per topic
// (message encoding "ros1", the connection's md5sum and other header fields
// as channel metadata), and each message as valid ROS 1, with the bag time
// as log and publish time. Import turns such a file back into a bag with
// the same connections, messages and times, which plays identically. The
// device info of the bag is also written as an MCAP metadata record named
// "realsense_device".
//
// Bags written by librealsense carry four bytes after every Image.data (the
// depth units) and store StreamInfo.is_recommended as 2, which the MCAP
// tools and Foxglove's deserializers refuse; Export rewrites those messages
// as valid ROS 1 (layout.Canonical, as rs-record edit compress does: the
// player then takes the depth units from the Depth Units option). Every
// other message keeps its bytes.
package mcapbag

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"

	"github.com/foxglove/mcap/go/mcap"

	"github.com/rsbag/rsbag/internal/description"
	"github.com/rsbag/rsbag/internal/layout"
	"github.com/rsbag/rsbag/internal/mcapwriter"
	"github.com/rsbag/rsbag/msgs"
	"github.com/rsbag/rsbag/rosbag"
)

// Channel metadata keys of the ros1 profile. MD5Key holds the connection's
// md5sum; the other fields of the ROS connection header (callerid,
// latching, ...) keep their own names.
const MD5Key = "md5sum"

// DeviceMetadataName names the metadata record holding the device info.
const DeviceMetadataName = "realsense_device"

// Compression names an MCAP chunk compression.
type Compression string

// Chunk compressions.
const (
	Zstd Compression = "zstd"
	LZ4  Compression = "lz4"
	None Compression = "none"
)

// ParseCompression returns the compression named s ("zstd", "lz4" or
// "none").
func ParseCompression(s string) (Compression, error) {
	switch c := Compression(s); c {
	case Zstd, LZ4, None:
		return c, nil
	}
	return "", fmt.Errorf("mcapbag: unknown compression %q: want zstd, lz4 or none", s)
}

// ExportOptions configures Export. The zero value (or nil) writes zstd
// chunks of 8 MiB.
type ExportOptions struct {
	Compression Compression // "" means Zstd
	// ChunkSize is the uncompressed size at which a chunk is closed
	// (8 MiB when 0: a 1280x720 RGB8 frame and its metadata share a chunk,
	// and a seek reads little).
	ChunkSize int64
	// Query selects the messages (nil: all). Its SkipCorrupt makes a
	// damaged chunk of the bag a loss reported in the result instead of an
	// error.
	Query *rosbag.Query
	// NoCheck skips the check that every connection of a RealSense message
	// type has that type's md5sum and that every message of such a type
	// decodes (the bytes librealsense writes after the last field are
	// tolerated). With the check, a bag that the player would refuse is
	// not exported.
	NoCheck bool
}

// Result says what Export or Import wrote.
type Result struct {
	Messages int64
	Channels int
	Bytes    int64 // message bytes
	// Skipped lists the damaged chunks of the source whose messages were
	// lost (Export with Query.SkipCorrupt).
	Skipped []rosbag.SkippedChunk
	// Unusable says why Import did not trust the MCAP's summary section
	// and read its data section instead (as 'mcap recover' does); empty
	// when the summary was used.
	Unusable string
	// Repaired lists the chunks of the source whose index disagreed with
	// their message records: they were exported from the records.
	Repaired []rosbag.RepairedChunk
}

// newWriter starts an MCAP file of the profile on dst, in chunks of size
// bytes (mcapwriter.DefaultChunkSize when ≤ 0) compressed with c.
func newWriter(dst io.Writer, profile string, c Compression, size int64) (*mcapwriter.Writer, error) {
	return mcapwriter.New(dst, profile, mcapwriter.Compression(c), size)
}

// Export writes the messages of src to dst as an MCAP file of the ros1
// profile.
func Export(dst io.Writer, src *rosbag.Reader, opts *ExportOptions) (*Result, error) {
	var o ExportOptions
	if opts != nil {
		o = *opts
	}
	w, err := newWriter(dst, "ros1", o.Compression, o.ChunkSize)
	if err != nil {
		return nil, fmt.Errorf("mcapbag: export: %w", err)
	}
	defer w.Close() // stops its goroutines on every early return
	res := &Result{}
	// Schemas by type (and definition), channels by connection.
	type schemaKey struct{ typ, md5, def string }
	schemas := map[schemaKey]uint16{}
	channels := map[uint32]uint16{}
	seq := map[uint16]uint32{}
	conns := src.Connections()
	decoders := map[uint32]msgs.Message{}
	kinds := map[uint32]layout.TopicKind{}
	for _, c := range conns {
		kinds[c.ID] = layout.Parse(c.Topic).Kind
		if !o.NoCheck {
			// The messages a player reads are checked, as it checks them;
			// a connection whose type has another md5sum is copied as it is
			// (the player refuses the bags where that matters).
			if k := kinds[c.ID]; k != layout.KindUnknown {
				if v := k.Decoder(c.Type, c.MD5Sum); v != nil && v.Type().MD5 == c.MD5Sum {
					decoders[c.ID] = v
				}
			}
		}
		k := schemaKey{c.Type, c.MD5Sum, c.MessageDefinition}
		sid, ok := schemas[k]
		if !ok {
			sid = uint16(len(schemas) + 1)
			if len(schemas) >= 0xfffe {
				return nil, fmt.Errorf("mcapbag: export: more than %d message types", 0xfffe)
			}
			schemas[k] = sid
			if err := w.WriteSchema(&mcap.Schema{ID: sid, Name: c.Type, Encoding: "ros1msg", Data: []byte(c.MessageDefinition)}); err != nil {
				return nil, fmt.Errorf("mcapbag: export: schema %s: %w", c.Type, err)
			}
		}
		if len(channels) >= 0xffff {
			return nil, fmt.Errorf("mcapbag: export: more than %d topics", 0xffff)
		}
		cid := uint16(len(channels))
		channels[c.ID] = cid
		meta := map[string]string{MD5Key: c.MD5Sum}
		maps.Copy(meta, c.Extra)
		if err := w.WriteChannel(&mcap.Channel{ID: cid, SchemaID: sid, Topic: c.Topic, MessageEncoding: "ros1", Metadata: meta}); err != nil {
			return nil, fmt.Errorf("mcapbag: export: channel %s: %w", c.Topic, err)
		}
	}
	res.Channels = len(channels)

	device := description.NewCollector() // the device info, read as the player reads it
	deviceTopic := layout.DeviceInfoTopic()
	it := src.Messages(o.Query)
	defer it.Close() // stops its read-ahead on every early return; idempotent
	var msg mcap.Message
	var scratch []byte
	for it.Next() {
		m := it.Message()
		cid, ok := channels[m.Conn.ID]
		if !ok {
			return nil, fmt.Errorf("mcapbag: export: message at %v on unknown connection %d", m.Time, m.Conn.ID)
		}
		if dec := decoders[m.Conn.ID]; dec != nil {
			err := msgs.Unmarshal(m.Data, dec)
			if im, ok := dec.(*msgs.Image); ok && (err == nil || errors.Is(err, msgs.ErrTrailingBytes)) {
				err = im.CheckRows() // a frame the player refuses
			}
			if err != nil && !errors.Is(err, msgs.ErrTrailingBytes) {
				return nil, fmt.Errorf("mcapbag: export: topic %s: message at %v (chunk %d, offset %d): %w", m.Conn.Topic, m.Time, m.Chunk, m.Offset, err)
			}
		}
		if m.Conn.Topic == deviceTopic && m.Conn.Type == new(msgs.KeyValue).Type().Name {
			var kv msgs.KeyValue
			if msgs.Unmarshal(m.Data, &kv) == nil {
				// A device info message is always taken (no error).
				_ = device.Add(m.Conn.Topic, layout.Topic{Kind: layout.KindDeviceInfo}, m.Time, &kv)
			}
		}
		data, err := layout.Canonical(kinds[m.Conn.ID], m.Data, &scratch)
		if err != nil {
			if !o.NoCheck {
				return nil, fmt.Errorf("mcapbag: export: topic %s: message at %v (chunk %d, offset %d): %w", m.Conn.Topic, m.Time, m.Chunk, m.Offset, err)
			}
			data = m.Data // unchecked: a message that does not decode goes as it is
		}
		msg = mcap.Message{ChannelID: cid, Sequence: seq[cid], LogTime: uint64(m.Time), PublishTime: uint64(m.Time), Data: data}
		seq[cid]++
		if err := w.WriteMessage(&msg); err != nil {
			return nil, fmt.Errorf("mcapbag: export: message of %s at %v: %w", m.Conn.Topic, m.Time, err)
		}
		res.Messages++
		res.Bytes += int64(len(data))
	}
	res.Skipped = it.Skipped()
	res.Repaired = it.Repaired()
	if err := it.Err(); err != nil {
		return nil, fmt.Errorf("mcapbag: export: reading the bag: %w", err)
	}
	if err := it.Close(); err != nil {
		return nil, fmt.Errorf("mcapbag: export: reading the bag: %w", err)
	}
	if fields := device.Fields(); len(fields) > 0 {
		meta := make(map[string]string, len(fields))
		for _, f := range fields {
			meta[f.Key] = f.Value
		}
		if err := w.WriteMetadata(&mcap.Metadata{Name: DeviceMetadataName, Metadata: meta}); err != nil {
			return nil, fmt.Errorf("mcapbag: export: metadata: %w", err)
		}
	}
	if err := w.Close(); err != nil {
		return nil, fmt.Errorf("mcapbag: export: %w", err)
	}
	return res, nil
}

// ErrNotROS1 is returned by Import for an MCAP file that is not of the
// ros1 profile (its messages are not ROS 1 serializations).
var ErrNotROS1 = errors.New("mcapbag: not a ros1 MCAP file")

// Import reads the MCAP file src, of the ros1 profile as Export writes it,
// and writes its messages to dst in log time order: each channel becomes a
// connection with its schema's name and definition and the md5sum and
// header fields of its metadata, each message keeps its bytes and its log
// time as bag time. It does not close dst.
func Import(dst *rosbag.Writer, src io.ReadSeeker) (*Result, error) {
	r, err := mcap.NewReader(src)
	if err != nil {
		return nil, fmt.Errorf("mcapbag: import: %w", err)
	}
	defer r.Close()
	if h := r.Header(); h != nil && h.Profile != "ros1" {
		return nil, fmt.Errorf("%w: profile %q", ErrNotROS1, h.Profile)
	}
	info, err := r.Info()
	why := unusable(info, err)
	if why == "" {
		why = summaryDiffers(src, info)
	}
	if why != "" {
		res, err := ImportDataSection(dst, src)
		if res != nil {
			res.Unusable = why
		}
		if err != nil {
			return nil, fmt.Errorf("%w (read from the data section: the summary section is unusable: %s)", err, why)
		}
		return res, nil
	}
	// Connections in channel id order, as Export numbered them.
	ids := slices.Sorted(maps.Keys(info.Channels))
	conns := map[uint16]uint32{}
	res := &Result{}
	for _, id := range ids {
		cid, err := addChannel(dst, info.Channels[id], info.Schemas)
		if err != nil {
			return nil, err
		}
		conns[id] = cid
	}
	res.Channels = len(conns)
	if ra, ok := src.(io.ReaderAt); ok {
		if chunks, ok := orderedChunks(info.ChunkIndexes); ok && info.Statistics != nil {
			return res, importChunks(dst, ra, chunks, conns, info, res)
		}
	}
	it, err := r.Messages(mcap.UsingIndex(true), mcap.InOrder(mcap.LogTimeOrder))
	if err != nil {
		return nil, fmt.Errorf("mcapbag: import: %w", err)
	}
	var msg mcap.Message
	for {
		_, ch, m, err := it.NextInto(&msg)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("mcapbag: import: message %d: %w", res.Messages, err)
		}
		cid, ok := conns[ch.ID]
		if !ok {
			return nil, fmt.Errorf("mcapbag: import: message on unknown channel %d", ch.ID)
		}
		if err := writeMessage(dst, cid, ch.Topic, m.LogTime, m.Data, res); err != nil {
			return nil, err
		}
	}
	return res, nil
}

// unusable says why the summary section read as info (with err) cannot be
// trusted to list the file's channels and chunks: it does not read, or its
// statistics are missing or disagree with its records (a record of it
// corrupt: the reader stops at a bad opcode). "" when it can.
func unusable(info *mcap.Info, err error) string {
	switch {
	case err != nil:
		return err.Error()
	case info.Statistics == nil:
		return "no statistics record"
	case uint32(len(info.Channels)) != info.Statistics.ChannelCount:
		return fmt.Sprintf("it lists %d channels, its statistics count %d", len(info.Channels), info.Statistics.ChannelCount)
	case uint16(len(info.Schemas)) != info.Statistics.SchemaCount:
		return fmt.Sprintf("it lists %d schemas, its statistics count %d", len(info.Schemas), info.Statistics.SchemaCount)
	case uint32(len(info.ChunkIndexes)) != info.Statistics.ChunkCount:
		return fmt.Sprintf("it lists %d chunks, its statistics count %d", len(info.ChunkIndexes), info.Statistics.ChunkCount)
	}
	return ""
}

// summaryDiffers compares the schemas and channels of the summary section
// (info) with their records in the data section of src, read from its start
// until each has been met (Export writes them before the first message, in
// the first chunk): a summary record with a flipped bit would give the bag
// a wrong type or topic. It says what differs, "" when nothing does.
func summaryDiffers(src io.ReadSeeker, info *mcap.Info) string {
	ds, err := openDataSection(src)
	if err != nil {
		return err.Error()
	}
	defer ds.lx.Close()
	schemas, channels := len(info.Schemas), len(info.Channels)
	for schemas > 0 || channels > 0 {
		tok, rec, err := ds.next()
		if err != nil {
			return fmt.Sprintf("reading the data section: %v", err)
		}
		switch tok {
		case mcap.TokenSchema:
			s, err := mcap.ParseSchema(rec)
			if err != nil {
				return fmt.Sprintf("data section: schema: %v", err)
			}
			if o := info.Schemas[s.ID]; o == nil || o.Name != s.Name || o.Encoding != s.Encoding || !bytes.Equal(o.Data, s.Data) {
				return fmt.Sprintf("its schema %d differs from the data section's (%s)", s.ID, s.Name)
			}
			schemas--
		case mcap.TokenChannel:
			c, err := mcap.ParseChannel(rec)
			if err != nil {
				return fmt.Sprintf("data section: channel: %v", err)
			}
			if o := info.Channels[c.ID]; o == nil || o.Topic != c.Topic || o.SchemaID != c.SchemaID ||
				o.MessageEncoding != c.MessageEncoding || !maps.Equal(o.Metadata, c.Metadata) {
				return fmt.Sprintf("its channel %d differs from the data section's (%s)", c.ID, c.Topic)
			}
			channels--
		case mcap.TokenDataEnd, mcap.TokenFooter:
			return fmt.Sprintf("%d of its schemas and %d of its channels are not in the data section", schemas, channels)
		}
	}
	return ""
}

// dataSection reads the records of an MCAP file from its start, the
// records of its chunks as they come (their CRCs checked), into one reused
// buffer.
type dataSection struct {
	lx  *mcap.Lexer
	buf []byte
}

func openDataSection(src io.ReadSeeker) (*dataSection, error) {
	if _, err := src.Seek(0, io.SeekStart); err != nil {
		return nil, err
	}
	lx, err := mcap.NewLexer(src, &mcap.LexerOptions{ValidateChunkCRCs: true})
	if err != nil {
		return nil, err
	}
	return &dataSection{lx: lx}, nil
}

// next returns the next record; it is valid until the next call.
func (d *dataSection) next() (mcap.TokenType, []byte, error) {
	tok, rec, err := d.lx.Next(d.buf)
	if cap(rec) > cap(d.buf) {
		d.buf = rec
	}
	return tok, rec, err
}

// addChannel adds the connection of MCAP channel ch (of a schema in
// schemas) to dst.
func addChannel(dst *rosbag.Writer, ch *mcap.Channel, schemas map[uint16]*mcap.Schema) (uint32, error) {
	if ch.MessageEncoding != "ros1" {
		return 0, fmt.Errorf("%w: channel %s has message encoding %q", ErrNotROS1, ch.Topic, ch.MessageEncoding)
	}
	s := schemas[ch.SchemaID]
	if s == nil || s.Encoding != "ros1msg" {
		return 0, fmt.Errorf("%w: channel %s has no ros1msg schema", ErrNotROS1, ch.Topic)
	}
	md5 := ch.Metadata[MD5Key]
	if len(md5) != 32 {
		return 0, fmt.Errorf("mcapbag: import: channel %s: metadata %q is %q, want the 32-digit md5sum of %s", ch.Topic, MD5Key, md5, s.Name)
	}
	extra := maps.Clone(ch.Metadata)
	delete(extra, MD5Key)
	cid, err := dst.AddConnection(ch.Topic, s.Name, md5, string(s.Data), extra)
	if err != nil {
		return 0, fmt.Errorf("mcapbag: import: channel %s: %w", ch.Topic, err)
	}
	return cid, nil
}

// ImportDataSection is Import reading the data section of src only, record
// by record from its start to its Data End record, as 'mcap recover' does:
// schemas and channels as they come, the messages of every chunk (their
// CRCs checked) in file order. The summary section is not read. Any record
// that cannot be read is an error: no message is left out.
func ImportDataSection(dst *rosbag.Writer, src io.ReadSeeker) (*Result, error) {
	ds, err := openDataSection(src)
	if err != nil {
		return nil, fmt.Errorf("mcapbag: import: %w", err)
	}
	defer ds.lx.Close()
	res := &Result{}
	schemas := map[uint16]*mcap.Schema{}
	channels := map[uint16]*mcap.Channel{}
	conns := map[uint16]uint32{}
	var msg mcap.Message
	for {
		tok, rec, err := ds.next()
		if err != nil {
			return nil, fmt.Errorf("mcapbag: import: data section, after %d messages: %w", res.Messages, err)
		}
		switch tok {
		case mcap.TokenHeader:
			h, err := mcap.ParseHeader(rec)
			if err != nil {
				return nil, fmt.Errorf("mcapbag: import: header: %w", err)
			}
			if h.Profile != "ros1" {
				return nil, fmt.Errorf("%w: profile %q", ErrNotROS1, h.Profile)
			}
		case mcap.TokenSchema:
			s, err := mcap.ParseSchema(rec)
			if err != nil {
				return nil, fmt.Errorf("mcapbag: import: data section, after %d messages: schema: %w", res.Messages, err)
			}
			schemas[s.ID] = s
		case mcap.TokenChannel:
			ch, err := mcap.ParseChannel(rec)
			if err != nil {
				return nil, fmt.Errorf("mcapbag: import: data section, after %d messages: channel: %w", res.Messages, err)
			}
			if old, ok := channels[ch.ID]; ok {
				if old.Topic != ch.Topic || old.SchemaID != ch.SchemaID {
					return nil, fmt.Errorf("mcapbag: import: data section: channel %d is %s and %s", ch.ID, old.Topic, ch.Topic)
				}
				continue
			}
			cid, err := addChannel(dst, ch, schemas)
			if err != nil {
				return nil, err
			}
			channels[ch.ID], conns[ch.ID] = ch, cid
		case mcap.TokenMessage:
			if err := msg.PopulateFrom(rec, false); err != nil {
				return nil, fmt.Errorf("mcapbag: import: data section, message %d: %w", res.Messages, err)
			}
			cid, ok := conns[msg.ChannelID]
			if !ok {
				return nil, fmt.Errorf("mcapbag: import: data section: message %d on unknown channel %d", res.Messages, msg.ChannelID)
			}
			if err := writeMessage(dst, cid, channels[msg.ChannelID].Topic, msg.LogTime, msg.Data, res); err != nil {
				return nil, err
			}
		case mcap.TokenDataEnd:
			res.Channels = len(conns)
			return res, nil
		case mcap.TokenFooter:
			return nil, fmt.Errorf("mcapbag: import: data section: no Data End record before the footer, after %d messages", res.Messages)
		}
	}
}

// writeMessage writes one imported message to dst and counts it.
func writeMessage(dst *rosbag.Writer, cid uint32, topic string, logTime uint64, data []byte, res *Result) error {
	if logTime > uint64(rosbag.MaxTime) || logTime < uint64(rosbag.MinTime) {
		return fmt.Errorf("mcapbag: import: message of %s at log time %d ns: outside the bag time range", topic, logTime)
	}
	if err := dst.WriteMessage(cid, rosbag.Time(logTime), data); err != nil {
		return fmt.Errorf("mcapbag: import: message of %s at %d ns: %w", topic, logTime, err)
	}
	res.Messages++
	res.Bytes += int64(len(data))
	return nil
}
