package record

import (
	"github.com/rsbag/rsbag/extensions"
	"github.com/rsbag/rsbag/sensor"
)

//go:generate go run ./internal/genwrap wrappers_gen.go wrappers_gen_test.go

// The forwarders below are embedded by the generated record-sensor types of
// wrappers_gen.go; each forwards one extension to the inner sensor.

type optionsFwd struct{ o extensions.Options }

func (f optionsFwd) SupportedOptions() []sensor.Option                     { return f.o.SupportedOptions() }
func (f optionsFwd) Option(o sensor.Option) (float32, error)               { return f.o.Option(o) }
func (f optionsFwd) SetOption(o sensor.Option, v float32) error            { return f.o.SetOption(o, v) }
func (f optionsFwd) OptionRange(o sensor.Option) (extensions.Range, error) { return f.o.OptionRange(o) }
func (f optionsFwd) OptionDescription(o sensor.Option) string              { return f.o.OptionDescription(o) }
func (f optionsFwd) OptionReadOnly(o sensor.Option) bool                   { return f.o.OptionReadOnly(o) }
func (f optionsFwd) OnOptionChange(fn func(extensions.OptionChange)) (cancel func()) {
	return f.o.OnOptionChange(fn)
}

type depthFwd struct{ d extensions.DepthSensor }

func (f depthFwd) DepthUnits() float32 { return f.d.DepthUnits() }

type stereoFwd struct{ d extensions.DepthStereoSensor }

func (f stereoFwd) DepthUnits() float32       { return f.d.DepthUnits() }
func (f stereoFwd) StereoBaselineMM() float32 { return f.d.StereoBaselineMM() }

type kindsFwd struct{ k extensions.Kinded }

func (f kindsFwd) Kinds() []extensions.SensorKind { return f.k.Kinds() }

type filtersFwd struct{ f extensions.RecommendedFilters }

func (f filtersFwd) RecommendedFilters() []string { return f.f.RecommendedFilters() }
