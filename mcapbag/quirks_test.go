package mcapbag

import (
	"bytes"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rsbag/rsbag/internal/layout"
	"github.com/rsbag/rsbag/internal/testsupport/testbags"
	"github.com/rsbag/rsbag/internal/tools/rsdump"
	"github.com/rsbag/rsbag/msgs"
	"github.com/rsbag/rsbag/rosbag"
)

// withQuirks copies the bag src to dst as librealsense writes it: every
// Image under header.frame_id "1" with the depth units (the value of the
// sensor's Depth Units option, else 0) in four bytes after data, and every
// StreamInfo.is_recommended stored as 2. It returns how many messages it
// changed.
func withQuirks(t *testing.T, src, dst string) int {
	t.Helper()
	r, err := rosbag.Open(src, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	w, err := rosbag.Create(dst, nil)
	if err != nil {
		t.Fatal(err)
	}
	ids := map[uint32]uint32{}
	for _, c := range r.Connections() {
		if ids[c.ID], err = w.AddConnection(c.Topic, c.Type, c.MD5Sum, c.MessageDefinition, c.Extra); err != nil {
			t.Fatal(err)
		}
	}
	var units float32
	changed := 0
	it := r.Messages(nil)
	for it.Next() {
		m := it.Message()
		data := m.Data
		switch tp := layout.Parse(m.Conn.Topic); tp.Kind {
		case layout.KindOptionValue:
			var v msgs.Float32
			if strings.Contains(m.Conn.Topic, "/Depth Units/") && msgs.Unmarshal(data, &v) == nil {
				units = v.Data
			}
		case layout.KindImageData:
			var img msgs.Image
			if err := msgs.Unmarshal(data, &img); err != nil {
				t.Fatal(err)
			}
			img.Header.FrameID, img.HasDepthUnits, img.DepthUnits = msgs.DepthUnitsFrameID, true, units
			data = msgs.Marshal(&img)
			changed++
		case layout.KindStreamInfo:
			var si msgs.StreamInfo
			if err := msgs.Unmarshal(data, &si); err != nil {
				t.Fatal(err)
			}
			data = msgs.Marshal(&si)
			data[len(data)-1] = 2 // is_recommended, the last field
			changed++
		}
		if err := w.WriteMessage(ids[m.Conn.ID], m.Time, data); err != nil {
			t.Fatal(err)
		}
	}
	if err := errors.Join(it.Err(), w.Close()); err != nil {
		t.Fatal(err)
	}
	return changed
}

// TestExportQuirks: a bag with librealsense's quirks exports as valid
// ROS 1 (mcap's reader, every message decoded strictly), and the import of
// the export plays as the bag does.
func TestExportQuirks(t *testing.T) {
	dir := t.TempDir()
	quirky := filepath.Join(dir, "quirky.bag")
	if n := withQuirks(t, ownBag(t), quirky); n < 10 {
		t.Fatalf("only %d messages given librealsense's quirks", n)
	}
	// The quirks are in the bag: a strict decoding refuses it.
	strictFails := 0
	for _, m := range testbags.Read(t, quirky) {
		if _, ok := msgs.LookupType(m.Type); !ok {
			continue
		}
		dec := msgs.New(m.Type)
		if err := msgs.Unmarshal(m.Data, dec); err != nil || !bytes.Equal(msgs.Marshal(dec), m.Data) ||
			(m.Type == new(msgs.Image).Type().Name && dec.(*msgs.Image).HasDepthUnits) {
			strictFails++
		}
	}
	if strictFails == 0 {
		t.Fatal("the bag with quirks decodes strictly")
	}
	for _, comp := range []Compression{Zstd, None} {
		out := exportFile(t, quirky, t.TempDir(), &ExportOptions{Compression: comp})
		checkStrictROS1(t, out)
		back := filepath.Join(dir, "back-"+string(comp)+".bag")
		importFile(t, out, back)
		var d0, d1 bytes.Buffer
		errA := rsdump.Run(&d0, quirky, rsdump.Options{})
		errB := rsdump.Run(&d1, back, rsdump.Options{})
		if fmt.Sprint(errA) != fmt.Sprint(errB) || testbags.DumpBody(d0.String()) != testbags.DumpBody(d1.String()) {
			t.Errorf("%s: the imported export plays differently from the bag (errors %v / %v)", comp, errA, errB)
		}
	}
}
