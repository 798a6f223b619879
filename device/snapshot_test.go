package device_test

import (
	"errors"
	"math"
	"testing"

	"github.com/rsbag/rsbag/device"
	"github.com/rsbag/rsbag/extensions"
	"github.com/rsbag/rsbag/internal/layout"
	"github.com/rsbag/rsbag/internal/optionset"
	"github.com/rsbag/rsbag/internal/testsupport/refcam"
	"github.com/rsbag/rsbag/sensor"
	"github.com/rsbag/rsbag/software"
)

// plain hides the software device's ExtrinsicsSource so that Capture takes
// the generic path.
type plain struct{ d *software.Device }

func (p plain) Info() sensor.Info        { return p.d.Info() }
func (p plain) Sensors() []sensor.Sensor { return p.d.Sensors() }
func (p plain) Close() error             { return p.d.Close() }
func (p plain) Extrinsics(a, b *sensor.StreamProfile) (sensor.Extrinsics, error) {
	return p.d.Extrinsics(a, b)
}

func TestCapture(t *testing.T) {
	cfg, _ := refcam.Config("depth_color_ir2_uncompressed")
	cfg.AccelFPS = 100
	cam, err := software.NewSynthetic(cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer cam.Close()
	direct, err := device.Capture(cam)
	if err != nil {
		t.Fatal(err)
	}
	generic, err := device.Capture(plain{cam.Device})
	if err != nil {
		t.Fatal(err)
	}
	if len(direct.Sensors) != 3 || direct.Info[sensor.CameraInfoSerialNumber] != "912345678901" {
		t.Fatalf("snapshot %+v", direct)
	}
	st := direct.Sensors[0]
	if !st.HasDepthUnits || st.DepthUnits != 0.001 || !st.HasBaseline || st.StereoBaselineMM != 50 || len(st.Profiles) != 3 {
		t.Errorf("stereo module %+v", st)
	}
	if o, ok := st.Option(sensor.OptionAsicTemperature); !ok || !o.ReadOnly || o.Value != 36.5 || o.Description != optionset.DescriptionReadOnlyCustomOption {
		t.Errorf("asic temperature %+v", o)
	}
	if direct.Sensors[1].HasDepthUnits || direct.Sensors[2].Kinds[0] != extensions.KindMotionSensor {
		t.Errorf("sensor kinds %+v %+v", direct.Sensors[1], direct.Sensors[2])
	}
	// Both paths derive identical extrinsics, bit for bit, for every pair.
	var all []*sensor.StreamProfile
	for _, s := range cam.Sensors() {
		all = append(all, s.Profiles()...)
	}
	for _, a := range all {
		for _, b := range all {
			e1, err1 := direct.Extrinsics(a, b)
			e2, err2 := generic.Extrinsics(a, b)
			e3, err3 := cam.Extrinsics(a, b)
			motion := a.Kind == sensor.KindMotion || b.Kind == sensor.KindMotion
			if motion != errors.Is(err1, device.ErrNoExtrinsics) || (err1 == nil) != (err2 == nil) || (err1 == nil) != (err3 == nil) {
				t.Errorf("%s→%s: errors %v / %v / %v", a.Name(), b.Name(), err1, err2, err3)
				continue
			}
			if !bitsEqual(e1, e2) || !bitsEqual(e1, e3) {
				t.Errorf("%s→%s: %v / %v / %v", a.Name(), b.Name(), e1, e2, e3)
			}
		}
	}
	if _, err := direct.Extrinsics(&sensor.StreamProfile{}, all[0]); !errors.Is(err, device.ErrNotFound) {
		t.Errorf("foreign profile: %v", err)
	}
}

func bitsEqual(a, b sensor.Extrinsics) bool {
	for i := range a.Rotation {
		if math.Float32bits(a.Rotation[i]) != math.Float32bits(b.Rotation[i]) {
			return false
		}
	}
	for i := range a.Translation {
		if math.Float32bits(a.Translation[i]) != math.Float32bits(b.Translation[i]) {
			return false
		}
	}
	return true
}

// numbered is plain with its own group numbering.
type numbered struct {
	plain
	first uint32
}

func (n numbered) FirstExtrinsicsGroup() uint32 { return n.first }

// source reports fixed pinned extrinsics.
type source struct {
	plain
	pinned []extensions.PinnedExtrinsics
}

func (s source) PinnedExtrinsics() []extensions.PinnedExtrinsics { return s.pinned }

func TestCaptureGroups(t *testing.T) {
	cfg, _ := refcam.Config("depth_color_ir2_uncompressed")
	cam, err := software.NewSynthetic(cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer cam.Close()
	groups := func(s *device.Snapshot) map[extensions.StreamKey]uint32 {
		m := map[extensions.StreamKey]uint32{}
		for _, p := range s.Pinned {
			m[p.Key] = p.Group
		}
		return m
	}
	keep := []extensions.PinnedExtrinsics{{Key: extensions.StreamKey{Stream: sensor.StreamDepth}, Group: 7, FromPin: sensor.IdentityExtrinsics()}}
	for _, tc := range []struct {
		name string
		d    device.Device
		want uint32 // the group of every stream
	}{
		{"software device reports its groups", cam, layout.FirstGroupSoftware},
		{"generic live device", plain{cam.Device}, layout.FirstGroupLive},
		{"generic device numbering like software", numbered{plain{cam.Device}, layout.FirstGroupSoftware}, layout.FirstGroupSoftware},
		{"generic device numbering from 5", numbered{plain{cam.Device}, 5}, 5},
		{"extrinsics source kept as is", source{plain{cam.Device}, keep}, 7},
	} {
		s, err := device.Capture(tc.d)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		g := groups(s)
		if len(g) == 0 {
			t.Errorf("%s: no extrinsics", tc.name)
		}
		for k, v := range g {
			if v != tc.want {
				t.Errorf("%s: %v in group %d, want %d", tc.name, k, v, tc.want)
			}
		}
	}
}
