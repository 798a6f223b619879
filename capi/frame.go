package main

/*
#include "shim.h"
*/
import "C"

import (
	"fmt"
	"os"
	"runtime"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/rsbag/rsbag/internal/framepool"
	"github.com/rsbag/rsbag/processing"
	"github.com/rsbag/rsbag/sensor"
)

// frameRef is an rs2_frame: a Go frame (or a composite of frames) the
// program holds references to. Its pixels are pinned, so that the pointer
// rs2_get_frame_data hands out stays valid, until the last reference is
// released.
type frameRef struct {
	f      *sensor.Frame   // nil for a composite
	set    []*sensor.Frame // a composite's frames
	points *processing.Points
	// zeroTex holds the texture coordinates of a cloud mapped to no
	// texture, made at the first call for them.
	zeroTex     [][2]float32
	zeroTexOnce sync.Once
	// setPoints is the point cloud among a composite's frames, if any:
	// extracted, its frame is a points frame.
	setPoints *processing.Points
	o         *owner // the device of the frame's profile (nil for none)
	refs      atomic.Int32
	pin       runtime.Pinner
	handle    unsafe.Pointer
	// freed, when not nil, is called when the last reference goes or the
	// frame is kept (only its first call counts): a processing block's
	// count of the outputs the program holds.
	freed func()
	// halt, when not nil, makes the frame blocking: a full frame queue
	// holds it until there is room or halt is closed (the stop of the
	// sensor whose start made it; see frameQueue.enqueue).
	halt <-chan struct{}

	// cloud is the point cloud block whose points these are: at the last
	// release they become its spare, the memory of its next cloud, unless
	// shared says they went where a reference may outlive this one (into
	// a composite, or into a block).
	cloud  *blockHandle
	shared atomic.Bool
	// pooled says the frame's data is a block's output of new memory
	// (poolsFrames): at the last release it goes back to
	// internal/framepool for the blocks' next outputs, unless shared.
	pooled bool
}

// newFrame returns a handle with one reference to f (nil f: a composite of
// set). o, when not nil, gains a reference until the frame is released.
func newFrame(f *sensor.Frame, set []*sensor.Frame, o *owner) *C.rs2_frame {
	r := &frameRef{f: f, set: set, o: o}
	r.refs.Store(1)
	if f != nil && len(f.Data) > 0 {
		r.pin.Pin(&f.Data[0])
	}
	if o != nil {
		o.acquire()
	}
	r.handle = newHandle(r)
	return (*C.rs2_frame)(r.handle)
}

func (r *frameRef) release() {
	if r.refs.Add(-1) != 0 {
		return
	}
	freeHandle(r.handle)
	r.pin.Unpin()
	if r.o != nil {
		r.o.release()
	}
	if r.cloud != nil && !r.shared.Load() {
		r.cloud.mu.Lock()
		r.cloud.spare = r.points
		r.cloud.mu.Unlock()
	}
	if r.pooled && !r.shared.Load() {
		framepool.Put(r.f.Data)
	}
	if r.freed != nil {
		r.freed()
	}
}

func frameOf(p *C.rs2_frame, arg string) *frameRef { return lookup[*frameRef](unsafe.Pointer(p), arg) }

// single returns the frame of a handle that is not a composite.
func single(p *C.rs2_frame, arg string) *sensor.Frame {
	r := frameOf(p, arg)
	if r.f == nil {
		fail(C.RS2_EXCEPTION_TYPE_COUNT, "Object does not support \"librealsense::frame_interface\" interface! ")
	}
	return r.f
}

func videoFrame(p *C.rs2_frame, arg string) *sensor.Frame {
	f := single(p, arg)
	if f.Profile == nil || f.Profile.Kind != sensor.KindVideo {
		fail(C.RS2_EXCEPTION_TYPE_COUNT, "Object does not support \"librealsense::video_frame\" interface! ")
	}
	return f
}

