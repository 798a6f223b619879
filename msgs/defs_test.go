package msgs

import (
	"crypto/md5"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"reflect"
	"strconv"
	"strings"
	"testing"
)

const specJSON = "../testdata/spec/realsense-msgdefs.json"

// rosField is one line of a message definition.
type rosField struct {
	Type, Name string
	Const      bool
	Value      string
}

// parseSection parses the fields and constants of one message definition
// section (comments and blank lines dropped).
func parseSection(text string) ([]rosField, error) {
	var out []rosField
	for _, line := range strings.Split(text, "\n") {
		if i := strings.IndexByte(line, '#'); i >= 0 {
			line = line[:i]
		}
		line = strings.TrimSpace(line)
		if line == "" {
			continue
		}
		typ, rest, ok := strings.Cut(line, " ")
		if !ok {
			return nil, fmt.Errorf("bad line %q", line)
		}
		rest = strings.TrimSpace(rest)
		if name, val, isConst := strings.Cut(rest, "="); isConst {
			out = append(out, rosField{Type: typ, Name: strings.TrimSpace(name), Const: true, Value: strings.TrimSpace(val)})
			continue
		}
		if strings.ContainsAny(rest, " \t") {
			return nil, fmt.Errorf("bad line %q", line)
		}
		out = append(out, rosField{Type: typ, Name: rest})
	}
	return out, nil
}

// splitDefinition returns the main section and the dependency sections by type name.
func splitDefinition(def string) (string, map[string]string, error) {
	sep := strings.Repeat("=", 80)
	lines := strings.Split(def, "\n")
	var main []string
	deps := map[string]string{}
	cur := &main
	var names []string
	var bodies [][]string
	for i := 0; i < len(lines); i++ {
		if lines[i] == sep {
			if i+1 >= len(lines) || !strings.HasPrefix(lines[i+1], "MSG: ") {
				return "", nil, fmt.Errorf("separator without MSG: line")
			}
			names = append(names, strings.TrimPrefix(lines[i+1], "MSG: "))
			bodies = append(bodies, nil)
			cur = &bodies[len(bodies)-1]
			i++
			continue
		}
		*cur = append(*cur, lines[i])
	}
	for i, n := range names {
		deps[n] = strings.Join(bodies[i], "\n")
	}
	return strings.Join(main, "\n"), deps, nil
}

var builtins = map[string]bool{
	"bool": true, "byte": true, "char": true, "int8": true, "uint8": true, "int16": true, "uint16": true,
	"int32": true, "uint32": true, "int64": true, "uint64": true, "float32": true, "float64": true,
	"string": true, "time": true, "duration": true,
}

// baseType splits "float64[9]" into "float64", "[9]".
func baseType(t string) (string, string) {
	if i := strings.IndexByte(t, '['); i >= 0 {
		return t[:i], t[i:]
	}
	return t, ""
}

// resolve gives the full name of a message type used in package pkg.
func resolve(base, pkg string) string {
	if strings.Contains(base, "/") {
		return base
	}
	if base == "Header" {
		return "std_msgs/Header"
	}
	return pkg + "/" + base
}

// genmsgMD5 computes the md5sum of a section with the ROS genmsg algorithm.
func genmsgMD5(name, section string, deps map[string]string) (string, error) {
	fields, err := parseSection(section)
	if err != nil {
		return "", fmt.Errorf("%s: %w", name, err)
	}
	pkg, _, _ := strings.Cut(name, "/")
	var lines []string
	for _, f := range fields {
		if f.Const {
			lines = append(lines, fmt.Sprintf("%s %s=%s", f.Type, f.Name, f.Value))
		}
	}
	for _, f := range fields {
		if f.Const {
			continue
		}
		base, _ := baseType(f.Type)
		if builtins[base] {
			lines = append(lines, f.Type+" "+f.Name)
			continue
		}
		full := resolve(base, pkg)
		dep, ok := deps[full]
		if !ok {
			return "", fmt.Errorf("%s: dependency %s missing", name, full)
		}
		sum, err := genmsgMD5(full, dep, deps)
		if err != nil {
			return "", err
		}
		lines = append(lines, sum+" "+f.Name)
	}
	h := md5.Sum([]byte(strings.Join(lines, "\n")))
	return hex.EncodeToString(h[:]), nil
}

