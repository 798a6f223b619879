package layout

import (
	"regexp"
	"strings"
	"testing"
)

var leadingZeros = regexp.MustCompile(`[_/]0[0-9]`)

// FuzzParse: Parse never panics; a known topic rebuilds to a string that
// parses to the same Topic, and equals the input up to the option spelling
// and leading zeros of indexes.
func FuzzParse(f *testing.F) {
	for _, path := range testBags(f) {
		seen := map[string]bool{}
		for _, m := range readBag(f, path) {
			if !seen[m.Topic] {
				seen[m.Topic] = true
				f.Add(m.Topic)
			}
		}
	}
	for _, s := range []string{"", "/", "/device_0/sensor_00/Depth_01/tf/007", "/device_0/sensor_0/option/A_B C/value",
		"/device_0/sensor_0/notification/a/b", "/FILE_VERSION", "/device_0/sensor_0/Depth_0/pose/accel/data"} {
		f.Add(s)
	}
	f.Add("/camera/INFRARED2/image_raw/0")
	f.Add("/imu/GYROMETER/rs_frame_info_ext/1")
	f.Fuzz(func(t *testing.T, s string) {
		if lt := ParseLegacy(s); lt.Kind != KindUnknown {
			if again := ParseLegacy(lt.String()); again != lt {
				t.Fatalf("legacy %q → %+v → %q → %+v", s, lt, lt.String(), again)
			}
		} else if lt != (Topic{}) {
			t.Fatalf("unknown legacy topic with fields: %+v", lt)
		}
		tp := Parse(s)
		if tp.Kind == KindUnknown {
			if tp != (Topic{}) {
				t.Fatalf("unknown topic with fields: %+v", tp)
			}
			return
		}
		if tp.Kind.Type() == nil {
			t.Fatalf("%q: kind %s without a type", s, tp.Kind)
		}
		rebuilt := tp.String()
		if again := Parse(rebuilt); again != tp {
			t.Fatalf("%q → %+v → %q → %+v", s, tp, rebuilt, again)
		}
		if !leadingZeros.MatchString(s) && !strings.Contains(s, "/option/") && rebuilt != s {
			t.Fatalf("%q rebuilds as %q", s, rebuilt)
		}
	})
}
