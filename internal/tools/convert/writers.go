package convert

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"image"
	"image/png"
	"io"
	"math"
	"slices"
	"strconv"
	"sync"

	"github.com/rsbag/rsbag/internal/imaging"
	"github.com/rsbag/rsbag/internal/outfile"
	"github.com/rsbag/rsbag/processing"
	"github.com/rsbag/rsbag/sensor"
)

// streamName is librealsense's stream_profile::stream_name() of a bag's
// profile: the stream type's name, then its index when it is not 0
// ("Depth", "Infrared 1").
func streamName(p *sensor.StreamProfile) string {
	if p.Index != 0 {
		return p.Stream.String() + " " + strconv.Itoa(p.Index)
	}
	return p.Stream.String()
}

// frameFile is rs-convert's name of a frame's file: PREFIX_STREAM_TS.EXT
// with the timestamp in milliseconds printed with 14 decimals.
func frameFile(prefix string, f *sensor.Frame, ext string) string {
	return fmt.Sprintf("%s_%s_%.14f.%s", prefix, streamName(f.Profile), f.TimestampMs, ext)
}

// metadataFile is the name of the text file of a frame's metadata.
func metadataFile(prefix string, f *sensor.Frame) string {
	return fmt.Sprintf("%s_%s_metadata_%.14f.txt", prefix, streamName(f.Profile), f.TimestampMs)
}

// cannot says why output cannot convert f, if it cannot.
func (c *converter) cannot(output string, f *sensor.Frame) (string, bool) {
	if output != "PNG" {
		return "", false
	}
	switch format := f.Profile.Format; format {
	case sensor.FormatZ16, sensor.FormatDisparity16, sensor.FormatDisparity32, sensor.FormatMJPEG:
		return "", false
	default:
		if _, err := imaging.BytesPerPixel(format); err != nil {
			return fmt.Sprintf("%s frames are not pictures PNG can hold (RAW writes their bytes)", format), true
		}
	}
	return "", false
}

// fileBuffers holds the write buffers of writeFile, reused from file to
// file: a frame makes a file of its data and one of its metadata.
var fileBuffers = sync.Pool{New: func() any { return bufio.NewWriterSize(nil, 256<<10) }}

// writeFile writes a file under a temporary name in its directory and
// renames it to name once complete, so that name never holds part of a
// file.
func (c *converter) writeFile(name string, fill func(w *bufio.Writer) error) error {
	if err := c.inputs.Check(name); err != nil {
		return fmt.Errorf("convert: %w", err)
	}
	f, err := outfile.Create(name)
	if err != nil {
		return fmt.Errorf("convert: %w", err)
	}
	w := fileBuffers.Get().(*bufio.Writer)
	w.Reset(f)
	err = fill(w)
	if err == nil {
		err = w.Flush()
	}
	w.Reset(nil)
	fileBuffers.Put(w)
	var size int64
	if err == nil {
		size, err = f.Seek(0, io.SeekCurrent)
	}
	if err != nil {
		f.Abort()
		return fmt.Errorf("convert: writing %s: %w", name, err)
	}
	if err := f.CommitUnsynced(); err != nil { // as rs-convert: no sync per frame
		return fmt.Errorf("convert: %w", err)
	}
	c.written.add(size)
	return nil
}

// writeMetadata writes rs-convert's metadata text file of a frame: the
// stream type, then "Name: value" for each metadata field the frame has,
// in rs2_frame_metadata_value order.
func (c *converter) writeMetadata(name string, f *sensor.Frame) error {
	return c.writeFile(name, func(w *bufio.Writer) error {
		fmt.Fprintf(w, "Stream: %s\n", f.Profile.Stream)
		for k := sensor.MetadataKey(0); int(k) < sensor.Count[sensor.MetadataKey](); k++ {
			if v, ok := f.Metadata.Get(k); ok {
				fmt.Fprintf(w, "%s: %d\n", k, v)
			}
		}
		return nil
	})
}

var (
	rgbaPool = sync.Pool{New: func() any { return new(image.RGBA) }}
	pngEnc   = &png.Encoder{CompressionLevel: png.BestSpeed, BufferPool: new(pngBuffers)}
)

type pngBuffers struct{ p sync.Pool }

func (b *pngBuffers) Get() *png.EncoderBuffer {
	v, _ := b.p.Get().(*png.EncoderBuffer)
	return v
}
func (b *pngBuffers) Put(v *png.EncoderBuffer) { b.p.Put(v) }

