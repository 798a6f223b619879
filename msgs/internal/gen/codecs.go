package main

import (
	"bytes"
	"fmt"
	"go/ast"
	"go/format"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"sort"
	"strconv"
	"strings"
)

// A field of a message: its ROS name and wire type from the definition, and
// the Go field and type of the struct that holds it.
type field struct {
	ros     string // field name in the definition
	wire    string // element type in the definition: uint32, string, Header, ...
	array   int    // -1: not an array; 0: variable length; n: fixed length n
	goName  string // struct field
	goType  string // its Go type, as written
	nested  bool   // wire is a message type
	element string // Go element type of an array field
	min     int    // least encoded size of an element of a message array
	foreign bool   // nested, of a type of package msgs in package legacymsgs
}

// trailers lists the message types whose encoding has a librealsense
// addition after the fields of the definition. Their hand-written
// sizeTrailer, appendTrailer and decodeTrailer methods are called after the
// generated fields (sensor_msgs/Image: the depth_units float32 librealsense
// appends).
var trailers = map[string]bool{"Image": true}

// goTypes lists the Go types that may hold each primitive wire type.
var goTypes = map[string][]string{
	"bool": {"Bool"}, "uint8": {"uint8", "byte"}, "byte": {"uint8", "byte"}, "char": {"uint8", "byte"},
	"int8":   {"int8"},
	"uint32": {"uint32"}, "int32": {"int32"}, "uint64": {"uint64"}, "int64": {"int64"},
	"float32": {"float32"}, "float64": {"float64"}, "time": {"Time"}, "duration": {"Time"},
	"string": {"string"},
}

// fixedWire is the encoded size of the primitive wire types.
var fixedWire = map[string]int{
	"bool": 1, "uint8": 1, "int8": 1, "byte": 1, "char": 1,
	"uint16": 2, "int16": 2,
	"uint32": 4, "int32": 4, "float32": 4,
	"uint64": 8, "int64": 8, "float64": 8,
	"time": 8, "duration": 8,
}

// parseFields returns the fields of the top-level message of the definition
// of type ros (the part before the first line of '=', without constants),
// nested types named in full as defs knows them.
func parseFields(defs map[string]def, ros string) ([]field, error) {
	def := defs[ros].Definition
	pkg, _, _ := strings.Cut(ros, "/")
	var out []field
	for _, line := range strings.Split(def, "\n") {
		if strings.HasPrefix(line, "===") {
			break
		}
		if i := strings.IndexByte(line, '#'); i >= 0 {
			line = line[:i]
		}
		parts := strings.Fields(line)
		if len(parts) == 0 || strings.Contains(line, "=") {
			continue
		}
		if len(parts) != 2 {
			return nil, fmt.Errorf("field line %q", line)
		}
		f := field{ros: parts[1], wire: parts[0], array: -1}
		if i := strings.IndexByte(f.wire, '['); i >= 0 {
			n := strings.TrimSuffix(f.wire[i+1:], "]")
			f.wire = f.wire[:i]
			f.array = 0
			if n != "" {
				v, err := strconv.Atoi(n)
				if err != nil || v <= 0 {
					return nil, fmt.Errorf("field line %q: array length", line)
				}
				f.array = v
			}
		}
		if _, ok := fixedWire[f.wire]; !ok && f.wire != "string" {
			f.nested = true
			full, err := resolve(defs, pkg, f.wire)
			if err != nil {
				return nil, fmt.Errorf("field line %q: %w", line, err)
			}
			f.wire = full
		}
		out = append(out, f)
	}
	return out, nil
}

// resolve returns the full name of message type name as a field of a
// message of package pkg uses it: Header is std_msgs/Header, a bare name is
// in pkg, a full name is itself.
func resolve(defs map[string]def, pkg, name string) (string, error) {
	full := name
	switch {
	case name == "Header":
		full = "std_msgs/Header"
	case !strings.Contains(name, "/"):
		full = pkg + "/" + name
	}
	if _, ok := defs[full]; !ok {
		return "", fmt.Errorf("no definition of %s", full)
	}
	return full, nil
}

