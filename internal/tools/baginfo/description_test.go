package baginfo_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rsbag/rsbag/device"
	"github.com/rsbag/rsbag/internal/testsupport/testbags"
	"github.com/rsbag/rsbag/internal/tools/baginfo"
	"github.com/rsbag/rsbag/msgs"
	"github.com/rsbag/rsbag/playback"
	"github.com/rsbag/rsbag/rosbag"
	"github.com/rsbag/rsbag/sensor"
)

// TestInfoMatchesPlayback: on every reference bag, what info reports of the
// description (device and sensor info, option values and descriptions, the
// streams a player shows with their format, size and rate) is what the
// playback device serves in its Snapshot, read by internal/description.
func TestInfoMatchesPlayback(t *testing.T) {
	for _, bag := range refBags(t) {
		compareDescriptions(t, bag)
	}
}

// TestInfoMatchesPlaybackDamaged: on a reference bag cut short at several
// places (its index lost, the rest recovered by a scan), info and playback
// still read the same description.
func TestInfoMatchesPlaybackDamaged(t *testing.T) {
	data, err := os.ReadFile("../../../testdata/librealsense/depth_color.bag")
	if err != nil {
		t.Fatal(err)
	}
	for _, frac := range []int{50, 75, 90, 99} {
		cut := filepath.Join(t.TempDir(), fmt.Sprintf("cut%d.bag", frac))
		if err := os.WriteFile(cut, data[:len(data)*frac/100], 0o644); err != nil {
			t.Fatal(err)
		}
		compareDescriptions(t, cut)
	}
}

// compareDescriptions fails the test where info's report of the bag at path
// and the playback device's Snapshot disagree.
func compareDescriptions(t *testing.T, bag string) {
	t.Helper()
	rep, err := baginfo.Inspect(bag, nil)
	if err != nil {
		t.Fatal(err)
	}
	dev, err := playback.Open(bag, nil)
	if err != nil {
		t.Fatalf("%s: %v", bag, err)
	}
	snap := dev.Snapshot()
	dev.Close()
	if rep.FileVersion < 2 {
		return // version 1: info lists the recorded topics, the player synthesizes the device
	}
	for _, d := range diffDescription(rep, snap.Info, snap.Sensors) {
		t.Errorf("%s: %s", bag, d)
	}
}

// diffDescription lists where rep disagrees with a device's info and
// sensors.
func diffDescription(rep *baginfo.Report, info sensor.Info, sensors []device.SensorSnapshot) []string {
	var out []string
	if got := knownInfo(rep.Device); !sameInfo(got, info) {
		out = append(out, fmt.Sprintf("device info %v, playback %v", got, info))
	}
	profiles := 0
	for _, ss := range sensors {
		var rs *baginfo.Sensor
		for i := range rep.Sensors {
			if rep.Sensors[i].Index == ss.Index {
				rs = rep.Sensors[i]
			}
		}
		if rs == nil {
			out = append(out, fmt.Sprintf("sensor %d: not in info", ss.Index))
			continue
		}
		if got := knownInfo(rs.Info); !sameInfo(got, ss.Info) {
			out = append(out, fmt.Sprintf("sensor %d info %v, playback %v", ss.Index, got, ss.Info))
		}
		for _, o := range ss.Options {
			found := false
			for _, ro := range rs.Options {
				if ro.Name == o.Option.String() {
					found = true
					if ro.Value != o.Value || ro.Description != o.Description {
						out = append(out, fmt.Sprintf("sensor %d option %s: %v %q, playback %v %q", ss.Index, ro.Name, ro.Value, ro.Description, o.Value, o.Description))
					}
				}
			}
			if !found {
				out = append(out, fmt.Sprintf("sensor %d option %s: not in info", ss.Index, o.Option))
			}
		}
		for _, p := range ss.Profiles {
			profiles++
			found := false
			for _, st := range rep.Streams {
				if st.Sensor != ss.Index || st.Stream != p.Stream.String() || st.Index != p.Index {
					continue
				}
				found = true
				if st.FPS != p.FPS || st.Format != p.Format.String() || st.Width != p.Width || st.Height != p.Height {
					out = append(out, fmt.Sprintf("stream %s of sensor %d: %s %dx%d@%d, playback %s %dx%d@%d", p.Name(), ss.Index,
						st.Format, st.Width, st.Height, st.FPS, p.Format, p.Width, p.Height, p.FPS))
				}
			}
			if !found {
				out = append(out, fmt.Sprintf("stream %s of sensor %d: not in info", p.Name(), ss.Index))
			}
		}
	}
	if profiles != len(rep.Streams) {
		out = append(out, fmt.Sprintf("%d streams, playback %d", len(rep.Streams), profiles))
	}
	return out
}

// knownInfo returns the camera-info values of fields (the last of each),
// leaving out keys that are no camera info.
func knownInfo(fields []baginfo.Field) sensor.Info {
	in := sensor.Info{}
	for _, f := range fields {
		if ci, ok := sensor.Parse[sensor.CameraInfo](f.Name); ok {
			in[ci] = f.Value
		}
	}
	return in
}

func sameInfo(a, b sensor.Info) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

// TestInfoMatchesPlaybackRepeatedStreamInfo: a stream whose info is
// recorded twice (again after its first frame, with another rate) is
// played with the first, and info reports that one too.
func TestInfoMatchesPlaybackRepeatedStreamInfo(t *testing.T) {
	const topic = "/device_0/sensor_0/Depth_0/info"
	dst := filepath.Join(t.TempDir(), "twice.bag")
	var again []byte // the stream info at half the rate
	written := false
	testbags.CopyAdding(t, "../../../testdata/librealsense/depth_color.bag", dst, func(m *rosbag.Message) []testbags.Added {
		switch {
		case m.Conn.Topic == topic && again == nil:
			var si msgs.StreamInfo
			if err := msgs.Unmarshal(m.Data, &si); err != nil {
				t.Fatal(err)
			}
			si.Fps /= 2
			again = msgs.Marshal(&si)
		case strings.HasSuffix(m.Conn.Topic, "/image/data") && again != nil && !written:
			written = true
			return []testbags.Added{{Topic: topic, Data: again}}
		}
		return nil
	})
	if !written {
		t.Fatal("the reference bag has no Depth stream info before a frame")
	}
	compareDescriptions(t, dst)
}
