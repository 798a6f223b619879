package playback

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/rsbag/rsbag/internal/layout"
	"github.com/rsbag/rsbag/msgs"
	"github.com/rsbag/rsbag/rosbag"
	"github.com/rsbag/rsbag/sensor"
)

// ErrNoGroundTruth reports a frame for which the bag holds no ground truth:
// a bag not recorded with rs-record record --ground-truth, or a frame of a
// stream or bag time it recorded none for.
var ErrNoGroundTruth = errors.New("playback: no ground truth")

// GroundTruth is what a synthetic recording (rs-record record
// --ground-truth) holds about one of its frames, on the /ground_truth/
// topics beside it: the pose of the frame's stream in the filmed scene
// and, for depth, the exact depth before noise and holes.
type GroundTruth struct {
	// Translation (meters) and Rotation (unit quaternion x, y, z, w) of
	// the stream's camera (or IMU) in the scene's world, the world of the
	// camera's reference stream at stream time 0.
	Translation [3]float64
	Rotation    [4]float64
	// Depth is, for a depth frame, the exact depth of each pixel in
	// meters, row after row (Width×Height), negative where the surface is
	// hidden from the other imager (the frame's pixel is then 0); nil for
	// other frames.
	Depth []float32
}

// GroundTruth returns the ground truth the bag holds for frame f, which the
// device delivered at bag time at: Position() in a handler of a
// non-real-time device, or the replay Context's BagTime. It reads the
// ground-truth messages of f's stream at that bag time; the error wraps
// ErrNoGroundTruth when there are none, and names the topic and time of a
// message it cannot decode.
func (d *Device) GroundTruth(f *sensor.Frame, at time.Duration) (GroundTruth, error) {
	var gt GroundTruth
	if f == nil || f.Profile == nil {
		return gt, fmt.Errorf("playback: %s: ground truth of no frame: %w", d.path, ErrNoGroundTruth)
	}
	p := f.Profile
	pose, depth := d.truthConns(p.Stream, p.Index)
	if pose == nil {
		return gt, fmt.Errorf("playback: %s: %v/%d: %w", d.path, p.Stream, p.Index, ErrNoGroundTruth)
	}
	ids := []uint32{pose.ID}
	if depth != nil {
		ids = append(ids, depth.ID)
	}
	t := rosbag.Time(at)
	it := d.bag.Messages(&rosbag.Query{Connections: ids, Start: t, End: t + 1})
	defer it.Close()
	var havePose bool
	for it.Next() {
		m := it.Message()
		var err error
		switch m.Conn.ID {
		case pose.ID:
			if !havePose {
				err = gt.setPose(m.Data)
				havePose = true
			}
		default:
			if gt.Depth == nil {
				err = gt.setDepth(m.Data, f)
			}
		}
		if err != nil {
			return GroundTruth{}, fmt.Errorf("playback: %s: %s at %v: %w", d.path, m.Conn.Topic, m.Time, err)
		}
	}
	if err := it.Err(); err != nil {
		return GroundTruth{}, fmt.Errorf("playback: %s: ground truth at %v: %w", d.path, t, err)
	}
	if !havePose {
		return GroundTruth{}, fmt.Errorf("playback: %s: %v/%d frame %d at %v: %w", d.path, p.Stream, p.Index, f.Number, t, ErrNoGroundTruth)
	}
	return gt, nil
}

// truthConns returns the connections of the ground truth of a stream: its
// pose and its exact depth (nil when absent).
func (d *Device) truthConns(s sensor.Stream, index int) (pose, depth *rosbag.Connection) {
	for _, c := range d.bag.Connections() {
		st, i, what, ok := layout.ParseGroundTruthTopic(c.Topic)
		if !ok || st != s || i != index {
			continue
		}
		switch {
		case what == "pose" && c.Type == new(msgs.Transform).Type().Name:
			pose = c
		case what == "depth" && c.Type == new(msgs.Image).Type().Name:
			depth = c
		}
	}
	return pose, depth
}

func (gt *GroundTruth) setPose(data []byte) error {
	var tf msgs.Transform
	if err := msgs.Unmarshal(data, &tf); err != nil {
		return err
	}
	gt.Translation = [3]float64{tf.Translation.X, tf.Translation.Y, tf.Translation.Z}
	gt.Rotation = [4]float64{tf.Rotation.X, tf.Rotation.Y, tf.Rotation.Z, tf.Rotation.W}
	return nil
}

// setDepth decodes the exact depth of frame f: a 32FC1 image of f's size
// and number.
func (gt *GroundTruth) setDepth(data []byte, f *sensor.Frame) error {
	var img msgs.Image
	if err := msgs.Unmarshal(data, &img); err != nil {
		return err
	}
	if img.Header.Seq != uint32(f.Number) {
		return nil // another frame's, at the same bag time
	}
	w, h := int(img.Width), int(img.Height)
	if img.Encoding != "32FC1" || w != f.Width || h != f.Height || int(img.Step) != 4*w || len(img.Data) != 4*w*h {
		return fmt.Errorf("exact depth %s %dx%d, step %d, %d bytes: want 32FC1 %dx%d, step %d, %d bytes",
			img.Encoding, w, h, img.Step, len(img.Data), f.Width, f.Height, 4*f.Width, 4*f.Width*f.Height)
	}
	gt.Depth = make([]float32, w*h)
	for i := range gt.Depth {
		gt.Depth[i] = math.Float32frombits(binary.LittleEndian.Uint32(img.Data[4*i:]))
	}
	return nil
}