// minSize returns the least encoded size of a message of type ros: what
// d.count checks the remaining input against for each element of an array.
func minSize(defs map[string]def, ros string) (int, error) {
	fs, err := parseFields(defs, ros)
	if err != nil {
		return 0, err
	}
	n := 0
	for _, f := range fs {
		switch {
		case f.array == 0 || f.wire == "string" && f.array < 0:
			n += 4
		case f.nested:
			m, err := minSize(defs, f.wire)
			if err != nil {
				return 0, err
			}
			n += m * max(f.array, 1)
		default:
			n += fixedWire[f.wire] * max(f.array, 1)
		}
	}
	return n, nil
}

// goStructs returns the struct types of the Go files in dir (not tests, not
// generated files), each as its fields' (ros tag, name, type) in order.
func goStructs(dir string) (map[string][][3]string, error) {
	fset := token.NewFileSet()
	names, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		return nil, err
	}
	out := map[string][][3]string{}
	for _, name := range names {
		if strings.HasSuffix(name, "_test.go") || strings.HasSuffix(name, "_gen.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			return nil, err
		}
		for _, decl := range f.Decls {
			gd, ok := decl.(*ast.GenDecl)
			if !ok || gd.Tok != token.TYPE {
				continue
			}
			for _, spec := range gd.Specs {
				ts := spec.(*ast.TypeSpec)
				st, ok := ts.Type.(*ast.StructType)
				if !ok {
					continue
				}
				var fields [][3]string
				for _, fl := range st.Fields.List {
					if fl.Tag == nil || len(fl.Names) != 1 {
						continue
					}
					tag, _ := strconv.Unquote(fl.Tag.Value)
					ros := reflect.StructTag(tag).Get("ros")
					if ros == "" || ros == "-" {
						continue
					}
					var tb bytes.Buffer
					if err := format.Node(&tb, fset, fl.Type); err != nil {
						return nil, err
					}
					fields = append(fields, [3]string{ros, fl.Names[0].Name, tb.String()})
				}
				if len(fields) > 0 {
					out[ts.Name.Name] = fields
				}
			}
		}
	}
	return out, nil
}

// generateCodecs returns the source of the codec methods of every struct of
// dir that holds a message of defs, checked field by field against the
// definition.
func generateCodecs(defs map[string]def, t target) ([]byte, error) {
	structs, err := goStructs(t.dir)
	if err != nil {
		return nil, fmt.Errorf("gen: %w", err)
	}
	byGo := map[string]string{}
	for ros := range defs {
		if t.holds(ros) {
			byGo[goName(ros)] = ros
		}
	}
	var types []string
	for g := range structs {
		if _, ok := byGo[g]; ok {
			types = append(types, g)
		}
	}
	sort.Strings(types)
	b := generated("testdata/spec/realsense-msgdefs.json and the message structs", t, "github.com/rsbag/rsbag/internal/rosmsg")
	for _, g := range types {
		fs, err := parseFields(defs, byGo[g])
		if err != nil {
			return nil, fmt.Errorf("gen: %s: %w", byGo[g], err)
		}
		gf := structs[g]
		if len(gf) != len(fs) {
			return nil, fmt.Errorf("gen: %s: struct %s has %d fields, the definition %d", byGo[g], g, len(gf), len(fs))
		}
		for i := range fs {
			if gf[i][0] != fs[i].ros {
				return nil, fmt.Errorf("gen: %s: field %d is %s in the definition, %s in struct %s", byGo[g], i, fs[i].ros, gf[i][0], g)
			}
			fs[i].goName, fs[i].goType = gf[i][1], gf[i][2]
			if err := checkType(&fs[i], t); err != nil {
				return nil, fmt.Errorf("gen: %s.%s: %w", g, fs[i].goName, err)
			}
			if fs[i].nested && fs[i].array == 0 {
				if fs[i].min, err = minSize(defs, fs[i].wire); err != nil {
					return nil, fmt.Errorf("gen: %s.%s: %w", g, fs[i].goName, err)
				}
			}
		}
		writeCodec(b, g, byGo[g], fs, t)
	}
	src, err := format.Source(b.Bytes())
	if err != nil {
		return nil, fmt.Errorf("gen: format: %w\n%s", err, b.Bytes())
	}
	return src, nil
}

