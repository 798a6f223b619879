// Package archtest checks the package graph: imports between the module's
// packages point down the layers only, the layers of README.md's
// Architecture section, from the bottom:
//
//  1. the containers and the model's base: msgs, rosbag (internal/lz4frame),
//     sensor, internal/goid (read by the sensor runtime only);
//  2. the device model: extensions, device, internal/layout, the reader of a
//     bag's description internal/description, internal/yuv, the sensor
//     runtime internal/sensorrt, and the backends' option store
//     internal/optionset;
//  3. the backends usb, software, playback and record, which never import
//     each other;
//  4. what stands on the backends: pipeline, rig, replay, processing,
//     mcapbag and mcapbag/ros2, blobfile, and the tools' shared packages
//     (internal/damage, internal/baginfo, internal/convert, internal/rsdump,
//     internal/viewer, internal/synthrig, ...);
//  5. the programs under cmd/ (cmd/rs-record, and any a user adds: a program
//     there may import any package, without an entry in this table), and the
//     fleet module on top.
//
// The table allowed below is the rule; a new library package needs its
// place in it.
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

// allowed lists, for each package (relative to the module), the module
// packages its non-test code may import. A sub-package not listed inherits
// the rules of its nearest listed parent, and may import its own parent.
var allowed = map[string][]string{
	"msgs":                 {},
	"rosbag":               {"internal/lz4frame"},
	"internal/lz4frame":    {},
	"sensor":               {},
	"internal/goid":        {},
	"internal/sensorrt":    {"sensor", "internal/goid"},
	"internal/testbags":    {"rosbag"},
	"internal/benchbag":    {"rosbag", "msgs", "sensor", "internal/layout"},
	"internal/benchplay":   {"sensor", "playback"},
	"extensions":           {"sensor"},
	"device":               {"sensor", "extensions"},
	"internal/optionset":   {"sensor", "extensions"},
	"internal/layout":      {"msgs", "sensor"},
	"internal/description": {"msgs", "rosbag", "sensor", "internal/layout"},
	"usb":                  {"sensor", "extensions", "device", "internal/sensorrt", "internal/yuv", "internal/optionset"},
	"software":             {"sensor", "extensions", "device", "internal/sensorrt", "internal/optionset"},
	"record":               {"sensor", "extensions", "device", "msgs", "rosbag", "internal/layout", "internal/buildinfo"},
	"internal/buildinfo":   {},
	"playback":             {"sensor", "extensions", "device", "msgs", "rosbag", "internal/layout", "internal/description", "internal/sensorrt"},
	"internal/damage":      {"msgs", "rosbag", "playback", "internal/layout"},
	"internal/baginfo":     {"msgs", "rosbag", "sensor", "internal/layout", "internal/description", "internal/damage"},
	"internal/fakes3":      {},
	"internal/outfile":     {},
	"blobfile":             {"rosbag"},
	"internal/rsdump":      {"sensor", "extensions", "device", "playback", "processing", "pipeline", "internal/damage", "rosbag", "rig", "internal/outfile", "internal/layout"},
	"pipeline":             {"sensor", "extensions", "device", "playback", "record", "software", "internal/outfile"},
	"processing":           {"sensor", "extensions", "internal/yuv"},
	"mcapbag":              {"rosbag", "msgs", "internal/layout", "internal/description", "internal/lz4frame"},
	"mcapbag/ros2":         {"sensor", "extensions", "playback", "mcapbag", "internal/yuv"},
	"rig":                  {"sensor", "extensions", "device", "playback", "record", "internal/outfile"},
	"replay":               {"sensor", "pipeline", "playback", "rig"},
	"replay/replaytest":    {"replay"},
	"units":                {"sensor", "device", "pipeline", "playback", "record", "rig", "replay", "msgs", "rosbag", "mcapbag"},
	"internal/synthrig":    {"sensor", "device", "record", "rig", "software", "internal/refcam"},
	"internal/refcam":      {"sensor", "software"},
	"internal/imaging":     {"sensor", "internal/yuv"},
	"internal/yuv":         {"sensor"},
	"internal/unitsbag":    {"device", "record", "software", "units"},
	"internal/viewer":      {"sensor", "extensions", "device", "playback", "record", "processing", "rosbag", "units", "internal/layout", "internal/imaging", "internal/outfile"},
	"internal/convert":     {"sensor", "extensions", "playback", "processing", "pipeline", "internal/damage", "internal/imaging", "internal/outfile"},
	// The programs: cmd/rs-record, and any a user adds under cmd/.
	"cmd": {"*"},
	// librealsense2.so on the Go core: a program (package main, built with
	// -buildmode=c-shared) exporting the rs2_* C API over the packages a
	// librealsense program uses.
	"capi": {"sensor", "extensions", "device", "playback", "pipeline", "processing"},
	// Example programs, as programs may.
	"examples": {"*"},
	// The fleet module's packages run the tools' packages per bag.
	"fleet":              {"rosbag", "blobfile", "playback", "mcapbag", "mcapbag/ros2", "internal/baginfo", "internal/convert", "internal/damage"},
	"fleet/cmd/rs-fleet": {"blobfile", "fleet"},
	"internal/archtest":  {},
	"internal/apitest":   {},
	// For tests: finds the checkers of tools/conformance.
	"internal/conformance": {},
}

// rule returns the listed package that governs pkg.
func rule(pkg string) (string, bool) {
	for p := pkg; p != "."; p = filepath.Dir(p) {
		if _, ok := allowed[p]; ok {
			return p, true
		}
	}
	return "", false
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
	var errs []string
	for _, pkg := range pkgs {
		bp, err := build.ImportDir(filepath.Join(root, pkg), 0)
		if err != nil {
			errs = append(errs, fmt.Sprintf("%s: %v", pkg, err))
			continue
		}
		gov, ok := rule(pkg)
		if !ok {
			errs = append(errs, fmt.Sprintf("package %s has no place in the layer table of this test", pkg))
			continue
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
			depGov, _ := rule(dep)
			switch {
			case ok2["*"], ok2[dep], ok2[depGov]:
			case strings.HasPrefix(dep, gov+"/"), strings.HasPrefix(pkg, dep+"/"), depGov == gov:
				// within one package's own tree
			default:
				errs = append(errs, fmt.Sprintf("%s imports %s: not allowed by the layering (allowed: %v)", pkg, dep, allowed[gov]))
			}
		}
	}
	return errs
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
		"cmd/mytool/main.go":    "package main\n\nimport (\n\t_ \"github.com/rsbag/rsbag/playback\"\n\t_ \"github.com/rsbag/rsbag/internal/damage\"\n\t_ \"github.com/rsbag/rsbag/mcapbag\"\n)\n\nfunc main() {}\n",
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
		"rosbag imports playback: not allowed by the layering (allowed: [internal/lz4frame])",
	}
	if !slices.Equal(errs, want) {
		t.Errorf("layer errors %q, want %q", errs, want)
	}
}

// TestCommandsLinkNoFakes: the programs under cmd/ (and fleet/cmd/) —
// rs-record, rs-fleet and any a user adds — do not link the test fakes (the
// scripted USB transport, the fake S3 server, the test bag writers),
// directly or through another package.
func TestCommandsLinkNoFakes(t *testing.T) {
	root := filepath.Join("..", "..")
	fakes := []string{"usb/usbtest", "internal/fakes3", "internal/testbags"}
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
		for _, f := range fakes {
			if by, ok := seen[f]; ok {
				t.Errorf("%s links the test fake %s (imported by %s)", cmd, f, by)
			}
		}
	}
}