type jsonDef struct {
	MD5        string `json:"md5sum"`
	Definition string `json:"message_definition"`
}

func loadSpec(t testing.TB) map[string]jsonDef {
	t.Helper()
	raw, err := os.ReadFile(specJSON)
	if err != nil {
		t.Fatal(err)
	}
	var defs map[string]jsonDef
	if err := json.Unmarshal(raw, &defs); err != nil {
		t.Fatal(err)
	}
	return defs
}

// TestDescriptorsMatchJSON checks the generated descriptors against the JSON.
func TestDescriptorsMatchJSON(t *testing.T) {
	defs := loadSpec(t)
	for name := range defs {
		if strings.HasPrefix(name, "realsense_legacy_msgs/") {
			delete(defs, name) // internal/legacymsgs' (TestLegacyDescriptorsMatchJSON)
		}
	}
	if len(types()) != len(defs) {
		t.Fatalf("%d descriptors, %d types in %s", len(types()), len(defs), specJSON)
	}
	for name, d := range defs {
		typ, ok := LookupType(name)
		if !ok {
			t.Errorf("%s: no descriptor", name)
			continue
		}
		if typ.MD5 != d.MD5 || typ.Definition != d.Definition {
			t.Errorf("%s: descriptor differs from %s (run go generate)", name, specJSON)
		}
	}
}

// TestMD5 recomputes every md5sum from the definition text (genmsg algorithm).
func TestMD5(t *testing.T) {
	for _, typ := range types() {
		main, deps, err := splitDefinition(typ.Definition)
		if err != nil {
			t.Fatalf("%s: %v", typ.Name, err)
		}
		sum, err := genmsgMD5(typ.Name, main, deps)
		if err != nil {
			t.Fatal(err)
		}
		if sum != typ.MD5 {
			t.Errorf("%s: computed md5 %s, descriptor %s", typ.Name, sum, typ.MD5)
		}
		// Every embedded dependency must also hash to its own descriptor's md5.
		for dep, text := range deps {
			dsum, err := genmsgMD5(dep, text, deps)
			if err != nil {
				t.Fatal(err)
			}
			if dt, ok := LookupType(dep); ok && dt.MD5 != dsum {
				t.Errorf("%s: embedded %s hashes to %s, descriptor %s", typ.Name, dep, dsum, dt.MD5)
			}
		}
	}
}

func TestLookupMD5SharedByAccelAndTwist(t *testing.T) {
	got := lookupMD5(accelType.MD5)
	if len(got) != 2 || got[0] != &accelType || got[1] != &twistType {
		t.Errorf("lookupMD5(%s) = %v, want [geometry_msgs/Accel geometry_msgs/Twist]", accelType.MD5, got)
	}
	if got := lookupMD5("00000000000000000000000000000000"); got != nil {
		t.Errorf("unknown md5 gave %v", got)
	}
}

// allMessages returns one zero value of every message type.
func allMessages() []Message {
	var out []Message
	for _, typ := range types() {
		if m := New(typ.Name); m != nil {
			out = append(out, m)
		}
	}
	return out
}

func TestNewCoversEveryType(t *testing.T) {
	for _, typ := range types() {
		m := New(typ.Name)
		if m == nil {
			t.Errorf("New(%q) = nil", typ.Name)
			continue
		}
		if m.Type() != typ {
			t.Errorf("New(%q).Type() = %s", typ.Name, m.Type().Name)
		}
	}
	if New("nav_msgs/OccupancyGrid") != nil {
		t.Error("New of an unknown type is not nil")
	}
}

var (
	boolType = reflect.TypeFor[Bool]()
	timeType = reflect.TypeFor[Time]()
)

var primitiveKinds = map[string]reflect.Kind{
	"uint8": reflect.Uint8, "byte": reflect.Uint8, "char": reflect.Uint8, "int8": reflect.Int8,
	"uint16": reflect.Uint16, "int16": reflect.Int16, "uint32": reflect.Uint32, "int32": reflect.Int32,
	"uint64": reflect.Uint64, "int64": reflect.Int64, "float32": reflect.Float32, "float64": reflect.Float64,
	"string": reflect.String,
}

