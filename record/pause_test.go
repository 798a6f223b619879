package record

import (
	"errors"
	"io"
	"strconv"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/rsbag/rsbag/msgs"
	"github.com/rsbag/rsbag/rosbag"
	"github.com/rsbag/rsbag/sensor"
)

// TestPauseOptionsNotifications records with a virtual clock: frames every
// 10 ms, an option change and a notification before, during and after a
// pause, and checks every value and bag time.
func TestPauseOptionsNotifications(t *testing.T) { synctest.Test(t, pauseOptionsNotifications) }

func pauseOptionsNotifications(t *testing.T) {
	td, rec, path, log, notes := recordDepth(t, "pause.bag", 8, 4)
	ss := rec.Sensors()
	ms := time.Millisecond
	frame := func() {
		if err := td.depthS.Inject(td.frame(td.depth)); err != nil {
			t.Fatal(err)
		}
		td.depthS.Flush()
	}
	notify := func(text string) {
		td.depthS.Notify(sensor.Notification{Category: sensor.NotificationCategoryHardwareEvent, Severity: sensor.SeverityInfo,
			Description: text, TimestampMs: 1700000000123, SerializedData: `{"x":1}`})
	}
	setExposure := func(v float32) {
		if err := ss[0].(interface {
			SetOption(sensor.Option, float32) error
		}).SetOption(sensor.OptionExposure, v); err != nil {
			t.Fatal(err)
		}
	}
	// Before the first frame: the change is covered by the description.
	setExposure(9000)
	frame() // t = 0 → base; frame #1 at 2 ns
	for i := 0; i < 4; i++ {
		time.Sleep(10 * ms)
		frame() // #2..#5 at 10..40 ms
	}
	time.Sleep(5 * ms)
	setExposure(10000) // 45 ms
	notify("before pause")
	time.Sleep(5 * ms)
	if err := rec.Pause(); err != nil { // 50 ms
		t.Fatal(err)
	}
	for i := 0; i < 3; i++ {
		time.Sleep(10 * ms)
		frame() // #6..#8 while paused: not recorded
	}
	setExposure(11000) // during the pause: at the pause's bag time 50 ms
	notify("during pause")
	time.Sleep(1000 * ms)
	if err := rec.Resume(); err != nil { // 1080 ms wall, 50 ms bag
		t.Fatal(err)
	}
	for i := 0; i < 3; i++ {
		time.Sleep(10 * ms)
		frame() // #9..#11 at 60, 70, 80 ms
	}
	setExposure(12000) // 80 ms
	if err := ss[0].Stop(); err != nil {
		t.Fatal(err)
	}
	if err := rec.Close(); err != nil {
		t.Fatal(err)
	}
	if log.count() != 11 {
		t.Errorf("handler got %d frames, want 11", log.count())
	}
	st := rec.Stats()
	if st.Frames != 8 || st.Streams[0].Paused != 3 || st.Dropped != 0 {
		t.Errorf("stats %+v", st)
	}

	msgsOut, _, err := readBag(t, path)
	if err != nil {
		t.Fatal(err)
	}
	top := byTopic(msgsOut)
	type tv struct {
		t rosbag.Time
		v string
	}
	var frames []tv
	for _, m := range top["/device_0/sensor_0/Depth_0/image/data"] {
		var img msgs.Image
		if err := msgs.Unmarshal(m.Data, &img); err != nil {
			t.Fatal(err)
		}
		frames = append(frames, tv{m.Time, string(rune('0' + img.Header.Seq))})
	}
	wantFrames := []tv{{2, "1"}, {10e6, "2"}, {20e6, "3"}, {30e6, "4"}, {40e6, "5"}, {60e6, "9"}, {70e6, ":"}, {80e6, ";"}}
	if len(frames) != len(wantFrames) {
		t.Fatalf("frames %v, want %v", frames, wantFrames)
	}
	for i := range frames {
		if frames[i] != wantFrames[i] {
			t.Errorf("frame %d: %v, want %v", i, frames[i], wantFrames[i])
		}
	}
	var opts []tv
	for _, m := range top["/device_0/sensor_0/option/Exposure/value"] {
		var f msgs.Float32
		if err := msgs.Unmarshal(m.Data, &f); err != nil {
			t.Fatal(err)
		}
		opts = append(opts, tv{m.Time, strconv.FormatFloat(float64(f.Data), 'f', -1, 32)})
	}
	wantOpts := []tv{{rosbag.MinTime, "9000"}, {45e6, "10000"}, {50e6, "11000"}, {80e6, "12000"}}
	if len(opts) != len(wantOpts) {
		t.Fatalf("option values %v, want %v", opts, wantOpts)
	}
	for i := range opts {
		if opts[i] != wantOpts[i] {
			t.Errorf("option value %d: %v, want %v", i, opts[i], wantOpts[i])
		}
	}
	if n := len(top["/device_0/sensor_0/option/Exposure/description"]); n != 1 {
		t.Errorf("%d Exposure descriptions, want 1", n)
	}
	ns := top["/device_0/sensor_0/notification/Hardware Event"]
	wantNotes := []tv{{45e6, "before pause"}, {50e6, "during pause"}}
	if len(ns) != len(wantNotes) {
		t.Fatalf("%d notifications, want 2", len(ns))
	}
	for i, m := range ns {
		var n msgs.Notification
		if err := msgs.Unmarshal(m.Data, &n); err != nil {
			t.Fatal(err)
		}
		if m.Time != wantNotes[i].t || n.Description != wantNotes[i].v || n.Category != "Hardware Event" ||
			n.Severity != "Info" || n.SerializedData != `{"x":1}` || n.Timestamp != (msgs.Time{Sec: 1700, Nsec: 123}) {
			t.Errorf("notification %d at %v: %+v", i, m.Time, n)
		}
	}
	// Bag time never goes backwards in file order of a topic.
	for topic, list := range top {
		for i := 1; i < len(list); i++ {
			if list[i].Time < list[i-1].Time {
				t.Errorf("%s: time goes back at %d", topic, i)
			}
		}
	}
	if n := len(notes.list()); n != 2 {
		t.Errorf("user got %d notifications, want the 2 forwarded", n)
	}
	checkConformance(t, path)
}