//export rs2_release_frame
func rs2_release_frame(p *C.rs2_frame) {
	defer catch(nil, "rs2_release_frame", nil)
	if p != nil {
		frameOf(p, "frame").release()
	}
}

//export rs2_frame_add_ref
func rs2_frame_add_ref(p *C.rs2_frame, e **C.rs2_error) {
	defer catch(e, "rs2_frame_add_ref", func() string { return fmtArgs("frame", ptrArg(unsafe.Pointer(p))) })
	frameOf(p, "frame").refs.Add(1)
}

//export rs2_keep_frame
func rs2_keep_frame(p *C.rs2_frame) {
	// A frame's memory is reused only after its last reference is
	// released (frameRef.release), so every frame is kept already. A
	// processing block's output kept no longer counts against its Frames
	// Queue Size, as in librealsense, whose kept frames leave the pool.
	if v, ok := handles.Load(uintptr(unsafe.Pointer(p))); ok {
		if r, ok := v.(*frameRef); ok && r.freed != nil {
			r.freed()
		}
	}
}

//export rs2_get_frame_data
func rs2_get_frame_data(p *C.rs2_frame, e **C.rs2_error) (r unsafe.Pointer) {
	defer catch(e, "rs2_get_frame_data", func() string { return fmtArgs("frame_ref", ptrArg(unsafe.Pointer(p))) })
	f := single(p, "frame_ref")
	if len(f.Data) == 0 {
		return nil
	}
	return unsafe.Pointer(&f.Data[0])
}

//export rs2_get_frame_data_size
func rs2_get_frame_data_size(p *C.rs2_frame, e **C.rs2_error) (r C.int) {
	defer catch(e, "rs2_get_frame_data_size", func() string { return fmtArgs("frame_ref", ptrArg(unsafe.Pointer(p))) })
	return C.int(len(single(p, "frame_ref").Data))
}

//export rs2_get_frame_width
func rs2_get_frame_width(p *C.rs2_frame, e **C.rs2_error) (r C.int) {
	defer catch(e, "rs2_get_frame_width", func() string { return fmtArgs("frame_ref", ptrArg(unsafe.Pointer(p))) })
	return C.int(videoFrame(p, "frame_ref").Width)
}

//export rs2_get_frame_height
func rs2_get_frame_height(p *C.rs2_frame, e **C.rs2_error) (r C.int) {
	defer catch(e, "rs2_get_frame_height", func() string { return fmtArgs("frame_ref", ptrArg(unsafe.Pointer(p))) })
	return C.int(videoFrame(p, "frame_ref").Height)
}

//export rs2_get_frame_stride_in_bytes
func rs2_get_frame_stride_in_bytes(p *C.rs2_frame, e **C.rs2_error) (r C.int) {
	defer catch(e, "rs2_get_frame_stride_in_bytes", func() string { return fmtArgs("frame_ref", ptrArg(unsafe.Pointer(p))) })
	return C.int(videoFrame(p, "frame_ref").Stride)
}

//export rs2_get_frame_bits_per_pixel
func rs2_get_frame_bits_per_pixel(p *C.rs2_frame, e **C.rs2_error) (r C.int) {
	defer catch(e, "rs2_get_frame_bits_per_pixel", func() string { return fmtArgs("frame_ref", ptrArg(unsafe.Pointer(p))) })
	return C.int(videoFrame(p, "frame_ref").BPP)
}

//export rs2_get_frame_number
func rs2_get_frame_number(p *C.rs2_frame, e **C.rs2_error) (r C.ulonglong) {
	defer catch(e, "rs2_get_frame_number", func() string { return fmtArgs("frame", ptrArg(unsafe.Pointer(p))) })
	return C.ulonglong(single(p, "frame").Number)
}

