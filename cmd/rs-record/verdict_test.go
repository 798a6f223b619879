package main

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"testing"
	"testing/synctest"

	"github.com/rsbag/rsbag/internal/testsupport/synthrig"
	"github.com/rsbag/rsbag/internal/testsupport/testbags"
	"github.com/rsbag/rsbag/rosbag"
	"github.com/rsbag/rsbag/sensor"
	"github.com/rsbag/rsbag/software"
)

// said is what one command said of a bag, run in this process.
type said struct {
	code     int
	frames   map[string]uint64 // per stream ("Depth/0"); nil when none printed
	lost     map[string]uint64 // frames lost to damage per stream
	repaired int               // chunks read from their records
	messages int64             // info: messages read; export: messages written; -1: none printed
	stderr   string
}

var (
	lostPart     = regexp.MustCompile(`frames lost: ([^)]*)\)`)
	convertLine  = regexp.MustCompile(`(?m)^RAW\s+(.*)$`)
	exportLine   = regexp.MustCompile(`(?m): (\d+) messages on \d+ topics`)
	repairedLine = regexp.MustCompile(`(?m)index repaired: `)
)

// lostFrom sums the "frames lost: Depth/0 2, ..." parts of the damage lines
// on stderr: the one account every command gives of a loss.
func lostFrom(stderr string) map[string]uint64 {
	out := map[string]uint64{}
	for _, m := range lostPart.FindAllStringSubmatch(stderr, -1) {
		for p := range strings.SplitSeq(m[1], ", ") {
			k, v, _ := strings.Cut(p, " ")
			n, _ := strconv.ParseUint(v, 10, 64)
			out[k] += n
		}
	}
	return out
}

// commandsSay runs info, play, dump, convert and export (both profiles) on
// bag, writing their outputs into dir, and returns what each said.
func commandsSay(t testing.TB, bag, dir string) map[string]said {
	out := map[string]said{}
	do := func(name string, args ...string) (result, said) {
		r := runIn(t, nil, append(args, bag)...)
		if strings.Contains(r.stderr, "internal error") {
			t.Fatalf("%s %s: %s", name, bag, r.stderr)
		}
		return r, said{code: r.code, stderr: r.stderr, lost: lostFrom(r.stderr), repaired: len(repairedLine.FindAllString(r.stderr, -1)), messages: -1}
	}

	r, s := do("info", "info", "--json")
	var rep struct {
		Messages int64 `json:"messages"`
		Streams  []struct {
			Stream string `json:"stream"`
			Index  int    `json:"index"`
			Frames uint64 `json:"frames"`
		} `json:"streams"`
	}
	if r.stdout != "" {
		if err := json.Unmarshal([]byte(r.stdout), &rep); err != nil {
			t.Fatalf("info --json %s: %v\n%s", bag, err, r.stdout)
		}
		s.frames, s.messages = map[string]uint64{}, rep.Messages
		for _, st := range rep.Streams {
			if st.Frames > 0 {
				s.frames[fmt.Sprintf("%s/%d", st.Stream, st.Index)] += st.Frames
			}
		}
	}
	out["info"] = s

	r, s = do("play", "play", "--realtime=false")
	for _, m := range playLine.FindAllStringSubmatch(r.stdout, -1) {
		if s.frames == nil {
			s.frames = map[string]uint64{}
		}
		if n, _ := strconv.ParseUint(m[2], 10, 64); n > 0 {
			s.frames[m[1]] = n
		}
	}
	out["play"] = s

	r, s = do("dump", "dump")
	lines := strings.Split(strings.TrimSpace(r.stdout), "\n")
	var sum struct {
		Type     string            `json:"type"`
		Frames   map[string]uint64 `json:"frames_per_stream"`
		Repaired []struct{}        `json:"index_repaired"`
	}
	if json.Unmarshal([]byte(lines[len(lines)-1]), &sum) == nil && sum.Type == "summary" {
		s.frames, s.repaired = sum.Frames, len(sum.Repaired)
	}
	out["dump"] = s

	r, s = do("convert", "convert", "-r", filepath.Join(dir, "raw"))
	if m := convertLine.FindStringSubmatch(r.stdout); m != nil {
		s.frames = map[string]uint64{}
		for p := range strings.SplitSeq(m[1], ", ") {
			k, v, _ := strings.Cut(p, " ")
			n, _ := strconv.ParseUint(v, 10, 64)
			s.frames[k+"/0"] = n
		}
	}
	out["convert"] = s

	r, s = do("export", "export", "--compression", "none", "--mcap", filepath.Join(dir, "ros1.mcap"))
	if m := exportLine.FindStringSubmatch(r.stdout); m != nil {
		s.messages, _ = strconv.ParseInt(m[1], 10, 64)
	}
	out["export"] = s
	_, out["export-ros2"] = do("export-ros2", "export", "--profile", "ros2", "--compression", "none", "--mcap", filepath.Join(dir, "ros2.mcap"))
	return out
}

