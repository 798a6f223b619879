// Package archtest checks the package graph: imports between the module's
// packages point down the layers only. The layers are those of README.md's
// Architecture section, from the bottom:
//
//  1. the containers and the model's base: msgs (its serialization
//     primitives internal/rosmsg, and the file version 1 message types
//     internal/legacymsgs), rosbag (internal/lz4frame, its
//     registry of URL schemes internal/bagname, and the recorder's way to
//     hand it a frame by reference internal/bagref), the names of a rig
//     session's files internal/rigfiles,
//     sensor, internal/goid (read by the sensor runtime only), the backends'
//     callback lists internal/callbacks, the MCAP chunk writer
//     internal/mcapwriter, the UVC wire formats internal/uvc, and the
//     plumbing below everything: internal/buildinfo, internal/outfile,
//     internal/jsonl, and the pool of frame memory internal/framepool;
//  2. the device model: extensions, device, internal/layout, the derivation
//     of a device's extrinsics internal/extrinsics, the reader of a
//     bag's description internal/description, internal/yuv and
//     internal/imaging, the sensor runtime internal/sensorrt, and the
//     backends' option store internal/optionset, the synthetic camera's
//     timed script internal/synthscript, the USB transport seam
//     internal/usbio and its recorder internal/usbtrace;
//  3. the backends usb, software, playback and record, which never import
//     each other;
//  4. what stands on the backends: pipeline, rig, replay, processing,
//     mcapbag and mcapbag/ros2, blobfile, units;
//  5. the tools' shared logic, under internal/tools (internal/tools/damage,
//     internal/tools/baginfo, internal/tools/convert, internal/tools/rsdump),
//     used by rs-record, rs-fleet and librealsense2.so;
//  6. the programs: those under cmd/ (cmd/rs-record, whose own logic lives
//     in cmd/rs-record/internal, and any a user adds: a program there may
//     import any package, without an entry in this test), capi, examples/,
//     and the fleet module on top.
//
// So internal/ itself holds only what sits below the backends (layers 1 and
// 2); the tool logic above them is in internal/tools (which Go's internal
// rule lets cmd/, capi and the fleet module import) or under the program
// that uses it. The test support — fakes, bag writers, the conformance
// checkers' finder — is in internal/testsupport, the one place outside
// tests, with replay/replaytest, whose code imports package testing; only
// tests import it.
//
// Two tables are the rule: layers gives every package its layer, and an
// import may not run from a lower layer to a higher one; allowed lists what
// each package may import within that. A new library package needs its
// place in both.
package archtest

import (
	"fmt"
	"go/build"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
)

const module = "github.com/rsbag/rsbag/"

// The layers, from the bottom (see the package doc).
const (
	layerBase = 1 + iota
	layerModel
	layerBackends
	layerOnBackends
	layerTools
	layerPrograms
	// layerTestSupport is the test support: it may import any library
	// package, and only tests may import it.
	layerTestSupport
)

// layers gives each package (relative to the module; a sub-package not
// listed is in the layer of its nearest listed parent) its layer.
var layers = map[string]int{
	"msgs":                layerBase,
	"rosbag":              layerBase,
	"sensor":              layerBase,
	"internal/lz4frame":   layerBase,
	"internal/bagref":     layerBase,
	"internal/goid":       layerBase,
	"internal/framepool":  layerBase,
	"internal/buildinfo":  layerBase,
	"internal/outfile":    layerBase,
	"internal/jsonl":      layerBase,
	"internal/callbacks":  layerBase,
	"internal/mcapwriter": layerBase,
	"internal/bagname":    layerBase,
	"internal/rigfiles":   layerBase,
	"internal/rosmsg":     layerBase,
	"internal/legacymsgs": layerBase,
	"internal/uvc":        layerBase,

	"extensions":           layerModel,
	"device":               layerModel,
	"internal/layout":      layerModel,
	"internal/description": layerModel,
	"internal/yuv":         layerModel,
	"internal/imaging":     layerModel,
	"internal/sensorrt":    layerModel,
	"internal/optionset":   layerModel,
	"internal/extrinsics":  layerModel,
	"internal/synthscript": layerModel,
	"internal/usbio":       layerModel,
	"internal/usbtrace":    layerModel,

	"usb":      layerBackends,
	"software": layerBackends,
	"playback": layerBackends,
	"record":   layerBackends,

	"pipeline":   layerOnBackends,
	"rig":        layerOnBackends,
	"replay":     layerOnBackends,
	"processing": layerOnBackends,
	"mcapbag":    layerOnBackends,
	"blobfile":   layerOnBackends,
	"units":      layerOnBackends,

	"internal/tools": layerTools,

	"cmd":      layerPrograms,
	"capi":     layerPrograms,
	"examples": layerPrograms,
	"fleet":    layerPrograms,

	"internal/testsupport": layerTestSupport,
	// Tests only: no code of their own.
	"internal/archtest": layerTestSupport,
	"internal/apitest":  layerTestSupport,
}

