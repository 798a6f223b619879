package description

import (
	"fmt"
	"strconv"

	"github.com/rsbag/rsbag/internal/layout"
	"github.com/rsbag/rsbag/internal/legacymsgs"
	"github.com/rsbag/rsbag/msgs"
	"github.com/rsbag/rsbag/rosbag"
	"github.com/rsbag/rsbag/sensor"
)

// File version 1 (spec §10): the layout of TM2-era recordings, read-only.

// Values librealsense gives to what version 1 does not record (spec §10).
const (
	legacyDeviceName   = "Intel RealSense TM2"
	legacyProductID    = "2150"
	legacySerialNumber = "N/A"
	legacySensorPrefix = "Sensor " // sensor Name is "Sensor <index>"
	legacySensorCount  = "sensor_count"
)

// isLegacy reports whether a bag with these connections is a version-1
// file: it has /FILE_VERSION and no /file_version.
func isLegacy(conns []*rosbag.Connection) bool {
	legacy := false
	for _, c := range conns {
		switch c.Topic {
		case layout.FileVersionTopic:
			return false
		case layout.LegacyFileVersionTopic:
			legacy = true
		}
	}
	return legacy
}

// Topic parses a topic with the grammar of the bag's file version.
func (d *Description) Topic(name string) layout.Topic {
	if d.Legacy {
		return layout.ParseLegacy(name)
	}
	return TopicOf(name)
}

// FrameKind returns the frame data kind of versions 2–4 that a frame topic
// kind of any version stands for, or KindUnknown.
func FrameKind(k layout.TopicKind) layout.TopicKind {
	switch k {
	case layout.KindImageData, layout.KindLegacyImageData:
		return layout.KindImageData
	case layout.KindImuData, layout.KindLegacyImuData:
		return layout.KindImuData
	case layout.KindPoseTransform, layout.KindLegacyPoseData:
		return layout.KindPoseTransform
	}
	return layout.KindUnknown
}

// DataKind returns the frame data topic kind (of versions 2–4) that carries
// the frames of a stream with profile p: images for video, IMU samples for
// motion, pose transforms for pose.
func DataKind(p *sensor.StreamProfile) layout.TopicKind {
	switch p.Kind {
	case sensor.KindVideo:
		return layout.KindImageData
	case sensor.KindMotion:
		return layout.KindImuData
	}
	return layout.KindPoseTransform
}

// FrameStream returns the stream whose frames the topic named name carries,
// when a player plays it: a frame data topic of a described stream (one with
// a profile) of the kind of its profile. Every reader that counts frames per
// stream (playback, and the tools that count the frames lost in a damaged
// part) asks it, so that they count the same frames.
func (d *Description) FrameStream(name string) (*Stream, bool) {
	ti := d.Topic(name)
	fk := FrameKind(ti.Kind)
	if fk == layout.KindUnknown {
		return nil, false
	}
	st := d.Streams[KeyOf(ti)]
	if st == nil || st.Profile == nil || DataKind(st.Profile) != fk {
		return nil, false
	}
	return st, true
}

// legacyStream parses the stream name of a version-1 stream_info or
// motion_stream_info ("DEPTH", "INFRARED2", "ACCLEROMETER", ...) with the
// names of the version-1 frame topics.
func legacyStream(name string, motion bool) (sensor.Stream, int, bool) {
	t := layout.Topic{Kind: layout.KindLegacyImageData}
	topic := "/camera/" + name + "/image_raw/0"
	if motion {
		t.Kind, topic = layout.KindLegacyImuData, "/imu/"+name+"/imu_raw/0"
	}
	p := layout.ParseLegacy(topic)
	if p.Kind != t.Kind {
		return 0, 0, false
	}
	return p.Stream, p.Index, true
}

// legacyExtrinsics converts realsense_legacy_msgs/extrinsics (column-major
// rotation, as rs2_extrinsics) to the transform from the reference point to
// the stream.
func legacyExtrinsics(e *legacymsgs.StreamExtrinsics) (*sensor.Extrinsics, uint32) {
	x := sensor.Extrinsics{Rotation: e.Extrinsics.Rotation, Translation: e.Extrinsics.Translation}
	return &x, uint32(e.ReferencePointID)
}