//export rs2_get_frame_timestamp
func rs2_get_frame_timestamp(p *C.rs2_frame, e **C.rs2_error) (r C.rs2_time_t) {
	defer catch(e, "rs2_get_frame_timestamp", func() string { return fmtArgs("frame_ref", ptrArg(unsafe.Pointer(p))) })
	return C.rs2_time_t(single(p, "frame_ref").TimestampMs)
}

//export rs2_get_frame_timestamp_domain
func rs2_get_frame_timestamp_domain(p *C.rs2_frame, e **C.rs2_error) (r C.rs2_timestamp_domain) {
	defer catch(e, "rs2_get_frame_timestamp_domain", func() string { return fmtArgs("frame_ref", ptrArg(unsafe.Pointer(p))) })
	return C.rs2_timestamp_domain(single(p, "frame_ref").Domain)
}

//export rs2_supports_frame_metadata
func rs2_supports_frame_metadata(p *C.rs2_frame, k C.rs2_frame_metadata_value, e **C.rs2_error) (r C.int) {
	defer catch(e, "rs2_supports_frame_metadata", func() string { return fmtArgs("frame", ptrArg(unsafe.Pointer(p)), "frame_metadata", k) })
	_, ok := single(p, "frame").Metadata.Get(sensor.MetadataKey(k))
	return cbool(ok)
}

//export rs2_get_frame_metadata
func rs2_get_frame_metadata(p *C.rs2_frame, k C.rs2_frame_metadata_value, e **C.rs2_error) (r C.rs2_metadata_type) {
	defer catch(e, "rs2_get_frame_metadata", func() string { return fmtArgs("frame", ptrArg(unsafe.Pointer(p)), "frame_metadata", k) })
	v, ok := single(p, "frame").Metadata.Get(sensor.MetadataKey(k))
	if !ok {
		fail(C.RS2_EXCEPTION_TYPE_INVALID_VALUE, "Frame does not support this type of metadata")
	}
	return C.rs2_metadata_type(v)
}

//export rs2_get_frame_stream_profile
func rs2_get_frame_stream_profile(p *C.rs2_frame, e **C.rs2_error) (r *C.rs2_stream_profile) {
	defer catch(e, "rs2_get_frame_stream_profile", func() string { return fmtArgs("frame_ref", ptrArg(unsafe.Pointer(p))) })
	ref := frameOf(p, "frame_ref")
	f := ref.f
	if f == nil && len(ref.set) > 0 {
		f = ref.set[0]
	}
	if f == nil || f.Profile == nil || ref.o == nil {
		fail(C.RS2_EXCEPTION_TYPE_COUNT, "frame has no stream profile")
	}
	return ref.o.profile(f.Profile)
}

//export rs2_is_frame_extendable_to
func rs2_is_frame_extendable_to(p *C.rs2_frame, ext C.rs2_extension, e **C.rs2_error) (r C.int) {
	defer catch(e, "rs2_is_frame_extendable_to", func() string { return fmtArgs("f", ptrArg(unsafe.Pointer(p)), "extension_type", ext) })
	ref := frameOf(p, "f")
	if ref.f == nil {
		return cbool(ext == C.RS2_EXTENSION_COMPOSITE_FRAME)
	}
	if ref.points != nil {
		return cbool(ext == C.RS2_EXTENSION_POINTS)
	}
	pr := ref.f.Profile
	if pr == nil {
		return 0
	}
	switch ext {
	case C.RS2_EXTENSION_VIDEO_FRAME:
		return cbool(pr.Kind == sensor.KindVideo)
	case C.RS2_EXTENSION_DEPTH_FRAME:
		return cbool(pr.Kind == sensor.KindVideo && pr.Stream == sensor.StreamDepth)
	case C.RS2_EXTENSION_DISPARITY_FRAME:
		return cbool(isDisparity(pr))
	case C.RS2_EXTENSION_MOTION_FRAME:
		return cbool(pr.Kind == sensor.KindMotion)
	case C.RS2_EXTENSION_POSE_FRAME:
		return cbool(pr.Kind == sensor.KindPose)
	}
	return 0
}