// checkType checks that the Go type of f can hold its wire type and sets
// f.element for arrays.
func checkType(f *field, tg target) error {
	t := f.goType
	switch {
	case f.array == 0:
		if !strings.HasPrefix(t, "[]") {
			return fmt.Errorf("%s[] needs a slice, not %s", f.wire, t)
		}
		f.element = t[2:]
	case f.array > 0:
		want := fmt.Sprintf("[%d]", f.array)
		if !strings.HasPrefix(t, want) {
			return fmt.Errorf("%s[%d] needs an array %s..., not %s", f.wire, f.array, want, t)
		}
		f.element = t[len(want):]
	default:
		f.element = t
	}
	e := f.element
	ok := slices.Contains(goTypes[f.wire], e)
	if f.nested {
		ok = e == tg.goType(f.wire)
		f.foreign = !tg.holds(f.wire)
	}
	if !ok {
		return fmt.Errorf("wire type %s with Go type %s", f.wire, t)
	}
	if f.nested && f.array > 0 {
		return fmt.Errorf("fixed-length arrays of messages are not generated")
	}
	return nil
}

// writeCodec writes Type, size, appendTo, marshal, unmarshal and decode of
// type g, of the ROS type ros: the methods its descriptor's codec calls.
func writeCodec(b *bytes.Buffer, g, ros string, fs []field, t target) {
	p := func(format string, a ...any) { fmt.Fprintf(b, format, a...) }
	trailer := trailers[g]
	p("// Type returns the descriptor of %s.\nfunc (*%s) Type() *%sType { return &%s }\n\n", g, g, t.msgs(), descName(g))

	// Size.
	fixed := 0
	var vars []string
	var loops []string
	for _, f := range fs {
		switch {
		case f.nested && f.array < 0 && f.foreign:
			vars = append(vars, "msgs.Size(&m."+f.goName+")")
		case f.nested && f.array < 0:
			vars = append(vars, "m."+f.goName+".size()")
		case f.nested:
			fixed += 4
			loops = append(loops, fmt.Sprintf("for i := range m.%s {\n\t\tn += m.%s[i].size()\n\t}", f.goName, f.goName))
		case f.wire == "string" && f.array < 0:
			fixed += 4
			vars = append(vars, "len(m."+f.goName+")")
		case f.wire == "string":
			fixed += 4
			loops = append(loops, fmt.Sprintf("for _, s := range m.%s {\n\t\tn += 4 + len(s)\n\t}", f.goName))
		case f.array == 0:
			fixed += 4
			vars = append(vars, fmt.Sprintf("%d*len(m.%s)", fixedWire[f.wire], f.goName))
		case f.array > 0:
			fixed += fixedWire[f.wire] * f.array
		default:
			fixed += fixedWire[f.wire]
		}
	}
	if trailer {
		vars = append(vars, "m.sizeTrailer()")
	}
	sum := strings.Join(append([]string{strconv.Itoa(fixed)}, vars...), " + ")
	p("// size returns the encoded size in bytes.\nfunc (m *%s) size() int {\n", g)
	if len(loops) == 0 {
		p("\treturn %s\n}\n\n", sum)
	} else {
		p("\tn := %s\n", sum)
		for _, l := range loops {
			p("\t%s\n", l)
		}
		p("\treturn n\n}\n\n")
	}

	// marshal (growing b once for the whole message) and appendTo (the
	// fields, also of a message nested in another).
	var body bytes.Buffer
	outer := p
	p = func(format string, a ...any) { fmt.Fprintf(&body, format, a...) }
	for _, f := range fs {
		v := "m." + f.goName
		if f.array == 0 {
			p("\tb = rosmsg.AppendU32(b, uint32(len(%s)))\n", v)
		}
		switch {
		case f.nested && f.array < 0 && f.foreign:
			p("\tb = msgs.Append(b, &%s)\n", v)
		case f.nested && f.array < 0:
			p("\tb = %s.appendTo(b)\n", v)
		case f.nested:
			p("\tfor i := range %s {\n\t\tb = %s[i].appendTo(b)\n\t}\n", v, v)
		case f.wire == "string" && f.array < 0:
			p("\tb = rosmsg.AppendString(b, %s)\n", v)
		case f.wire == "string":
			p("\tfor _, s := range %s {\n\t\tb = rosmsg.AppendString(b, s)\n\t}\n", v)
		case f.array >= 0 && (f.element == "uint8" || f.element == "byte"):
			if f.array > 0 {
				v += "[:]"
			}
			p("\tb = append(b, %s...)\n", v)
		case f.array >= 0 && (f.element == "float32" || f.element == "float64"):
			if f.array > 0 {
				v += "[:]"
			}
			p("\tb = rosmsg.Append%ss(b, %s)\n", map[string]string{"float32": "F32", "float64": "F64"}[f.element], v)
		case f.array >= 0:
			p("\tfor _, x := range %s {\n\t\tb = %s\n\t}\n", v, appendPrim(f, "x"))
		default:
			p("\tb = %s\n", appendPrim(f, v))
		}
	}
	if trailer {
		p("\tb = m.appendTrailer(b)\n")
	}
	p = outer
	p("// marshal appends the encoded message to b, growing b once.\nfunc (m *%s) marshal(b []byte) []byte {\n\treturn m.appendTo(rosmsg.Grow(b, m.size()))\n}\n\n", g)
	p("// appendTo appends the encoded fields to b.\nfunc (m *%s) appendTo(b []byte) []byte {\n%s\treturn b\n}\n\n", g, body.String())

	// Unmarshal, decode.
	alias := ""
	for _, f := range fs {
		if f.wire == "uint8" && f.array == 0 {
			alias = fmt.Sprintf(" %s aliases b: it is not copied.", f.goName)
		}
	}
	p("// unmarshal decodes b into m.%s\nfunc (m *%s) unmarshal(b []byte) error {\n\td := rosmsg.NewDecoder(b, %q)\n\tm.decode(&d)\n\treturn d.End()\n}\n\n", alias, g, ros)
	p("func (m *%s) decode(d *rosmsg.Decoder) {\n", g)
	for _, f := range fs {
		v, q := "m."+f.goName, strconv.Quote(f.ros)
		switch {
		case f.nested && f.array < 0 && f.foreign:
			p("\td.Push(%s)\n\trosmsg.DecodeNested(d, &%s)\n\td.Pop()\n", q, v)
		case f.nested && f.array < 0:
			p("\td.Push(%s)\n\t%s.decode(d)\n\td.Pop()\n", q, v)
		case f.nested:
			p("\tif n := d.Count(%s, %d); n > 0 {\n\t\t%s = make([]%s, n)\n\t\td.Push(%s)\n\t\tfor i := range %s {\n\t\t\t%s[i].decode(d)\n\t\t}\n\t\td.Pop()\n\t} else {\n\t\t%s = nil\n\t}\n",
				q, max(f.min, 1), v, f.element, q, v, v, v)
		case f.wire == "string" && f.array < 0:
			p("\t%s = d.Str(%s)\n", v, q)
		case f.wire == "string":
			p("\tif n := d.Count(%s, 4); n > 0 {\n\t\t%s = make([]string, n)\n\t\tfor i := range %s {\n\t\t\t%s[i] = d.Str(%s)\n\t\t}\n\t} else {\n\t\t%s = nil\n\t}\n", q, v, v, v, q, v)
		case f.array == 0 && (f.element == "uint8" || f.element == "byte"):
			p("\t%s = d.Bytes(%s)\n", v, q)
		case f.array > 0 && (f.element == "uint8" || f.element == "byte"):
			p("\tcopy(%s[:], d.Take(%s, %d))\n", v, q, f.array)
		case f.array >= 0 && (f.element == "float32" || f.element == "float64"):
			dec := map[string]string{"float32": "F32s", "float64": "F64s"}[f.element]
			if f.array == 0 {
				p("\tn := d.Count(%s, %d)\n\tif cap(%s) >= n {\n\t\t%s = %s[:n]\n\t} else {\n\t\t%s = make([]%s, n)\n\t}\n\td.%s(%s, %s)\n",
					q, fixedWire[f.wire], v, v, v, v, f.element, dec, q, v)
			} else {
				p("\td.%s(%s, %s[:])\n", dec, q, v)
			}
		case f.array > 0:
			p("\tfor i := range %s {\n\t\t%s[i] = %s\n\t}\n", v, v, decodePrim(f, q))
		case f.array == 0:
			p("\tif n := d.Count(%s, %d); n > 0 {\n\t\t%s = make(%s, n)\n\t\tfor i := range %s {\n\t\t\t%s[i] = %s\n\t\t}\n\t} else {\n\t\t%s = nil\n\t}\n",
				q, fixedWire[f.wire], v, f.goType, v, v, decodePrim(f, q), v)
		default:
			p("\t%s = %s\n", v, decodePrim(f, q))
		}
	}
	if trailer {
		p("\tm.decodeTrailer(d)\n")
	}
	p("}\n\n")
}

