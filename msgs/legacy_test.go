package msgs_test

import (
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/rsbag/rsbag/internal/legacymsgs"
	"github.com/rsbag/rsbag/msgs"
)

// TestLegacyDescriptorsMatchJSON checks the descriptors of the file version 1
// types (internal/legacymsgs, generated with this package's) against the
// JSON: together with this package's, they are every type of the spec.
func TestLegacyDescriptorsMatchJSON(t *testing.T) {
	raw, err := os.ReadFile(msgs.SpecJSON)
	if err != nil {
		t.Fatal(err)
	}
	var defs map[string]struct {
		MD5        string `json:"md5sum"`
		Definition string `json:"message_definition"`
	}
	if err := json.Unmarshal(raw, &defs); err != nil {
		t.Fatal(err)
	}
	if n := len(msgs.Types()) + len(legacymsgs.Types()); n != len(defs) {
		t.Fatalf("%d descriptors, %d types in %s", n, len(defs), msgs.SpecJSON)
	}
	for name, d := range defs {
		if !strings.HasPrefix(name, "realsense_legacy_msgs/") {
			continue
		}
		typ, ok := legacymsgs.LookupType(name)
		if !ok {
			t.Errorf("%s: no descriptor", name)
			continue
		}
		if typ.MD5 != d.MD5 || typ.Definition != d.Definition {
			t.Errorf("%s: descriptor differs from %s (run go generate)", name, msgs.SpecJSON)
		}
	}
}

// TestLegacyMD5 recomputes the md5sum of every file version 1 type from its
// definition text, as TestMD5 does for this package's types.
func TestLegacyMD5(t *testing.T) {
	lookup := func(name string) (*msgs.Type, bool) {
		if typ, ok := msgs.LookupType(name); ok {
			return typ, true
		}
		return legacymsgs.LookupType(name)
	}
	for _, typ := range legacymsgs.Types() {
		main, deps, err := msgs.SplitDefinition(typ.Definition)
		if err != nil {
			t.Fatalf("%s: %v", typ.Name, err)
		}
		sum, err := msgs.GenmsgMD5(typ.Name, main, deps)
		if err != nil {
			t.Fatal(err)
		}
		if sum != typ.MD5 {
			t.Errorf("%s: computed md5 %s, descriptor %s", typ.Name, sum, typ.MD5)
		}
		for dep, text := range deps {
			dsum, err := msgs.GenmsgMD5(dep, text, deps)
			if err != nil {
				t.Fatal(err)
			}
			if dt, ok := lookup(dep); ok && dt.MD5 != dsum {
				t.Errorf("%s: embedded %s hashes to %s, descriptor %s", typ.Name, dep, dsum, dt.MD5)
			}
		}
	}
}