// TestDiskFull records into a writer that fails after N bytes: the error
// stops recording (streaming continues), is notified, comes back from Close,
// and what was written before is readable.
func TestDiskFull(t *testing.T) { synctest.Test(t, diskFull) }

func diskFull(t *testing.T) {
	mf := &memFile{limit: 60_000}
	rec, notes, log := recordUntilFull(t, mf)
	if log.count() != 40 {
		t.Errorf("streaming stopped: handler got %d frames", log.count())
	}
	err := rec.Close()
	if !errors.Is(err, errDiskFull) {
		t.Fatalf("Close = %v, want the disk-full error", err)
	}
	if rec.Err() == nil || rec.Stats().Err == nil {
		t.Error("Err/Stats.Err is nil")
	}
	found := false
	for _, n := range notes.list() {
		if n.Category == sensor.NotificationCategoryUnknownError && n.Severity == sensor.SeverityError &&
			strings.HasPrefix(n.Description, "Stopping recording for sensor (streaming will continue). (Error: ") {
			found = true
		}
	}
	if !found {
		t.Errorf("no R.16 notification among %+v", notes.list())
	}
	b := mf.bytes()
	r, err := rosbag.NewReader(bytesReaderAt(b), int64(len(b)), nil)
	if r == nil {
		t.Fatalf("bag not readable: %v", err)
	}
	defer r.Close()
	n := 0
	it := r.Messages(&rosbag.Query{Topics: []string{"/device_0/sensor_0/Depth_0/image/data"}})
	for it.Next() {
		n++
	}
	if n == 0 {
		t.Errorf("no frame readable (open error %v, iter %v)", err, it.Err())
	}
	t.Logf("readable frames after disk full at %d bytes: %d of %d (open: %v)", mf.limit, n, rec.Stats().Frames, err)
}

type bytesReaderAt []byte

func (b bytesReaderAt) ReadAt(p []byte, off int64) (int, error) {
	if off >= int64(len(b)) {
		return 0, io.EOF
	}
	n := copy(p, b[off:])
	if n < len(p) {
		return n, io.EOF
	}
	return n, nil
}

// TestDiskFullNoIndex: when the disk stays full, Close cannot write the
// index either: its error says the bag is left without its index and how
// it is recovered, and a reader recovers the chunks written in full.
func TestDiskFullNoIndex(t *testing.T) { synctest.Test(t, diskFullNoIndex) }

func diskFullNoIndex(t *testing.T) {
	mf := &memFile{limit: 60_000, sticky: true}
	rec, _, _ := recordUntilFull(t, mf)
	err := rec.Close()
	if !errors.Is(err, errDiskFull) || !errors.Is(err, rosbag.ErrNoIndex) || !strings.Contains(err.Error(), "recovers them by a scan") {
		t.Fatalf("Close = %v, want the disk-full error and ErrNoIndex saying how to recover", err)
	}
	b := mf.bytes()
	r, err := rosbag.NewReader(bytesReaderAt(b), int64(len(b)), nil)
	if err == nil {
		err = r.Unindexed()
	}
	if r == nil || !errors.Is(err, rosbag.ErrUnindexed) {
		t.Fatalf("NewReader = %v, %v; want the bag recovered", r, err)
	}
	n := 0
	it := r.Messages(&rosbag.Query{Topics: []string{"/device_0/sensor_0/Depth_0/image/data"}})
	for it.Next() {
		n++
	}
	if n == 0 {
		t.Errorf("no frame recovered: %v", it.Err())
	}
}

// recordUntilFull records 40 depth frames of a test device into mf (with
// a flush every 8 frames) and stops the sensor, leaving Close to the test.
func recordUntilFull(t *testing.T, mf *memFile) (*Device, *noteLog, *handlerLog) {
	t.Helper()
	td := newTestDevice(t, 64, 48)
	rec, err := NewWriter(td.dev, mf, &Options{Compression: CompressionNone, ChunkThreshold: 8 << 10, Lossless: true})
	if err != nil {
		t.Fatal(err)
	}
	ss := rec.Sensors()
	notes, log := &noteLog{}, &handlerLog{}
	notes.watch(ss[0])
	openStart(t, ss[0], log, td.depth)
	for i := 0; i < 40; i++ {
		time.Sleep(33 * time.Millisecond)
		if err := td.depthS.Inject(td.frame(td.depth)); err != nil {
			t.Fatal(err)
		}
		td.depthS.Flush()
		if i%8 == 7 {
			_ = rec.Flush()
		}
	}
	if err := ss[0].Stop(); err != nil {
		t.Fatal(err)
	}
	return rec, notes, log
}
