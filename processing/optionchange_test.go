package processing

import (
	"slices"
	"testing"

	"github.com/rsbag/rsbag/extensions"
	"github.com/rsbag/rsbag/sensor"
)

// TestOnOptionChange: a block reports each value set to the functions
// registered with OnOptionChange, the colorizer also the options a change
// moved (a preset its scheme, equalization and distances, in enum order),
// refused values are not reported and cancel stops the reports.
func TestOnOptionChange(t *testing.T) {
	var got []extensions.OptionChange
	record := func(c extensions.OptionChange) { got = append(got, c) }
	check := func(what string, want ...extensions.OptionChange) {
		t.Helper()
		if !slices.Equal(got, want) {
			t.Errorf("%s: reported %v, want %v", what, got, want)
		}
		got = nil
	}

	th := NewThreshold()
	cancel := th.OnOptionChange(record)
	if err := th.SetOption(sensor.OptionMinDistance, 0.5); err != nil {
		t.Fatal(err)
	}
	check("threshold min distance", extensions.OptionChange{Option: sensor.OptionMinDistance, Value: 0.5})
	if err := th.SetOption(sensor.OptionMinDistance, -1); err == nil {
		t.Error("min distance -1 accepted")
	}
	check("refused value")
	if err := NewDecimation().SetOption(sensor.OptionFilterMagnitude, 3); err != nil {
		t.Fatal(err)
	}
	check("another block")
	cancel()
	if err := th.SetOption(sensor.OptionMinDistance, 0.6); err != nil {
		t.Fatal(err)
	}
	check("after cancel")

	col := NewColorizer()
	cancel = col.OnOptionChange(record)
	if err := col.SetOption(sensor.OptionVisualPreset, ColorizerPresetNear); err != nil {
		t.Fatal(err)
	}
	var moved []extensions.OptionChange
	for _, o := range []sensor.Option{sensor.OptionColorScheme, sensor.OptionHistogramEqualizationEnabled, sensor.OptionMinDistance, sensor.OptionMaxDistance} {
		v, err := col.Option(o)
		if err != nil {
			t.Fatal(err)
		}
		moved = append(moved, extensions.OptionChange{Option: o, Value: v})
	}
	slices.SortFunc(moved, func(a, b extensions.OptionChange) int { return int(a.Option - b.Option) })
	check("colorizer preset", append([]extensions.OptionChange{{Option: sensor.OptionVisualPreset, Value: ColorizerPresetNear}}, moved...)...)
	if err := col.SetOption(sensor.OptionColorScheme, 1); err != nil {
		t.Fatal(err)
	}
	check("colorizer scheme unchanged in value", extensions.OptionChange{Option: sensor.OptionColorScheme, Value: 1})
	if err := col.SetOption(sensor.OptionFramesQueueSize, 4); err != nil {
		t.Fatal(err)
	}
	check("colorizer filter option", extensions.OptionChange{Option: sensor.OptionFramesQueueSize, Value: 4})
	cancel()
	if err := col.SetOption(sensor.OptionColorScheme, 2); err != nil {
		t.Fatal(err)
	}
	check("colorizer after cancel")
}
