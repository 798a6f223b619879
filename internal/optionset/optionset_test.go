package optionset_test

import (
	"errors"
	"sync"
	"testing"

	"github.com/rsbag/rsbag/extensions"
	"github.com/rsbag/rsbag/internal/optionset"
	"github.com/rsbag/rsbag/sensor"
)

func TestOptionSet(t *testing.T) {
	var s optionset.OptionSet
	s.Add(extensions.OptionSpec{Option: sensor.OptionGain, Value: 16, Range: extensions.Range{Min: 0, Max: 128, Step: 1, Default: 16}, Description: "gain"})
	s.Add(extensions.OptionSpec{Option: sensor.OptionExposure, Value: 8500, Description: optionset.DescriptionCustomOption})
	s.Add(extensions.OptionSpec{Option: sensor.OptionAsicTemperature, Value: 36.5, ReadOnly: true})

	if got := s.SupportedOptions(); len(got) != 3 || got[0] != sensor.OptionExposure || got[1] != sensor.OptionGain || got[2] != sensor.OptionAsicTemperature {
		t.Fatalf("SupportedOptions = %v", got)
	}
	var changes []extensions.OptionChange
	cancel := s.OnOptionChange(func(c extensions.OptionChange) { changes = append(changes, c) })
	if err := s.SetOption(sensor.OptionGain, 32); err != nil {
		t.Fatal(err)
	}
	if err := s.SetOption(sensor.OptionGain, 200); !errors.Is(err, extensions.ErrOutOfRange) {
		t.Errorf("out of range: %v", err)
	}
	if err := s.SetOption(sensor.OptionAsicTemperature, 40); !errors.Is(err, extensions.ErrReadOnly) {
		t.Errorf("read-only: %v", err)
	}
	if err := s.SetOption(sensor.OptionLaserPower, 1); !errors.Is(err, extensions.ErrUnsupportedOption) {
		t.Errorf("unsupported: %v", err)
	}
	if err := s.Update(sensor.OptionAsicTemperature, 41.5); err != nil {
		t.Errorf("Update read-only: %v", err)
	}
	cancel()
	cancel()
	_ = s.SetOption(sensor.OptionGain, 64)
	want := []extensions.OptionChange{{Option: sensor.OptionGain, Value: 32}, {Option: sensor.OptionAsicTemperature, Value: 41.5}}
	if len(changes) != len(want) || changes[0] != want[0] || changes[1] != want[1] {
		t.Errorf("changes %v, want %v", changes, want)
	}
	if v, _ := s.Option(sensor.OptionGain); v != 64 {
		t.Errorf("gain %v", v)
	}
	if r, _ := s.OptionRange(sensor.OptionGain); r.Max != 128 || r.Default != 16 {
		t.Errorf("range %v", r)
	}
	if s.OptionDescription(sensor.OptionExposure) != optionset.DescriptionCustomOption || !s.OptionReadOnly(sensor.OptionAsicTemperature) || s.OptionReadOnly(sensor.OptionGain) {
		t.Error("description / read-only")
	}
	s.Remove(sensor.OptionExposure)
	if _, err := s.Option(sensor.OptionExposure); !errors.Is(err, extensions.ErrUnsupportedOption) {
		t.Errorf("removed option: %v", err)
	}
}

func TestOptionSetConcurrent(t *testing.T) {
	var s optionset.OptionSet
	s.Add(extensions.OptionSpec{Option: sensor.OptionGain, Value: 0})
	var wg sync.WaitGroup
	for i := 0; i < 8; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			cancel := s.OnOptionChange(func(extensions.OptionChange) { _, _ = s.Option(sensor.OptionGain) })
			for j := 0; j < 100; j++ {
				_ = s.SetOption(sensor.OptionGain, float32(i*j))
				_ = s.Specs()
			}
			cancel()
		}(i)
	}
	wg.Wait()
}