// allowed lists, for each package (relative to the module), the module
// packages its non-test code may import. A sub-package not listed inherits
// the rules of its nearest listed parent, and may import its own parent.
var allowed = map[string][]string{
	// 1. The base.
	"msgs":                {"internal/rosmsg"},
	"rosbag":              {"internal/lz4frame", "internal/bagname", "internal/bagref"},
	"internal/bagname":    {},
	"internal/rigfiles":   {},
	"internal/rosmsg":     {},
	"internal/legacymsgs": {"msgs", "internal/rosmsg"},
	"internal/lz4frame":   {},
	"internal/bagref":     {},
	"sensor":              {},
	"internal/goid":       {},
	"internal/framepool":  {},
	"internal/buildinfo":  {},
	"internal/outfile":    {},
	"internal/jsonl":      {},
	"internal/callbacks":  {},
	"internal/mcapwriter": {"internal/lz4frame"},
	"internal/uvc":        {},
	// 2. The device model.
	"extensions":           {"sensor"},
	"device":               {"sensor", "extensions", "internal/layout", "internal/extrinsics"},
	"internal/extrinsics":  {"sensor", "extensions"},
	"internal/layout":      {"msgs", "sensor", "internal/legacymsgs"},
	"internal/description": {"msgs", "rosbag", "sensor", "internal/layout", "internal/legacymsgs"},
	"internal/yuv":         {"sensor"},
	"internal/imaging":     {"sensor", "internal/yuv"},
	"internal/sensorrt":    {"sensor", "internal/goid"},
	"internal/optionset":   {"sensor", "extensions", "internal/callbacks"},
	"internal/synthscript": {"sensor"},
	"internal/usbio":       {"internal/uvc"},
	"internal/usbtrace":    {"internal/usbio"},
	// 3. The backends.
	"usb":      {"sensor", "extensions", "device", "internal/layout", "internal/sensorrt", "internal/yuv", "internal/optionset", "internal/callbacks", "internal/uvc", "internal/usbio"},
	"software": {"sensor", "extensions", "device", "internal/layout", "internal/extrinsics", "internal/sensorrt", "internal/optionset", "internal/callbacks", "internal/synthscript"},
	"playback": {"sensor", "extensions", "device", "msgs", "rosbag", "internal/layout", "internal/extrinsics", "internal/description", "internal/sensorrt", "internal/callbacks", "internal/legacymsgs"},
	"record":   {"sensor", "extensions", "device", "msgs", "rosbag", "internal/layout", "internal/buildinfo", "internal/callbacks", "internal/bagref"},
	// 4. On the backends.
	"pipeline":          {"sensor", "extensions", "device", "playback", "record", "software", "internal/outfile"},
	"rig":               {"sensor", "extensions", "device", "playback", "record", "internal/outfile", "internal/rigfiles"},
	"replay":            {"sensor", "pipeline", "playback", "rig", "internal/jsonl"},
	"replay/replaytest": {"replay"},
	"processing":        {"sensor", "extensions", "internal/yuv", "internal/framepool", "internal/callbacks"},
	"mcapbag":           {"rosbag", "msgs", "internal/layout", "internal/description", "internal/lz4frame", "internal/mcapwriter"},
	"mcapbag/ros2":      {"sensor", "extensions", "playback", "mcapbag", "internal/mcapwriter", "internal/yuv"},
	"blobfile":          {"rosbag", "internal/bagname"},
	"units":             {"sensor", "device", "pipeline", "playback", "record", "rig", "replay", "msgs", "rosbag", "mcapbag", "internal/jsonl", "internal/rigfiles"},
	// 5. The tools' shared logic.
	"internal/tools/damage":  {"msgs", "rosbag", "playback", "internal/layout", "internal/description"},
	"internal/tools/baginfo": {"msgs", "rosbag", "sensor", "internal/layout", "internal/description", "internal/tools/damage"},
	"internal/tools/convert": {"sensor", "extensions", "playback", "processing", "pipeline", "internal/tools/damage", "internal/imaging", "internal/outfile"},
	"internal/tools/rsdump":  {"sensor", "extensions", "device", "playback", "processing", "pipeline", "internal/tools/damage", "rosbag", "rig", "internal/outfile", "internal/layout", "internal/bagname"},
	// 6. The programs: cmd/rs-record (and its own packages under
	// cmd/rs-record/internal), and any a user adds under cmd/.
	"cmd": {"*"},
	// librealsense2.so on the Go core: a program (package main, built with
	// -buildmode=c-shared) exporting the rs2_* C API over the packages a
	// librealsense program uses; blobfile and rosbag for bags by URL (the
	// cloud build reads them, the default build refuses them through
	// rosbag.RegisterScheme, as rs-record's builds do).
	"capi": {"sensor", "extensions", "device", "playback", "pipeline", "processing", "blobfile", "rosbag", "internal/framepool"},
	// Example programs, as programs may.
	"examples": {"*"},
	// The fleet module's packages run the tools' packages per bag.
	"fleet":              {"rosbag", "blobfile", "playback", "mcapbag", "mcapbag/ros2", "internal/tools/baginfo", "internal/tools/convert", "internal/tools/damage", "internal/bagname"},
	"fleet/cmd/rs-fleet": {"blobfile", "fleet"},
	// The test support, for tests only.
	"internal/testsupport/testbags":    {"rosbag"},
	"internal/testsupport/benchbag":    {"rosbag", "msgs", "sensor", "internal/layout"},
	"internal/testsupport/benchplay":   {"sensor", "playback"},
	"internal/testsupport/fakes3":      {},
	"internal/testsupport/refcam":      {"sensor", "software", "internal/synthscript"},
	"internal/testsupport/synthrig":    {"sensor", "device", "record", "rig", "software", "internal/testsupport/refcam", "internal/synthscript", "internal/rigfiles"},
	"internal/testsupport/unitsbag":    {"device", "record", "software", "units"},
	"internal/testsupport/yuvtest":     {},
	"internal/testsupport/await":       {},
	"internal/testsupport/leak":        {},
	"internal/testsupport/conformance": {}, // finds the checkers of tools/conformance
	"internal/testsupport/usbtest":     {"device", "internal/usbio", "internal/usbtrace", "internal/uvc"},
	"internal/archtest":                {},
	"internal/apitest":                 {},
}

