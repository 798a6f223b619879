package main

import (
	"encoding/binary"
	"math"
	"time"

	"github.com/rsbag/rsbag/sensor"
	"github.com/rsbag/rsbag/units"
)

// Params are the graph's parameters: what a test pins, and what a change
// of the algorithm changes.
type Params struct {
	// NearM is the distance below which an obstacle is near, in meters.
	NearM float64
	// TiltDeg is the pitch beyond which the camera tilts toward the
	// obstacle, in degrees.
	TiltDeg float64
}

// DefaultParams are the parameters the robot runs with.
var DefaultParams = Params{NearM: 1.5, TiltDeg: 20}

// The topics of the graph, each with its schema version.
var (
	// Nearest is the distance to the nearest valid depth pixel, in
	// meters (millimeter steps).
	Nearest = units.NewTopic[float64]("obstacle/nearest_m")
	// Pitch is the camera's pitch from gravity, in degrees (0.01 steps).
	Pitch = units.NewTopic[float64]("orientation/pitch_deg")
	// Warning is the fusion's verdict for each matched pair.
	Warning = units.NewTopic[Warn]("fusion/warning")
)

// Warn is the fusion unit's output.
type Warn struct {
	Warn     bool    `json:"warn"`
	NearestM float64 `json:"nearest_m"`
	PitchDeg float64 `json:"pitch_deg"`
}

// NewGraph returns the example graph: the nearest obstacle from depth,
// the orientation from the accelerometer, and a fusion unit that warns
// when the camera tilts toward a near obstacle (nearest and pitch matched
// within 20 ms). Each call builds new units with fresh state.
func NewGraph(p Params) (*units.Graph, error) {
	var warnings int
	return units.NewGraph(
		units.Unit{Name: "obstacle", Handlers: []units.Handler{{
			Name:    "depth",
			Inputs:  []units.Input{units.Camera("", sensor.StreamDepth, 0)},
			Outputs: []units.Output{Nearest},
			Func: func(c *units.Context, in []*units.Msg) error {
				f := in[0].Frame
				nearest := uint16(math.MaxUint16)
				for i := 0; i+1 < len(f.Data); i += 2 {
					if v := binary.LittleEndian.Uint16(f.Data[i:]); v > 0 && v < nearest {
						nearest = v
					}
				}
				if nearest == math.MaxUint16 {
					return nil // no valid pixel: nothing to say
				}
				return Nearest.Publish(c, math.Round(float64(nearest)*float64(f.Units())*1000)/1000)
			},
		}}},
		units.Unit{Name: "orientation", Handlers: []units.Handler{{
			Name:    "accel",
			Inputs:  []units.Input{units.Camera("", sensor.StreamAccel, 0)},
			Outputs: []units.Output{Pitch},
			Func: func(c *units.Context, in []*units.Msg) error {
				a := in[0].Frame.Motion
				pitch := math.Atan2(float64(a[0]), math.Hypot(float64(a[1]), float64(a[2]))) * 180 / math.Pi
				return Pitch.Publish(c, math.Round(pitch*100)/100)
			},
		}}},
		units.Unit{Name: "fusion", Handlers: []units.Handler{{
			Name:    "warn",
			Sync:    units.Approximate(20 * time.Millisecond),
			Inputs:  []units.Input{Nearest.In(), Pitch.In()},
			Outputs: []units.Output{Warning},
			Func: func(c *units.Context, in []*units.Msg) error {
				near, _ := Nearest.Value(in[0])
				pitch, _ := Pitch.Value(in[1])
				w := Warn{Warn: near < p.NearM && math.Abs(pitch) > p.TiltDeg, NearestM: near, PitchDeg: pitch}
				if w.Warn {
					warnings++
				}
				return Warning.Publish(c, w)
			},
		}}},
	)
}
