// Package damage is the one account of a damaged bag that every command
// gives: what was lost (where, how many bytes, which bag times, how many
// frames of which stream, why), or that a bag without an index was
// recovered whole.
//
// The policy, documented in README.md: a damaged bag is read as far as it
// can be; frames lost to damage are counted apart from frames dropped for a
// slow consumer; every lost part is reported (on stderr by play and info,
// in the summary line of dump, in the JSON of info --json); and the exit
// status is ExitDamaged unless the user accepts damaged bags
// (--allow-damaged). A bag that only lacks its index — a recorder killed
// after its last complete chunk — is not damaged: it is read with a
// one-line notice that it was recovered.
//
// What a chunk holds is what its message records say, for every reader
// and every selection of topics (rosbag.Iterator checks each chunk it
// loads against its index): a chunk whose index disagrees with its records
// is read from the records, nothing of it is lost, and it is reported as
// Repaired with a notice; a chunk whose records cannot be read is lost
// whole. So every command that reads a bag — info, play, dump, convert,
// export — gives the same verdict, the same frame counts and the same
// losses (TestVerdictsAgreeOnIndexFlips and FuzzVerdict in cmd/rs-record).
package damage

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/rsbag/rsbag/internal/description"
	"github.com/rsbag/rsbag/msgs"
	"github.com/rsbag/rsbag/playback"
	"github.com/rsbag/rsbag/rosbag"
)

// ExitDamaged is the exit status of a command that read a damaged bag (as
// far as it could, or not at all when the damage left nothing to read).
const ExitDamaged = 3

// Loss is one lost part of a bag, as the commands report it.
type Loss struct {
	Offset   int64          `json:"offset"`             // file offset where the loss starts
	Bytes    int64          `json:"bytes"`              // bytes that could not be read
	StartNs  uint64         `json:"start_ns,omitempty"` // bag-time range of the messages seen in it
	EndNs    uint64         `json:"end_ns,omitempty"`
	Messages int            `json:"messages"`         // messages seen in it (best effort)
	Frames   map[string]int `json:"frames,omitempty"` // frames per stream ("Depth/0")
	Error    string         `json:"error,omitempty"`  // why it could not be read
}

// FramesLost returns the number of frames of the loss.
func (l Loss) FramesLost() int {
	n := 0
	for _, v := range l.Frames {
		n += v
	}
	return n
}

// Recovered describes a bag opened by a linear scan because its index was
// missing or unusable.
type Recovered struct {
	Reason   string `json:"reason"`
	Chunks   int    `json:"chunks"`
	Messages uint64 `json:"messages"`
}

// Repair is a chunk whose index disagreed with its message records: it was
// read from the records, and nothing of it was lost.
type Repair struct {
	Offset   int64  `json:"offset"`   // of the chunk record
	Messages int    `json:"messages"` // message records it holds
	Reason   string `json:"reason"`   // what disagreed
}

// Report is what a command read of a bag's damage.
type Report struct {
	Recovered *Recovered `json:"recovered,omitempty"`
	Lost      []Loss     `json:"lost,omitempty"`
	Repaired  []Repair   `json:"index_repaired,omitempty"`
}

// Damaged reports whether anything was lost.
func (r *Report) Damaged() bool { return r != nil && len(r.Lost) > 0 }

// FromRecovery returns the report of a recovery scan (nil rc: an indexed
// bag). frames maps a connection id to the name of its stream when the
// connection carries frames.
func FromRecovery(rc *rosbag.Recovery, frames func(conn uint32) (string, bool)) *Report {
	r := &Report{}
	if rc != nil {
		r.Recovered = &Recovered{Reason: rc.Reason, Chunks: rc.Chunks, Messages: rc.Messages}
		for _, c := range rc.Losses() {
			r.Add(c, frames)
		}
	}
	return r
}

// FromPlayback returns the report of a playback device: its recovery and
// every loss it found so far.
func FromPlayback(dev *playback.Device) *Report {
	r := &Report{}
	if rc := dev.Recovery(); rc != nil {
		r.Recovered = &Recovered{Reason: rc.Reason, Chunks: rc.Chunks, Messages: rc.Messages}
	}
	for _, l := range dev.Losses() {
		r.Lost = append(r.Lost, lossOf(l.SkippedChunk, l.Frames))
	}
	r.AddRepaired(dev.Repaired())
	return r
}

// AddRepaired adds chunks read from their records (once per offset).
func (r *Report) AddRepaired(rs []rosbag.RepairedChunk) {
	for _, c := range rs {
		if !slices.ContainsFunc(r.Repaired, func(o Repair) bool { return o.Offset == c.Offset }) {
			r.Repaired = append(r.Repaired, Repair{Offset: c.Offset, Messages: c.Messages, Reason: c.Reason})
		}
	}
}

// Add adds a lost part (once per offset).
func (r *Report) Add(c rosbag.SkippedChunk, frames func(conn uint32) (string, bool)) {
	for _, l := range r.Lost {
		if l.Offset == c.Offset {
			return
		}
	}
	var fr map[string]int
	for id, n := range c.ByConnection {
		if name, ok := frames(id); ok {
			if fr == nil {
				fr = map[string]int{}
			}
			fr[name] += n
		}
	}
	r.Lost = append(r.Lost, lossOf(c, fr))
}

func lossOf(c rosbag.SkippedChunk, frames map[string]int) Loss {
	l := Loss{Offset: c.Offset, Bytes: c.Bytes, StartNs: uint64(c.Start), EndNs: uint64(c.End), Messages: c.Messages, Frames: frames}
	if c.Err != nil {
		l.Error = c.Err.Error()
	}
	return l
}

