package apitest

import (
	"go/ast"
	"go/token"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// errorExceptions lists the exported errors whose text does not start with
// their package's name, and why.
var errorExceptions = map[string]string{
	// Its text is the whole message of `rs-record devices` without a camera
	// ("rs-record: no RealSense device found"), promised by README.md and
	// pinned by cmd/rs-record's TestDevices.
	"device.ErrNotFound": "the command's documented message",
}

// TestErrorsNamePackage: every exported error variable of a public package
// made by errors.New or fmt.Errorf says its package ("usb: ...").
func TestErrorsNamePackage(t *testing.T) {
	root := moduleRoot(t)
	checked := 0
	for _, pkg := range publicPackages(t, root) {
		bp, fset, files, err := parsePackage(filepath.Join(root, filepath.FromSlash(pkg)))
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range files {
			for _, d := range f.Decls {
				g, ok := d.(*ast.GenDecl)
				if !ok || g.Tok != token.VAR {
					continue
				}
				for _, s := range g.Specs {
					vs := s.(*ast.ValueSpec)
					for i, id := range vs.Names {
						if !id.IsExported() || i >= len(vs.Values) {
							continue
						}
						msg, ok := errorText(vs.Values[i])
						if !ok {
							continue
						}
						checked++
						qual := bp.Name + "." + id.Name
						if _, ok := errorExceptions[qual]; ok {
							continue
						}
						if !strings.HasPrefix(msg, bp.Name+": ") {
							t.Errorf("%s (%s): %q does not start with %q", qual, fset.Position(id.Pos()), msg, bp.Name+": ")
						}
					}
				}
			}
		}
	}
	if checked == 0 {
		t.Fatal("found no exported error variables: the search is broken")
	}
	t.Logf("%d exported error variables checked", checked)
}

// errorText returns the text of errors.New("...") or fmt.Errorf("...", ...).
func errorText(x ast.Expr) (string, bool) {
	call, ok := x.(*ast.CallExpr)
	if !ok || len(call.Args) == 0 {
		return "", false
	}
	sel, ok := call.Fun.(*ast.SelectorExpr)
	if !ok {
		return "", false
	}
	pkg, ok := sel.X.(*ast.Ident)
	if !ok || !(pkg.Name == "errors" && sel.Sel.Name == "New" || pkg.Name == "fmt" && sel.Sel.Name == "Errorf") {
		return "", false
	}
	lit, ok := call.Args[0].(*ast.BasicLit)
	if !ok || lit.Kind != token.STRING {
		return "", false
	}
	s, err := strconv.Unquote(lit.Value)
	return s, err == nil
}
