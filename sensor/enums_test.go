package sensor

import (
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/rsbag/rsbag/sensor/internal/appendixa"
)

// TestEnumsMatchSpec pins every id/name pair of the generated enums against
// the tables of Appendix A of the spec.
func TestEnumsMatchSpec(t *testing.T) {
	text, err := os.ReadFile(filepath.Join("..", "testdata", "spec", "realsense-bag-format.md"))
	if err != nil {
		t.Fatal(err)
	}
	tables, err := appendixa.Parse(string(text))
	if err != nil {
		t.Fatal(err)
	}
	type check struct {
		rs2   string
		count int
		name  func(int) string
		parse func(string) (int, bool)
	}
	checks := []check{
		{"rs2_stream", Count[Stream](), func(i int) string { return Stream(i).String() }, func(s string) (int, bool) { v, ok := Parse[Stream](s); return int(v), ok }},
		{"rs2_format", Count[Format](), func(i int) string { return Format(i).String() }, func(s string) (int, bool) { v, ok := Parse[Format](s); return int(v), ok }},
		{"rs2_camera_info", Count[CameraInfo](), func(i int) string { return CameraInfo(i).String() }, func(s string) (int, bool) { v, ok := Parse[CameraInfo](s); return int(v), ok }},
		{"rs2_frame_metadata_value", Count[MetadataKey](), func(i int) string { return MetadataKey(i).String() }, func(s string) (int, bool) { v, ok := Parse[MetadataKey](s); return int(v), ok }},
		{"rs2_timestamp_domain", Count[TimestampDomain](), func(i int) string { return TimestampDomain(i).String() }, func(s string) (int, bool) { v, ok := Parse[TimestampDomain](s); return int(v), ok }},
		{"rs2_distortion", Count[Distortion](), func(i int) string { return Distortion(i).String() }, func(s string) (int, bool) { v, ok := Parse[Distortion](s); return int(v), ok }},
		{"rs2_notification_category", Count[NotificationCategory](), func(i int) string { return NotificationCategory(i).String() }, func(s string) (int, bool) { v, ok := Parse[NotificationCategory](s); return int(v), ok }},
		{"rs2_log_severity", Count[Severity](), func(i int) string { return Severity(i).String() }, func(s string) (int, bool) { v, ok := Parse[Severity](s); return int(v), ok }},
		{"rs2_option", Count[Option](), func(i int) string { return Option(i).String() }, func(s string) (int, bool) { v, ok := Parse[Option](s); return int(v), ok }},
	}
	for _, c := range checks {
		vals, ok := tables[c.rs2]
		if !ok {
			t.Errorf("%s missing from Appendix A", c.rs2)
			continue
		}
		if len(vals) != c.count {
			t.Errorf("%s: %d values in the spec, %d generated", c.rs2, len(vals), c.count)
		}
		for _, v := range vals {
			if got := c.name(v.ID); got != v.Name {
				t.Errorf("%s %d: name %q, spec %q", c.rs2, v.ID, got, v.Name)
			}
			if id, ok := c.parse(v.Name); !ok || id != v.ID {
				t.Errorf("%s: parse %q = %d %v, spec %d", c.rs2, v.Name, id, ok, v.ID)
			}
		}
		if got := c.name(c.count); got == "" || got == vals[len(vals)-1].Name {
			t.Errorf("%s: unknown value prints %q", c.rs2, got)
		}
	}
	// Values the bags and the package rely on, pinned explicitly.
	pins := []struct {
		got, want string
	}{
		{StreamDepth.String(), "Depth"}, {FormatZ16.String(), "Z16"}, {Format6DOF.String(), "6DOF"},
		{OptionFramesQueueSize.String(), "Frames Queue Size"}, {MetadataKeyCrc.String(), "Crc"},
		{TimestampDomainGlobalTime.String(), "Global Time"}, {Stream(99).String(), "Stream(99)"},
		{Option(76).String(), "Hdr Enabled"}, {Severity(4).String(), "Fatal"},
	}
	for _, p := range pins {
		if p.got != p.want {
			t.Errorf("got %q, want %q", p.got, p.want)
		}
	}
}

func TestFlagValues(t *testing.T) {
	var (
		st Stream
		f  Format
		d  TimestampDomain
		o  Option
		m  Distortion
		ci CameraInfo
	)
	fs := flag.NewFlagSet("t", flag.ContinueOnError)
	fs.Var(flagValue(&st), "stream", "")
	fs.Var(flagValue(&f), "format", "")
	fs.Var(flagValue(&d), "domain", "")
	fs.Var(flagValue(&o), "option", "")
	fs.Var(flagValue(&m), "model", "")
	fs.Var(flagValue(&ci), "info", "")
	err := fs.Parse([]string{"-stream", "infrared", "-format", "motion_xyz32f", "-domain", "system", "-option", "laser_power", "-model", "Brown Conrady", "-info", "Serial Number"})
	if err != nil {
		t.Fatal(err)
	}
	if st != StreamInfrared || f != FormatMotionXYZ32F || d != TimestampDomainSystemTime || o != OptionLaserPower || m != DistortionBrownConrady || ci != CameraInfoSerialNumber {
		t.Errorf("parsed %v %v %v %v %v %v", st, f, d, o, m, ci)
	}
	for _, bad := range []string{"nope", "-1", "9999"} {
		if err := flagValue(&st).Set(bad); err == nil {
			t.Errorf("Set(%q) accepted", bad)
		}
	}
	if err := flagValue(&d).Set("Global Time"); err != nil || d != TimestampDomainGlobalTime {
		t.Errorf("Set(Global Time): %v %v", d, err)
	}
	if err := flagValue(&f).Set("9"); err != nil || f != FormatY8 {
		t.Errorf("Set(9): %v %v", f, err)
	}
}

func TestFormatHelpers(t *testing.T) {
	cases := []struct {
		f     Format
		bytes int
		kind  ProfileKind
	}{
		{FormatZ16, 2, KindVideo}, {FormatRGB8, 3, KindVideo}, {FormatBGRA8, 4, KindVideo}, {FormatYUYV, 2, KindVideo},
		{FormatY8, 1, KindVideo}, {FormatRAW10, 0, KindVideo}, {FormatMotionXYZ32F, 0, KindMotion}, {Format6DOF, 0, KindPose},
	}
	for _, c := range cases {
		if c.f.bytesPerPixel() != c.bytes || c.f.profileKind() != c.kind {
			t.Errorf("%s: %d bytes %v, want %d %v", c.f, c.f.bytesPerPixel(), c.f.profileKind(), c.bytes, c.kind)
		}
	}
}