// agree reports how what the commands said of one bag disagrees: exit
// status, frame counts per stream (convert: of the video streams it
// writes), frames lost per stream, chunks read from their records, and the
// messages export wrote against those info read. Counts are compared where
// both commands print them: a bag the player refuses is refused by every
// command with the same status, and info still describes what it read.
func agree(said map[string]said) []string {
	var bad []string
	info := said["info"]
	for _, name := range []string{"play", "dump", "convert", "export", "export-ros2"} {
		s := said[name]
		if s.code != info.code {
			bad = append(bad, fmt.Sprintf("exit status: info %d, %s %d\ninfo: %s%s: %s", info.code, name, s.code, info.stderr, name, s.stderr))
			continue
		}
		if !maps.Equal(s.lost, info.lost) {
			bad = append(bad, fmt.Sprintf("frames lost: info %v, %s %v", info.lost, name, s.lost))
		}
		if info.code != 0 && info.code != 3 {
			continue // an error: nothing was read
		}
		if s.repaired != info.repaired {
			bad = append(bad, fmt.Sprintf("chunks read from their records: info %d, %s %d", info.repaired, name, s.repaired))
		}
		if name == "export" && s.messages >= 0 && info.messages >= 0 && s.messages != info.messages {
			bad = append(bad, fmt.Sprintf("messages: info read %d, export wrote %d", info.messages, s.messages))
		}
		if s.code == 0 && len(info.frames) > 0 && s.frames == nil && name != "export" && name != "export-ros2" {
			bad = append(bad, fmt.Sprintf("exit 0 without frame counts: info %v, %s none", info.frames, name))
		}
		if s.frames == nil || info.frames == nil {
			continue
		}
		switch name {
		case "play", "dump":
			if !maps.Equal(s.frames, info.frames) {
				bad = append(bad, fmt.Sprintf("frames: info %v, %s %v", info.frames, name, s.frames))
			}
		case "convert":
			for k, n := range s.frames {
				if info.frames[k] != n {
					bad = append(bad, fmt.Sprintf("frames of %s: info %d, convert %d", k, info.frames[k], n))
				}
			}
		}
	}
	return bad
}

// indexDataConns returns the file offsets of the conn field values of the
// index data records (op 0x04) of the bag in data, by connection id.
func indexDataConns(t testing.TB, data []byte) map[uint32][]int {
	t.Helper()
	out := map[uint32][]int{}
	off := bytes.IndexByte(data, '\n') + 1
	for off+4 <= len(data) {
		hl := int(binary.LittleEndian.Uint32(data[off:]))
		h := off + 4
		if hl < 0 || h+hl+4 > len(data) {
			break
		}
		dl := int(binary.LittleEndian.Uint32(data[h+hl:]))
		hdr := data[h : h+hl]
		if i := bytes.Index(hdr, []byte("conn=")); i >= 0 && bytes.Contains(hdr, []byte("op=\x04")) {
			at := h + i + len("conn=")
			id := binary.LittleEndian.Uint32(data[at:])
			out[id] = append(out[id], at)
		}
		off = h + hl + 4 + dl
	}
	return out
}

