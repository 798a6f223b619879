package playback

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/rsbag/rsbag/extensions"
	"github.com/rsbag/rsbag/internal/testsupport/testbags"
	"github.com/rsbag/rsbag/rosbag"
	"github.com/rsbag/rsbag/sensor"
)

// rechunk copies src to an indexed lz4 bag with small chunks.
func rechunk(t *testing.T, src string) string {
	t.Helper()
	dst := filepath.Join(t.TempDir(), "chunks.bag")
	testbags.Copy(t, src, dst, &rosbag.WriterOptions{ChunkThreshold: 64 << 10, FlushInterval: -1}, nil)
	return dst
}

// chunkRecords returns the offset, data offset and data length of every
// top-level chunk record of a bag, in file order.
func chunkRecords(t *testing.T, b []byte) (off, dataOff, dataLen []int) {
	t.Helper()
	p := len("#ROSBAG V2.0\n")
	for p+8 <= len(b) {
		hl := int(binary.LittleEndian.Uint32(b[p:]))
		h := b[p+4 : p+4+hl]
		dl := int(binary.LittleEndian.Uint32(b[p+4+hl:]))
		if bytes.Contains(h, []byte("op=\x05")) {
			off, dataOff, dataLen = append(off, p), append(dataOff, p+8+hl), append(dataLen, dl)
		}
		p += 8 + hl + dl
	}
	return off, dataOff, dataLen
}

