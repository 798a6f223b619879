package rosbag

import "strconv"

// Time is a bag time in nanoseconds since the epoch of the recording (record
// headers store it as u32 sec, u32 nsec).
type Time uint64

// MinTime is the smallest time a Writer accepts: (0 s, 1 ns), the "static
// time" of librealsense (spec §3).
const MinTime Time = 1

// MaxTime is the largest time representable in a record header.
const MaxTime Time = 0xFFFFFFFF*1_000_000_000 + 999_999_999

// NewTime returns the Time of a ROS (sec, nsec) pair, exactly. nsec may be
// ≥ 1e9 (as some writers produce); it is then carried into seconds.
func NewTime(sec, nsec uint32) Time {
	return Time(sec)*1_000_000_000 + Time(nsec)
}

// ROS returns t as a ROS (sec, nsec) pair. Times above MaxTime saturate.
func (t Time) ROS() (sec, nsec uint32) {
	if t > MaxTime {
		t = MaxTime
	}
	return uint32(t / 1_000_000_000), uint32(t % 1_000_000_000)
}

// String formats t as "s.nnnnnnnnn", the way the ROS tools print it.
func (t Time) String() string {
	var b [32]byte
	return string(t.appendString(b[:0]))
}

func (t Time) appendString(b []byte) []byte {
	b = strconv.AppendUint(b, uint64(t/1_000_000_000), 10)
	b = append(b, '.')
	ns := uint64(t % 1_000_000_000)
	var d [9]byte
	for i := 8; i >= 0; i-- {
		d[i] = byte('0' + ns%10)
		ns /= 10
	}
	return append(b, d[:]...)
}
