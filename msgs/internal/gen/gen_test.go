package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const specJSON = "../../../testdata/spec/realsense-msgdefs.json"

// TestGeneratedUpToDate: types_gen.go and codecs_gen.go of msgs and of
// internal/legacymsgs are what the generator writes from the definitions and
// the message structs.
func TestGeneratedUpToDate(t *testing.T) {
	defs, err := loadDefs(specJSON)
	if err != nil {
		t.Fatal(err)
	}
	for _, tg := range []target{{pkg: "msgs", dir: "../.."}, {pkg: "legacymsgs", dir: "../../../internal/legacymsgs", legacy: true}} {
		types, err := generate(specJSON, tg)
		if err != nil {
			t.Fatal(err)
		}
		codecs, err := generateCodecs(defs, tg)
		if err != nil {
			t.Fatal(err)
		}
		for name, want := range map[string][]byte{"types_gen.go": types, "codecs_gen.go": codecs} {
			got, err := os.ReadFile(filepath.Join(tg.dir, name))
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("%s/%s is not what the generator writes: run go generate ./msgs", tg.pkg, name)
			}
		}
	}
}

// TestStructMustMatchDefinition: a message struct whose fields differ from
// its definition (order, name, type) is refused, naming the field.
func TestStructMustMatchDefinition(t *testing.T) {
	defs, err := loadDefs(specJSON)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ src, want string }{
		{"type Vector3 struct {\n\tY float64 `ros:\"y\"`\n\tX float64 `ros:\"x\"`\n\tZ float64 `ros:\"z\"`\n}", "field 0 is x in the definition, y in struct Vector3"},
		{"type Vector3 struct {\n\tX float32 `ros:\"x\"`\n\tY float64 `ros:\"y\"`\n\tZ float64 `ros:\"z\"`\n}", "wire type float64 with Go type float32"},
		{"type Vector3 struct {\n\tX float64 `ros:\"x\"`\n\tY float64 `ros:\"y\"`\n}", "struct Vector3 has 2 fields, the definition 3"},
		{"type CameraInfo struct {\n\tHeader Header `ros:\"header\"`\n\tHeight uint32 `ros:\"height\"`\n\tWidth uint32 `ros:\"width\"`\n\tDistortionModel string `ros:\"distortion_model\"`\n\tD [5]float64 `ros:\"D\"`\n\tK [9]float64 `ros:\"K\"`\n\tR [9]float64 `ros:\"R\"`\n\tP [12]float64 `ros:\"P\"`\n\tBinningX uint32 `ros:\"binning_x\"`\n\tBinningY uint32 `ros:\"binning_y\"`\n\tROI RegionOfInterest `ros:\"roi\"`\n}", "float64[] needs a slice"},
	} {
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, "m.go"), []byte("package msgs\n\n"+c.src+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := generateCodecs(defs, target{pkg: "msgs", dir: dir})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s\n→ %v, want an error with %q", c.src, err, c.want)
		}
	}
}