// rgba returns a pooled picture of w×h pixels.
func rgba(w, h int) *image.RGBA {
	img := rgbaPool.Get().(*image.RGBA)
	if n := 4 * w * h; cap(img.Pix) < n {
		img.Pix = make([]byte, n)
	} else {
		img.Pix = img.Pix[:n]
	}
	img.Stride, img.Rect = 4*w, image.Rect(0, 0, w, h)
	return img
}

// writePNG writes a frame as a PNG picture: depth colorized with
// librealsense's default colorizer, as rs-convert does. Other frames are
// written as the pictures they are, where rs-convert hands their bytes to
// its PNG writer as 1 to 4 channels: BGR8 and BGRA8 would then swap red
// and blue, YUYV and UYVY (2 bytes per pixel) would become gray and alpha
// and Y16 would lose its byte order; here colors come out right, YUYV and
// UYVY are converted to RGB, MJPEG is decoded and Y16 is a 16-bit gray
// PNG.
func (c *converter) writePNG(f *sensor.Frame) error {
	pooled := rgba(f.Width, f.Height)
	defer rgbaPool.Put(pooled)
	var img image.Image = pooled
	switch f.Profile.Format {
	case sensor.FormatZ16, sensor.FormatDisparity16, sensor.FormatDisparity32:
		if err := c.col.Draw(pooled, f); err != nil {
			return fmt.Errorf("convert: colorizing %s frame %d: %w", streamName(f.Profile), f.Number, err)
		}
	default:
		var err error
		if img, err = imaging.Image(f, pooled); err != nil {
			return fmt.Errorf("convert: %s frame %d: %w", streamName(f.Profile), f.Number, err)
		}
	}
	if err := c.writeFile(frameFile(c.opts.PNG, f, "png"), func(w *bufio.Writer) error {
		return pngEnc.Encode(w, img)
	}); err != nil {
		return err
	}
	return c.writeMetadata(metadataFile(c.opts.PNG, f), f)
}

// writeRAW writes the frame's bytes, stride × height, as rs-convert does.
func (c *converter) writeRAW(f *sensor.Frame) error {
	n := min(f.Stride*f.Height, len(f.Data))
	if err := c.writeFile(frameFile(c.opts.RAW, f, "raw"), func(w *bufio.Writer) error {
		_, err := w.Write(f.Data[:n])
		return err
	}); err != nil {
		return err
	}
	return c.writeMetadata(metadataFile(c.opts.RAW, f), f)
}

// depthRows calls row for each row of a Z16 frame with the distances of
// its pixels in meters (depth_frame::get_distance: the value times the
// depth units, in float32).
func depthRows(f *sensor.Frame, row func(d []float32) error) error {
	if f.Stride < 2*f.Width || len(f.Data) < f.Stride*(f.Height-1)+2*f.Width {
		return fmt.Errorf("convert: %s frame %d: %d bytes, too short for %dx%d Z16", streamName(f.Profile), f.Number, len(f.Data), f.Width, f.Height)
	}
	units := f.Units()
	d := make([]float32, f.Width)
	for y := 0; y < f.Height; y++ {
		src := f.Data[y*f.Stride:]
		for x := range d {
			d[x] = float32(binary.LittleEndian.Uint16(src[2*x:])) * units
		}
		if err := row(d); err != nil {
			return err
		}
	}
	return nil
}

// writeCSV writes a depth frame as rows of distances in meters separated
// by commas, each printed as C++ streams print a float (six significant
// digits, %g).
func (c *converter) writeCSV(f *sensor.Frame) error {
	if err := c.writeFile(frameFile(c.opts.CSV, f, "csv"), func(w *bufio.Writer) error {
		var b []byte
		return depthRows(f, func(d []float32) error {
			b = b[:0]
			for x, v := range d {
				if x > 0 {
					b = append(b, ',')
				}
				b = strconv.AppendFloat(b, float64(v), 'g', 6, 32)
			}
			b = append(b, '\n')
			_, err := w.Write(b)
			return err
		})
	}); err != nil {
		return err
	}
	return c.writeMetadata(metadataFile(c.opts.CSV, f), f)
}

// writeBIN writes a depth frame as little-endian float32 distances in
// meters, row by row (rs-convert's own float encoder gives the same bits
// for every distance a Z16 frame holds).
func (c *converter) writeBIN(f *sensor.Frame) error {
	if err := c.writeFile(frameFile(c.opts.BIN, f, "bin"), func(w *bufio.Writer) error {
		b := make([]byte, 4*f.Width)
		return depthRows(f, func(d []float32) error {
			for x, v := range d {
				binary.LittleEndian.PutUint32(b[4*x:], math.Float32bits(v))
			}
			_, err := w.Write(b)
			return err
		})
	}); err != nil {
		return err
	}
	return c.writeMetadata(metadataFile(c.opts.BIN, f), f)
}

