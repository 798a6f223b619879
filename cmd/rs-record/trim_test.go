package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/rsbag/rsbag/internal/testsupport/testbags"
)

// dumpLines runs dump and returns its lines decoded, by type.
func dumpLines(t *testing.T, bag string, args ...string) map[string][]map[string]any {
	t.Helper()
	r := rsRecord(t, append(append([]string{"dump"}, args...), bag)...)
	if r.code != 0 {
		t.Fatalf("dump %s: exit %d\n%s", bag, r.code, r.stderr)
	}
	out := map[string][]map[string]any{}
	for _, l := range strings.Split(strings.TrimSpace(r.stdout), "\n") {
		var v map[string]any
		if err := json.Unmarshal([]byte(l), &v); err != nil {
			t.Fatalf("dump line %q: %v", l, err)
		}
		out[v["type"].(string)] = append(out[v["type"].(string)], v)
	}
	return out
}

// frameKey is a frame line of dump without its sequence number.
func frameKey(f map[string]any) string {
	c := map[string]any{}
	for k, v := range f {
		if k != "seq" {
			c[k] = v
		}
	}
	b, _ := json.Marshal(c)
	return string(b)
}

// TestEditTrim: a trimmed bag of every reference bag passes the strict
// checkers and plays as the original restricted to the window: the same
// topology, the same frames (numbers, timestamps, metadata, pixels) at the
// same bag times, the options with the values they had at the cut, and the
// option changes inside the window.
func TestEditTrim(t *testing.T) {
	t.Parallel()
	bags := testbags.Librealsense(t, "../..")
	dir := t.TempDir()
	own := filepath.Join(dir, "synthetic.bag")
	if r := rsRecord(t, "record", "--synthetic", "--speed", "0", "--frames", "40", "--depth", "424x240@30",
		"--color", "424x240@30", "--accel", "100", "--gyro", "200", "-f", own); r.code != 0 {
		t.Fatalf("record: exit %d\n%s", r.code, r.stderr)
	}
	for _, bag := range append(bags, own) {
		t.Run(filepath.Base(bag), func(t *testing.T) {
			t.Parallel()
			orig := dumpLines(t, bag)
			frames := orig["frame"]
			if len(frames) < 4 {
				t.Skipf("%d frames", len(frames))
			}
			// The window: from the frame a quarter of the way to the one
			// three quarters of the way (by count, so that a recording whose
			// frames came in bursts still has frames inside), its bounds
			// midway between two distinct frame times so that rounding
			// the seconds cannot move a frame across them.
			var ps []float64
			for _, f := range frames {
				ps = append(ps, f["position_ns"].(float64))
			}
			sort.Float64s(ps)
			first := ps[0]
			between := func(i int) float64 { // midway below the first time > ps[i-1] at or after i
				for j := max(i, 1); j < len(ps); j++ {
					if ps[j] > ps[j-1] {
						return (ps[j-1] + ps[j]) / 2
					}
				}
				return ps[len(ps)-1] + 1
			}
			from, to := between(len(ps)/4), between(len(ps)*3/4)
			if to <= from {
				to = between(len(ps) - 1)
			}
			out := filepath.Join(dir, strings.TrimSuffix(filepath.Base(bag), ".bag")+".trim.bag")
			r := rsRecord(t, "edit", "trim", "--start", fmt.Sprint((from-first)/1e9), "--end", fmt.Sprint((to-first)/1e9), "-o", out, bag)
			if r.code != 0 {
				t.Fatalf("trim: exit %d\n%s", r.code, r.stderr)
			}
			checkStrict(t, out)
			got := dumpLines(t, out)
			var want []string
			for _, f := range frames {
				if p := f["position_ns"].(float64); p >= from && p < to {
					want = append(want, frameKey(f))
				}
			}
			var have []string
			for _, f := range got["frame"] {
				have = append(have, frameKey(f))
			}
			if len(want) == 0 || strings.Join(have, "\n") != strings.Join(want, "\n") {
				t.Fatalf("trimmed frames (%d) differ from the window's (%d):\n%s\nwant\n%s", len(have), len(want), strings.Join(have, "\n"), strings.Join(want, "\n"))
			}
			for _, typ := range []string{"device", "sensor", "stream_profile", "extrinsics"} {
				if fmt.Sprint(got[typ]) != fmt.Sprint(orig[typ]) {
					t.Errorf("%s lines differ:\n%v\nwant\n%v", typ, got[typ], orig[typ])
				}
			}
			// Options: the values at the cut, then the changes inside.
			type optKey struct{ sensor, id float64 }
			at := map[optKey]float64{}
			for _, o := range orig["option"] {
				at[optKey{o["sensor"].(float64), o["id"].(float64)}] = o["value"].(float64)
			}
			var inside []string
			for _, c := range orig["option_change"] {
				k := optKey{c["sensor"].(float64), c["id"].(float64)}
				switch p := c["position_ns"].(float64); {
				case p < from:
					at[k] = c["value"].(float64)
				case p < to:
					inside = append(inside, fmt.Sprint(c["name"], c["value"]))
				}
			}
			for _, o := range got["option"] {
				if k := (optKey{o["sensor"].(float64), o["id"].(float64)}); o["value"].(float64) != at[k] {
					t.Errorf("option %v: %v at the start of the trimmed bag, want %v (its value at the cut)", o["name"], o["value"], at[k])
				}
			}
			var changes []string
			for _, c := range got["option_change"] {
				changes = append(changes, fmt.Sprint(c["name"], c["value"]))
			}
			if strings.Join(changes, ";") != strings.Join(inside, ";") {
				t.Errorf("option changes %v, want %v", changes, inside)
			}
		})
	}
}

