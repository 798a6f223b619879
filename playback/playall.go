package playback

import "github.com/rsbag/rsbag/sensor"

// PlayAll delivers the whole recording to h: it opens every sensor with all
// its recorded profiles and starts it with h. In real time the sensors are
// started while paused and playback then resumes (unless it was paused
// before), so that no stream misses frames read before it started. It
// returns a channel that is closed once playback next stops (the end of
// the file, a read error, Stop) and its status callback has run, or when
// the device closes.
func (d *Device) PlayAll(h sensor.Handler) (stopped <-chan struct{}, err error) {
	ch := make(chan struct{})
	d.statusMu.Lock()
	d.stopWait = append(d.stopWait, ch)
	d.statusMu.Unlock()
	var resume bool
	if err := d.refuseFromHandler("play all"); err != nil {
		return nil, err
	}
	err = d.do(func() error {
		if resume = d.rs.realTime && !d.rs.paused; resume {
			d.pause()
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	var started []*Sensor
	for _, s := range d.sensors {
		if len(s.snap.Profiles) == 0 {
			continue
		}
		if err := s.Open(s.Profiles()...); err != nil {
			return nil, err
		}
		started = append(started, s)
	}
	for _, s := range started {
		if err := s.Start(h); err != nil {
			return nil, err
		}
	}
	if resume {
		if err := d.Resume(); err != nil {
			return nil, err
		}
	}
	return ch, nil
}
