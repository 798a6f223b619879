package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/rsbag/rsbag/internal/layout"
	"github.com/rsbag/rsbag/msgs"
	"github.com/rsbag/rsbag/playback"
	"github.com/rsbag/rsbag/rosbag"
)

// TestAdditionalInfo: every recording writes /additional_info
// (diagnostic_msgs/KeyValue, as librealsense's documentation names it and
// its reader ignores, spec §4): the program, its version, then each
// --note in order; info shows them, the bag plays as before and passes
// the ROS checkers.
func TestAdditionalInfo(t *testing.T) {
	t.Parallel()
	// The topic and type as the spec names them.
	if spec, err := os.ReadFile("../../../shared/spec/realsense-bag-format.md"); err == nil {
		if !regexp.MustCompile("`" + regexp.QuoteMeta(layout.AdditionalInfoTopic) + "` \\(KeyValue\\)").Match(spec) {
			t.Errorf("the spec does not name %s (KeyValue)", layout.AdditionalInfoTopic)
		}
	}
	if defs, err := os.ReadFile("../../../shared/spec/realsense-msgdefs.json"); err == nil {
		var d map[string]struct {
			MD5 string `json:"md5sum"`
		}
		if err := json.Unmarshal(defs, &d); err != nil || d["diagnostic_msgs/KeyValue"].MD5 != new(msgs.KeyValue).Type().MD5 {
			t.Errorf("KeyValue md5 %s, the spec's %s (%v)", new(msgs.KeyValue).Type().MD5, d["diagnostic_msgs/KeyValue"].MD5, err)
		}
	}

	dir := t.TempDir()
	bag := filepath.Join(dir, "notes.bag")
	if r := rsRecord(t, "record", "--synthetic", "--speed", "0", "--frames", "3", "--depth", "64x48@30", "--color", "64x48@30",
		"--note", "site=lab 2", "--note", "operator=a=b", "-f", bag); r.code != 0 {
		t.Fatalf("record: exit %d\n%s", r.code, r.stderr)
	}
	r, err := rosbag.Open(bag, nil)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, c := range r.Connections() {
		if c.Topic == layout.AdditionalInfoTopic && (c.Type != new(msgs.KeyValue).Type().Name || c.MD5Sum != new(msgs.KeyValue).Type().MD5) {
			t.Errorf("%s: type %s %s", c.Topic, c.Type, c.MD5Sum)
		}
	}
	it := r.Messages(nil)
	for it.Next() {
		if m := it.Message(); m.Conn.Topic == layout.AdditionalInfoTopic {
			var kv msgs.KeyValue
			if err := msgs.Unmarshal(m.Data, &kv); err != nil {
				t.Fatal(err)
			}
			got = append(got, kv.Key+"="+kv.Value)
		}
	}
	it.Close()
	r.Close()
	if len(got) != 4 || got[0] != "Program=rs-record" || !strings.HasPrefix(got[1], "Version=") || got[2] != "site=lab 2" || got[3] != "operator=a=b" {
		t.Errorf("/additional_info: %q", got)
	}

	info := rsRecord(t, "info", bag)
	if !strings.Contains(info.stdout, "recording:    Program: rs-record") || !strings.Contains(info.stdout, "site: lab 2") {
		t.Errorf("info does not show the notes:\n%s", info.stdout)
	}
	var rep struct {
		AdditionalInfo []struct{ Name, Value string } `json:"additional_info"`
	}
	if r := rsRecord(t, "info", "--json", "--quick", bag); json.Unmarshal([]byte(r.stdout), &rep) != nil || len(rep.AdditionalInfo) != 4 ||
		rep.AdditionalInfo[3].Name != "operator" || rep.AdditionalInfo[3].Value != "a=b" {
		t.Errorf("info --json --quick: %+v", rep.AdditionalInfo)
	}
	dev, err := playback.Open(bag, &playback.Options{NonRealTime: true})
	if err != nil {
		t.Fatal(err)
	}
	dev.Close()
	checkStrict(t, bag)

	for _, bad := range []string{"novalue", "=x"} {
		if r := rsRecord(t, "record", "--synthetic", "--frames", "1", "--note", bad, "-f", filepath.Join(dir, "bad.bag")); r.code != 2 || !strings.Contains(r.stderr, "KEY=VALUE") {
			t.Errorf("--note %q: exit %d, want 2\n%s", bad, r.code, r.stderr)
		}
	}
}
