package main

import (
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"

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

// decode decodes m with its connection's type; nil for unknown types. Bytes
// after the last field are tolerated, as librealsense and ROS do (librealsense
// writes 4 of them after every Image).
func (d decoders) decode(m rosbag.Message) (msgs.Message, error) {
	v, ok := d[m.Conn.ID]
	if !ok {
		v = msgs.New(m.Conn.Type)
		d[m.Conn.ID] = v
	}
	if v == nil {
		return nil, nil
	}
	if err := v.Unmarshal(m.Data); err != nil && !errors.Is(err, msgs.ErrTrailingBytes) {
		return nil, fmt.Errorf("topic %s: message at time %s (chunk %d, offset %d): %w", m.Conn.Topic, m.Time, m.Chunk, m.Offset, err)
	}
	return v, nil
}

// collect adds what a message of the RealSense topic grammar (spec §4.1)
// says about the device, its sensors, options and streams.
func (rep *infoReport) collect(topic string, v msgs.Message) {
	el := strings.Split(topic, "/")
	if len(el) < 3 || el[0] != "" || !strings.HasPrefix(el[1], "device_") {
		return
	}
	if len(el) == 3 && el[2] == "info" { // /device_0/info
		if kv, ok := v.(*msgs.KeyValue); ok {
			rep.Device = append(rep.Device, infoField{kv.Key, kv.Value})
		}
		return
	}
	si, err := strconv.Atoi(strings.TrimPrefix(el[2], "sensor_"))
	if err != nil || !strings.HasPrefix(el[2], "sensor_") {
		return
	}
	switch {
	case len(el) == 4 && el[3] == "info": // /device_0/sensor_<s>/info
		if kv, ok := v.(*msgs.KeyValue); ok {
			s := rep.sensor(si)
			s.Info = append(s.Info, infoField{kv.Key, kv.Value})
			if kv.Key == sensor.CameraInfoName.String() {
				s.Name = kv.Value
			}
		}
	case len(el) == 4 && el[3] == "property": // file version 2 options
		if kv, ok := v.(*msgs.KeyValue); ok {
			if f, err := strconv.ParseFloat(kv.Value, 32); err == nil {
				rep.sensor(si).option(kv.Key).setValue(float32(f))
			}
		}
	case len(el) == 6 && el[3] == "option": // /device_0/sensor_<s>/option/<Name>/{value,description}
		o := rep.sensor(si).option(strings.ReplaceAll(el[4], "_", " "))
		switch x := v.(type) {
		case *msgs.Float32:
			if el[5] == "value" {
				o.setValue(x.Data)
			}
		case *msgs.String:
			if el[5] == "description" {
				o.Description = x.Data
			}
		}
	case len(el) >= 5 && el[4] == "info": // .../<Stream>_<i>/info[/camera_info]
		name, idx, ok := strings.Cut(el[3], "_")
		st, ok2 := sensor.ParseStream(name)
		i, err := strconv.Atoi(idx)
		if !ok || !ok2 || err != nil {
			return
		}
		s := rep.stream(streamID{sensor: si, stream: st, index: i})
		switch x := v.(type) {
		case *msgs.StreamInfo:
			if len(el) == 5 {
				s.FPS = int(x.Fps)
				s.Format = formatOf(x.Encoding)
			}
		case *msgs.CameraInfo:
			if len(el) == 6 && el[5] == "camera_info" {
				s.Width, s.Height = int(x.Width), int(x.Height)
			}
		}
	}
}

// formatOf maps a StreamInfo encoding to a format name as the librealsense
// reader does (spec §5.14); an unknown encoding is shown as it is.
func formatOf(enc string) string {
	switch enc {
	case "mono16":
		return sensor.FormatZ16.String()
	case "8UC1":
		return sensor.FormatY8.String()
	case "16UC1":
		return sensor.FormatY16.String()
	case "mono8":
		return sensor.FormatRAW8.String()
	case "yuv422":
		return sensor.FormatUYVY.String()
	}
	if f, ok := sensor.ParseFormat(strings.ToUpper(enc)); ok {
		return f.String()
	}
	return enc
}

func (rep *infoReport) sensor(i int) *sensorInfo {
	for _, s := range rep.Sensors {
		if s.Index == i {
			return s
		}
	}
	s := &sensorInfo{Index: i}
	rep.Sensors = append(rep.Sensors, s)
	sort.Slice(rep.Sensors, func(a, b int) bool { return rep.Sensors[a].Index < rep.Sensors[b].Index })
	return s
}

func (s *sensorInfo) option(name string) *optionInfo {
	for _, o := range s.Options {
		if o.Name == name {
			return o
		}
	}
	o := &optionInfo{Name: name}
	s.Options = append(s.Options, o)
	sort.Slice(s.Options, func(a, b int) bool { return s.Options[a].Name < s.Options[b].Name })
	return o
}

// setValue records an option value: the first is the value at the start of
// the recording, later ones are changes.
func (o *optionInfo) setValue(v float32) {
	if o.seen {
		o.Changes++
		return
	}
	o.Value, o.seen = v, true
}
