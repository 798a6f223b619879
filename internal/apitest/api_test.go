// Package apitest pins the module's public API: the exported declarations of
// every public package (not internal, not a command) are rendered, compared
// with testdata/api, and counted, so that growing the API is a reviewed
// change. Run `go test ./internal/apitest -update` to rewrite the golden
// files after a deliberate change.
package apitest

import (
	"bytes"
	"flag"
	"fmt"
	"go/ast"
	"go/build"
	"go/doc"
	"go/parser"
	"go/printer"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite testdata/api from the current API")

const module = "github.com/rsbag/rsbag"

// maxExported is the ceiling on the module's exported identifiers (top-level
// names, plus exported methods and exported struct fields). Lower it when the
// API shrinks; raising it is a reviewed decision.
const maxExported = 1430

// maxDeclared is the ceiling on the declared names (api.declared): the count
// issue 36 set a goal of at most 900 for. Lower it when the API shrinks.
const maxDeclared = 900

// buildContext fixes the platform so that the rendering does not depend on
// the machine: the cgo build of linux/amd64, which has the live-camera code.
func buildContext() build.Context {
	c := build.Default
	c.GOOS, c.GOARCH, c.CgoEnabled = "linux", "amd64", true
	c.BuildTags = nil
	return c
}

// publicPackages lists the module's directories (relative, slash-separated)
// that hold a public library package: no internal element, no testdata, not
// a nested module, not package main.
func publicPackages(t *testing.T, root string) []string {
	t.Helper()
	ctx := buildContext()
	var pkgs []string
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil || !d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		rel = filepath.ToSlash(rel)
		name := d.Name()
		if path != root {
			if name == "internal" || name == "testdata" || name == "vendor" || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") {
				return filepath.SkipDir
			}
			if _, err := os.Stat(filepath.Join(path, "go.mod")); err == nil {
				return filepath.SkipDir // another module (fleet)
			}
		}
		bp, err := ctx.ImportDir(path, 0)
		if err != nil || bp.Name == "main" {
			return nil
		}
		pkgs = append(pkgs, rel)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(pkgs)
	return pkgs
}

// parsePackage parses the non-test files of the package in dir that
// buildContext selects.
func parsePackage(dir string) (*build.Package, *token.FileSet, []*ast.File, error) {
	ctx := buildContext()
	bp, err := ctx.ImportDir(dir, 0)
	if err != nil {
		return nil, nil, nil, err
	}
	fset := token.NewFileSet()
	var files []*ast.File
	for _, name := range slices.Concat(bp.GoFiles, bp.CgoFiles) {
		f, err := parser.ParseFile(fset, filepath.Join(dir, name), nil, parser.SkipObjectResolution)
		if err != nil {
			return nil, nil, nil, err
		}
		files = append(files, f)
	}
	return bp, fset, files, nil
}

// api is one package's rendered API and its count of exported identifiers.
type api struct {
	text string
	// top counts the exported top-level names, methods the exported
	// methods (of types and interfaces), fields the exported struct fields.
	top, methods, fields int
	// promoted counts the methods among methods that a type has from an
	// embedded type rather than declaring them (go doc lists those of an
	// unexported embedded type).
	promoted int
}

func (a api) count() int { return a.top + a.methods + a.fields }

// declared counts the names a package declares: top-level names, methods
// declared on exported types and interface methods, without struct fields
// and promoted methods. Of the rules tried, it comes closest to the 1,405
// exported identifiers issue 36 counted: 1,397 at 63e54ff, the commit
// before the first change.
func (a api) declared() int { return a.top + a.methods - a.promoted }

// render parses the package in dir (its non-test files for buildContext)
// and prints its exported declarations in the order of go doc, without doc
// comments, so that editing documentation does not touch the golden file.
func render(dir, importPath string) (api, error) {
	_, fset, files, err := parsePackage(dir)
	if err != nil {
		return api{}, err
	}
	p, err := doc.NewFromFiles(fset, files, importPath)
	if err != nil {
		return api{}, fmt.Errorf("%s: %w", importPath, err)
	}
	var b bytes.Buffer
	var a api
	cfg := printer.Config{Mode: printer.UseSpaces, Tabwidth: 4}
	node := func(indent string, x any) {
		var nb bytes.Buffer
		if err := cfg.Fprint(&nb, fset, x); err != nil {
			fmt.Fprintf(&b, "%s<%v>\n", indent, err)
			return
		}
		for _, line := range strings.Split(nb.String(), "\n") {
			b.WriteString(indent + line + "\n")
		}
	}
	fn := func(indent string, f *doc.Func, count *int) {
		d := *f.Decl
		d.Doc, d.Body = nil, nil
		node(indent, &d)
		*count++
	}
	values := func(vs []*doc.Value) {
		for _, v := range vs {
			d := *v.Decl
			d.Doc = nil
			node("", &d)
			a.top += len(v.Names)
		}
	}
	fmt.Fprintf(&b, "package %s // import %q\n\n", p.Name, importPath)
	values(p.Consts)
	values(p.Vars)
	for _, f := range p.Funcs {
		fn("", f, &a.top)
	}
	for _, ty := range p.Types {
		d := *ty.Decl
		d.Doc = nil
		node("", &d)
		a.top++
		for _, s := range ty.Decl.Specs {
			switch t := s.(*ast.TypeSpec).Type.(type) {
			case *ast.StructType:
				a.fields += countExported(t.Fields)
			case *ast.InterfaceType:
				a.methods += countExported(t.Methods)
			}
		}
		values(ty.Consts)
		values(ty.Vars)
		for _, f := range ty.Funcs {
			fn("    ", f, &a.top)
		}
		for _, f := range ty.Methods {
			fn("    ", f, &a.methods)
			if f.Level > 0 {
				a.promoted++
			}
		}
	}
	a.text = b.String()
	return a, nil
}