// governing returns the listed key of table that governs pkg: pkg or its
// nearest listed parent.
func governing[V any](table map[string]V, pkg string) (string, bool) {
	for p := pkg; p != "."; p = filepath.Dir(p) {
		if _, ok := table[p]; ok {
			return p, true
		}
	}
	return "", false
}

// rule returns the listed package of allowed that governs pkg.
func rule(pkg string) (string, bool) { return governing(allowed, pkg) }

// layer returns pkg's layer, 0 if it has none.
func layer(pkg string) int {
	p, ok := governing(layers, pkg)
	if !ok {
		return 0
	}
	return layers[p]
}

func TestImportGraph(t *testing.T) {
	root := filepath.Join("..", "..")
	pkgs := modulePackages(t, root)
	for _, e := range layerErrors(root, pkgs) {
		t.Error(e)
	}
}

// modulePackages returns the packages of the module tree at root (paths
// relative to root, sorted), leaving out testdata and hidden folders.
func modulePackages(t *testing.T, root string) []string {
	t.Helper()
	var pkgs []string
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() {
			return nil
		}
		name := d.Name()
		if path != root && (strings.HasPrefix(name, ".") || name == "testdata") {
			return filepath.SkipDir
		}
		if _, err := build.ImportDir(path, 0); err == nil {
			rel, _ := filepath.Rel(root, path)
			pkgs = append(pkgs, filepath.ToSlash(rel))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(pkgs)
	if len(pkgs) < 10 {
		t.Fatalf("found only %d packages under %s: %v", len(pkgs), root, pkgs)
	}
	return pkgs
}

// write creates the files (slash-separated paths under root, contents).
func write(t *testing.T, root string, files map[string]string) {
	t.Helper()
	for name, src := range files {
		p := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// layerErrors returns what breaks the layering among the packages pkgs of
// the module tree at root (paths relative to root).
func layerErrors(root string, pkgs []string) []string {
	return eachPackage(root, pkgs, layerCheck)
}

// eachPackage returns the errors check finds in the packages pkgs of the
// module tree at root (paths relative to root), and those that do not load.
func eachPackage(root string, pkgs []string, check func(pkg string, bp *build.Package) []string) []string {
	var errs []string
	for _, pkg := range pkgs {
		bp, err := build.ImportDir(filepath.Join(root, pkg), 0)
		if err != nil {
			errs = append(errs, fmt.Sprintf("%s: %v", pkg, err))
			continue
		}
		errs = append(errs, check(pkg, bp)...)
	}
	return errs
}

// layerCheck returns what breaks the layering in package pkg's imports.
func layerCheck(pkg string, bp *build.Package) []string {
	gov, ok := rule(pkg)
	if !ok {
		return []string{fmt.Sprintf("package %s has no place in the layer table of this test", pkg)}
	}
	l := layer(pkg)
	if l == 0 {
		return []string{fmt.Sprintf("package %s has no layer in this test", pkg)}
	}
	var errs []string
	if internalBelowBackends(pkg) && l >= layerBackends {
		errs = append(errs, fmt.Sprintf("package %s is in layer %d: internal/ holds only what sits below the backends (tool logic goes to internal/tools or under its program)", pkg, l))
	}
	ok2 := map[string]bool{}
	for _, a := range allowed[gov] {
		ok2[a] = true
	}
	for _, imp := range bp.Imports {
		if !strings.HasPrefix(imp, module) {
			continue
		}
		dep := strings.TrimPrefix(imp, module)
		if dl := layer(dep); dl > l {
			errs = append(errs, fmt.Sprintf("%s (layer %d) imports %s (layer %d): an import running back up the layers", pkg, l, dep, dl))
			continue
		}
		depGov, _ := rule(dep)
		switch {
		case ok2["*"], ok2[dep], ok2[depGov]:
		case strings.HasPrefix(dep, gov+"/"), strings.HasPrefix(pkg, dep+"/"), depGov == gov:
			// within one package's own tree
		default:
			errs = append(errs, fmt.Sprintf("%s imports %s: not allowed by the layering (allowed: %v)", pkg, dep, allowed[gov]))
		}
	}
	return errs
}

// internalBelowBackends reports whether pkg is one of internal/'s own
// packages, which must sit below the backends: not the tools' shared logic
// (internal/tools), the test support (internal/testsupport) or these tests.
func internalBelowBackends(pkg string) bool {
	rest, ok := strings.CutPrefix(pkg, "internal/")
	if !ok {
		return false
	}
	top, _, _ := strings.Cut(rest, "/")
	return !slices.Contains([]string{"tools", "testsupport", "archtest", "apitest"}, top)
}

// TestTablesAgree: the allowed table never lets an import run back up the
// layers, and every package it lists has a layer.
func TestTablesAgree(t *testing.T) {
	for pkg, deps := range allowed {
		l := layer(pkg)
		if l == 0 {
			t.Errorf("%s is in the allowed table without a layer", pkg)
		}
		for _, dep := range deps {
			if dep == "*" {
				if l != layerPrograms {
					t.Errorf("%s (layer %d) may import any package: only programs may", pkg, l)
				}
				continue
			}
			if dl := layer(dep); dl == 0 || dl > l {
				t.Errorf("allowed lets %s (layer %d) import %s (layer %d): an import running back up", pkg, l, dep, dl)
			}
		}
	}
}

// TestTestingOnlyInTestSupport: outside tests, only the test support
// (internal/testsupport) imports package testing (or one under it), and
// replay/replaytest, whose golden files are for users' tests (README.md,
// "Deterministic replay in tests"). So no fake can end up in a program.
func TestTestingOnlyInTestSupport(t *testing.T) {
	root := filepath.Join("..", "..")
	for _, e := range testingErrors(root, modulePackages(t, root)) {
		t.Error(e)
	}
}

// testingErrors returns the packages among pkgs of the module tree at root
// whose non-test code imports testing outside the test support.
func testingErrors(root string, pkgs []string) []string {
	return eachPackage(root, pkgs, func(pkg string, bp *build.Package) []string {
		if layer(pkg) == layerTestSupport || pkg == "replay/replaytest" {
			return nil
		}
		var errs []string
		for _, imp := range bp.Imports {
			if imp == "testing" || strings.HasPrefix(imp, "testing/") {
				errs = append(errs, fmt.Sprintf("%s imports %s outside its tests: test support belongs in internal/testsupport", pkg, imp))
			}
		}
		return errs
	})
}

// TestGoidOnlyInSensorrt: the sensor runtime is the only package, tests
// included, that reads goroutine ids (internal/goid): every backend refuses
// the calls made from its own handlers through it.
func TestGoidOnlyInSensorrt(t *testing.T) {
	root := filepath.Join("..", "..")
	got, err := importers(root, modulePackages(t, root), "internal/goid")
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"internal/sensorrt"}; !slices.Equal(got, want) {
		t.Errorf("internal/goid is imported by %q, want only %q", got, want)
	}
}

// TestImportersSeesTests: importers finds an import made by a package's
// tests (internal or external) as well as by its code.
func TestImportersSeesTests(t *testing.T) {
	root := t.TempDir()
	write(t, root, map[string]string{
		"internal/goid/goid.go":   "package goid\n",
		"a/a.go":                  "package a\n\nimport _ \"github.com/rsbag/rsbag/internal/goid\"\n",
		"b/b.go":                  "package b\n",
		"b/b_test.go":             "package b\n\nimport _ \"github.com/rsbag/rsbag/internal/goid\"\n",
		"c/c.go":                  "package c\n",
		"c/x_test.go":             "package c_test\n\nimport _ \"github.com/rsbag/rsbag/internal/goid\"\n",
		"d/d.go":                  "package d\n\nimport _ \"github.com/rsbag/rsbag/rosbag\"\n",
		"internal/sensorrt/rt.go": "package sensorrt\n\nimport _ \"github.com/rsbag/rsbag/internal/goid\"\n",
	})
	got, err := importers(root, []string{"a", "b", "c", "d", "internal/goid", "internal/sensorrt"}, "internal/goid")
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"a", "b", "c", "internal/sensorrt"}; !slices.Equal(got, want) {
		t.Errorf("importers = %q, want %q", got, want)
	}
}

// importers returns those of pkgs (sorted) whose code or tests import the
// module package target.
func importers(root string, pkgs []string, target string) ([]string, error) {
	var out []string
	for _, pkg := range pkgs {
		bp, err := build.ImportDir(filepath.Join(root, pkg), 0)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", pkg, err)
		}
		for _, imps := range [][]string{bp.Imports, bp.TestImports, bp.XTestImports} {
			if slices.Contains(imps, module+target) {
				out = append(out, pkg)
				break
			}
		}
	}
	return out, nil
}

