package processing

import (
	"bytes"
	"encoding/json"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// open3dScript reads a PLY file with Open3D, the point cloud library, and
// prints what it found as JSON.
const open3dScript = `
import json, sys
import open3d as o3d
pc = o3d.io.read_point_cloud(sys.argv[1])
mesh = o3d.io.read_triangle_mesh(sys.argv[1])
import numpy as np
p = np.asarray(pc.points)
c = np.asarray(pc.colors)
print(json.dumps({"points": len(p), "first": p[0].tolist() if len(p) else [],
	"colors": len(c), "first_color": (c[0]*255).round().tolist() if len(c) else [],
	"triangles": len(np.asarray(mesh.triangles))}))
`

// TestPLYReadByOpen3D: a mapped point cloud of a reference bag written as
// binary and as ASCII PLY is read by Open3D with the same points, colors
// and triangles as written: the non-zero vertices with y and z negated,
// the texture's color at each one's texture coordinates.
func TestPLYReadByOpen3D(t *testing.T) {
	py := "/usr/bin/python3"
	if err := exec.Command(py, "-c", "import open3d").Run(); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("python3-open3d is not installed: %v", err)
		}
		t.Skip("python3-open3d is not installed")
	}
	bag, lines := procExpected(t, filepath.Join(refDir, "processing", "depth_color.proc.expected.jsonl"))
	depth, paired, _, dev := pairedSetup(t, bag, lines)
	d, o := depth[1], paired[1]
	pc := NewPointCloud()
	mapTo(t, pc, dev, d, o)
	pts, err := pc.Calculate(d)
	if err != nil {
		t.Fatal(err)
	}
	var nonZero, first int = 0, -1
	for i, v := range pts.Vertices {
		if v != [3]float32{} {
			if first < 0 {
				first = i
			}
			nonZero++
		}
	}
	tex := func(i int) [3]float64 {
		uv := pts.TexCoords[i]
		x := min(max(int(float32(uv[0]*float32(o.Width))+0.5), 0), o.Width-1)
		y := min(max(int(float32(uv[1]*float32(o.Height))+0.5), 0), o.Height-1)
		px := o.Data[y*o.Stride+3*x:]
		return [3]float64{float64(px[0]), float64(px[1]), float64(px[2])}
	}
	for _, ascii := range []bool{false, true} {
		var buf bytes.Buffer
		if err := pts.WritePLY(&buf, o, PLYOptions{ASCII: ascii}); err != nil {
			t.Fatal(err)
		}
		header := buf.String()[:strings.Index(buf.String(), "end_header")]
		if ascii != strings.Contains(header, "format ascii 1.0") {
			t.Errorf("ascii %v: header %q", ascii, header)
		}
		path := filepath.Join(t.TempDir(), "cloud.ply")
		if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		out, err := exec.Command(py, "-c", open3dScript, path).Output()
		if err != nil {
			t.Fatalf("open3d: %v", err)
		}
		var got struct {
			Points, Colors, Triangles int
			First                     []float64
			FirstColor                []float64 `json:"first_color"`
		}
		if err := json.Unmarshal(out[bytes.LastIndexByte(bytes.TrimSpace(out), '\n')+1:], &got); err != nil {
			t.Fatalf("open3d output %q: %v", out, err)
		}
		v := pts.Vertices[first]
		want := []float64{float64(v[0]), float64(-v[1]), float64(-v[2])}
		if got.Points != nonZero || got.Colors != nonZero {
			t.Errorf("ascii %v: %d points, %d colors, want %d", ascii, got.Points, got.Colors, nonZero)
		}
		for k := range want {
			if len(got.First) != 3 || math.Abs(got.First[k]-want[k]) > 1e-6 {
				t.Fatalf("ascii %v: first point %v, want %v", ascii, got.First, want)
			}
		}
		if c := tex(first); len(got.FirstColor) != 3 || got.FirstColor[0] != c[0] || got.FirstColor[1] != c[1] || got.FirstColor[2] != c[2] {
			t.Errorf("ascii %v: first color %v, want %v", ascii, got.FirstColor, c)
		}
		if got.Triangles == 0 || !strings.Contains(header, "element face "+itoa(got.Triangles)+"\n") {
			t.Errorf("ascii %v: %d triangles read; header %q", ascii, got.Triangles, header)
		}
	}
}

func itoa(n int) string { return strconv.Itoa(n) }