func isDisparity(p *sensor.StreamProfile) bool {
	return p.Stream == sensor.StreamDepth && (p.Format == sensor.FormatDisparity32 || p.Format == sensor.FormatDisparity16)
}

func depthFrame(p *C.rs2_frame, arg string) *sensor.Frame {
	f := videoFrame(p, arg)
	if f.Profile.Stream != sensor.StreamDepth {
		fail(C.RS2_EXCEPTION_TYPE_COUNT, "Object does not support \"librealsense::depth_frame\" interface! ")
	}
	return f
}

//export rs2_depth_frame_get_units
func rs2_depth_frame_get_units(p *C.rs2_frame, e **C.rs2_error) (r C.float) {
	defer catch(e, "rs2_depth_frame_get_units", func() string { return fmtArgs("frame_ref", ptrArg(unsafe.Pointer(p))) })
	return C.float(depthFrame(p, "frame_ref").Units())
}

//export rs2_depth_frame_get_distance
func rs2_depth_frame_get_distance(p *C.rs2_frame, x, y C.int, e **C.rs2_error) (r C.float) {
	defer catch(e, "rs2_depth_frame_get_distance", func() string { return fmtArgs("frame_ref", ptrArg(unsafe.Pointer(p)), "x", x, "y", y) })
	d, err := depthFrame(p, "frame_ref").Distance(int(x), int(y))
	if err != nil {
		fail(C.RS2_EXCEPTION_TYPE_INVALID_VALUE, "%v", err)
	}
	return C.float(d)
}

//export rs2_pose_frame_get_pose_data
func rs2_pose_frame_get_pose_data(p *C.rs2_frame, out *C.rs2_pose, e **C.rs2_error) {
	defer catch(e, "rs2_pose_frame_get_pose_data", func() string { return fmtArgs("frame", ptrArg(unsafe.Pointer(p)), "pose", ptrArg(unsafe.Pointer(out))) })
	f := single(p, "frame")
	if f.Profile == nil || f.Profile.Kind != sensor.KindPose {
		fail(C.RS2_EXCEPTION_TYPE_COUNT, "Object does not support \"librealsense::pose_frame\" interface! ")
	}
	if out == nil {
		failNull("pose")
	}
	ps := &f.Pose
	vec := func(v [3]float32) C.rs2_vector {
		return C.rs2_vector{x: C.float(v[0]), y: C.float(v[1]), z: C.float(v[2])}
	}
	*out = C.rs2_pose{translation: vec(ps.Translation), velocity: vec(ps.Velocity), acceleration: vec(ps.Acceleration),
		rotation:         C.rs2_quaternion{x: C.float(ps.Rotation[0]), y: C.float(ps.Rotation[1]), z: C.float(ps.Rotation[2]), w: C.float(ps.Rotation[3])},
		angular_velocity: vec(ps.AngularVelocity), angular_acceleration: vec(ps.AngularAcceleration),
		tracker_confidence: C.uint(ps.TrackerConfidence), mapper_confidence: C.uint(ps.MapperConfidence)}
}

//export rs2_embedded_frames_count
func rs2_embedded_frames_count(p *C.rs2_frame, e **C.rs2_error) (r C.int) {
	defer catch(e, "rs2_embedded_frames_count", func() string { return fmtArgs("composite", ptrArg(unsafe.Pointer(p))) })
	ref := frameOf(p, "composite")
	if ref.f != nil {
		fail(C.RS2_EXCEPTION_TYPE_COUNT, "Object does not support \"librealsense::composite_frame\" interface! ")
	}
	return C.int(len(ref.set))
}