// TestBuildsWithoutCgo: every package of the module builds with
// CGO_ENABLED=0 (no libusb: a user who only plays bags, replays in CI or
// cross-compiles), and only package usb and the programs (cmd/, examples/)
// link package usb (its live cameras are something a program registers by
// importing it), so that no library built with cgo needs libusb either.
// The fleet module, whose cloud SDKs take minutes to build, is left out.
func TestBuildsWithoutCgo(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the module")
	}
	root := filepath.Join("..", "..")
	build := exec.Command("go", "build", "./...")
	build.Dir = root
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("CGO_ENABLED=0 go build ./...: %v\n%s", err, out)
	}
	list := exec.Command("go", "list", "-f", `{{.ImportPath}} {{.Name}} {{join .Deps " "}}`, "./...")
	list.Dir = root
	out, err := list.Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	usb := strings.TrimSuffix(module, "/") + "/usb"
	n := 0
	for line := range strings.Lines(string(out)) {
		f := strings.Fields(line)
		pkg := strings.TrimPrefix(f[0], module)
		n++
		if pkg == "usb" || strings.HasPrefix(pkg, "usb/") || f[1] == "main" {
			continue // usb, and the programs (under cmd/, examples/), which may link it
		}
		if slices.Contains(f[2:], usb) {
			t.Errorf("%s links package usb: live cameras come from device.OpenCamera, which a program that imports usb provides", pkg)
		}
	}
	if n < 10 {
		t.Fatalf("go list found only %d packages", n)
	}
}

