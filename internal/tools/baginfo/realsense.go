package baginfo

import (
	"cmp"
	"errors"
	"fmt"
	"slices"

	"github.com/rsbag/rsbag/internal/description"
	"github.com/rsbag/rsbag/internal/layout"
	"github.com/rsbag/rsbag/msgs"
	"github.com/rsbag/rsbag/rosbag"
	"github.com/rsbag/rsbag/sensor"
)

// checkType checks a connection's md5sum against the known message type of
// the same name. Types this project does not know are accepted as they are.
func checkType(c *rosbag.Connection) error {
	t, ok := layout.LookupType(c.Type)
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
	err := msgs.Unmarshal(m.Data, v)
	if im, ok := v.(*msgs.Image); ok && (err == nil || errors.Is(err, msgs.ErrTrailingBytes)) {
		err = im.CheckRows() // a frame the player refuses
	}
	if err != nil && !errors.Is(err, msgs.ErrTrailingBytes) {
		return nil, fmt.Errorf("topic %s: message at time %s (chunk %d, offset %d): %w", m.Conn.Topic, m.Time, m.Chunk, m.Offset, err)
	}
	return v, nil
}

// describe fills the RealSense view of the report with what the
// description reader collected from the bag: the file version, the device
// and sensor info in bag order, each sensor's options (the first recorded
// value, the number of later ones) and each stream's format, size and rate.
func (rep *Report) describe(c *description.Collector) {
	if v := c.Versions(); len(v) > 0 {
		rep.FileVersion = int(v[len(v)-1])
	}
	for _, f := range c.Fields() {
		rep.Device = append(rep.Device, Field{f.Key, f.Value})
	}
	for _, s := range c.Recorded() {
		rs := &Sensor{Index: s.Index}
		for _, f := range s.Fields {
			rs.Info = append(rs.Info, Field{f.Key, f.Value})
			if f.Key == sensor.CameraInfoName.String() {
				rs.Name = f.Value
			}
		}
		for _, od := range s.Recorded {
			o := &Option{Name: od.Name}
			if od.HasDesc {
				o.Description = od.Desc
			}
			if od.Count > 0 {
				o.Value, o.Changes = od.First, od.Count-1
			}
			rs.Options = append(rs.Options, o)
		}
		slices.SortFunc(rs.Options, func(a, b *Option) int { return cmp.Compare(a.Name, b.Name) })
		rep.Sensors = append(rep.Sensors, rs)
	}
	for id, i := range rep.streamIndex {
		st := c.Stream(description.Key{Sensor: id.sensor, Stream: id.stream, Index: id.index})
		if st == nil {
			continue
		}
		s := &rep.Streams[i]
		if st.InfoSeq >= 0 {
			s.FPS, s.Format, s.hasStreamInfo = int(st.FPS), st.Format.String(), true
			if st.Unparsed {
				s.Format = st.Encoding
			}
		}
		if st.Cam != nil {
			s.Width, s.Height = int(st.Cam.Width), int(st.Cam.Height)
		}
	}
}

// isFrame reports whether t is the data topic of a frame (one message per
// frame).
func isFrame(t *layout.Topic) bool {
	return t.Kind.IsFrameData()
}