// TestCorruptChunk plays an indexed bag with a corrupt chunk in the middle:
// the frames of the other chunks are delivered in order, every sensor that
// lost frames gets a Frame Corrupted notification, Stats counts the loss and
// playback ends normally.
func TestCorruptChunk(t *testing.T) {
	path := rechunk(t, depthColor)
	clean := playAll(t, path)

	// What the middle chunk holds.
	r, err := rosbag.Open(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	nChunks := r.Info().Chunks
	k := nChunks / 2
	lostFrames := map[string]int{} // per sensor prefix
	lostMsgs := map[string]int{}
	total := 0
	var start, end rosbag.Time
	it := r.Messages(nil)
	for it.Next() {
		m := it.Message()
		if m.Chunk != k {
			continue
		}
		if start == 0 || m.Time < start {
			start = m.Time
		}
		end = max(end, m.Time)
		if p := strings.Split(m.Conn.Topic, "/"); len(p) > 3 && strings.HasPrefix(p[2], "sensor_") {
			lostMsgs[strings.Join(p[:3], "/")]++
		}
		if strings.HasSuffix(m.Conn.Topic, "/image/data") {
			lostFrames[strings.Join(strings.Split(m.Conn.Topic, "/")[:3], "/")]++
			total++
		}
	}
	r.Close()
	if it.Err() != nil || nChunks < 5 || total == 0 {
		t.Fatalf("%d chunks, %d frames in chunk %d: %v", nChunks, total, k, it.Err())
	}

	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	offs, dataOffs, dataLens := chunkRecords(t, b)
	if len(offs) != nChunks {
		t.Fatalf("%d chunk records, Info says %d", len(offs), nChunks)
	}
	for i := dataOffs[k] + dataLens[k]/2; i < dataOffs[k]+dataLens[k]/2+4; i++ {
		b[i] ^= 0x5a
	}
	bad := filepath.Join(t.TempDir(), "corrupt.bag")
	if err := os.WriteFile(bad, b, 0o644); err != nil {
		t.Fatal(err)
	}

	d := open(t, bad, &Options{NonRealTime: true})
	var mu sync.Mutex
	notes := map[int][]sensor.Notification{}
	for i, s := range d.Sensors() {
		s.(extensions.Notifier).OnNotification(func(n sensor.Notification) {
			mu.Lock()
			notes[i] = append(notes[i], n)
			mu.Unlock()
		})
	}
	c := newCollector(d)
	startAll(t, d, c)
	c.waitStopped(t)
	got := c.snapshot()
	if err := d.Err(); err != nil {
		t.Errorf("Err() = %v, want nil", err)
	}
	if d.Status() != extensions.StatusStopped {
		t.Errorf("status %v, want Stopped", d.Status())
	}

	// got is clean without the frames of chunk k, in the same order.
	if len(got) != len(clean)-total {
		t.Fatalf("%d frames delivered, want %d (%d lost of %d)", len(got), len(clean)-total, total, len(clean))
	}
	j, before, after := 0, 0, 0
	for _, f := range clean {
		if j < len(got) && got[j] == f {
			j++
			if f.pos < int64(start) {
				before++
			} else if f.pos > int64(end) {
				after++
			}
			continue
		}
		if f.pos < int64(start) || f.pos > int64(end) {
			t.Fatalf("frame %v missing, outside the corrupt chunk's %v..%v", f, start, end)
		}
	}
	if j != len(got) || before == 0 || after == 0 {
		t.Fatalf("delivered frames are not the clean ones in order (%d of %d matched; %d before, %d after)", j, len(got), before, after)
	}

	var lost uint64
	for _, s := range d.Stats() {
		lost += s.Lost
	}
	if lost != uint64(total) {
		t.Errorf("Stats Lost %d, want %d", lost, total)
	}
	ls := d.Losses()
	if len(ls) != 1 || ls[0].Offset != int64(offs[k]) || d.Recovery() != nil {
		t.Fatalf("Losses %+v, want the one chunk at offset %d (recovery %v)", ls, offs[k], d.Recovery())
	}
	n := 0
	for name, f := range ls[0].Frames {
		if !strings.Contains(name, "/") {
			t.Errorf("loss counts frames of %q, want a stream name", name)
		}
		n += f
	}
	if n != total {
		t.Errorf("Losses count %d frames, want %d", n, total)
	}

	d.ev.flush()
	mu.Lock()
	for i := range d.Sensors() {
		pfx := fmt.Sprintf("/device_0/sensor_%d", i)
		n := lostFrames[pfx]
		ns := notes[i]
		if lostMsgs[pfx] == 0 {
			if len(ns) != 0 {
				t.Errorf("sensor %d: notifications %+v, want none", i, ns)
			}
			continue
		}
		if len(ns) != 1 {
			t.Fatalf("sensor %d: %d notifications %+v, want 1", i, len(ns), ns)
		}
		note := ns[0]
		if note.Category != sensor.NotificationCategoryFrameCorrupted || note.Severity != sensor.SeverityWarn || note.TimestampMs <= 0 {
			t.Errorf("sensor %d: notification %+v, want Frame Corrupted, Warn, a timestamp", i, note)
		}
		for _, w := range []string{fmt.Sprintf("file offset %d", offs[k]), fmt.Sprintf("bag time %v to %v", start, end),
			fmt.Sprintf("%d frames (%d messages)", n, lostMsgs[pfx]), bad} {
			if !strings.Contains(note.Description, w) {
				t.Errorf("sensor %d: description %q lacks %q", i, note.Description, w)
			}
		}
	}
	mu.Unlock()

	// Playing the file again (a restart) meets the chunk again: it is
	// notified again but counted once.
	c2 := newCollector(d)
	for _, s := range d.Sensors() {
		if err := s.Start(c2); err != nil {
			t.Fatal(err)
		}
	}
	c2.waitStopped(t)
	if len(c2.snapshot()) != len(got) {
		t.Fatalf("second pass delivered %d frames, want %d", len(c2.snapshot()), len(got))
	}
	lost = 0
	for _, s := range d.Stats() {
		lost += s.Lost
	}
	if lost != uint64(total) || len(d.Losses()) != 1 {
		t.Errorf("after a second pass: Lost %d, %d losses; want %d, 1", lost, len(d.Losses()), total)
	}
	d.ev.flush()
	mu.Lock()
	defer mu.Unlock()
	for i := range d.Sensors() {
		want := 0
		if lostMsgs[fmt.Sprintf("/device_0/sensor_%d", i)] > 0 {
			want = 2
		}
		if len(notes[i]) != want {
			t.Errorf("sensor %d: %d notifications after the second pass, want %d (one per pass)", i, len(notes[i]), want)
		}
	}
}

// TestTruncatedLosses: a bag cut in its chunks is played as far as it can
// be; what the recovery scan could not read is in Losses from Open on, and
// Recovery says it is damaged; an unindexed bag that lost nothing has no
// losses.
func TestTruncatedLosses(t *testing.T) {
	b, err := os.ReadFile(depthColor)
	if err != nil {
		t.Fatal(err)
	}
	offs, _, _ := chunkRecords(t, b)
	cut := offs[len(offs)/2] + 100 // inside a chunk
	bad := filepath.Join(t.TempDir(), "cut.bag")
	if err := os.WriteFile(bad, b[:cut], 0o644); err != nil {
		t.Fatal(err)
	}
	d := open(t, bad, &Options{NonRealTime: true})
	ls := d.Losses()
	if !d.Recovery().Damaged() || len(ls) != 1 || ls[0].Offset != int64(offs[len(offs)/2]) || ls[0].Offset+ls[0].Bytes != int64(cut) || ls[0].Err == nil {
		t.Fatalf("Losses %+v (recovery %+v): want one loss from the cut chunk at %d to the end (%d)", ls, d.Recovery(), offs[len(offs)/2], cut)
	}
	c := newCollector(d)
	startAll(t, d, c)
	c.waitStopped(t)
	if len(c.snapshot()) == 0 || d.Err() != nil {
		t.Errorf("%d frames, Err %v: want the frames before the cut and no error", len(c.snapshot()), d.Err())
	}

	ip := bytes.Index(b, []byte("index_pos=")) + len("index_pos=")
	unindexed := bytes.Clone(b)
	binary.LittleEndian.PutUint64(unindexed[ip:], 0)
	if err := os.WriteFile(bad, unindexed, 0o644); err != nil {
		t.Fatal(err)
	}
	d2 := open(t, bad, &Options{NonRealTime: true})
	if d2.Recovery() == nil || d2.Recovery().Damaged() || len(d2.Losses()) != 0 {
		t.Errorf("unindexed bag: recovery %+v, losses %+v; want recovered whole", d2.Recovery(), d2.Losses())
	}
}
