package processing

// rgb is a color of a color map, components 0..255 as float32.
type rgb [3]float32

// colorMap is librealsense's color_map: colors at evenly spaced keys in
// [0, 1], linearly interpolated into a table of steps+1 entries that a
// value in [0, 1] indexes.
type colorMap struct {
	name  string
	table []rgb
}

// defaultSteps is librealsense's color_map default table resolution.
const defaultSteps = 4000

// newColorMap builds the table of the colors placed at keys i/(n-1).
func newColorMap(name string, colors []rgb, steps int) *colorMap {
	n := len(colors)
	keys := make([]float32, n)
	for i := range keys {
		keys[i] = float32(i) / float32(n-1)
	}
	calc := func(x float32) rgb {
		for i, k := range keys {
			if k == x {
				return colors[i]
			}
		}
		if x < keys[0] {
			return colors[0]
		}
		if x > keys[n-1] {
			return colors[n-1]
		}
		hi := 1
		for keys[hi] <= x {
			hi++
		}
		lo := hi - 1
		t := (x - keys[lo]) / (keys[hi] - keys[lo])
		var c rgb
		for k := range c {
			// b*t + a*(1-t), each product rounded to float32 (no fused
			// multiply-add).
			c[k] = float32(colors[hi][k]*t) + float32(colors[lo][k]*float32(1-t))
		}
		return c
	}
	lo, hi := keys[0], keys[n-1]
	m := &colorMap{name: name, table: make([]rgb, steps+1)}
	for i := range m.table {
		t := float32(i) / float32(steps)
		m.table[i] = calc(lo + float32(t*(hi-lo)))
	}
	return m
}

// at returns the color of v in [0, 1] (clamped; NaN counts as 0).
func (m *colorMap) at(v float32) rgb {
	if !(v > 0) {
		v = 0
	} else if v > 1 {
		v = 1
	}
	return m.table[int(v*float32(len(m.table)-1))]
}

// The color maps of librealsense's colorizer (src/proc/colorizer.cpp), in
// the order of its color scheme option.
var colorMaps = func() []*colorMap {
	var pattern []rgb
	for range 25 {
		pattern = append(pattern, rgb{255, 255, 255}, rgb{0, 0, 0})
	}
	return []*colorMap{
		newColorMap("Jet", []rgb{{0, 0, 255}, {0, 255, 255}, {255, 255, 0}, {255, 0, 0}, {50, 0, 0}}, defaultSteps),
		newColorMap("Classic", []rgb{{30, 77, 203}, {25, 60, 192}, {45, 117, 220}, {204, 108, 191}, {196, 57, 178}, {198, 33, 24}}, defaultSteps),
		newColorMap("White to Black", []rgb{{255, 255, 255}, {0, 0, 0}}, defaultSteps),
		newColorMap("Black to White", []rgb{{0, 0, 0}, {255, 255, 255}}, defaultSteps),
		newColorMap("Bio", []rgb{{0, 0, 204}, {204, 230, 255}, {255, 255, 153}, {170, 255, 128}, {0, 153, 0}, {230, 242, 255}}, defaultSteps),
		newColorMap("Cold", []rgb{{230, 247, 255}, {0, 92, 230}, {0, 179, 179}, {0, 51, 153}, {0, 5, 15}}, defaultSteps),
		newColorMap("Warm", []rgb{{255, 255, 230}, {255, 204, 0}, {255, 136, 77}, {255, 51, 0}, {128, 0, 0}, {10, 0, 0}}, defaultSteps),
		newColorMap("Quantized", []rgb{{255, 255, 255}, {0, 0, 0}}, 6),
		newColorMap("Pattern", pattern, defaultSteps),
		newColorMap("Hue", []rgb{{255, 0, 0}, {255, 255, 0}, {0, 255, 0}, {0, 255, 255}, {0, 0, 255}, {255, 0, 255}, {255, 0, 0}}, defaultSteps),
	}
}()

// ColorSchemes returns the names of the Colorizer's color schemes, indexed by
// the value of its OptionColorScheme.
func ColorSchemes() []string {
	out := make([]string, len(colorMaps))
	for i, m := range colorMaps {
		out[i] = m.name
	}
	return out
}