// countExported counts the exported names of a struct's fields or an
// interface's methods; an embedded field counts under its type's name.
func countExported(list *ast.FieldList) int {
	n := 0
	for _, f := range list.List {
		if len(f.Names) == 0 { // embedded: its name is the type's
			if id := embeddedName(f.Type); id != "" && ast.IsExported(id) {
				n++
			}
			continue
		}
		for _, id := range f.Names {
			if id.IsExported() {
				n++
			}
		}
	}
	return n
}

func embeddedName(x ast.Expr) string {
	switch t := x.(type) {
	case *ast.Ident:
		return t.Name
	case *ast.StarExpr:
		return embeddedName(t.X)
	case *ast.SelectorExpr:
		return t.Sel.Name
	case *ast.IndexExpr:
		return embeddedName(t.X)
	case *ast.IndexListExpr:
		return embeddedName(t.X)
	}
	return ""
}

func moduleRoot(t *testing.T) string {
	t.Helper()
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, "go.mod")); err != nil {
		t.Fatalf("module root not found at %s: %v", root, err)
	}
	return root
}

func goldenName(pkg string) string {
	return strings.ReplaceAll(pkg, "/", "_") + ".txt"
}

// TestAPIGolden compares each public package's API with testdata/api, and
// the total of exported identifiers with maxExported.
func TestAPIGolden(t *testing.T) {
	root := moduleRoot(t)
	pkgs := publicPackages(t, root)
	if len(pkgs) == 0 {
		t.Fatal("no public packages found")
	}
	goldenDir := filepath.Join("testdata", "api")
	want := map[string]bool{}
	total, top, methods, declared := 0, 0, 0, 0
	for _, pkg := range pkgs {
		a, err := render(filepath.Join(root, filepath.FromSlash(pkg)), module+"/"+pkg)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%-20s %4d exported: %4d top-level, %4d methods, %4d fields; %4d declared", pkg, a.count(), a.top, a.methods, a.fields, a.declared())
		total += a.count()
		declared += a.declared()
		top += a.top
		methods += a.methods
		name := goldenName(pkg)
		want[name] = true
		path := filepath.Join(goldenDir, name)
		if *update {
			if err := os.MkdirAll(goldenDir, 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, []byte(a.text), 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		got, err := os.ReadFile(path)
		if err != nil {
			t.Errorf("package %s has no API golden file: %v (run go test ./internal/apitest -update and review the diff)", pkg, err)
			continue
		}
		if string(got) != a.text {
			t.Errorf("the API of %s differs from %s (run go test ./internal/apitest -update and review the diff):\n%s", pkg, path, lineDiff(string(got), a.text))
		}
	}
	entries, _ := os.ReadDir(goldenDir)
	for _, e := range entries {
		if !want[e.Name()] {
			if *update {
				os.Remove(filepath.Join(goldenDir, e.Name()))
				continue
			}
			t.Errorf("%s is the golden API of a package that is gone or no longer public", filepath.Join(goldenDir, e.Name()))
		}
	}
	t.Logf("total: %d exported identifiers in %d public packages (%d top-level, %d methods, %d fields); %d declared (top-level, declared and interface methods)", total, len(pkgs), top, methods, total-top-methods, declared)
	if total > maxExported {
		t.Errorf("%d exported identifiers, more than the ceiling of %d: shrink the API or raise maxExported in a reviewed change", total, maxExported)
	}
	if declared > maxDeclared {
		t.Errorf("%d declared names, more than the ceiling of %d: shrink the API or raise maxDeclared in a reviewed change", declared, maxDeclared)
	}
}

// lineDiff lists the lines only in want (-) and only in got (+).
func lineDiff(want, got string) string {
	count := func(s string) map[string]int {
		m := map[string]int{}
		for _, l := range strings.Split(s, "\n") {
			m[l]++
		}
		return m
	}
	w, g := count(want), count(got)
	var b strings.Builder
	for _, l := range strings.Split(want, "\n") {
		if g[l] > 0 {
			g[l]--
			continue
		}
		b.WriteString("- " + l + "\n")
	}
	for _, l := range strings.Split(got, "\n") {
		if w[l] > 0 {
			w[l]--
			continue
		}
		b.WriteString("+ " + l + "\n")
	}
	return b.String()
}
