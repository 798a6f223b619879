package layout

import (
	"math"
	"testing"

	"github.com/rsbag/rsbag/msgs"
)

func TestToROSTime(t *testing.T) {
	cases := []struct {
		ns   uint64
		want msgs.Time
	}{
		{0, msgs.Time{Sec: 0, Nsec: 1}}, // static time (§3.1)
		{1, msgs.Time{Sec: 0, Nsec: 1}},
		{591, msgs.Time{Sec: 0, Nsec: 591}},
		{1500, msgs.Time{Sec: 0, Nsec: 1500}},         // [oracle]
		{54424400, msgs.Time{Sec: 0, Nsec: 54424400}}, // [oracle]
		{167934700, msgs.Time{Sec: 0, Nsec: 167934700}},
		{1e9, msgs.Time{Sec: 1, Nsec: 0}},
		{1999999999, msgs.Time{Sec: 1, Nsec: 999999999}},
		// The float64 path loses precision where the integer one would not.
		{8388608003528596, msgs.Time{Sec: 8388608, Nsec: 3528597}},
		{8388608004528579, msgs.Time{Sec: 8388608, Nsec: 4528578}},
		{math.MaxUint64, msgs.Time{Sec: math.MaxUint32, Nsec: 999999999}}, // saturates
	}
	for _, c := range cases {
		if got := ToROSTime(c.ns); got != c.want {
			t.Errorf("ToROSTime(%d) = %+v, want %+v", c.ns, got, c.want)
		}
	}
	if BagTimeNs(0) != StaticTimeNs || BagTimeNs(1500) != 1500 || BagTimeNs(8388608003528596) != 8388608003528597 {
		t.Error("BagTimeNs")
	}
	if FromROSTime(StaticTime) != 0 || FromROSTime(msgs.Time{Sec: 0, Nsec: 2}) != 2 ||
		FromROSTime(msgs.Time{Sec: 3, Nsec: 4}) != 3000000004 || FromROSTime(msgs.Time{}) != 0 {
		t.Error("FromROSTime")
	}
	if StaticTime != (msgs.Time{Sec: 0, Nsec: 1}) || SamplesStartNs != 2 || TimeNs(StaticTime) != StaticTimeNs {
		t.Error("static time constants")
	}
	// The reader's inverse undoes the writer's conversion for every ns a
	// recording reaches in practice (up to days).
	for ns := uint64(2); ns < 1e15; ns = ns*3 + 7 { // 1 ns reads back as static time (0)
		if got := FromROSTime(ToROSTime(ns)); got != ns {
			t.Errorf("FromROSTime(ToROSTime(%d)) = %d", ns, got)
		}
	}
}

func TestFrameStamp(t *testing.T) {
	cases := []struct {
		ms   float64
		want msgs.Time
	}{
		{360815.089, msgs.Time{Sec: 360, Nsec: 815089000}}, // [oracle]
		{1033.333, msgs.Time{Sec: 1, Nsec: 33333000}},      // [ref]
		{360981.765, msgs.Time{Sec: 360, Nsec: 981765000}},
		{0, msgs.Time{}}, // no static-time special case for stamps
		{1999.9999999996, msgs.Time{Sec: 2, Nsec: 0}}, // rounding carries into seconds
		{0.0000015, msgs.Time{Sec: 0, Nsec: 2}},
		{-5, msgs.Time{}},
		{math.NaN(), msgs.Time{}},
		{1e20, msgs.Time{Sec: math.MaxUint32, Nsec: 999999999}},
	}
	for _, c := range cases {
		if got := FrameStamp(c.ms); got != c.want {
			t.Errorf("FrameStamp(%v) = %+v, want %+v", c.ms, got, c.want)
		}
	}
	if got := FrameTimestampMs(msgs.Time{Sec: 360, Nsec: 815089000}); got != 360815.089 {
		t.Errorf("FrameTimestampMs = %v", got)
	}
}

func TestNotificationStamp(t *testing.T) {
	const ms = 1795239705530 // [ref]
	want := msgs.Time{Sec: 1795, Nsec: 239705530}
	if got := NotificationStamp(ms); got != want {
		t.Errorf("NotificationStamp(%v) = %+v, want %+v", float64(ms), got, want)
	}
	if got := NotificationTimestampMs(want); got != ms {
		t.Errorf("NotificationTimestampMs = %v, want %v", got, float64(ms))
	}
}

func TestFixed(t *testing.T) {
	cases := []struct {
		v    float64
		want string
	}{
		{1534232519732.935547, "1534232519732.935547"}, // [oracle] system_time
		{0, "0.000000"},
		{1000.1234567, "1000.123457"}, // [ref] frame_timestamp
		{12345.678, "12345.678000"},
		{math.Copysign(0, -1), "-0.000000"},
		{0.0000005, "0.000000"}, // binary value just below the half
		{0.125, "0.125000"},
		{math.Inf(1), "inf"},
		{math.Inf(-1), "-inf"},
		{math.NaN(), "nan"},
		{math.Copysign(math.NaN(), -1), "-nan"},
	}
	for _, c := range cases {
		if got := FormatFixed(c.v); got != c.want {
			t.Errorf("FormatFixed(%v) = %q, want %q", c.v, got, c.want)
		}
	}
	if got := string(AppendFixed([]byte("x="), 1.5)); got != "x=1.500000" {
		t.Errorf("AppendFixed = %q", got)
	}
	for _, s := range []string{"1534232519732.935547", "0.000000", " 12.5 "} {
		if _, err := ParseFixed(s); err != nil {
			t.Errorf("ParseFixed(%q): %v", s, err)
		}
	}
	if _, err := ParseFixed("twelve"); err == nil {
		t.Error("ParseFixed accepted a word")
	}
	buf := make([]byte, 0, 64)
	if a := testing.AllocsPerRun(50, func() { _ = AppendFixed(buf[:0], 1534232519732.935547) }); a != 0 {
		t.Errorf("AppendFixed allocates %v times", a)
	}
}

func TestIsFrameDataTopic(t *testing.T) {
	yes := []string{
		"/device_0/sensor_0/Depth_0/image/data",
		"/device_0/sensor_2/Accel_0/imu/data",
		"/device_0/sensor_3/Pose_0/pose/transform/data",
		"/device_0/sensor_0/Depth_0/image/data_extra", // substring match, as librealsense
	}
	no := []string{
		"/device_0/sensor_0/Depth_0/image/metadata",
		"/device_0/sensor_3/Pose_0/pose/accel/data",
		"/device_0/sensor_0/option/Exposure/value",
		"/file_version",
	}
	for _, s := range yes {
		if !IsFrameDataTopic(s) {
			t.Errorf("IsFrameDataTopic(%q) = false", s)
		}
	}
	for _, s := range no {
		if IsFrameDataTopic(s) {
			t.Errorf("IsFrameDataTopic(%q) = true", s)
		}
	}
}