// TestEditTrimStreams keeps only the depth stream; TestEditSplit cuts a
// bag in parts whose frames, in order, are the original's.
func TestEditTrimStreamsAndSplit(t *testing.T) {
	t.Parallel()
	bag := "../../testdata/librealsense/depth_color.bag"
	dir := t.TempDir()
	depth := filepath.Join(dir, "depth.bag")
	if r := rsRecord(t, "edit", "trim", "--streams", "depth", "-o", depth, bag); r.code != 0 {
		t.Fatalf("trim --streams: exit %d\n%s", r.code, r.stderr)
	}
	checkStrict(t, depth)
	orig := dumpLines(t, bag)
	got := dumpLines(t, depth)
	var want []string
	for _, f := range orig["frame"] {
		if f["stream"] == "Depth" {
			want = append(want, fmt.Sprint(f["frame_number"], f["fnv1a64"]))
		}
	}
	var have []string
	for _, f := range got["frame"] {
		have = append(have, fmt.Sprint(f["frame_number"], f["fnv1a64"]))
	}
	if len(got["stream_profile"]) != 1 || strings.Join(have, ",") != strings.Join(want, ",") {
		t.Errorf("depth only: %d profiles, frames %v; want 1 profile, %v", len(got["stream_profile"]), have, want)
	}

	for _, every := range []string{"300ms", "256KiB"} { // the file has 689323 bytes
		prefix := filepath.Join(dir, "part-"+every)
		r := rsRecord(t, "edit", "split", "--every", every, "-o", prefix, bag)
		if r.code != 0 {
			t.Fatalf("split --every %s: exit %d\n%s", every, r.code, r.stderr)
		}
		parts, _ := filepath.Glob(prefix + "_*.bag")
		if len(parts) < 2 {
			t.Fatalf("split --every %s: %d parts", every, len(parts))
		}
		var all []string
		for i := range parts {
			p := fmt.Sprintf("%s_%d.bag", prefix, i)
			if _, err := os.Stat(p); err != nil {
				t.Fatal(err)
			}
			checkStrict(t, p)
			for _, f := range dumpLines(t, p)["frame"] {
				all = append(all, frameKey(f))
			}
		}
		var wantAll []string
		for _, f := range orig["frame"] {
			wantAll = append(wantAll, frameKey(f))
		}
		if strings.Join(all, "\n") != strings.Join(wantAll, "\n") {
			t.Errorf("split --every %s: the parts' frames (%d) are not the original's (%d)", every, len(all), len(wantAll))
		}
	}
	for _, args := range [][]string{
		{"edit", "trim", "-o", filepath.Join(dir, "x.bag"), "--start", "2", "--end", "1", bag},
		{"edit", "trim", "-o", filepath.Join(dir, "x.bag"), "--streams", "bogus", bag},
		{"edit", "split", "--every", "-1s", "-o", filepath.Join(dir, "y"), bag},
		{"edit", "split", "--every", "NaN", "-o", filepath.Join(dir, "y"), bag},
		{"edit", "trim", bag},
	} {
		if r := rsRecord(t, args...); r.code != 2 {
			t.Errorf("%v: exit %d, want 2\n%s", args, r.code, r.stderr)
		}
	}
	// A window outside the file, an output directory that does not exist:
	// one line naming the problem, exit 1, nothing written.
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"edit", "trim", "--start", "1000", "-o", filepath.Join(dir, "late.bag"), bag}, "after the last frame"},
		{[]string{"edit", "trim", "-o", filepath.Join(dir, "no", "such", "dir.bag"), bag}, "no such file or directory"},
	} {
		r := rsRecord(t, c.args...)
		if r.code != 1 || !strings.Contains(r.stderr, c.want) || strings.Count(strings.TrimSpace(r.stderr), "\n") != 0 {
			t.Errorf("%v: exit %d, stderr %q; want 1 and one line naming %q", c.args, r.code, r.stderr, c.want)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "late.bag")); err == nil {
		t.Error("a refused trim left an output file")
	}
}
