package processing

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"strconv"

	"github.com/rsbag/rsbag/internal/yuv"
	"github.com/rsbag/rsbag/sensor"
)

// PLYOptions shapes a PLY file.
type PLYOptions struct {
	// ASCII writes the values as text ("format ascii 1.0") instead of
	// binary little-endian.
	ASCII bool
	// NoMesh leaves out the faces; by default, as librealsense's
	// export_to_ply, each 2x2 square of valid points whose depths differ
	// by less than 5 cm gives two triangles.
	NoMesh bool
}

// plyMinDistance is the distance from the origin below which a vertex is
// not written (librealsense's MIN_DISTANCE, src/points.cpp).
const plyMinDistance = 1e-6

// plyFaceThreshold is the depth step (meters) above which no face joins
// two points (src/points.cpp).
const plyFaceThreshold = 0.05

// WritePLY writes the cloud as a PLY file the way librealsense's
// export_to_ply does: the non-zero vertices with y and z negated (the
// viewer's y-up convention), their colors when texture (the frame the
// cloud was mapped to) is given, and a mesh of faces. texture is an RGB8,
// BGR8, RGBA8, BGRA8 or Y8 frame, or a YUYV, UYVY or MJPEG one (converted
// to RGB8 as librealsense's color sensor converts or decodes it); colors
// are written as red, green, blue whatever its byte order (librealsense
// writes the first three bytes as they are, so BGR pictures come out with
// red and blue swapped; here they do not). It writes through a buffer; w is not closed.
func (p *Points) WritePLY(w io.Writer, texture *sensor.Frame, opt PLYOptions) error {
	width, height := p.Frame.Width, p.Frame.Height
	var texel func(i int) [3]byte
	if texture != nil {
		if p.TexCoords == nil {
			return fmt.Errorf("ply: a texture was given but the cloud was not mapped to one: %w", ErrFrame)
		}
		if texture.Profile != nil && yuv.Sources(texture.Profile.Format) {
			rgb, err := yuv.Frame(texture, sensor.FormatRGB8)
			if err != nil {
				return fmt.Errorf("ply: %s: %w: %w", texture.Profile.Name(), err, ErrFrame)
			}
			texture = rgb
		}
		bpp, err := checkVideo("ply", texture, sensor.FormatRGB8, sensor.FormatBGR8, sensor.FormatRGBA8, sensor.FormatBGRA8, sensor.FormatY8)
		if err != nil {
			return err
		}
		tw, th := texture.Width, texture.Height
		format := texture.Profile.Format
		texel = func(i int) [3]byte {
			uv := p.TexCoords[i]
			x := min(max(int(float32(uv[0]*float32(tw))+0.5), 0), tw-1)
			y := min(max(int(float32(uv[1]*float32(th))+0.5), 0), th-1)
			px := texture.Data[y*texture.Stride+x*bpp:]
			switch format {
			case sensor.FormatY8:
				return [3]byte{px[0], px[0], px[0]}
			case sensor.FormatBGR8, sensor.FormatBGRA8:
				return [3]byte{px[2], px[1], px[0]}
			}
			return [3]byte{px[0], px[1], px[2]}
		}
	}
	v := p.Vertices
	index := make([]int32, len(v)) // index among the written vertices, -1 if not written
	n := int32(0)
	for i, q := range v {
		if math.Abs(float64(q[0])) >= plyMinDistance || math.Abs(float64(q[1])) >= plyMinDistance || math.Abs(float64(q[2])) >= plyMinDistance {
			index[i] = n
			n++
		} else {
			index[i] = -1
		}
	}
	var faces [][3]int32
	if !opt.NoMesh {
		near := func(a, b int) bool { return math.Abs(float64(v[a][2]-v[b][2])) < plyFaceThreshold }
		for x := 0; x < width-1; x++ {
			for y := 0; y < height-1; y++ {
				a, b, c, d := y*width+x, y*width+x+1, (y+1)*width+x, (y+1)*width+x+1
				if v[a][2] == 0 || v[b][2] == 0 || v[c][2] == 0 || v[d][2] == 0 ||
					!near(a, b) || !near(a, c) || !near(b, d) || !near(c, d) ||
					index[a] < 0 || index[b] < 0 || index[c] < 0 || index[d] < 0 {
					continue
				}
				faces = append(faces, [3]int32{index[a], index[d], index[b]}, [3]int32{index[d], index[a], index[c]})
			}
		}
	}

	bw := bufio.NewWriterSize(w, 1<<16)
	format := "binary_little_endian"
	if opt.ASCII {
		format = "ascii"
	}
	fmt.Fprintf(bw, "ply\nformat %s 1.0\ncomment pointcloud saved by rsbag\nelement vertex %d\n"+
		"property float32 x\nproperty float32 y\nproperty float32 z\n", format, n)
	if texel != nil {
		bw.WriteString("property uchar red\nproperty uchar green\nproperty uchar blue\n")
	}
	fmt.Fprintf(bw, "element face %d\nproperty list uchar int vertex_indices\nend_header\n", len(faces))
	var buf [64]byte
	for i, q := range v {
		if index[i] < 0 {
			continue
		}
		xyz := [3]float32{q[0], -q[1], -q[2]}
		var rgb [3]byte
		if texel != nil {
			rgb = texel(i)
		}
		b := buf[:0]
		if opt.ASCII {
			for k, f := range xyz {
				if k > 0 {
					b = append(b, ' ')
				}
				b = strconv.AppendFloat(b, float64(f), 'g', -1, 32)
			}
			if texel != nil {
				for _, c := range rgb {
					b = append(b, ' ')
					b = strconv.AppendUint(b, uint64(c), 10)
				}
			}
			b = append(b, '\n')
		} else {
			for _, f := range xyz {
				b = binary.LittleEndian.AppendUint32(b, math.Float32bits(f))
			}
			if texel != nil {
				b = append(b, rgb[:]...)
			}
		}
		bw.Write(b)
	}
	for _, f := range faces {
		b := buf[:0]
		if opt.ASCII {
			b = append(b, '3')
			for _, k := range f {
				b = append(b, ' ')
				b = strconv.AppendInt(b, int64(k), 10)
			}
			b = append(b, '\n')
		} else {
			b = append(b, 3)
			for _, k := range f {
				b = binary.LittleEndian.AppendUint32(b, uint32(k))
			}
		}
		bw.Write(b)
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("ply: %w", err)
	}
	return nil
}
