// The go-rosbag differential cross-check: go-rosbag reads every bag this
// package writes, and this package reads every "none" and "lz4" bag
// go-rosbag writes. It runs in the default test run.

package rosbag

import (
	"encoding/binary"
	"os"
	"testing"

	gorosbag "github.com/foxglove/go-rosbag"
)

// goRosbagCount reads a bag with go-rosbag (indexed) and checks the count.
func goRosbagCount(t testing.TB, path string, want int) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	gr, err := gorosbag.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	it, err := gr.Messages()
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for it.More() {
		if _, _, err := it.Next(); err != nil {
			t.Fatalf("go-rosbag: %v", err)
		}
		n++
	}
	if n != want {
		t.Errorf("go-rosbag read %d messages, want %d", n, want)
	}
}

// TestReadGoRosbag reads bags written by go-rosbag ("none" and "lz4").
func TestReadGoRosbag(t *testing.T) {
	for _, comp := range []string{"none", "lz4"} {
		f, err := os.Create(t.TempDir() + "/gr.bag")
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		w, err := gorosbag.NewWriter(f, gorosbag.WithCompression(comp), gorosbag.WithChunksize(2048))
		if err != nil {
			t.Fatal(err)
		}
		def := []byte(stringDef)
		if err := w.WriteConnection(&gorosbag.Connection{Conn: 0, Topic: "/a", Data: gorosbag.ConnectionHeader{Topic: "/a", Type: "std_msgs/String", MD5Sum: stringMD5, MessageDefinition: def}}); err != nil {
			t.Fatal(err)
		}
		for i := 0; i < 500; i++ {
			d := binary.LittleEndian.AppendUint32(nil, 5)
			d = append(d, "hello"...)
			if err := w.WriteMessage(&gorosbag.Message{Conn: 0, Time: uint64(1000 + i), Data: d}); err != nil {
				t.Fatal(err)
			}
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		r, err := Open(f.Name(), nil)
		if err != nil {
			t.Fatalf("%s: %v", comp, err)
		}
		n := 0
		it := r.Messages(&Query{Topics: []string{"/a"}})
		for it.Next() {
			if it.Message().Time != Time(1000+n) || string(it.Message().Data[4:]) != "hello" {
				t.Fatalf("%s: message %d: %v", comp, n, it.Message())
			}
			n++
		}
		if it.Err() != nil || n != 500 {
			t.Errorf("%s: %d messages, err %v", comp, n, it.Err())
		}
	}
}
