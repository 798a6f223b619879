package playback

import "github.com/rsbag/rsbag/sensor"

// PlayAll delivers the whole recording to h: it opens every sensor with all
// its recorded profiles and starts it with h, all before the device reads
// on, so that no stream misses frames read before it started. It
// returns a channel that is closed once playback next stops (the end of
// the file, a read error, Stop) and its status callback has run, or when
// the device closes.
func (d *Device) PlayAll(h sensor.Handler) (stopped <-chan struct{}, err error) {
	if err := d.refuseFromHandler("play all"); err != nil {
		return nil, err
	}
	ch := make(chan struct{})
	// Opened and started in one request: the reader reads nothing before
	// every stream is started, nor before ch waits for its stop.
	err = d.do(func() error {
		var opened []*bagSensor
		for _, s := range d.sensors {
			if len(s.streams) == 0 {
				continue
			}
			profiles := s.Profiles()
			sel, err := s.streamsOf(profiles)
			if err == nil {
				err = d.openSensor(s, profiles, sel)
			}
			if err != nil {
				return err
			}
			opened = append(opened, s)
		}
		for _, s := range opened {
			if err := d.startSensor(s, h); err != nil {
				return err
			}
		}
		d.statusMu.Lock()
		d.stopWait = append(d.stopWait, ch)
		d.statusMu.Unlock()
		return nil
	})
	if err != nil {
		return nil, err
	}
	return ch, nil
}
