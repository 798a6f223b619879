package main

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"os"
	"strings"

	"github.com/rsbag/rsbag/device"
	"github.com/rsbag/rsbag/internal/layout"
	"github.com/rsbag/rsbag/internal/outfile"
	"github.com/rsbag/rsbag/internal/usbio"
	"github.com/rsbag/rsbag/internal/usbtrace"
	"github.com/rsbag/rsbag/msgs"
	"github.com/rsbag/rsbag/record"
	"github.com/rsbag/rsbag/sensor"
	"github.com/rsbag/rsbag/software"
	"github.com/rsbag/rsbag/usb"
)

// openLiveCamera opens the RealSense camera of --device SERIAL, or the
// first one, through libusb (or e.usb). With --record-usb every USB
// exchange with the camera is also captured and written to that file when
// the device is closed (fixtures for usb tests).
func openLiveCamera(ctx context.Context, e *env, c *recordConfig) (device.Device, error) {
	if c.recordUSB == "" {
		return usb.Open(e.usbContext(ctx), &usb.Options{Serial: c.serial()})
	}
	t := e.usb
	if t == nil {
		var err error
		if t, err = usbio.Default(); err != nil {
			return nil, err
		}
	}
	rec := &usbtrace.Record{T: t}
	dev, err := usb.Open(usbio.WithTransport(ctx, rec), &usb.Options{Serial: c.serial()})
	if err != nil {
		rec.Close()
		return nil, err
	}
	return &capturingDevice{Device: dev, rec: rec, path: c.recordUSB}, nil
}

// capturingDevice writes the captured USB exchange when it is closed.
type capturingDevice struct {
	*usb.Device
	rec  *usbtrace.Record
	path string
}

func (d *capturingDevice) Close() error {
	err := d.Device.Close()
	var b strings.Builder
	for _, op := range d.rec.Snapshot() {
		b.WriteString(op.String())
		b.WriteByte('\n')
	}
	return errors.Join(err, d.rec.Close(), outfile.Write(d.path, func(f *os.File) error {
		_, err := f.WriteString(b.String())
		return err
	}))
}

// preparedFrames is the number of frames per video stream the synthetic
// camera renders in advance and then hands out again with --scene pattern,
// so that recording measures the recorder, not the renderer. (A scene
// filmed by a still camera is rendered once per stream anyway.)
const preparedFrames = 4

// openSynthetic builds the synthetic camera with the requested streams;
// serial, when not empty, replaces its serial number.
func openSynthetic(c *recordConfig, serial string) (device.Device, error) {
	video := func(s streamSpec) *software.Video {
		if !s.enabled() {
			return nil
		}
		return &software.Video{Width: s.Width, Height: s.Height, FPS: s.FPS, Format: s.Format}
	}
	cfg := software.SyntheticConfig{
		Depth:          video(c.depth),
		Color:          video(c.color),
		Infrared:       video(c.ir),
		InfraredCount:  c.irCount,
		AccelFPS:       c.accel,
		GyroFPS:        c.gyro,
		PoseFPS:        c.pose,
		Frames:         c.frames, // exactly N frames per stream
		Speed:          c.speed,
		PreparedFrames: preparedFrames,
	}
	if f := c.film; f.scene != scenePattern {
		cfg.PreparedFrames = 0
		cfg.Scene = &software.SceneConfig{Name: f.scene, Seed: f.seed, Motion: f.motion, Projector: f.projector,
			DepthNoise: f.depthNoise, EdgeHoles: f.edgeHoles, MotionBlur: f.motionBlur, IMUNoise: f.imuNoise, GroundTruth: f.truth}
	}
	if serial != "" {
		cfg.Info = map[sensor.CameraInfo]string{sensor.CameraInfoSerialNumber: serial}
	}
	switch c.metadata {
	case "none":
		cfg.Metadata = software.MetadataNone
	case "rich":
		cfg.Metadata = software.MetadataRich
	default:
		cfg.Metadata = software.MetadataBasic
	}
	return software.NewSynthetic(cfg)
}

