// Package testbags gives tests the repository's reference bags and their
// messages in file order, read with package rosbag. It is for tests only.
package testbags

import (
	"errors"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/rsbag/rsbag/rosbag"
)

// Paths lists the reference bags under root, the path of the repository
// root as seen from the calling test (e.g. "../.."): the librealsense bags,
// the real-camera bag and the spec's reference bag, sorted.
func Paths(t testing.TB, root string) []string {
	t.Helper()
	var bags []string
	for _, pat := range []string{
		"testdata/librealsense/*.bag",
		"testdata/librealsense/real/*.bag",
		"testdata/spec/ref-head-v4-softdevice.bag",
	} {
		m, err := filepath.Glob(filepath.Join(root, pat))
		if err != nil {
			t.Fatal(err)
		}
		bags = append(bags, m...)
	}
	if len(bags) < 3 {
		t.Fatalf("found only %d test bags under %s", len(bags), root)
	}
	sort.Strings(bags)
	return bags
}

// Librealsense lists the bags librealsense wrote, each with the
// NAME.expected.jsonl of its playback, under root (as for Paths), sorted.
// It fails the test when there are none.
func Librealsense(t testing.TB, root string) []string {
	t.Helper()
	bags, err := filepath.Glob(filepath.Join(root, "testdata/librealsense/*.bag"))
	if err != nil || len(bags) == 0 {
		t.Fatalf("no librealsense bags under %s (%v)", root, err)
	}
	return bags
}

// Message is one message of a bag with its connection's header fields.
type Message struct {
	Topic, Type, MD5, Definition string
	Sec, Nsec                    uint32 // bag time as stored
	Data                         []byte // may be kept; aliases its chunk
	chunk                        int
	off                          uint32
}

// Read returns every message of the bag at path in file order (chunk, then
// offset in the chunk), failing the test if the bag cannot be read whole or
// if the count differs from the index's.
func Read(t testing.TB, path string) []Message {
	t.Helper()
	r, err := rosbag.Open(path, nil)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	defer r.Close()
	var out []Message
	it := r.Messages(&rosbag.Query{KeepData: true})
	defer it.Close()
	for it.Next() {
		m := it.Message()
		sec, nsec := m.Time.ROS()
		out = append(out, Message{Topic: m.Conn.Topic, Type: m.Conn.Type, MD5: m.Conn.MD5Sum,
			Definition: m.Conn.MessageDefinition, Sec: sec, Nsec: nsec, Data: m.Data, chunk: m.Chunk, off: m.Offset})
	}
	if err := it.Err(); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	if uint64(len(out)) != r.Info().Messages {
		t.Fatalf("%s: read %d messages, the index counts %d", path, len(out), r.Info().Messages)
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].chunk != out[j].chunk {
			return out[i].chunk < out[j].chunk
		}
		return out[i].off < out[j].off
	})
	return out
}

// Copy copies every connection and message of the bag src, with its time,
// into a new bag dst written with opts, leaving out the messages keep
// refuses (nil keeps all). A connection none of whose messages is kept is
// not written.
func Copy(t testing.TB, src, dst string, opts *rosbag.WriterOptions, keep func(m *rosbag.Message) bool) {
	t.Helper()
	copyBag(t, src, dst, opts, keep, nil)
}

// Added is a message that CopyAdding writes beside a copied one.
type Added struct {
	Topic, Type, MD5Sum, Definition string // its connection
	Data                            []byte
}

// CopyAdding copies every connection and message of the bag src, with its
// time, into a new bag dst and writes after each message the messages add
// returns for it, at the same time: on the copied connection of its topic,
// when one was copied before, else on a connection added on first use.
func CopyAdding(t testing.TB, src, dst string, add func(m *rosbag.Message) []Added) {
	t.Helper()
	copyBag(t, src, dst, nil, nil, add)
}

func copyBag(t testing.TB, src, dst string, opts *rosbag.WriterOptions, keep func(m *rosbag.Message) bool, add func(m *rosbag.Message) []Added) {
	t.Helper()
	r, err := rosbag.Open(src, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	w, err := rosbag.Create(dst, opts)
	if err != nil {
		t.Fatal(err)
	}
	ids := map[uint32]uint32{}
	added := map[string]uint32{}
	it := r.Messages(nil)
	for it.Next() {
		m := it.Message()
		if keep != nil && !keep(&m) {
			continue
		}
		id, ok := ids[m.Conn.ID]
		if !ok {
			if id, err = w.AddConnection(m.Conn.Topic, m.Conn.Type, m.Conn.MD5Sum, m.Conn.MessageDefinition, nil); err != nil {
				t.Fatal(err)
			}
			ids[m.Conn.ID] = id
			added[m.Conn.Topic] = id
		}
		if err := w.WriteMessage(id, m.Time, m.Data); err != nil {
			t.Fatal(err)
		}
		if add == nil {
			continue
		}
		for _, a := range add(&m) {
			id, ok := added[a.Topic]
			if !ok {
				if id, err = w.AddConnection(a.Topic, a.Type, a.MD5Sum, a.Definition, nil); err != nil {
					t.Fatal(err)
				}
				added[a.Topic] = id
			}
			if err := w.WriteMessage(id, m.Time, a.Data); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := errors.Join(it.Err(), w.Close()); err != nil {
		t.Fatal(err)
	}
}

// DumpBody drops the lines of an rs-record dump that name the bag's file,
// so that the dumps of two files with the same contents compare equal.
func DumpBody(s string) string {
	var keep []string
	for _, l := range strings.Split(s, "\n") {
		if !strings.Contains(l, ".bag") {
			keep = append(keep, l)
		}
	}
	return strings.Join(keep, "\n")
}

// Create creates in dir the file named after the bag at path, its ".bag"
// replaced by ext, for a conversion of that bag to write. It returns the
// open file, which the caller closes, and its path.
func Create(t testing.TB, dir, path, ext string) (*os.File, string) {
	t.Helper()
	out := filepath.Join(dir, strings.TrimSuffix(filepath.Base(path), ".bag")+ext)
	f, err := os.Create(out)
	if err != nil {
		t.Fatal(err)
	}
	return f, out
}
