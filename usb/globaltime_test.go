package usb

import (
	"context"
	"math"
	"testing"
)

// A device clock running 100 ppm fast and 5 s behind the host: after a few
// samples the fit maps device times onto host times.
func TestTimeKeeperFit(t *testing.T) {
	host := 1_000_000.0 // ms
	dev := func(h float64) float64 { return (h-5000)*1.0001 - 1_000_000 + 2_000_000 }
	k := newTimeKeeper(func(context.Context) (float64, error) {
		host += 0.5 // half of a 1 ms round trip before the read
		v := dev(host)
		host += 0.5
		return v, nil
	}, func() float64 { return host })
	if _, ok := k.toHost(10); ok {
		t.Fatal("mapped before any sample")
	}
	for i := 0; i < 20; i++ {
		k.sample(context.Background())
		host += 100
	}
	for _, h := range []float64{host, host + 500, host + 5000} {
		got, ok := k.toHost(dev(h))
		if !ok || math.Abs(got-h) > 0.01 {
			t.Errorf("host %v: mapped %v (%v)", h, got, ok)
		}
	}
	if len(k.fit.samples) != globalSamples+1 {
		t.Errorf("%d samples kept", len(k.fit.samples))
	}
}

// The 32-bit microsecond device clock wraps every 2^32 µs; samples are
// rebased so timestamps after the wrap stay continuous.
func TestTimeKeeperWrap(t *testing.T) {
	host := 50_000.0
	devAt := func(h float64) float64 { return math.Mod(h-50_000+deviceClockRange-300, deviceClockRange) }
	k := newTimeKeeper(func(context.Context) (float64, error) { return devAt(host), nil }, func() float64 { return host })
	for i := 0; i < 3; i++ {
		k.sample(context.Background())
		host += 100
	}
	// Device time 100 ms after the wrap is host 50_400.
	got, ok := k.toHost(devAt(50_400))
	if !ok || math.Abs(got-50_400) > 0.01 {
		t.Errorf("after wrap: %v %v", got, ok)
	}
}