// cameraLosses describes the frames a camera lost before they reached the
// recorder, from its per-stream counters (device.Counting, the shape every
// backend reports): frames lost on the wire and frames dropped because the
// recorder fell behind (late), named by stream. A live camera's sensors
// break the frames lost on the wire down by cause (usb.Stats): payloads
// with the error bit, short or oversized frames, MJPEG frames that did not
// decode; and they count endpoint resets. It is "" when nothing was lost, and for devices that
// keep no counters.
func cameraLosses(dev device.Device) string {
	c, ok := dev.(device.Counting)
	if !ok {
		return ""
	}
	var causes usb.Stats
	for _, s := range dev.Sensors() {
		ss, ok := s.(interface{ Stats() usb.Stats })
		if !ok {
			continue
		}
		st := ss.Stats()
		causes.ErrorFrames += st.ErrorFrames
		causes.ShortFrames += st.ShortFrames
		causes.OversizedFrames += st.OversizedFrames
		causes.CorruptFrames += st.CorruptFrames
		causes.Resets += st.Resets
	}
	return describeLosses(c.Stats(), causes)
}

// describeLosses is cameraLosses' sentence for the per-stream counters
// streams and the live camera's causes (zero for another device).
func describeLosses(streams []device.StreamStats, causes usb.Stats) string {
	var total, late uint64
	var per []string
	for _, s := range streams {
		late += s.Dropped
		n := s.Lost + s.Dropped
		if n == 0 || s.Profile == nil {
			continue
		}
		total += n
		per = append(per, fmt.Sprintf("%s %d", strings.TrimSuffix(s.Profile.Name(), "/0"), n)) // as the summary names them
	}
	if total == 0 && causes.Resets == 0 {
		return ""
	}
	which := ""
	if len(per) > 0 {
		which = " (" + strings.Join(per, ", ") + ")"
	}
	corrupt := ""
	if causes.CorruptFrames > 0 {
		corrupt = fmt.Sprintf(", %d corrupt MJPEG", causes.CorruptFrames)
	}
	return fmt.Sprintf("the camera lost %d frames before recording%s: %d with the error bit, %d short, %d oversized%s, %d late (the recorder fell behind); %d endpoint resets",
		total, which, causes.ErrorFrames, causes.ShortFrames, causes.OversizedFrames, corrupt, late, causes.Resets)
}

// groundTruth returns the recorder's companions of --ground-truth: for
// every frame of one of the synthetic cameras cams, the pose of its stream
// in the scene (geometry_msgs/Transform on /ground_truth/<Stream>_<i>/pose)
// and, for depth, the exact depth in meters (sensor_msgs/Image 32FC1 on
// /ground_truth/Depth_0/depth, with the frame's number and stamp), at the
// frame's bag time.
func groundTruth(cams []*software.Synthetic) func(f *sensor.Frame) []record.Companion {
	return func(f *sensor.Frame) []record.Companion {
		for _, cam := range cams {
			gt, ok := cam.GroundTruth(f)
			if !ok {
				continue
			}
			p := f.Profile
			q := gt.Pose.Quaternion()
			out := []record.Companion{{Topic: layout.GroundTruthTopic(p.Stream, p.Index, "pose"), Msg: &msgs.Transform{
				Translation: msgs.Vector3{X: gt.Pose.T[0], Y: gt.Pose.T[1], Z: gt.Pose.T[2]},
				Rotation:    msgs.Quaternion{X: q[0], Y: q[1], Z: q[2], W: q[3]},
			}}}
			if gt.Depth != nil {
				data := make([]byte, 4*len(gt.Depth))
				for i, z := range gt.Depth {
					binary.LittleEndian.PutUint32(data[4*i:], math.Float32bits(z))
				}
				out = append(out, record.Companion{Topic: layout.GroundTruthTopic(p.Stream, p.Index, "depth"), Msg: &msgs.Image{
					Header: msgs.Header{Seq: uint32(f.Number), Stamp: layout.FrameStamp(f.TimestampMs)},
					Height: uint32(p.Height), Width: uint32(p.Width), Encoding: "32FC1", Step: uint32(4 * p.Width), Data: data,
				}})
			}
			return out
		}
		return nil
	}
}