//export rs2_extract_frame
func rs2_extract_frame(p *C.rs2_frame, index C.int, e **C.rs2_error) (r *C.rs2_frame) {
	defer catch(e, "rs2_extract_frame", func() string { return fmtArgs("composite", ptrArg(unsafe.Pointer(p))) })
	ref := frameOf(p, "composite")
	if ref.f != nil {
		fail(C.RS2_EXCEPTION_TYPE_COUNT, "Object does not support \"librealsense::composite_frame\" interface! ")
	}
	f := ref.set[checkIndex(index, len(ref.set), "index")]
	var out *C.rs2_frame
	if ref.setPoints != nil && ref.setPoints.Frame == f {
		out = newPoints(ref.setPoints, ref.o)
	} else {
		out = newFrame(f, nil, ref.o)
	}
	frameOf(out, "frame").halt = ref.halt
	return out
}

//export rs2_get_frame_points_count
func rs2_get_frame_points_count(p *C.rs2_frame, e **C.rs2_error) (r C.int) {
	defer catch(e, "rs2_get_frame_points_count", func() string { return fmtArgs("frame", ptrArg(unsafe.Pointer(p))) })
	return C.int(len(pointsOf(p, "frame").Vertices))
}

func pointsOf(p *C.rs2_frame, arg string) *processing.Points {
	ref := frameOf(p, arg)
	if ref.points == nil {
		fail(C.RS2_EXCEPTION_TYPE_COUNT, "Object does not support \"librealsense::points\" interface! ")
	}
	return ref.points
}

//export rs2_get_frame_vertices
func rs2_get_frame_vertices(p *C.rs2_frame, e **C.rs2_error) (r *C.rs2_vertex) {
	defer catch(e, "rs2_get_frame_vertices", func() string { return fmtArgs("frame", ptrArg(unsafe.Pointer(p))) })
	pts := pointsOf(p, "frame")
	if len(pts.Vertices) == 0 {
		return nil
	}
	return (*C.rs2_vertex)(unsafe.Pointer(&pts.Vertices[0]))
}

//export rs2_get_frame_texture_coordinates
func rs2_get_frame_texture_coordinates(p *C.rs2_frame, e **C.rs2_error) (r *C.rs2_pixel) {
	defer catch(e, "rs2_get_frame_texture_coordinates", func() string { return fmtArgs("frame", ptrArg(unsafe.Pointer(p))) })
	pts := pointsOf(p, "frame")
	if len(pts.TexCoords) == 0 {
		// A cloud mapped to no texture has coordinates all zero in
		// librealsense (its points frame holds them after the vertices).
		ref := frameOf(p, "frame")
		ref.zeroTexOnce.Do(func() {
			if len(pts.Vertices) > 0 {
				ref.zeroTex = make([][2]float32, len(pts.Vertices))
				ref.pin.Pin(&ref.zeroTex[0])
			}
		})
		if len(ref.zeroTex) == 0 {
			return nil
		}
		return (*C.rs2_pixel)(unsafe.Pointer(&ref.zeroTex[0]))
	}
	return (*C.rs2_pixel)(unsafe.Pointer(&pts.TexCoords[0]))
}

//export rs2_export_to_ply
func rs2_export_to_ply(p *C.rs2_frame, fname *C.char, texture *C.rs2_frame, e **C.rs2_error) {
	defer catch(e, "rs2_export_to_ply", func() string {
		return fmtArgs("frame", ptrArg(unsafe.Pointer(p)), "fname", charArg(unsafe.Pointer(fname)))
	})
	if p == nil {
		failNull("frame")
	}
	if fname == nil {
		failNull("fname")
	}
	pts := pointsOf(p, "frame")
	var tex *sensor.Frame
	if texture != nil {
		tex = single(texture, "texture")
	}
	check(writePLY(C.GoString(fname), pts, tex))
}

// writePLY writes pts as rs-record convert -l does; a file it could not
// finish is removed.
func writePLY(path string, pts *processing.Points, tex *sensor.Frame) (err error) {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	defer func() {
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			os.Remove(path)
		}
	}()
	if err := pts.WritePLY(f, tex, processing.PLYOptions{}); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return nil
}