// writePLY writes the point cloud of a depth frame mapped to the color
// frame of its frameset, as rs-convert does (PREFIX_TS.ply with the depth
// timestamp, and PREFIX_metadata_TS.txt with the depth frame's metadata).
func (c *converter) writePLY(depth, color *sensor.Frame) error {
	pts, err := c.pc.Calculate(depth)
	if err != nil {
		return fmt.Errorf("convert: point cloud of depth frame %d: %w", depth.Number, err)
	}
	name := fmt.Sprintf("%s_%.14f.ply", c.opts.PLY, depth.TimestampMs)
	if err := c.writeFile(name, func(w *bufio.Writer) error {
		return pts.WritePLY(w, color, processing.PLYOptions{ASCII: c.opts.PLYText})
	}); err != nil {
		return err
	}
	return c.writeMetadata(fmt.Sprintf("%s_metadata_%.14f.txt", c.opts.PLY, depth.TimestampMs), depth)
}

// motionKey orders the streams of the IMU and pose CSV as rs-convert's
// std::map does: by stream type, then index.
type motionKey struct {
	stream sensor.Stream
	index  int
}

type motionRecord struct {
	number                   uint64
	frameTS, backend, arrive int64
	params                   []float64
}

// addMotion collects an IMU or pose sample for the CSV (called under mu).
func (c *converter) addMotion(f *sensor.Frame) {
	k := seenKey{"CSV", f.Profile.Stream, f.Profile.Index, f.Number}
	if c.seen[k] {
		return
	}
	c.seen[k] = true
	r := motionRecord{number: f.Number}
	r.frameTS, _ = f.Metadata.Get(sensor.MetadataKeyFrameTimestamp)
	r.backend, _ = f.Metadata.Get(sensor.MetadataKeyBackendTimestamp)
	r.arrive, _ = f.Metadata.Get(sensor.MetadataKeyTimeOfArrival)
	switch {
	case f.IsMotion():
		r.params = []float64{float64(f.Motion[0]), float64(f.Motion[1]), float64(f.Motion[2])}
	case f.IsPose():
		t, q := f.Pose.Translation, f.Pose.Rotation
		r.params = []float64{float64(t[0]), float64(t[1]), float64(t[2]), float64(q[0]), float64(q[1]), float64(q[2]), float64(q[3])}
	default:
		return
	}
	mk := motionKey{f.Profile.Stream, f.Profile.Index}
	c.motion[mk] = append(c.motion[mk], r)
	c.count("CSV", streamName(f.Profile))
}

// writeMotionCSV writes rs-convert's IMU and pose CSV,
// PREFIX_YYYYmmddHHMMSS_imu_pose.csv: for each stream a blank line pair,
// a header and one row per sample (frame number, the frame timestamp,
// backend timestamp and time of arrival metadata, then the sample with 3
// decimals).
func (c *converter) writeMotionCSV() error {
	if c.opts.CSV == "" || len(c.motion) == 0 {
		return nil
	}
	keys := make([]motionKey, 0, len(c.motion))
	for k := range c.motion {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b motionKey) int {
		if a.stream != b.stream {
			return int(a.stream) - int(b.stream)
		}
		return a.index - b.index
	})
	name := fmt.Sprintf("%s_%s_imu_pose.csv", c.opts.CSV, c.opts.Time.Local().Format("20060102150405"))
	return c.writeFile(name, func(w *bufio.Writer) error {
		for _, k := range keys {
			head := "\n\nStream Type,F#,HW Timestamp (ms),Backend Timestamp(ms),Host Timestamp(ms)"
			switch k.stream {
			case sensor.StreamGyro, sensor.StreamAccel:
				head += ",3DOF_x,3DOF_y,3DOF_z"
			case sensor.StreamPose:
				head += ",t_x,t_y,t_z,r_x,r_y,r_z,r_w"
			}
			fmt.Fprintln(w, head)
			for _, r := range c.motion[k] {
				fmt.Fprintf(w, "%s,%d,%d,%d,%d", k.stream, r.number, r.frameTS, r.backend, r.arrive)
				for _, p := range r.params {
					fmt.Fprintf(w, ",%.3f", p)
				}
				fmt.Fprintln(w)
			}
		}
		return nil
	})
}
