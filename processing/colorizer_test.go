package processing

import (
	"bufio"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rsbag/rsbag/sensor"
)

const refDir = "../testdata/librealsense"

// procOp is one output of librealsense's processing of a depth frame.
type procOp struct {
	Hash   string `json:"hash"`
	Bytes  int    `json:"bytes"`
	Format string `json:"format"`
	Width  int    `json:"width"`
	Height int    `json:"height"`
	Stride int    `json:"stride"`
}

type procLine struct {
	Type   string            `json:"type"`
	Name   string            `json:"name"`
	Number uint64            `json:"number"`
	Paired *uint64           `json:"paired"`
	Ops    map[string]procOp `json:"ops"`
}

// eachProcReference runs check, as a subtest, for every processing
// reference file with its bag and depth lines.
func eachProcReference(t *testing.T, check func(t *testing.T, file, bag string, lines []procLine)) {
	files, _ := filepath.Glob(filepath.Join(refDir, "processing", "*.proc.expected.jsonl"))
	if len(files) == 0 {
		t.Fatal("no processing expectations")
	}
	for _, file := range files {
		t.Run(strings.TrimSuffix(filepath.Base(file), ".proc.expected.jsonl"), func(t *testing.T) {
			bag, lines := procExpected(t, file)
			check(t, file, bag, lines)
		})
	}
}

// eachLine calls f with every line of a reference file.
func eachLine(t testing.TB, file string, f func(line []byte)) {
	t.Helper()
	r, err := os.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	sc := bufio.NewScanner(r)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		f(sc.Bytes())
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
}

// procExpected reads a processing/NAME.proc.expected.jsonl file: the bag it
// describes and its depth lines.
func procExpected(t testing.TB, file string) (bag string, depth []procLine) {
	t.Helper()
	eachLine(t, file, func(line []byte) {
		var l procLine
		if err := json.Unmarshal(line, &l); err != nil {
			t.Fatalf("%s: %v", file, err)
		}
		switch l.Type {
		case "file":
			bag = filepath.Join(refDir, l.Name)
			if _, err := os.Stat(bag); err != nil {
				bag = filepath.Join(refDir, "real", l.Name)
			}
		case "depth":
			depth = append(depth, l)
		}
	})
	return bag, depth
}

// depthFrames plays a bag losslessly and returns its Z16 depth frames by
// frame number.
func depthFrames(t testing.TB, path string) map[uint64]*sensor.Frame {
	t.Helper()
	return streamFrames(t, path, func(p *sensor.StreamProfile) bool {
		return p.Stream == sensor.StreamDepth && p.Format == sensor.FormatZ16
	})
}

func hashOf(b []byte) string {
	h := fnv.New64a()
	h.Write(b)
	return fmt.Sprintf("%016x", h.Sum64())
}

// checkOp compares an output frame with librealsense's.
func checkOp(t *testing.T, what string, f *sensor.Frame, want procOp) {
	t.Helper()
	if got := (procOp{hashOf(f.Data), len(f.Data), f.Profile.Format.String(), f.Width, f.Height, f.Stride}); got != want {
		t.Errorf("%s: %+v, want %+v", what, got, want)
	}
}

// TestColorizerMatchesLibrealsense: every depth frame of every reference
// bag, colorized with the defaults and with each of the ten schemes (no
// equalization, 0.3 to 4 m), equals librealsense's output byte for byte;
// each output is then scribbled over and given back to internal/framepool,
// so that the next ones, made in its memory, must write every byte.
func TestColorizerMatchesLibrealsense(t *testing.T) {
	eachProcReference(t, func(t *testing.T, file, bag string, lines []procLine) {
		frames := depthFrames(t, bag)
		def := NewColorizer()
		schemes := make([]*Colorizer, len(colorMaps))
		for k := range schemes {
			schemes[k] = NewColorizer()
			for _, o := range []struct {
				opt sensor.Option
				v   float32
			}{{sensor.OptionHistogramEqualizationEnabled, 0}, {sensor.OptionColorScheme, float32(k)},
				{sensor.OptionMinDistance, 0.3}, {sensor.OptionMaxDistance, 4}} {
				if err := schemes[k].SetOption(o.opt, o.v); err != nil {
					t.Fatal(err)
				}
			}
		}
		checked := 0
		for _, l := range lines {
			f, ok := frames[l.Number]
			if !ok {
				t.Fatalf("depth frame %d not in %s", l.Number, bag)
			}
			out, err := def.Process(f)
			if err != nil {
				t.Fatal(err)
			}
			checkOp(t, fmt.Sprintf("frame %d colorize", l.Number), out, l.Ops["colorize"])
			recycle(out)
			for k, c := range schemes {
				out, err := c.Process(f)
				if err != nil {
					t.Fatal(err)
				}
				checkOp(t, fmt.Sprintf("frame %d colorize.scheme-%d", l.Number, k), out, l.Ops[fmt.Sprintf("colorize.scheme-%d", k)])
				recycle(out)
			}
			checked++
		}
		if checked == 0 {
			t.Error("no depth frame checked")
		}
	})
}