// TestUserCommand: a program a user adds under cmd/ may import any package
// of the module, as cmd/rs-record does; a new library package still needs
// its place in the table.
func TestUserCommand(t *testing.T) {
	root := t.TempDir()
	files := map[string]string{
		"cmd/mytool/main.go":    "package main\n\nimport (\n\t_ \"github.com/rsbag/rsbag/playback\"\n\t_ \"github.com/rsbag/rsbag/internal/tools/damage\"\n\t_ \"github.com/rsbag/rsbag/mcapbag\"\n)\n\nfunc main() {}\n",
		"cmd/mytool/sub/sub.go": "package sub\n\nimport _ \"github.com/rsbag/rsbag/rosbag\"\n",
		"newlib/newlib.go":      "package newlib\n\nimport _ \"github.com/rsbag/rsbag/rosbag\"\n",
		"rosbag/low.go":         "package rosbag\n\nimport _ \"github.com/rsbag/rsbag/playback\"\n",
	}
	write(t, root, files)
	if errs := layerErrors(root, []string{"cmd/mytool", "cmd/mytool/sub"}); len(errs) > 0 {
		t.Errorf("a user's program under cmd/ is refused: %q", errs)
	}
	errs := layerErrors(root, []string{"newlib", "rosbag"})
	want := []string{
		"package newlib has no place in the layer table of this test",
		"rosbag (layer 1) imports playback (layer 3): an import running back up the layers",
	}
	if !slices.Equal(errs, want) {
		t.Errorf("layer errors %q, want %q", errs, want)
	}
}