// connID returns the id of the connection of topic in bag.
func connID(t testing.TB, bag, topic string) uint32 {
	t.Helper()
	r, err := rosbag.Open(bag, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	for _, c := range r.Connections() {
		if c.Topic == topic {
			return c.ID
		}
	}
	t.Fatalf("%s: no topic %s", bag, topic)
	return 0
}

// TestVerdictsAgreeOnIndexFlips: one flipped bit in the conn field of any
// index data record of the Depth connection (the Depth entries then claim
// another connection, or one that does not exist) loses nothing: the
// chunk's message records say what it holds. info, play, dump, convert and
// export all exit 0 with the bag's 60 depth frames, and all report that the
// chunk was read from its records.
func TestVerdictsAgreeOnIndexFlips(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	bag := filepath.Join(dir, "s.bag")
	cfg := software.SyntheticConfig{
		Depth:    &software.Video{Width: 64, Height: 48, FPS: 30, Format: sensor.FormatZ16},
		Color:    &software.Video{Width: 64, Height: 48, FPS: 30, Format: sensor.FormatRGB8},
		AccelFPS: 100, Frames: 60, Speed: 1,
	}
	synctest.Test(t, func(t *testing.T) { synthrig.Bag(t, bag, cfg) })
	// Several chunks: 16 KiB each.
	small := filepath.Join(dir, "chunks.bag")
	testbags.Copy(t, bag, small, &rosbag.WriterOptions{ChunkThreshold: 16 << 10, FlushInterval: -1}, nil)
	data, err := os.ReadFile(small)
	if err != nil {
		t.Fatal(err)
	}
	depth := connID(t, small, "/device_0/sensor_0/Depth_0/image/data")
	offs := indexDataConns(t, data)[depth]
	if len(offs) < 3 {
		t.Fatalf("the depth stream is in %d chunks, want at least 3", len(offs))
	}
	for i, at := range offs[1:] { // after chunk 1, as the report found it
		for _, bit := range []int{0, 1, 2, 5} {
			t.Run(fmt.Sprintf("chunk%d-bit%d", i+1, bit), func(t *testing.T) {
				b := bytes.Clone(data)
				b[at] ^= 1 << bit
				d := t.TempDir()
				p := filepath.Join(d, "flip.bag")
				if err := os.WriteFile(p, b, 0o644); err != nil {
					t.Fatal(err)
				}
				said := commandsSay(t, p, d)
				for _, bad := range agree(said) {
					t.Error(bad)
				}
				for name, s := range said {
					if s.code != 0 || len(s.lost) > 0 {
						t.Errorf("%s: exit %d, frames lost %v; want 0, none\n%s", name, s.code, s.lost, s.stderr)
					}
					if s.frames != nil && s.frames["Depth/0"] != 60 {
						t.Errorf("%s: %d depth frames, want 60", name, s.frames["Depth/0"])
					}
					if s.repaired != 1 {
						t.Errorf("%s: %d chunks reported read from their records, want 1\n%s", name, s.repaired, s.stderr)
					}
				}
			})
		}
	}
}

// verdictSeed records a tiny bag for FuzzVerdict: three 8x6 depth frames
// and the description the players need (no options), in uncompressed
// chunks of about 1 KiB, so that one run of every command is cheap and a
// flipped bit lands in records rather than in an LZ4 frame.
func verdictSeed(t testing.TB) []byte {
	t.Helper()
	dir := t.TempDir()
	bag := filepath.Join(dir, "rec.bag")
	synthrig.Bag(t, bag, software.SyntheticConfig{
		Depth:  &software.Video{Width: 8, Height: 6, FPS: 30, Format: sensor.FormatZ16},
		Frames: 3,
	})
	tiny := filepath.Join(dir, "tiny.bag")
	testbags.Copy(t, bag, tiny, &rosbag.WriterOptions{Compression: "none", ChunkThreshold: 1 << 10, FlushInterval: -1},
		func(m *rosbag.Message) bool { return !strings.Contains(m.Conn.Topic, "/option/") })
	data, err := os.ReadFile(tiny)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// scratchDir returns a directory for a fuzz target's files, in memory
// (/dev/shm) where there is one: export syncs what it writes.
func scratchDir(t testing.TB) string {
	t.Helper()
	if fi, err := os.Stat("/dev/shm"); err == nil && fi.IsDir() {
		d, err := os.MkdirTemp("/dev/shm", "rs-record-fuzz-")
		if err == nil {
			t.Cleanup(func() { os.RemoveAll(d) })
			return d
		}
	}
	return t.TempDir()
}

// verdictSeeds returns FuzzVerdict's seed inputs: a tiny bag and copies of
// it with one bit flipped in the header of each of its records.
func verdictSeeds(t testing.TB) [][]byte {
	t.Helper()
	seed := verdictSeed(t)
	out := [][]byte{seed}
	for _, at := range slices.Sorted(maps.Keys(recordStarts(seed))) {
		for _, d := range []int{8, 20, 40} { // inside the record's header
			if at+d < len(seed) {
				b := bytes.Clone(seed)
				b[at+d] ^= 1 << (d % 8)
				out = append(out, b)
			}
		}
	}
	return out
}

// verdictInput is FuzzVerdict's body: it writes data to bag, runs every
// command on it with their outputs in out (emptied first), and reports
// where they disagree.
func verdictInput(t testing.TB, data []byte, bag, out string) {
	if len(data) > 1<<20 {
		return
	}
	if err := os.WriteFile(bag, data, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.RemoveAll(out); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(out, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, bad := range agree(commandsSay(t, bag, out)) {
		t.Error(bad)
	}
}

// verdictProcess sets the collector of the process for FuzzVerdict's
// inputs until t ends: every input makes and drops the garbage of six
// commands on a small bag, so the collector runs less often (GOGC 400).
func verdictProcess(t testing.TB) {
	gc := debug.SetGCPercent(400)
	t.Cleanup(func() { debug.SetGCPercent(gc) })
}

// FuzzVerdict: on any input, info, play, dump, convert and export (both
// profiles) give the same verdict — the same exit status, the same frame
// counts per stream, the same frames lost, the same chunks read from their
// records (see agree). Seeded with a tiny bag and copies of it with one bit
// flipped in each index data record, chunk info record and chunk.
func FuzzVerdict(f *testing.F) {
	for _, b := range verdictSeeds(f) {
		f.Add(b)
	}
	verdictProcess(f)
	dir := scratchDir(f)
	bag, out := filepath.Join(dir, "in.bag"), filepath.Join(dir, "out")
	f.Fuzz(func(t *testing.T, data []byte) { verdictInput(t, data, bag, out) })
}

// BenchmarkVerdictInput runs FuzzVerdict's body over its seeds and the
// inputs of testdata/fuzz/FuzzVerdict, and reports inputs/s: the rate the
// fuzzer can reach at most.
func BenchmarkVerdictInput(b *testing.B) {
	inputs := verdictSeeds(b)
	files, err := filepath.Glob(filepath.Join("testdata", "fuzz", "FuzzVerdict", "*"))
	if err != nil {
		b.Fatal(err)
	}
	for _, name := range files {
		inputs = append(inputs, fuzzCorpusBytes(b, name))
	}
	verdictProcess(b)
	dir := scratchDir(b)
	bag, out := filepath.Join(dir, "in.bag"), filepath.Join(dir, "out")
	b.ResetTimer()
	for b.Loop() {
		for _, data := range inputs {
			verdictInput(b, data, bag, out)
		}
	}
	b.ReportMetric(float64(b.N*len(inputs))/b.Elapsed().Seconds(), "inputs/s")
}

// fuzzCorpusBytes returns the []byte of the fuzz corpus file name (the
// "go test fuzz v1" format with one []byte value).
func fuzzCorpusBytes(t testing.TB, name string) []byte {
	t.Helper()
	raw, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	head, body, _ := strings.Cut(string(raw), "\n")
	lit, ok := strings.CutPrefix(strings.TrimSpace(body), "[]byte(")
	lit, ok2 := strings.CutSuffix(lit, ")")
	s, err := strconv.Unquote(lit)
	if head != "go test fuzz v1" || !ok || !ok2 || err != nil {
		t.Fatalf("%s: not a fuzz corpus file of one []byte (%v)", name, err)
	}
	return []byte(s)
}

// recordStarts returns the file offsets at which the records of the bag in
// data start (a set).
func recordStarts(data []byte) map[int]bool {
	out := map[int]bool{}
	off := bytes.IndexByte(data, '\n') + 1
	for off > 0 && off+8 <= len(data) {
		out[off] = true
		hl := int(binary.LittleEndian.Uint32(data[off:]))
		if hl < 0 || off+4+hl+4 > len(data) {
			break
		}
		off += 8 + hl + int(binary.LittleEndian.Uint32(data[off+4+hl:]))
	}
	return out
}
