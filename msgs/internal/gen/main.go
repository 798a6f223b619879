// Command gen writes the message type descriptors of package msgs from the
// machine-readable message definitions (realsense-msgdefs.json), and those
// of the realsense_legacy_msgs types (file versions 1 and 2, read only by
// the reader of old bags) into internal/legacymsgs (-legacy).
//
// With -codecs it also writes the codec methods (Type, and the size,
// marshal and unmarshal that the descriptor's Size, Append and Unmarshal
// call) of every message struct of each package (msgs in -dir),
// checked field by field against its definition, into the file of that
// name in each package's directory.
//
// Usage (from the msgs directory, through go generate):
//
//	go run ./internal/gen -in ../testdata/spec/realsense-msgdefs.json -out types_gen.go -codecs codecs_gen.go -legacy ../internal/legacymsgs
package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"go/format"
	"log"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

type def struct {
	MD5        string `json:"md5sum"`
	Definition string `json:"message_definition"`
}

var (
	md5RE  = regexp.MustCompile(`^[0-9a-f]{32}$`)
	nameRE = regexp.MustCompile(`^[a-z_]+/[A-Za-z0-9_]+$`)
)

func main() {
	in := flag.String("in", "", "message definitions (JSON object: type name -> {md5sum, message_definition})")
	out := flag.String("out", "", "output Go file")
	codecs := flag.String("codecs", "", "output Go file of the codec methods (optional)")
	dir := flag.String("dir", ".", "directory of package msgs' message structs")
	legacy := flag.String("legacy", "", "directory of package legacymsgs (the realsense_legacy_msgs types), written too when set")
	flag.Parse()
	if *in == "" || *out == "" {
		log.Fatal("gen: -in and -out are required")
	}
	targets := []target{{pkg: "msgs", dir: *dir}}
	if *legacy != "" {
		targets = append(targets, target{pkg: "legacymsgs", dir: *legacy, legacy: true})
	}
	for _, t := range targets {
		src, err := generate(*in, t)
		if err != nil {
			log.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(t.dir, *out), src, 0o644); err != nil {
			log.Fatal(err)
		}
		if *codecs != "" {
			defs, err := loadDefs(*in)
			if err != nil {
				log.Fatal(err)
			}
			if err := writeCodecs(defs, t, filepath.Join(t.dir, *codecs)); err != nil {
				log.Fatal(err)
			}
		}
	}
}

// target is a package the generator writes message types into: msgs (every
// type but realsense_legacy_msgs), or legacymsgs (the realsense_legacy_msgs
// types, whose fields of msgs types are decoded through package msgs).
type target struct {
	pkg    string // package name
	dir    string // its directory, which holds its message structs
	legacy bool
}

// holds reports whether the package of t holds the ROS type ros.
func (t target) holds(ros string) bool {
	return strings.HasPrefix(ros, "realsense_legacy_msgs/") == t.legacy
}

// msgs returns the qualifier of package msgs' names in t's package.
func (t target) msgs() string {
	if t.legacy {
		return "msgs."
	}
	return ""
}

// goType returns the Go type of the message ros in t's package.
func (t target) goType(ros string) string {
	if t.holds(ros) {
		return goName(ros)
	}
	return "msgs." + goName(ros)
}

// goName derives the Go identifier of a ROS message type: the CamelCase of
// the message name, with "Std" in front of std_msgs/Time (Time is the ROS
// time primitive).
// descName returns the name of the descriptor variable of the message
// struct g: unexported, since the struct's Type method returns it.
func descName(g string) string {
	return strings.ToLower(g[:1]) + g[1:] + "Type"
}

func goName(ros string) string {
	_, name, _ := strings.Cut(ros, "/")
	var b strings.Builder
	if ros == "std_msgs/Time" {
		b.WriteString("Std")
	}
	for _, part := range strings.Split(name, "_") {
		if part == "" {
			continue
		}
		b.WriteString(strings.ToUpper(part[:1]) + part[1:])
	}
	return b.String()
}

// loadDefs reads the message definitions.
func loadDefs(path string) (map[string]def, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("gen: %w", err)
	}
	var defs map[string]def
	if err := json.Unmarshal(raw, &defs); err != nil {
		return nil, fmt.Errorf("gen: %s: %w", path, err)
	}
	return defs, nil
}

func generate(path string, t target) ([]byte, error) {
	defs, err := loadDefs(path)
	if err != nil {
		return nil, err
	}
	names := make([]string, 0, len(defs))
	for n, d := range defs {
		if !nameRE.MatchString(n) {
			return nil, fmt.Errorf("gen: %s: bad type name %q", path, n)
		}
		if !md5RE.MatchString(d.MD5) {
			return nil, fmt.Errorf("gen: %s: %s: bad md5sum %q", path, n, d.MD5)
		}
		if d.Definition == "" {
			return nil, fmt.Errorf("gen: %s: %s: empty message_definition", path, n)
		}
		if t.holds(n) {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	structs, err := goStructs(t.dir)
	if err != nil {
		return nil, fmt.Errorf("gen: %w", err)
	}
	b := generated("testdata/spec/realsense-msgdefs.json", t)
	for _, n := range names {
		d := defs[n]
		g := goName(n)
		fmt.Fprintf(b, "// %s describes %s (md5sum %s); (*%s).Type returns it.\n", descName(g), n, d.MD5, g)
		fmt.Fprintf(b, "var %s = %sType{\n\tName: %q,\n\tMD5: %q,\n\tDefinition: %s,\n",
			descName(g), t.msgs(), n, d.MD5, strconv.Quote(d.Definition))
		if _, ok := structs[g]; ok {
			m := t.msgs() + "Message"
			fmt.Fprintf(b, "\tSize: func(m %s) int { return m.(*%s).size() },\n", m, g)
			fmt.Fprintf(b, "\tAppend: func(b []byte, m %s) []byte { return m.(*%s).marshal(b) },\n", m, g)
			fmt.Fprintf(b, "\tUnmarshal: func(b []byte, m %s) error { return m.(*%s).unmarshal(b) },\n", m, g)
		}
		b.WriteString("}\n\n")
	}
	b.WriteString("// allTypes lists every descriptor, sorted by type name.\n")
	fmt.Fprintf(b, "var allTypes = [...]*%sType{\n", t.msgs())
	for _, n := range names {
		fmt.Fprintf(b, "\t&%s,\n", descName(goName(n)))
	}
	b.WriteString("}\n")
	src, err := format.Source(b.Bytes())
	if err != nil {
		return nil, fmt.Errorf("gen: format: %w", err)
	}
	return src, nil
}

// generated starts a generated file of t's package made from source,
// importing the packages named.
func generated(source string, t target, imports ...string) *bytes.Buffer {
	b := new(bytes.Buffer)
	fmt.Fprintf(b, "// Code generated by msgs/internal/gen from %s. DO NOT EDIT.\n\n", source)
	fmt.Fprintf(b, "package %s\n\n", t.pkg)
	if t.legacy {
		imports = append(imports, "github.com/rsbag/rsbag/msgs")
	}
	if len(imports) > 0 {
		sort.Strings(imports)
		b.WriteString("import (\n")
		for _, imp := range imports {
			fmt.Fprintf(b, "\t%q\n", imp)
		}
		b.WriteString(")\n\n")
	}
	return b
}