// TestLayersRunDown: an import running back up the layers is refused, from
// any layer, and so is a package of internal/ above the backends; imports
// down the layers and the test support's non-test imports of testing are
// accepted.
func TestLayersRunDown(t *testing.T) {
	imports := func(pkg string, deps ...string) string {
		src := "package " + filepath.Base(pkg) + "\n\nimport (\n"
		for _, d := range deps {
			if !strings.Contains(d, ".") && !strings.HasPrefix(d, "testing") {
				d = module + d
			}
			src += "\t_ \"" + d + "\"\n"
		}
		return src + ")\n"
	}
	files := map[string]string{
		"internal/layout/up.go":                imports("internal/layout", "playback"),
		"internal/newtool/newtool.go":          imports("internal/newtool", "playback"),
		"playback/up.go":                       imports("playback", "internal/tools/damage"),
		"mcapbag/up.go":                        imports("mcapbag", "internal/tools/baginfo"),
		"cmd/mytool/main.go":                   imports("main", "internal/testsupport/testbags"),
		"software/fake.go":                     imports("software", "testing", "sensor"),
		"internal/tools/damage/damage.go":      imports("damage", "playback", "msgs"),
		"internal/tools/baginfo/baginfo.go":    imports("baginfo", "internal/tools/damage"),
		"internal/testsupport/testbags/tb.go":  imports("testbags", "testing", "rosbag"),
		"internal/testsupport/benchplay/bp.go": imports("benchplay", "testing", "playback"),
		"replay/replaytest/golden.go":          imports("replaytest", "testing", "replay"),
		"cmd/mytool/internal/ui/ui.go":         imports("ui", "playback", "internal/tools/rsdump"),
	}
	root := t.TempDir()
	write(t, root, files)
	var pkgs []string
	for f := range files {
		pkgs = append(pkgs, filepath.ToSlash(filepath.Dir(f)))
	}
	sort.Strings(pkgs)
	want := []string{
		"cmd/mytool (layer 6) imports internal/testsupport/testbags (layer 7): an import running back up the layers",
		"internal/layout (layer 2) imports playback (layer 3): an import running back up the layers",
		"package internal/newtool has no place in the layer table of this test",
		"mcapbag (layer 4) imports internal/tools/baginfo (layer 5): an import running back up the layers",
		"playback (layer 3) imports internal/tools/damage (layer 5): an import running back up the layers",
	}
	if got := layerErrors(root, pkgs); !slices.Equal(got, want) {
		t.Errorf("layer errors\n%q\nwant\n%q", got, want)
	}
	wantTesting := []string{"software imports testing outside its tests: test support belongs in internal/testsupport"}
	if got := testingErrors(root, pkgs); !slices.Equal(got, wantTesting) {
		t.Errorf("testing errors %q, want %q", got, wantTesting)
	}
}

