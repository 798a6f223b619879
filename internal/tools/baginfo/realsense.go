package baginfo

import (
	"cmp"
	"errors"
	"fmt"
	"slices"
	"strconv"

	"github.com/rsbag/rsbag/internal/layout"
	"github.com/rsbag/rsbag/msgs"
	"github.com/rsbag/rsbag/rosbag"
	"github.com/rsbag/rsbag/sensor"
)

// checkType checks a connection's md5sum against the known message type of
// the same name. Types this project does not know are accepted as they are.
func checkType(c *rosbag.Connection) error {
	t, ok := msgs.LookupType(c.Type)
	if ok && t.MD5 != c.MD5Sum {
		return fmt.Errorf("topic %s: type %s has md5sum %s, want %s", c.Topic, c.Type, c.MD5Sum, t.MD5)
	}
	return nil
}

// decoders decodes messages with one reusable value per connection.
type decoders map[uint32]msgs.Message

// decode decodes m, of topic t, with its connection's type; nil for
// unknown types. A message of a RealSense topic whose connection has the
// md5sum of the topic's type is decoded as that type whatever the type's
// name, as the player takes it. Bytes after the last field are tolerated,
// as librealsense and ROS do (librealsense writes 4 of them after every
// Image).
func (d decoders) decode(m rosbag.Message, t *layout.Topic) (msgs.Message, error) {
	v, ok := d[m.Conn.ID]
	if !ok {
		v = t.Kind.Decoder(m.Conn.Type, m.Conn.MD5Sum)
		d[m.Conn.ID] = v
	}
	if v == nil {
		return nil, nil
	}
	err := v.Unmarshal(m.Data)
	if im, ok := v.(*msgs.Image); ok && (err == nil || errors.Is(err, msgs.ErrTrailingBytes)) {
		err = im.CheckRows() // a frame the player refuses
	}
	if err != nil && !errors.Is(err, msgs.ErrTrailingBytes) {
		return nil, fmt.Errorf("topic %s: message at time %s (chunk %d, offset %d): %w", m.Conn.Topic, m.Time, m.Chunk, m.Offset, err)
	}
	return v, nil
}

// collect adds what a message of the RealSense topic grammar (spec §4.1)
// says about the device, its sensors, options and streams.
func (rep *Report) collect(t *layout.Topic, v msgs.Message) {
	switch t.Kind {
	case layout.KindDeviceInfo:
		if kv, ok := v.(*msgs.KeyValue); ok {
			rep.Device = append(rep.Device, Field{kv.Key, kv.Value})
		}
	case layout.KindSensorInfo:
		if kv, ok := v.(*msgs.KeyValue); ok {
			s := rep.sensor(t.Sensor)
			s.Info = append(s.Info, Field{kv.Key, kv.Value})
			if kv.Key == sensor.CameraInfoName.String() {
				s.Name = kv.Value
			}
		}
	case layout.KindProperty: // file version 2 options
		if kv, ok := v.(*msgs.KeyValue); ok {
			if f, err := strconv.ParseFloat(kv.Value, 32); err == nil {
				rep.sensor(t.Sensor).option(kv.Key).setValue(float32(f))
			}
		}
	case layout.KindOptionValue:
		if x, ok := v.(*msgs.Float32); ok {
			rep.sensor(t.Sensor).option(t.OptionName).setValue(x.Data)
		}
	case layout.KindOptionDescription:
		if x, ok := v.(*msgs.String); ok {
			rep.sensor(t.Sensor).option(t.OptionName).Description = x.Data
		}
	case layout.KindStreamInfo:
		if x, ok := v.(*msgs.StreamInfo); ok {
			s := rep.stream(streamID{sensor: t.Sensor, stream: t.Stream, index: t.Index})
			s.FPS = int(x.Fps)
			s.Format = x.Encoding
			s.hasStreamInfo = true
			if f, err := layout.ParseEncoding(x.Encoding); err == nil {
				s.Format = f.String()
			}
		}
	case layout.KindCameraInfo:
		if x, ok := v.(*msgs.CameraInfo); ok {
			s := rep.stream(streamID{sensor: t.Sensor, stream: t.Stream, index: t.Index})
			s.Width, s.Height = int(x.Width), int(x.Height)
		}
	}
}

// isFrame reports whether t is the data topic of a frame (one message per
// frame).
func isFrame(t *layout.Topic) bool {
	return t.Kind.IsFrameData()
}

// describes reports whether t is a topic that describes the device (what
// Options.Quick reads): not frames, their metadata or their pose
// companions, nor topics outside the RealSense grammar.
func describes(t *layout.Topic) bool {
	switch {
	case isFrame(t), t.Kind.IsMetadata(), t.Kind == layout.KindUnknown,
		t.Kind == layout.KindPoseAccel, t.Kind == layout.KindPoseTwist:
		return false
	}
	return true
}

func (rep *Report) sensor(i int) *Sensor {
	return findOrAdd(&rep.Sensors, &Sensor{Index: i}, func(s *Sensor) int { return s.Index })
}

func (s *Sensor) option(name string) *Option {
	return findOrAdd(&s.Options, &Option{Name: name}, func(o *Option) string { return o.Name })
}

// findOrAdd returns the element of *list whose key is key(v), or adds v,
// keeping *list sorted by key.
func findOrAdd[T any, K cmp.Ordered](list *[]*T, v *T, key func(*T) K) *T {
	k := key(v)
	i, found := slices.BinarySearchFunc(*list, k, func(e *T, k K) int { return cmp.Compare(key(e), k) })
	if found {
		return (*list)[i]
	}
	*list = slices.Insert(*list, i, v)
	return v
}

// setValue records an option value: the first is the value at the start of
// the recording, later ones are changes.
func (o *Option) setValue(v float32) {
	if o.seen {
		o.Changes++
		return
	}
	o.Value, o.seen = v, true
}
