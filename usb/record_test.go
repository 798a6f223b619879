package usb_test

import (
	"context"
	"io"
	"math"
	"path/filepath"
	"sync"
	"testing"

	"github.com/rsbag/rsbag/extensions"
	"github.com/rsbag/rsbag/internal/testsupport/await"
	"github.com/rsbag/rsbag/internal/testsupport/usbtest"
	"github.com/rsbag/rsbag/internal/usbio"
	"github.com/rsbag/rsbag/playback"
	"github.com/rsbag/rsbag/record"
	"github.com/rsbag/rsbag/sensor"
	"github.com/rsbag/rsbag/usb"
)

// The scripted camera recorded with the record device plays back with
// identical frames.
func TestRecordPlayback(t *testing.T) {
	const w, h = 424, 240
	size := w * h * 2
	fake := d435i(t, append(probeOps(1, 0x0110, 1, 6, 333333, uint32(size)), stopOps(1, 0x82)...)...)
	live, err := usb.Open(usbio.WithTransport(context.Background(), usbtest.New(fake)), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer live.Close()
	path := filepath.Join(t.TempDir(), "live.bag")
	rec, err := record.Create(live, path, nil)
	if err != nil {
		t.Fatal(err)
	}
	depth := byName(rec, "Stereo Module")
	p := find(depth, sensor.StreamDepth, sensor.FormatZ16, w, h, 30)
	if err := depth.Open(p); err != nil {
		t.Fatal(err)
	}
	col := newCollector()
	if err := depth.Start(col); err != nil {
		t.Fatal(err)
	}
	s := fake.Stream(0x82)
	const n = 3
	for i := 0; i < n; i++ {
		fid := uint8(i & 1)
		s.Send(usbtest.Payload(fid|usbtest.EOF, uint32(1_000_000+33_333*i), usbtest.CaptureTiming(uint32(10+i), uint32(5000+i), 8000), image(size, byte(i))))
	}
	want := col.wait(t, n)
	pb := finishRecording(t, depth, rec, path)
	var ps sensor.Sensor
	var pp *sensor.StreamProfile
	for _, s := range pb.Sensors() {
		for _, q := range s.Profiles() {
			if q.Stream == sensor.StreamDepth && q.Width == w && q.FPS == 30 {
				ps, pp = s, q
			}
		}
	}
	if ps == nil {
		t.Fatal("no depth stream in the recording")
	}
	if err := ps.Open(pp); err != nil {
		t.Fatal(err)
	}
	got := newCollector()
	stopped := make(chan struct{})
	var once sync.Once
	pb.OnStatusChange(func(s extensions.PlaybackStatus) {
		if s == extensions.StatusStopped {
			once.Do(func() { close(stopped) })
		}
	})
	if err := ps.Start(got); err != nil {
		t.Fatal(err)
	}
	// The end of the recording: every frame has been handled.
	await.Recv(t, "the end of the recording's playback", stopped)
	fs := got.wait(t, 0)
	if err := ps.Close(); err != nil {
		t.Fatal(err)
	}
	if len(fs) != n {
		t.Fatalf("played %d frames, want %d", len(fs), n)
	}
	for i := range fs {
		if string(fs[i].Data) != string(want[i].Data) || fs[i].Number != want[i].Number || math.Abs(fs[i].TimestampMs-want[i].TimestampMs) > 1e-6 ||
			fs[i].Domain != want[i].Domain {
			t.Errorf("frame %d: number %d/%d ts %v/%v domain %v/%v", i, fs[i].Number, want[i].Number,
				fs[i].TimestampMs, want[i].TimestampMs, fs[i].Domain, want[i].Domain)
		}
		if v, ok := fs[i].Metadata.Get(sensor.MetadataKeyFrameCounter); !ok || v != int64(10+i) {
			t.Errorf("frame %d: frame counter %d %v", i, v, ok)
		}
	}
}

// A recording of the Motion Module carries the IMU calibration: the played
// back accel profile has the live profile's motion intrinsics.
func TestRecordMotionIntrinsics(t *testing.T) {
	var ops []usbtest.IO
	ops = append(ops, usbtest.IO{Op: usbtest.OpSetInterface, Setup: usbio.Setup{Index: 5}})
	ops = append(ops, hidPowerOps(5, 1, 2, 250, feature(1, 6, 16))...)
	ops = append(ops, hidPowerOps(5, 1, 6, 0, feature(1, 2, 4))...)
	ops = append(ops, usbtest.IO{Op: usbtest.OpRelease, Setup: usbio.Setup{Index: 5}})
	fake := d435i(t, ops...)
	live, err := usb.Open(usbio.WithTransport(context.Background(), usbtest.New(fake)), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer live.Close()
	path := filepath.Join(t.TempDir(), "imu.bag")
	rec, err := record.Create(live, path, nil)
	if err != nil {
		t.Fatal(err)
	}
	m := byName(rec, "Motion Module")
	var accel *sensor.StreamProfile
	for _, p := range m.Profiles() {
		if p.Stream == sensor.StreamAccel && p.FPS == 250 {
			accel = p
		}
	}
	if err := m.Open(accel); err != nil {
		t.Fatal(err)
	}
	col := newCollector()
	if err := m.Start(col); err != nil {
		t.Fatal(err)
	}
	fake.Stream(0x85).Send(usbtest.HIDReport(1, 1_000_000, 0, 0, 1000))
	col.wait(t, 1)
	pb := finishRecording(t, m, rec, path)
	found := false
	for _, s := range pb.Sensors() {
		for _, q := range s.Profiles() {
			if q.Stream == sensor.StreamAccel {
				found = true
				if q.MotionIntrinsics != accel.MotionIntrinsics || q.MotionIntrinsics.Data[0][0] == 0 {
					t.Errorf("played %+v, recorded %+v", q.MotionIntrinsics, accel.MotionIntrinsics)
				}
			}
		}
	}
	if !found {
		t.Error("no accel stream in the recording")
	}
}

// finishRecording stops and closes the recorded sensor s, closes the
// recorder and opens the bag at path for non-real-time playback (closed
// when the test ends).
func finishRecording(t *testing.T, s sensor.Sensor, rec io.Closer, path string) *playback.Device {
	t.Helper()
	if err := s.Stop(); err != nil {
		t.Fatal(err)
	}
	s.Close()
	if err := rec.Close(); err != nil {
		t.Fatal(err)
	}
	pb, err := playback.Open(path, &playback.Options{NonRealTime: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { pb.Close() })
	return pb
}