// TestInternalBelowBackends: a package of internal/ itself is refused a
// layer at or above the backends' (as tool logic was, before it moved to
// internal/tools and cmd/rs-record/internal).
func TestInternalBelowBackends(t *testing.T) {
	for _, tc := range []struct {
		pkg  string
		want bool
	}{
		{"internal/layout", true},
		{"internal/yuv/x", true},
		{"internal/tools/damage", false},
		{"internal/testsupport/testbags", false},
		{"internal/archtest", false},
		{"cmd/rs-record/internal/viewer", false},
		{"playback", false},
	} {
		if got := internalBelowBackends(tc.pkg); got != tc.want {
			t.Errorf("internalBelowBackends(%q) = %v, want %v", tc.pkg, got, tc.want)
		}
	}
	for pkg, l := range layers {
		if internalBelowBackends(pkg) && l >= layerBackends {
			t.Errorf("internal package %s is in layer %d, at or above the backends", pkg, l)
		}
	}
}

// TestCommandsLinkNoFakes: the programs under cmd/ (and fleet/cmd/) —
// rs-record, rs-fleet and any a user adds — do not link the test fakes (all
// of internal/testsupport: the scripted USB camera, the fake S3 server, the
// test bag writers, ...), directly or through another package.
func TestCommandsLinkNoFakes(t *testing.T) {
	root := filepath.Join("..", "..")
	var cmds []string
	for _, pkg := range modulePackages(t, root) {
		if bp, err := build.ImportDir(filepath.Join(root, pkg), 0); err == nil && bp.Name == "main" &&
			(strings.HasPrefix(pkg, "cmd/") || strings.HasPrefix(pkg, "fleet/cmd/")) {
			cmds = append(cmds, pkg)
		}
	}
	for _, want := range []string{"cmd/rs-record", "fleet/cmd/rs-fleet"} {
		if !slices.Contains(cmds, want) {
			t.Fatalf("programs found %q, without %s: the walk is broken", cmds, want)
		}
	}
	for _, cmd := range cmds {
		seen := map[string]string{cmd: ""} // package -> the package importing it
		queue := []string{cmd}
		for len(queue) > 0 {
			pkg := queue[0]
			queue = queue[1:]
			bp, err := build.ImportDir(filepath.Join(root, pkg), 0)
			if err != nil {
				t.Fatalf("%s: %v", pkg, err)
			}
			for _, imp := range bp.Imports {
				dep, ok := strings.CutPrefix(imp, module)
				if !ok {
					continue
				}
				if _, done := seen[dep]; !done {
					seen[dep] = pkg
					queue = append(queue, dep)
				}
			}
		}
		if len(seen) < 5 {
			t.Fatalf("%s links only %d module packages: the walk is broken", cmd, len(seen))
		}
		for dep, by := range seen {
			if layer(dep) == layerTestSupport {
				t.Errorf("%s links the test fake %s (imported by %s)", cmd, dep, by)
			}
		}
	}
}