// primCodec is how a primitive wire type is appended and decoded: the
// append function and the conversion of the value to its argument type, the
// decoder method and the conversion of its result to the Go type.
type primCodec struct{ app, toWire, dec, fromWire string }

var primCodecs = map[string]primCodec{
	"bool":     {"rosmsg.AppendU8", "uint8", "d.U8", "Bool"},
	"uint8":    {"rosmsg.AppendU8", "", "d.U8", ""},
	"byte":     {"rosmsg.AppendU8", "", "d.U8", ""},
	"char":     {"rosmsg.AppendU8", "", "d.U8", ""},
	"int8":     {"rosmsg.AppendU8", "uint8", "d.U8", "int8"},
	"uint32":   {"rosmsg.AppendU32", "", "d.U32", ""},
	"int32":    {"rosmsg.AppendU32", "uint32", "d.U32", "int32"},
	"uint64":   {"rosmsg.AppendU64", "", "d.U64", ""},
	"int64":    {"rosmsg.AppendU64", "uint64", "d.U64", "int64"},
	"float32":  {"rosmsg.AppendF32", "", "d.F32", ""},
	"float64":  {"rosmsg.AppendF64", "", "d.F64", ""},
	"time":     {"appendTime", "", "decodeTime(d, ", ""},
	"duration": {"appendTime", "", "decodeTime(d, ", ""},
}

// appendPrim returns the expression appending primitive v of f's wire type.
func appendPrim(f field, v string) string {
	c, ok := primCodecs[f.wire]
	if !ok {
		panic("gen: no primitive " + f.wire)
	}
	if c.toWire != "" {
		v = c.toWire + "(" + v + ")"
	}
	return fmt.Sprintf("%s(b, %s)", c.app, v)
}

// decodePrim returns the expression decoding one primitive of f's wire type.
func decodePrim(f field, q string) string {
	c, ok := primCodecs[f.wire]
	if !ok {
		panic("gen: no primitive " + f.wire)
	}
	e := c.dec + "(" + q + ")"
	if strings.HasSuffix(c.dec, ", ") {
		e = c.dec + q + ")"
	}
	if c.fromWire != "" {
		e = c.fromWire + "(" + e + ")"
	}
	return e
}

// writeCodecs writes the codecs file.
func writeCodecs(defs map[string]def, t target, out string) error {
	src, err := generateCodecs(defs, t)
	if err != nil {
		return err
	}
	return os.WriteFile(out, src, 0o644)
}
