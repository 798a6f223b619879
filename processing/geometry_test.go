package processing

import (
	"encoding/binary"
	"encoding/json"
	"strings"
	"testing"

	"github.com/rsbag/rsbag/playback"
	"github.com/rsbag/rsbag/sensor"
)

type geometrySample struct {
	Pixel       [2]int      `json:"pixel"`
	Distance    float32     `json:"distance"`
	Point       [3]float32  `json:"point"`
	PairedPoint *[3]float32 `json:"paired_point"`
	PairedPixel *[2]float32 `json:"paired_pixel"`
}

type geometryLine struct {
	Type    string           `json:"type"`
	Number  uint64           `json:"number"`
	Samples []geometrySample `json:"samples"`
}

// pairedProfile returns the profile of the stream the judge paired depth
// frames with, as its file names it (the key "align.to-STREAM" of the
// depth frame aligned to that stream), of the lowest index the bag has of
// that stream; nil when no depth frame was paired.
func pairedProfile(dev *playback.Device, lines []procLine) *sensor.StreamProfile {
	name := ""
	for _, l := range lines {
		for k := range l.Ops {
			if s, ok := strings.CutPrefix(k, "align.to-"); ok && s != "depth" {
				name = s
			}
		}
	}
	var pp *sensor.StreamProfile
	for _, s := range dev.Sensors() {
		for _, p := range s.Profiles() {
			if name != "" && strings.ToLower(p.Stream.String()) == name && (pp == nil || p.Index < pp.Index) {
				pp = p
			}
		}
	}
	return pp
}

// TestGeometryMatchesLibrealsense: on a 5x5 grid of every processed depth
// frame of every reference bag, the distance, the deprojected point, the
// point in the paired stream's coordinates and its pixel there equal
// librealsense's float32 results.
func TestGeometryMatchesLibrealsense(t *testing.T) {
	eachProcReference(t, func(t *testing.T, file, bag string, lines []procLine) {
		frames := depthFrames(t, bag)
		dev, err := playback.Open(bag, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer dev.Close()
		paired := pairedProfile(dev, lines)
		n := 0
		eachLine(t, file, func(line []byte) {
			var l geometryLine
			if err := json.Unmarshal(line, &l); err != nil || l.Type != "geometry" {
				return
			}
			d := frames[l.Number]
			var extr sensor.Extrinsics
			if paired != nil {
				if extr, err = dev.Extrinsics(d.Profile, paired); err != nil {
					t.Fatal(err)
				}
			}
			for _, s := range l.Samples {
				raw := binary.LittleEndian.Uint16(d.Data[s.Pixel[1]*d.Stride+2*s.Pixel[0]:])
				dist := float32(raw) * d.DepthUnits
				p := d.Profile.Intrinsics.Deproject([2]float32{float32(s.Pixel[0]), float32(s.Pixel[1])}, dist)
				if dist != s.Distance || p != s.Point {
					t.Errorf("frame %d pixel %v: distance %v point %v, want %v %v", l.Number, s.Pixel, dist, p, s.Distance, s.Point)
				}
				if s.PairedPoint == nil {
					continue
				}
				q := extr.Transform(p)
				px := paired.Intrinsics.Project(q)
				if q != *s.PairedPoint || px != *s.PairedPixel {
					t.Errorf("frame %d pixel %v: paired point %v pixel %v, want %v %v", l.Number, s.Pixel, q, px, *s.PairedPoint, *s.PairedPixel)
				}
			}
			n++
		})
		if n == 0 {
			t.Error("no geometry line")
		}
	})
}