// checkGoType reports whether the Go type gt can hold the ROS type rt.
func checkGoType(rt, pkg string, gt reflect.Type) error {
	base, arr := baseType(rt)
	if arr != "" {
		if arr == "[]" {
			if gt.Kind() != reflect.Slice {
				return fmt.Errorf("%s: Go type %s is not a slice", rt, gt)
			}
		} else {
			n, err := strconv.Atoi(arr[1 : len(arr)-1])
			if err != nil {
				return fmt.Errorf("%s: bad array length", rt)
			}
			if gt.Kind() != reflect.Array || gt.Len() != n {
				return fmt.Errorf("%s: Go type %s is not [%d]", rt, gt, n)
			}
		}
		return checkGoType(base, pkg, gt.Elem())
	}
	switch {
	case base == "bool":
		if gt != boolType {
			return fmt.Errorf("bool: Go type %s, want msgs.Bool", gt)
		}
	case base == "time":
		if gt != timeType {
			return fmt.Errorf("time: Go type %s, want msgs.Time", gt)
		}
	case builtins[base]:
		k, ok := primitiveKinds[base]
		if !ok || gt.Kind() != k || gt.PkgPath() != "" {
			return fmt.Errorf("%s: Go type %s", base, gt)
		}
	default:
		m, ok := reflect.New(gt).Interface().(Message)
		if !ok {
			return fmt.Errorf("%s: Go type %s is not a Message", base, gt)
		}
		if want := resolve(base, pkg); m.Type().Name != want {
			return fmt.Errorf("%s: Go type %s is %s", want, gt, m.Type().Name)
		}
	}
	return nil
}

// TestStructFieldsMatchDefinitions checks every Go struct's ros-tagged fields,
// in order, against the fields of its definition text.
func TestStructFieldsMatchDefinitions(t *testing.T) {
	for _, m := range allMessages() {
		typ := m.Type()
		main, _, err := splitDefinition(typ.Definition)
		if err != nil {
			t.Fatal(err)
		}
		all, err := parseSection(main)
		if err != nil {
			t.Fatalf("%s: %v", typ.Name, err)
		}
		var fields []rosField
		for _, f := range all {
			if !f.Const {
				fields = append(fields, f)
			}
		}
		st := reflect.TypeOf(m).Elem()
		var goFields []reflect.StructField
		for i := 0; i < st.NumField(); i++ {
			sf := st.Field(i)
			tag, ok := sf.Tag.Lookup("ros")
			if !ok {
				t.Errorf("%s: field %s has no ros tag", typ.Name, sf.Name)
				continue
			}
			if tag != "-" {
				goFields = append(goFields, sf)
			}
		}
		if len(goFields) != len(fields) {
			t.Errorf("%s: %d Go fields, %d in the definition", typ.Name, len(goFields), len(fields))
			continue
		}
		pkg, _, _ := strings.Cut(typ.Name, "/")
		for i, f := range fields {
			sf := goFields[i]
			if tag := sf.Tag.Get("ros"); tag != f.Name {
				t.Errorf("%s: field %d is %q in Go, %q in the definition", typ.Name, i, tag, f.Name)
			}
			if err := checkGoType(f.Type, pkg, sf.Type); err != nil {
				t.Errorf("%s.%s: %v", typ.Name, f.Name, err)
			}
		}
	}
}

func TestLogConstants(t *testing.T) {
	main, _, _ := splitDefinition(logType.Definition)
	fields, err := parseSection(main)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]uint8{"DEBUG": LogDebug, "INFO": LogInfo, "WARN": LogWarn, "ERROR": LogError, "FATAL": LogFatal}
	n := 0
	for _, f := range fields {
		if !f.Const {
			continue
		}
		n++
		v, err := strconv.ParseUint(f.Value, 10, 8)
		if err != nil || want[f.Name] != uint8(v) {
			t.Errorf("constant %s=%s, Go has %d", f.Name, f.Value, want[f.Name])
		}
	}
	if n != len(want) {
		t.Errorf("%d constants in the definition, %d in Go", n, len(want))
	}
}
