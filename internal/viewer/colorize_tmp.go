package viewer

import (
	"encoding/binary"

	"github.com/rsbag/rsbag/sensor"
)

// TEMPORARY until the processing package lands.
type colorizer struct{}

func schemeNames() []string { return []string{"Jet"} }

func (c *colorizer) colorize(f *sensor.Frame, scheme int32, dst []byte) error {
	for y := 0; y < f.Height; y++ {
		for x := 0; x < f.Width; x++ {
			v := binary.LittleEndian.Uint16(f.Data[y*f.Stride+2*x:])
			i := 4 * (y*f.Width + x)
			dst[i], dst[i+1], dst[i+2], dst[i+3] = byte(v>>8), byte(v>>4), byte(v), 255
		}
	}
	return nil
}