// readLegacy reads the description of a version-1 file (spec §10): the
// device info is synthesized, sensors come from /info/<sensor>, profiles
// from the legacy stream_info and motion_stream_info messages, and a pose
// stream from each rs_6DoF<i> frame topic.
func readLegacy(path string, r *rosbag.Reader) (*Description, error) {
	d := &Description{Legacy: true, Streams: map[Key]*Stream{}, Info: sensor.Info{
		sensor.CameraInfoName: legacyDeviceName, sensor.CameraInfoProductId: legacyProductID,
		sensor.CameraInfoSerialNumber: legacySerialNumber}}
	var want, frameConns []uint32
	parsed := map[uint32]layout.Topic{}
	var poses []layout.Topic
	for _, c := range r.Connections() {
		ti := d.Topic(c.Topic)
		parsed[c.ID] = ti
		switch ti.Kind {
		case layout.KindLegacyFileVersion, layout.KindLegacyDeviceInfo, layout.KindLegacySensorInfo,
			layout.KindLegacyStreamInfo, layout.KindLegacyMotionStreamInfo:
			want = append(want, c.ID)
		case layout.KindLegacyPoseData:
			poses = append(poses, ti)
			fallthrough
		case layout.KindLegacyImageData, layout.KindLegacyImuData:
			frameConns = append(frameConns, c.ID)
		}
	}
	sensorCount := -1
	extra := map[int]sensor.Info{}
	var versions []uint32
	infoSeq := 0
	addStream := func(k Key, t rosbag.Time) *Stream {
		if d.Streams[k] != nil {
			return nil // first one wins
		}
		st := &Stream{Key: k, InfoSeq: infoSeq, InfoTime: t}
		infoSeq++
		d.Streams[k] = st
		return st
	}
	err := readStatic(r, want, parsed, &d.Repaired, func(sm *staticMessage) error {
		ti, m, c, decode := sm.topic, sm.msg, sm.msg.Conn, sm.decode
		switch ti.Kind {
		case layout.KindLegacyFileVersion:
			var v msgs.UInt32
			if err := decode(&v); err != nil {
				return err
			}
			versions = append(versions, v.Data)
		case layout.KindLegacyDeviceInfo:
			var v legacymsgs.VendorData
			if err := decode(&v); err != nil {
				return err
			}
			if v.Name == legacySensorCount {
				n, err := strconv.ParseUint(v.Value, 10, 16)
				if err != nil {
					return fmt.Errorf("topic %q: %s %q: %w", c.Topic, legacySensorCount, v.Value, err)
				}
				sensorCount = int(n)
			}
		case layout.KindLegacySensorInfo:
			var v legacymsgs.VendorData
			if err := decode(&v); err != nil {
				return err
			}
			// Entries named like a camera info field are kept; the GUID
			// names of TM2 firmware entries are not part of the spec.
			if ci, ok := sensor.Parse[sensor.CameraInfo](v.Name); ok && ci != sensor.CameraInfoName {
				if extra[ti.Sensor] == nil {
					extra[ti.Sensor] = sensor.Info{}
				}
				extra[ti.Sensor][ci] = v.Value
			}
		case layout.KindLegacyStreamInfo:
			var v legacymsgs.StreamInfo
			if err := decode(&v); err != nil {
				return err
			}
			stream, idx, ok := legacyStream(v.StreamType, false)
			if !ok {
				return fmt.Errorf("topic %q: unknown stream type %q", c.Topic, v.StreamType)
			}
			f, err := layout.ParseEncoding(v.Encoding)
			if err != nil {
				return fmt.Errorf("topic %q: %w", c.Topic, err)
			}
			st := addStream(Key{ti.Sensor, stream, idx}, m.Time)
			if st == nil {
				return nil
			}
			cam := v.CameraInfo
			cam.Width, cam.Height = v.Width, v.Height
			st.FPS, st.Format, st.Cam = v.Fps, f, &cam
			st.Pin, st.TFGroup = legacyExtrinsics(&v.StreamExtrinsics)
		case layout.KindLegacyMotionStreamInfo:
			var v legacymsgs.MotionStreamInfo
			if err := decode(&v); err != nil {
				return err
			}
			stream, idx, ok := legacyStream(v.MotionType, true)
			if !ok {
				return fmt.Errorf("topic %q: unknown motion type %q", c.Topic, v.MotionType)
			}
			st := addStream(Key{ti.Sensor, stream, idx}, m.Time)
			if st == nil {
				return nil
			}
			in := v.StreamIntrinsics
			st.FPS, st.Format = v.Fps, sensor.FormatMotionXYZ32F
			st.IMU = &msgs.ImuIntrinsic{Data: in.Data, NoiseVariances: in.NoiseVariances, BiasVariances: in.BiasVariances}
			st.Pin, st.TFGroup = legacyExtrinsics(&v.StreamExtrinsics)
		}
		return nil
	})
	if err != nil {
		return nil, loadError(path, "%w", err)
	}
	if len(versions) != 1 {
		return nil, loadError(path, "%d messages on %q, want exactly one", len(versions), layout.LegacyFileVersionTopic)
	}
	d.Version = versions[0]
	if !layout.ReadableVersion(layout.KindLegacyFileVersion, d.Version) || d.Version < layout.VersionLegacy {
		return nil, loadError(path, "file version %d on %q is not supported, want %d", d.Version,
			layout.LegacyFileVersionTopic, layout.VersionLegacy)
	}
	if sensorCount < 0 {
		return nil, loadError(path, "no %q entry on %q", legacySensorCount,
			layout.Topic{Kind: layout.KindLegacyDeviceInfo}.String())
	}
	// Pose streams have no stream info: one per rs_6DoF<i> topic.
	for _, p := range poses {
		if st := addStream(KeyOf(p), 0); st != nil {
			st.Format = sensor.Format6DOF
		}
	}
	sensors := map[int]*Sensor{}
	has := map[int]bool{}
	for i := 0; i < sensorCount; i++ {
		info := sensor.Info{sensor.CameraInfoName: legacySensorPrefix + strconv.Itoa(i)}
		for k, v := range extra[i] {
			info[k] = v
		}
		sensors[i] = &Sensor{Index: i, Info: info, Options: map[sensor.Option]*Option{}}
		has[i] = true
	}
	if err := d.build(path, sensors, has); err != nil {
		return nil, err
	}
	if err := d.readDuration(r, frameConns); err != nil {
		return nil, loadError(path, "%w", err)
	}
	return d, nil
}
