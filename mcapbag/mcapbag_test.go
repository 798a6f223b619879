package mcapbag

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"testing"
	"testing/synctest"
	"time"

	"github.com/foxglove/mcap/go/mcap"

	"github.com/rsbag/rsbag/internal/layout"
	"github.com/rsbag/rsbag/internal/testsupport/conformance"
	"github.com/rsbag/rsbag/internal/testsupport/synthrig"
	"github.com/rsbag/rsbag/internal/testsupport/testbags"
	"github.com/rsbag/rsbag/internal/tools/rsdump"
	"github.com/rsbag/rsbag/msgs"
	"github.com/rsbag/rsbag/rosbag"
	"github.com/rsbag/rsbag/sensor"
	"github.com/rsbag/rsbag/software"
)

// exportFile exports the bag at path to an MCAP file in dir.
func exportFile(t testing.TB, path, dir string, opts *ExportOptions) string {
	t.Helper()
	r, err := rosbag.Open(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	f, out := testbags.Create(t, dir, path, ".mcap")
	defer f.Close()
	res, err := Export(f, r, opts)
	if err != nil {
		t.Fatalf("Export %s: %v", path, err)
	}
	if res.Messages == 0 || res.Channels != len(r.Connections()) {
		t.Fatalf("Export %s: %+v for %d connections", path, res, len(r.Connections()))
	}
	return out
}

func importFile(t *testing.T, path, out string) *Result {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	w, err := rosbag.Create(out, nil)
	if err != nil {
		t.Fatal(err)
	}
	res, err := Import(w, f)
	if err != nil {
		t.Fatalf("Import %s: %v", path, err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return res
}

// byTopic groups a bag's messages by topic, in file order.
func byTopic(msgs []testbags.Message) map[string][]testbags.Message {
	m := map[string][]testbags.Message{}
	for _, x := range msgs {
		m[x.Topic] = append(m[x.Topic], x)
	}
	return m
}

// TestRoundTrip: export(bag) holds only valid ROS 1 messages, which mcap's
// reader returns and msgs decodes strictly; import(export(bag)) holds the
// same connections (with their header fields) and, per topic, the same
// messages with the same times and bytes (librealsense's quirks rewritten
// as valid ROS), and plays identically; for every reference bag and every
// compression.
func TestRoundTrip(t *testing.T) {
	for _, bag := range testbags.Paths(t, "..") {
		for _, comp := range []Compression{Zstd, LZ4, None} {
			t.Run(filepath.Base(bag)+"/"+string(comp), func(t *testing.T) {
				dir := t.TempDir()
				out := exportFile(t, bag, dir, &ExportOptions{Compression: comp, ChunkSize: 1 << 20})
				checkStrictROS1(t, out)
				back := filepath.Join(dir, "back.bag")
				res := importFile(t, out, back)

				orig, got := testbags.Read(t, bag), testbags.Read(t, back)
				if int64(len(orig)) != res.Messages || len(got) != len(orig) {
					t.Fatalf("%d messages in the bag, %d imported, %d read back", len(orig), res.Messages, len(got))
				}
				o, g := byTopic(orig), byTopic(got)
				if len(o) != len(g) {
					t.Fatalf("%d topics, %d after the round trip", len(o), len(g))
				}
				for topic, om := range o {
					gm := g[topic]
					if len(gm) != len(om) {
						t.Fatalf("%s: %d messages, %d after the round trip", topic, len(om), len(gm))
					}
					kind := layout.Parse(topic).Kind
					for i := range om {
						a, b := om[i], gm[i]
						var scratch []byte
						want, err := layout.Canonical(kind, a.Data, &scratch)
						if err != nil {
							t.Fatalf("%s message %d: %v", topic, i, err)
						}
						if a.Type != b.Type || a.MD5 != b.MD5 || a.Definition != b.Definition || a.Sec != b.Sec || a.Nsec != b.Nsec || !bytes.Equal(want, b.Data) {
							t.Fatalf("%s message %d differs: %s %s %d.%09d %d bytes, after: %s %s %d.%09d %d bytes",
								topic, i, a.Type, a.MD5, a.Sec, a.Nsec, len(a.Data), b.Type, b.MD5, b.Sec, b.Nsec, len(b.Data))
						}
					}
				}
				ro, _ := rosbag.Open(bag, nil)
				rg, _ := rosbag.Open(back, nil)
				extra := func(r *rosbag.Reader) map[string]map[string]string {
					m := map[string]map[string]string{}
					for _, c := range r.Connections() {
						m[c.Topic] = c.Extra
					}
					return m
				}
				if a, b := extra(ro), extra(rg); !reflect.DeepEqual(a, b) {
					t.Errorf("connection header fields differ:\n%v\n%v", a, b)
				}
				ro.Close()
				rg.Close()

				if comp != Zstd {
					return // one playback comparison per bag is enough
				}
				var d0, d1 bytes.Buffer
				errA := rsdump.Run(&d0, bag, rsdump.Options{})
				errB := rsdump.Run(&d1, back, rsdump.Options{})
				if fmt.Sprint(errA) != fmt.Sprint(errB) || testbags.DumpBody(d0.String()) != testbags.DumpBody(d1.String()) {
					t.Errorf("the round-tripped bag plays differently (errors %v / %v)", errA, errB)
				}
			})
		}
	}
}

// openMCAP opens the MCAP file at path for the test.
func openMCAP(t *testing.T, path string) *mcap.Reader {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	r, err := mcap.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(r.Close)
	return r
}

// checkStrictROS1 reads every message of the MCAP file at path with mcap's
// reader and decodes each one of a RealSense type strictly: nothing after
// the last field (no librealsense depth units), and the bytes are what
// encoding the decoded message gives (a bool is 0 or 1).
func checkStrictROS1(t *testing.T, path string) {
	t.Helper()
	it, err := openMCAP(t, path).Messages(mcap.UsingIndex(false))
	if err != nil {
		t.Fatal(err)
	}
	bad := 0
	for {
		schema, ch, m, err := it.NextInto(nil)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		if _, ok := msgs.LookupType(schema.Name); !ok {
			continue
		}
		dec := msgs.New(schema.Name)
		err = msgs.Unmarshal(m.Data, dec)
		if img, ok := dec.(*msgs.Image); ok && err == nil && img.HasDepthUnits {
			err = errors.New("librealsense's depth units after data")
		}
		if err == nil && !bytes.Equal(msgs.Marshal(dec), m.Data) {
			err = errors.New("the message encodes differently (a bool other than 0 or 1?)")
		}
		if err != nil {
			if bad++; bad <= 3 {
				t.Errorf("%s: %s message at %d: not valid ROS 1 %s: %v", filepath.Base(path), ch.Topic, m.LogTime, schema.Name, err)
			}
		}
	}
	if bad > 3 {
		t.Errorf("%s: %d messages are not valid ROS 1", filepath.Base(path), bad)
	}
}

// TestExportSummary: the exported file has the ros1 profile, one schema
// per type, statistics agreeing with the bag, chunk indexes and the device
// info as metadata.
func TestExportSummary(t *testing.T) {
	bag := filepath.Join("..", "testdata", "librealsense", "depth_color.bag")
	out := exportFile(t, bag, t.TempDir(), nil)
	r := openMCAP(t, out)
	info, err := r.Info()
	if err != nil {
		t.Fatal(err)
	}
	msgs := testbags.Read(t, bag)
	types := map[string]bool{}
	for _, m := range msgs {
		types[m.Type] = true
	}
	if info.Header.Profile != "ros1" || info.Statistics.MessageCount != uint64(len(msgs)) ||
		len(info.Schemas) != len(types) || len(info.ChunkIndexes) == 0 {
		t.Errorf("profile %q, %d messages (bag: %d), %d schemas (bag: %d types), %d chunk indexes",
			info.Header.Profile, info.Statistics.MessageCount, len(msgs), len(info.Schemas), len(types), len(info.ChunkIndexes))
	}
	if len(info.MetadataIndexes) != 1 || info.MetadataIndexes[0].Name != DeviceMetadataName {
		t.Fatalf("metadata indexes %+v", info.MetadataIndexes)
	}
	md, err := r.GetMetadata(info.MetadataIndexes[0].Offset)
	if err != nil {
		t.Fatal(err)
	}
	if md.Metadata["Name"] == "" || md.Metadata["Serial Number"] == "" {
		t.Errorf("device metadata %v: want the device's name and serial number", md.Metadata)
	}
	for _, ch := range info.Channels {
		if ch.MessageEncoding != "ros1" || len(ch.Metadata[MD5Key]) != 32 {
			t.Errorf("channel %s: encoding %q, metadata %v", ch.Topic, ch.MessageEncoding, ch.Metadata)
		}
	}
}

// TestExportConformance: mcapcheck-js (the MCAP project's reader and
// Foxglove's ROS 1 deserializer) accepts the export of a bag written by
// rsbag, for every compression, and of every reference bag (librealsense's
// among them).
func TestExportConformance(t *testing.T) {
	checker := conformance.Tool(t, conformance.MCAPcheckJS)
	own := ownBag(t)
	var files []string
	for _, comp := range []Compression{Zstd, LZ4, None} {
		dir := filepath.Join(t.TempDir(), string(comp))
		os.Mkdir(dir, 0o755)
		files = append(files, exportFile(t, own, dir, &ExportOptions{Compression: comp}))
	}
	// The reference bags (librealsense's among them), in the default compression.
	for _, bag := range testbags.Paths(t, "..") {
		files = append(files, exportFile(t, bag, t.TempDir(), nil))
	}
	out, err := exec.Command(checker, append([]string{"-q"}, files...)...).CombinedOutput()
	if err != nil {
		t.Errorf("mcapcheck-js: %v\n%s", err, out)
	}
}

// ownBag records 300 ms of the synthetic camera (depth, color, accel,
// gyro) through a pipeline, on a virtual clock, and returns the bag.
func ownBag(t *testing.T) string {
	bag := filepath.Join(t.TempDir(), "own.bag")
	syn := software.SyntheticConfig{
		Depth:    &software.Video{Width: 64, Height: 48, FPS: 30, Format: sensor.FormatZ16},
		Color:    &software.Video{Width: 64, Height: 48, FPS: 30, Format: sensor.FormatRGB8},
		AccelFPS: 63, GyroFPS: 200, Duration: 300 * time.Millisecond, Speed: 1, Metadata: software.MetadataBasic,
	}
	synctest.Test(t, func(t *testing.T) { synthrig.Bag(t, bag, syn) })
	return bag
}
