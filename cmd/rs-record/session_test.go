package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rsbag/rsbag/rig"
)

// TestRecordSession: two synthetic cameras recorded together give two
// bags that each pass the conformance checkers and a manifest; dumped
// together their frames come in common bag-time order, each naming its
// device.
func TestRecordSession(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	file := filepath.Join(dir, "rig.bag")
	// 61 frames per stream (2 s at 30 fps), whatever the machine's speed.
	r := rsRecord(t, "record", "--synthetic", "--devices", "2", "--frames", "61", "--color", "424x240@30", "--depth", "424x240@30", "-f", file)
	if r.code != 0 {
		t.Fatalf("record: exit %d\n%s", r.code, r.stderr)
	}
	man := filepath.Join(dir, "rig.session.json")
	m, err := rig.ReadManifest(man)
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Bags) != 2 || m.Bags[0].Serial == m.Bags[1].Serial {
		t.Fatalf("manifest bags %+v", m.Bags)
	}
	if !strings.Contains(r.stdout, "session "+man+": 2 bags") {
		t.Errorf("stdout does not name the session:\n%s", r.stdout)
	}
	for i, p := range m.Paths(man) {
		if want := filepath.Join(dir, "rig."+m.Bags[i].Serial+".bag"); p != want {
			t.Errorf("bag %d at %s, want %s", i, p, want)
		}
		bi := infoJSON(t, p)
		if bi.FileVersion != 3 || !bi.Indexed || bi.frames("Depth") < 50 {
			t.Errorf("%s: version %d indexed %v depth frames %d", p, bi.FileVersion, bi.Indexed, bi.frames("Depth"))
		}
		checkStrict(t, p)
	}
	for _, args := range [][]string{{man}, m.Paths(man)} {
		d := rsRecord(t, append([]string{"dump"}, args...)...)
		if d.code != 0 {
			t.Fatalf("dump %v: exit %d\n%s", args, d.code, d.stderr)
		}
		var last int64 = -1
		frames := map[string]int{}
		for _, l := range strings.Split(strings.TrimSpace(d.stdout), "\n") {
			var o struct {
				Type       string
				Device     string
				PositionNs int64 `json:"position_ns"`
				Status     string
			}
			if err := json.Unmarshal([]byte(l), &o); err != nil {
				t.Fatal(err)
			}
			switch o.Type {
			case "frame":
				if o.PositionNs < last {
					t.Fatalf("frame at %d ns after one at %d ns: not in common time order", o.PositionNs, last)
				}
				last = o.PositionNs
				frames[o.Device]++
			case "summary":
				if o.Status != "ok" {
					t.Errorf("summary status %q", o.Status)
				}
			}
		}
		if frames[m.Bags[0].Serial] < 100 || frames[m.Bags[1].Serial] < 100 {
			t.Errorf("frames per device %v", frames)
		}
	}
	p := rsRecord(t, "play", "--realtime=false", man)
	if p.code != 0 || !strings.Contains(p.stdout, "played "+man) || !strings.Contains(p.stdout, m.Bags[1].Serial+" Depth/0") {
		t.Fatalf("play session: exit %d\n%s%s", p.code, p.stdout, p.stderr)
	}

	// Bad input: the same device twice, a manifest naming a missing bag.
	paths := m.Paths(man)
	if r := rsRecord(t, "dump", paths[0], paths[0]); r.code != 1 || !strings.Contains(r.stderr, "same device") {
		t.Errorf("the same bag twice: exit %d %s", r.code, r.stderr)
	}
	b, _ := os.ReadFile(man)
	bad := filepath.Join(dir, "bad.session.json")
	os.WriteFile(bad, []byte(strings.Replace(string(b), filepath.Base(paths[1]), "gone.bag", 1)), 0o644)
	if r := rsRecord(t, "play", bad); r.code != 1 || !strings.Contains(r.stderr, "gone.bag") {
		t.Errorf("manifest naming a missing bag: exit %d %s", r.code, r.stderr)
	}
}

func TestRecordSessionUsage(t *testing.T) {
	t.Parallel()
	for _, args := range [][]string{
		{"record", "--devices", "17"},
		{"record", "--devices", "-1"},
		{"record", "--device", "A", "--device", "A"},
		{"record", "--device", ""},
		{"record", "--devices", "3", "--device", "A"},
		{"play", "--loop", "a.bag", "b.bag"},
		{"dump", "--limit", "3", "a.bag", "b.bag"},
	} {
		if r := rsRecord(t, args...); r.code != 2 {
			t.Errorf("%v: exit %d, want 2\n%s", args, r.code, r.stderr)
		}
	}
}