// FramesLost returns the lost frames per stream over all losses.
func (r *Report) FramesLost() map[string]int {
	out := map[string]int{}
	for _, l := range r.Lost {
		for k, v := range l.Frames {
			out[k] += v
		}
	}
	return out
}

// Lines returns the report as lines for stderr: one per lost part, or the
// recovery notice of an undamaged bag, and one per chunk read from its
// records; none for an indexed, whole bag.
func (r *Report) Lines() []string {
	var out []string
	for _, l := range r.Lost {
		s := fmt.Sprintf("damaged: %d bytes at offset %d unreadable", l.Bytes, l.Offset)
		if l.Messages > 0 {
			s += fmt.Sprintf(", %d messages", l.Messages)
			if l.EndNs > 0 {
				s += fmt.Sprintf(" of bag time %s to %s", rosbag.Time(l.StartNs), rosbag.Time(l.EndNs))
			}
		}
		if len(l.Frames) > 0 {
			var parts []string
			for _, k := range slices.Sorted(maps.Keys(l.Frames)) {
				parts = append(parts, fmt.Sprintf("%s %d", k, l.Frames[k]))
			}
			s += " (frames lost: " + strings.Join(parts, ", ") + ")"
		}
		if l.Error != "" {
			s += ": " + l.Error
		}
		out = append(out, s)
	}
	if len(r.Lost) == 0 && r.Recovered != nil {
		out = append(out, fmt.Sprintf("recovered: the bag has no usable index (%s); all %d messages in %d chunks were read; 'rs-record edit reindex' writes its index",
			r.Recovered.Reason, r.Recovered.Messages, r.Recovered.Chunks))
	}
	for _, p := range r.Repaired {
		out = append(out, fmt.Sprintf("index repaired: the chunk at offset %d was read from its %d message records, nothing lost (%s); 'rs-record edit reindex' rewrites the index",
			p.Offset, p.Messages, p.Reason))
	}
	return out
}

// Error is returned by a command that read a damaged bag as far as it
// could; it says what was lost in total.
type Error struct {
	Report *Report
}

func (e *Error) Error() string {
	return e.Report.Summary() + fmt.Sprintf("; read as far as it could be (exit status %d; --allow-damaged accepts damaged bags)", ExitDamaged)
}

// Summary says what was lost in total: parts, bytes and the frames known
// lost.
func (r *Report) Summary() string {
	n, b := 0, int64(0)
	for _, l := range r.Lost {
		n += l.FramesLost()
		b += l.Bytes
	}
	return fmt.Sprintf("damaged bag: %d parts lost (%d bytes; frames known lost: %d)", len(r.Lost), b, n)
}

// Is reports whether err says the bag is damaged: a damage Error, corrupt
// or truncated bag records (rosbag.FormatError), a chunk of a compression
// that does not exist (rosbag.UnsupportedError at a chunk's offset: an
// iterator skips it as lost, so it is damage to every command) or a message
// whose bytes do not hold its type (msgs.DecodeError).
func Is(err error) bool {
	var de *Error
	var fe *rosbag.FormatError
	var me *msgs.DecodeError
	var ue *rosbag.UnsupportedError
	return errors.As(err, &de) || errors.As(err, &fe) || errors.As(err, &me) ||
		errors.As(err, &ue) && ue.Offset > 0
}

// ErrNoStreams is the verdict on a bag the player opens but that has no
// stream to play.
var ErrNoStreams = errors.New("the bag has no streams")

// Playable returns the verdict on dev, a bag the player opened: nil when it
// has a stream to play, ErrNoStreams otherwise — wrapped with the damage
// Error and its losses when damage left nothing to play (a bag cut inside
// its description), so that the status is ExitDamaged.
func Playable(dev *playback.Device) error {
	for _, s := range dev.Sensors() {
		if len(s.Profiles()) > 0 {
			return nil
		}
	}
	if rep := FromPlayback(dev); rep.Damaged() {
		return fmt.Errorf("%w: %s: %w", ErrNoStreams, strings.Join(rep.Lines(), "; "), &Error{Report: rep})
	}
	return ErrNoStreams
}

// Check returns the verdict every command gives on the bag at path before
// reading it: the player's refusal (the error of playback.Open — damage,
// such as a lost device description, or another problem — or
// ErrNoStreams), or nil when it plays. info and export, which read the bag
// on their own, call it; play, dump and convert open the player and call
// Playable. So no command reads a bag another refuses.
func Check(path string) error {
	dev, err := playback.Open(path, &playback.Options{NonRealTime: true})
	if err != nil {
		return err
	}
	defer dev.Close()
	return Playable(dev)
}

// FrameNames maps the connections of the bag r at path that carry the
// frames of a stream a player plays to the name of that stream ("Depth/0"),
// as the losses name them: the streams of the bag's description
// (description.FrameStream), so that every command counts the frames lost
// in a damaged part as playback and info count them. A bag whose description
// cannot be read has no played streams: its losses are counted in messages
// only.
func FrameNames(path string, r *rosbag.Reader) func(conn uint32) (string, bool) {
	names := map[uint32]string{}
	if d, err := description.Read(path, r); err == nil {
		for _, c := range r.Connections() {
			if st, ok := d.FrameStream(c.Topic); ok {
				names[c.ID] = st.Profile.Name()
			}
		}
	}
	return func(id uint32) (string, bool) {
		n, ok := names[id]
		return n, ok
	}
}
