package units

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/rsbag/rsbag/mcapbag"
	"github.com/rsbag/rsbag/rosbag"
)

// fromMCAP turns each MCAP file (ros1 profile, as `rs-record export
// --mcap` writes it; a name ending in .mcap) among paths into a bag in a
// temporary directory, and returns the paths to replay and a function that
// removes the temporary bags. Other paths are returned as they are.
func fromMCAP(paths []string) ([]string, func(), error) {
	var dir string
	cleanup := func() {
		if dir != "" {
			os.RemoveAll(dir)
		}
	}
	out := make([]string, len(paths))
	for i, p := range paths {
		if !strings.EqualFold(filepath.Ext(p), ".mcap") {
			out[i] = p
			continue
		}
		if dir == "" {
			d, err := os.MkdirTemp("", "units-mcap")
			if err != nil {
				return nil, cleanup, fmt.Errorf("units: %s: %w", p, err)
			}
			dir = d
		}
		bag := filepath.Join(dir, fmt.Sprintf("%d-%s.bag", i, strings.TrimSuffix(filepath.Base(p), filepath.Ext(p))))
		if err := importMCAP(bag, p); err != nil {
			return nil, cleanup, fmt.Errorf("units: %s: %w", p, err)
		}
		out[i] = bag
	}
	return out, cleanup, nil
}

func importMCAP(bag, path string) error {
	src, err := os.Open(path)
	if err != nil {
		return err
	}
	defer src.Close()
	w, err := rosbag.Create(bag, nil)
	if err != nil {
		return err
	}
	if _, err := mcapbag.Import(w, src); err != nil {
		w.Close()
		return err
	}
	return w.Close()
}
