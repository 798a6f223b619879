package main

/*
#include "shim.h"
*/
import "C"

import (
	"errors"
	"slices"
	"sync"
	"unsafe"

	"github.com/rsbag/rsbag/extensions"
	"github.com/rsbag/rsbag/pipeline"
	"github.com/rsbag/rsbag/processing"
	"github.com/rsbag/rsbag/sensor"
)

// blockHandle is an rs2_processing_block: one of package processing's
// blocks, and where its output goes (rs2_start_processing*).
type blockHandle struct {
	mu          sync.Mutex
	b           any       // the block; nil until the first frame for a disparity transform
	opts        optionSet // the block's options
	toDisparity bool

	out   func(*C.rs2_frame)
	cppCB unsafe.Pointer

	// A pointcloud's depth stream (from its first depth frame) and the
	// texture it saw before.
	depthProfile, texture *sensor.StreamProfile
	// spare is a cloud of the pointcloud no longer in use: the memory of
	// its next one.
	spare *processing.Points

	// held counts the outputs the program holds, by kind (see heldKey).
	held map[heldKey]int
}

// heldKey is what librealsense keeps a frame pool for in a block: frames
// of one stream and index, framesets, point clouds.
type heldKey struct {
	stream sensor.Stream
	index  int
	kind   int // 0 a frame, 1 a frameset, 2 a point cloud
}

// admit counts the output r of the block, or, when the program already
// holds as many of its outputs of r's kind as the block's Frames Queue
// Size (0: no limit), releases r and returns false: librealsense's block
// then finds its frame pool empty and gives nothing.
func (b *blockHandle) admit(r *C.rs2_frame) bool {
	ref := frameOf(r, "frame")
	var k heldKey
	switch {
	case ref.f == nil:
		k.kind = 1
	case ref.points != nil:
		k.kind = 2
	}
	if ref.f != nil && ref.f.Profile != nil {
		k.stream, k.index = ref.f.Profile.Stream, ref.f.Profile.Index
	}
	limit, err := b.opts.Option(sensor.OptionFramesQueueSize)
	b.mu.Lock()
	if err == nil && limit > 0 && b.held[k] >= int(limit) {
		b.mu.Unlock()
		ref.release()
		return false
	}
	if b.held == nil {
		b.held = map[heldKey]int{}
	}
	b.held[k]++
	b.mu.Unlock()
	ref.freed = sync.OnceFunc(func() {
		b.mu.Lock()
		b.held[k]--
		b.mu.Unlock()
	})
	return true
}

func newBlock(b processing.Configurable) *C.rs2_processing_block {
	return (*C.rs2_processing_block)(newHandle(&blockHandle{b: b, opts: b}))
}

func blockOf(p *C.rs2_processing_block, arg string) *blockHandle {
	return lookup[*blockHandle](unsafe.Pointer(p), arg)
}

//export rs2_create_align
func rs2_create_align(to C.rs2_stream, e **C.rs2_error) (r *C.rs2_processing_block) {
	defer catch(e, "rs2_create_align", func() string { return fmtArgs("align_to", to) })
	a := processing.NewAlign(sensor.Stream(to), nil)
	return (*C.rs2_processing_block)(newHandle(&blockHandle{b: &alignBlock{to: sensor.Stream(to), opts: a}, opts: a}))
}

// alignBlock is an align whose extrinsics come from the frames' device,
// known at the first frame.
type alignBlock struct {
	to   sensor.Stream
	opts *processing.Align
	mu   sync.Mutex
	a    map[*owner]*processing.Align
}

func (ab *alignBlock) align(o *owner) *processing.Align {
	ab.mu.Lock()
	defer ab.mu.Unlock()
	if ab.a == nil {
		ab.a = map[*owner]*processing.Align{}
	}
	a := ab.a[o]
	if a == nil {
		a = processing.NewAlign(ab.to, o.dev)
		ab.a[o] = a
	}
	return a
}

//export rs2_create_pointcloud
func rs2_create_pointcloud(e **C.rs2_error) (r *C.rs2_processing_block) {
	defer catch(e, "rs2_create_pointcloud", nil)
	pc := processing.NewPointCloud()
	var opts optionSet
	if o, ok := any(pc).(optionSet); ok {
		opts = o
	}
	return (*C.rs2_processing_block)(newHandle(&blockHandle{b: pc, opts: opts}))
}

//export rs2_create_colorizer
func rs2_create_colorizer(e **C.rs2_error) (r *C.rs2_processing_block) {
	defer catch(e, "rs2_create_colorizer", nil)
	return newBlock(processing.NewColorizer())
}

//export rs2_create_decimation_filter_block
func rs2_create_decimation_filter_block(e **C.rs2_error) (r *C.rs2_processing_block) {
	defer catch(e, "rs2_create_decimation_filter_block", nil)
	return newBlock(processing.NewDecimation())
}

//export rs2_create_threshold
func rs2_create_threshold(e **C.rs2_error) (r *C.rs2_processing_block) {
	defer catch(e, "rs2_create_threshold", nil)
	return newBlock(processing.NewThreshold())
}

//export rs2_create_units_transform
func rs2_create_units_transform(e **C.rs2_error) (r *C.rs2_processing_block) {
	defer catch(e, "rs2_create_units_transform", nil)
	return newBlock(processing.NewUnitsTransform())
}

//export rs2_create_spatial_filter_block
func rs2_create_spatial_filter_block(e **C.rs2_error) (r *C.rs2_processing_block) {
	defer catch(e, "rs2_create_spatial_filter_block", nil)
	return newBlock(processing.NewSpatial())
}

//export rs2_create_temporal_filter_block
func rs2_create_temporal_filter_block(e **C.rs2_error) (r *C.rs2_processing_block) {
	defer catch(e, "rs2_create_temporal_filter_block", nil)
	return newBlock(processing.NewTemporal())
}

//export rs2_create_hole_filling_filter_block
func rs2_create_hole_filling_filter_block(e **C.rs2_error) (r *C.rs2_processing_block) {
	defer catch(e, "rs2_create_hole_filling_filter_block", nil)
	return newBlock(processing.NewHoleFilling())
}

//export rs2_create_disparity_transform_block
func rs2_create_disparity_transform_block(toDisparity C.uchar, e **C.rs2_error) (r *C.rs2_processing_block) {
	defer catch(e, "rs2_create_disparity_transform_block", func() string { return fmtArgs("transform_to_disparity", toDisparity) })
	// The baseline is the frames' sensor's, known at the first frame; the
	// options until then are those of a transform with any baseline.
	d := processing.NewDisparityTransform(toDisparity != 0, 0)
	return (*C.rs2_processing_block)(newHandle(&blockHandle{opts: d, toDisparity: toDisparity != 0}))
}

// recommendedBlocks is rs2_get_recommended_processing_blocks of a sensor.
func recommendedBlocks(h *sensorHandle) *C.rs2_processing_block_list {
	var names []string
	if rf, ok := h.s.(extensions.RecommendedFilters); ok {
		names = rf.RecommendedFilters()
	}
	color := sensorIs(h.s, C.RS2_EXTENSION_COLOR_SENSOR)
	var baseline float32
	if ds, ok := h.s.(extensions.DepthStereoSensor); ok {
		baseline = ds.StereoBaselineMM()
	}
	bs, err := processing.RecommendedBlocks(names, color, baseline)
	check(err)
	return (*C.rs2_processing_block_list)(newHandle(&blockList{bs}))
}

type blockList struct{ bs []processing.Configurable }

//export rs2_get_recommended_processing_blocks_count
func rs2_get_recommended_processing_blocks_count(l *C.rs2_processing_block_list, e **C.rs2_error) (r C.int) {
	defer catch(e, "rs2_get_recommended_processing_blocks_count", func() string { return fmtArgs("list", ptrArg(unsafe.Pointer(l))) })
	return C.int(len(lookup[*blockList](unsafe.Pointer(l), "list").bs))
}

//export rs2_get_processing_block
func rs2_get_processing_block(l *C.rs2_processing_block_list, i C.int, e **C.rs2_error) (r *C.rs2_processing_block) {
	defer catch(e, "rs2_get_processing_block", func() string { return fmtArgs("list", ptrArg(unsafe.Pointer(l)), "index", i) })
	bl := lookup[*blockList](unsafe.Pointer(l), "list")
	return newBlock(bl.bs[checkIndex(i, len(bl.bs), "index")])
}

//export rs2_delete_recommended_processing_blocks
func rs2_delete_recommended_processing_blocks(l *C.rs2_processing_block_list) {
	defer catch(nil, "rs2_delete_recommended_processing_blocks", nil)
	lookup[*blockList](unsafe.Pointer(l), "list")
	freeHandle(unsafe.Pointer(l))
}

//export rs2_delete_processing_block
func rs2_delete_processing_block(p *C.rs2_processing_block) {
	defer catch(nil, "rs2_delete_processing_block", nil)
	b := blockOf(p, "block")
	freeHandle(unsafe.Pointer(p))
	b.setOut(nil, nil)
	if c, ok := b.b.(*customBlock); ok && c.obj != nil {
		C.rsbag_cpp_release_processor_callback((*C.rs2_frame_processor_callback)(c.obj))
	}
}

func (b *blockHandle) setOut(out func(*C.rs2_frame), cpp unsafe.Pointer) {
	b.mu.Lock()
	old := b.cppCB
	b.out, b.cppCB = out, cpp
	b.mu.Unlock()
	if old != nil {
		C.rsbag_cpp_release_frame_callback((*C.rs2_frame_callback)(old))
	}
}

//export rs2_start_processing
func rs2_start_processing(p *C.rs2_processing_block, cb *C.rs2_frame_callback, e **C.rs2_error) {
	defer catch(e, "rs2_start_processing", func() string {
		return fmtArgs("block", ptrArg(unsafe.Pointer(p)), "on_frame", ptrArg(unsafe.Pointer(cb)))
	})
	b := blockOf(p, "block")
	if cb == nil {
		failNull("on_frame")
	}
	b.setOut(func(f *C.rs2_frame) { C.rsbag_cpp_on_frame(cb, f) }, unsafe.Pointer(cb))
}

//export rs2_start_processing_fptr
func rs2_start_processing_fptr(p *C.rs2_processing_block, cb C.rs2_frame_callback_ptr, user unsafe.Pointer, e **C.rs2_error) {
	defer catch(e, "rs2_start_processing_fptr", func() string {
		return fmtArgs("block", ptrArg(unsafe.Pointer(p)), "on_frame", funcArg(unsafe.Pointer(cb)), "user", ptrArg(user))
	})
	b := blockOf(p, "block")
	if cb == nil {
		failNull("on_frame")
	}
	b.setOut(func(f *C.rs2_frame) { C.rsbag_call_frame(cb, f, user) }, nil)
}

//export rs2_start_processing_queue
func rs2_start_processing_queue(p *C.rs2_processing_block, q *C.rs2_frame_queue, e **C.rs2_error) {
	defer catch(e, "rs2_start_processing_queue", func() string { return fmtArgs("block", ptrArg(unsafe.Pointer(p)), "queue", ptrArg(unsafe.Pointer(q))) })
	b := blockOf(p, "block")
	fq := lookup[*frameQueue](unsafe.Pointer(q), "queue")
	b.setOut(func(f *C.rs2_frame) { fq.enqueue(frameOf(f, "frame")) }, nil)
}

//export rs2_process_frame
func rs2_process_frame(p *C.rs2_processing_block, f *C.rs2_frame, e **C.rs2_error) {
	defer catch(e, "rs2_process_frame", func() string { return fmtArgs("block", ptrArg(unsafe.Pointer(p)), "frame", ptrArg(unsafe.Pointer(f))) })
	b := blockOf(p, "block")
	in := frameOf(f, "frame")
	if in.points != nil || !poolsFrames(b.b) {
		in.shared.Store(true) // a block may keep what it is given
	}
	defer in.release() // the block takes the program's reference
	b.mu.Lock()
	out := b.out
	b.mu.Unlock()
	if c, ok := b.b.(*customBlock); ok {
		b.runCustom(c, in)
		return
	}
	if sb, ok := b.b.(*syncBlock); ok {
		sb.run(in, out)
		return
	}
	r := b.process(in)
	if r != nil && unsafe.Pointer(r) != in.handle && !b.admit(r) {
		return
	}
	switch {
	case r == nil:
	case out == nil: // not started: the output goes nowhere, as in librealsense
		frameOf(r, "frame").release()
	default:
		out(r)
	}
}

// process returns the block's output for in (a new reference), or nil.
func (b *blockHandle) process(in *frameRef) *C.rs2_frame {
	frames := in.set
	if in.f != nil {
		frames = []*sensor.Frame{in.f}
	}
	o := in.o
	switch blk := b.block(in).(type) {
	case *alignBlock:
		if in.f != nil { // librealsense's align takes framesets only
			return passThrough(in)
		}
		aligned, err := blk.align(o).ProcessSet(frames)
		check(err)
		return output(in, frames, aligned, nil)
	case *processing.PointCloud:
		depth, tex := b.cloudInputs(blk, in, frames)
		if tex != nil && o != nil {
			b.mu.Lock()
			from := b.depthProfile
			if depth != nil {
				from = depth.Profile
			}
			b.mu.Unlock()
			if from != nil {
				x, err := o.dev.Extrinsics(from, tex.Profile)
				check(err)
				check(blk.MapTo(tex.Profile, x))
			} else {
				b.mu.Lock()
				b.texture = tex.Profile
				b.mu.Unlock()
			}
		}
		if depth == nil {
			// No cloud: the input comes out, as librealsense's
			// processing blocks give back a frame they make nothing
			// of (rs2::pointcloud::map_to waits for it).
			return passThrough(in)
		}
		b.mu.Lock()
		first, tx := b.depthProfile == nil, b.texture
		b.depthProfile = depth.Profile
		b.mu.Unlock()
		if first && tx != nil && o != nil {
			x, err := o.dev.Extrinsics(depth.Profile, tx)
			check(err)
			check(blk.MapTo(tx, x))
		}
		b.mu.Lock()
		spare := b.spare
		b.spare = nil
		b.mu.Unlock()
		pts, err := blk.CalculateInto(spare, depth)
		check(err)
		if in.f != nil {
			h := newPoints(pts, o)
			r := frameOf(h, "frame")
			r.cloud = b
			r.halt = in.halt // as librealsense's allocate_points: blocking as its input
			return h
		}
		return output(in, frames, []*sensor.Frame{pts.Frame}, pts)
	case processing.Block:
		if in.f != nil {
			res, err := blk.Process(in.f)
			if errors.Is(err, processing.ErrFrame) || (err == nil && res == in.f) {
				return passThrough(in)
			}
			check(err)
			h := newFrame(res, nil, o)
			r := frameOf(h, "frame")
			r.pooled = poolsFrames(blk)
			r.halt = in.halt // as librealsense's allocate_video_frame: its input's additional data, blocking included
			return h
		}
		var results []*sensor.Frame
		for _, f := range frames {
			res, err := blk.Process(f)
			if errors.Is(err, processing.ErrFrame) || (err == nil && res == f) {
				continue
			}
			check(err)
			results = append(results, res)
		}
		return output(in, frames, results, nil)
	}
	fail(C.RS2_EXCEPTION_TYPE_NOT_IMPLEMENTED, "processing block cannot process frames")
	return nil
}

// filterKind is what capi knows of a one-frame block of package
// processing by its name (librealsense's): the extension librealsense's
// block of that name has (0 for none but the processing block's own), and
// whether the block keeps no frame it is given, nor any memory of one, and
// makes each output of new memory from internal/framepool.
type filterKind struct {
	ext   C.rs2_extension
	pools bool
}

// filterKinds holds the filterKind of every block of package processing
// that has an extension or pools its frames.
var filterKinds = map[string]filterKind{
	"Decimation Filter":     {C.RS2_EXTENSION_DECIMATION_FILTER, true},
	"Threshold Filter":      {C.RS2_EXTENSION_THRESHOLD_FILTER, true},
	"Depth to Disparity":    {C.RS2_EXTENSION_DISPARITY_FILTER, true},
	"Disparity to Depth":    {C.RS2_EXTENSION_DISPARITY_FILTER, true},
	"Spatial Filter":        {C.RS2_EXTENSION_SPATIAL_FILTER, true},
	"Temporal Filter":       {C.RS2_EXTENSION_TEMPORAL_FILTER, true},
	"Hole Filling Filter":   {C.RS2_EXTENSION_HOLE_FILLING_FILTER, true},
	"Rotation Filter":       {C.RS2_EXTENSION_ROTATION_FILTER, false},
	"HDR Merge":             {C.RS2_EXTENSION_HDR_MERGE, false},
	"Filter By Sequence id": {C.RS2_EXTENSION_SEQUENCE_ID_FILTER, false},
	"Units Transform":       {0, true},
	// The colorizer keeps a table of colors, made of its settings, and no
	// memory of a frame.
	"Depth Visualization": {0, true},
}

// poolsFrames reports whether b is a block of package processing that
// pools its frames (filterKind), or a disparity transform not made yet
// (nil): the memory of its output goes back to internal/framepool when the
// program releases the output's last reference, and a frame it is given
// can go back there too.
func poolsFrames(b any) bool {
	switch b := b.(type) {
	case nil:
		return true
	case processing.Block:
		return filterKinds[b.Name()].pools
	}
	return false
}

// output returns what a block gives for the frameset in (of frames) of
// which it made results, as librealsense's
// generic_processing_block::prepare_output: the frameset itself when it
// made nothing of it; else a new frameset of the results, then each frame
// of the set no result has the stream, format and index of (a Z16 frame
// is left out when a result is disparity, a disparity frame when a result
// is Z16). pts, when not nil, is the point cloud among the results.
func output(in *frameRef, frames, results []*sensor.Frame, pts *processing.Points) *C.rs2_frame {
	if len(results) == 0 {
		return passThrough(in)
	}
	var disparity, depth bool
	for _, r := range results {
		switch r.Profile.Format {
		case sensor.FormatDisparity16, sensor.FormatDisparity32:
			disparity = true
		case sensor.FormatZ16:
			depth = true
		}
	}
	out := results
	for _, f := range frames {
		p := f.Profile
		if (depth && (p.Format == sensor.FormatDisparity16 || p.Format == sensor.FormatDisparity32)) || (disparity && p.Format == sensor.FormatZ16) {
			continue
		}
		if !slices.ContainsFunc(results, func(r *sensor.Frame) bool {
			return r.Profile.Stream == p.Stream && r.Profile.Format == p.Format && r.Profile.Index == p.Index
		}) {
			out = append(out, f)
		}
	}
	h := newFrame(nil, out, in.o)
	r := frameOf(h, "frame")
	r.setPoints = pts
	r.halt = in.halt // a composite is blocking when a frame of it is
	return h
}

// cloudInputs returns the depth frame a point cloud makes a cloud of and
// the frame it takes as its texture (either nil), as librealsense's
// pointcloud::should_process and process_frame choose them by the block's
// stream filter options (stream, format, index): a lone frame is the
// texture when its stream, format and index are those of the filter (as
// rs2::pointcloud::map_to sets them); in a frameset, with a stream filter
// set, the first frame of the filter's stream when the set holds a frame
// of its stream and format (any format with the format filter any) and a
// Z16 depth frame; else the frameset's frames are taken one by one as
// lone frames. With the defaults (any stream) no frame is a texture.
func (b *blockHandle) cloudInputs(pc *processing.PointCloud, in *frameRef, frames []*sensor.Frame) (depth, tex *sensor.Frame) {
	st, _ := pc.Option(sensor.OptionStreamFilter)
	fm, _ := pc.Option(sensor.OptionStreamFormatFilter)
	ix, _ := pc.Option(sensor.OptionStreamIndexFilter)
	stream, format, index := sensor.Stream(st), sensor.Format(fm), int(ix)
	isDepth := func(f *sensor.Frame) bool {
		return f.Profile.Stream == sensor.StreamDepth && f.Profile.Format == sensor.FormatZ16 && f.Profile.Kind == sensor.KindVideo
	}
	var first, ofFormat *sensor.Frame // the set's first frame of the stream, and of the stream and format
	for _, f := range frames {
		if f.Profile == nil {
			continue
		}
		if depth == nil && isDepth(f) {
			depth = f
		}
		if f.Profile.Stream == stream && f.Profile.Kind == sensor.KindVideo {
			if first == nil {
				first = f
			}
			if ofFormat == nil && (format == sensor.FormatAny || f.Profile.Format == format) {
				ofFormat = f
			}
		}
	}
	if in.f == nil && stream != sensor.StreamAny && ofFormat != nil && depth != nil {
		return depth, first
	}
	for _, f := range frames {
		p := f.Profile
		if p != nil && p.Kind == sensor.KindVideo && p.Stream == stream && p.Format == format && p.Index == index && !isDepth(f) {
			tex = f // the last one, as each replaces the one before
		}
	}
	return depth, tex
}

// block returns the block, creating a disparity transform with the stereo
// baseline of the frame's device at its first frame.
func (b *blockHandle) block(in *frameRef) any {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.b == nil {
		var baseline float32
		if in.o != nil {
			for _, s := range in.o.dev.Sensors() {
				if ds, ok := s.(extensions.DepthStereoSensor); ok {
					baseline = ds.StereoBaselineMM()
				}
			}
		}
		d := processing.NewDisparityTransform(b.toDisparity, baseline)
		for _, opt := range b.opts.SupportedOptions() {
			if v, err := b.opts.Option(opt); err == nil {
				d.SetOption(opt, v)
			}
		}
		b.b, b.opts = d, d
	}
	return b.b
}

// passThrough returns a new reference to in.
func passThrough(in *frameRef) *C.rs2_frame {
	in.refs.Add(1)
	return (*C.rs2_frame)(in.handle)
}

// newPoints returns a points frame of pts, its vertices and texture
// coordinates pinned with it.
func newPoints(pts *processing.Points, o *owner) *C.rs2_frame {
	h := newFrame(pts.Frame, nil, o)
	r := frameOf(h, "frame")
	r.points = pts
	if len(pts.Vertices) > 0 {
		r.pin.Pin(&pts.Vertices[0])
	}
	if len(pts.TexCoords) > 0 {
		r.pin.Pin(&pts.TexCoords[0])
	}
	return h
}

// blockName returns the name of a block (its rs2_camera_info Name).
func (b *blockHandle) name() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	switch x := b.b.(type) {
	case *alignBlock:
		return "Align"
	case interface{ Name() string }:
		return x.Name()
	}
	if n, ok := b.opts.(interface{ Name() string }); ok {
		return n.Name()
	}
	return ""
}

//export rs2_supports_processing_block_info
func rs2_supports_processing_block_info(p *C.rs2_processing_block, info C.rs2_camera_info, e **C.rs2_error) (r C.int) {
	defer catch(e, "rs2_supports_processing_block_info", func() string { return fmtArgs("block", ptrArg(unsafe.Pointer(p)), "info", info) })
	return cbool(info == C.RS2_CAMERA_INFO_NAME && blockOf(p, "block").name() != "")
}

//export rs2_get_processing_block_info
func rs2_get_processing_block_info(p *C.rs2_processing_block, info C.rs2_camera_info, e **C.rs2_error) (r *C.char) {
	defer catch(e, "rs2_get_processing_block_info", func() string { return fmtArgs("block", ptrArg(unsafe.Pointer(p)), "info", info) })
	n := blockOf(p, "block").name()
	if info != C.RS2_CAMERA_INFO_NAME || n == "" {
		fail(C.RS2_EXCEPTION_TYPE_INVALID_VALUE, "%s", unsupportedInfo(info))
	}
	return cstr(n)
}

// customBlock is a processing block of the program's own: its callback gets
// each frame and a source to allocate framesets from and to hand out what
// it makes.
type customBlock struct {
	call func(f *C.rs2_frame, src *C.rs2_source)
	obj  unsafe.Pointer // an rs2_frame_processor_callback object, released with the block
}

// Name is the block's name, as librealsense's (rs2_create_processing_block).
func (*customBlock) Name() string { return "Custom processing block" }

// baseOptions returns the options of a block that has only those of
// librealsense's processing_block base class (src/proc/synthetic-stream.cpp:
// Frames Queue Size), as the custom blocks and the syncer: an Align's,
// which has no other.
func baseOptions() optionSet { return processing.NewAlign(sensor.StreamAny, nil) }

// source is an rs2_source while a custom block's callback runs.
type source struct{ b *blockHandle }

//export rs2_create_processing_block_fptr
func rs2_create_processing_block_fptr(proc C.rs2_frame_processor_callback_ptr, user unsafe.Pointer, e **C.rs2_error) (r *C.rs2_processing_block) {
	defer catch(e, "rs2_create_processing_block_fptr", func() string { return fmtArgs("proc", funcArg(unsafe.Pointer(proc)), "context", ptrArg(user)) })
	if proc == nil {
		failNull("proc")
	}
	cb := &customBlock{call: func(f *C.rs2_frame, src *C.rs2_source) { C.rsbag_call_processor(proc, f, src, user) }}
	return (*C.rs2_processing_block)(newHandle(&blockHandle{b: cb, opts: baseOptions()}))
}

//export rs2_create_processing_block
func rs2_create_processing_block(proc *C.rs2_frame_processor_callback, e **C.rs2_error) (r *C.rs2_processing_block) {
	defer catch(e, "rs2_create_processing_block", func() string { return fmtArgs("proc", ptrArg(unsafe.Pointer(proc))) })
	if proc == nil {
		failNull("proc")
	}
	cb := &customBlock{call: func(f *C.rs2_frame, src *C.rs2_source) { C.rsbag_cpp_processor_on_frame(proc, f, src) }, obj: unsafe.Pointer(proc)}
	return (*C.rs2_processing_block)(newHandle(&blockHandle{b: cb, opts: baseOptions()}))
}

// syncBlock is the block of rs2_create_sync_processing_block (rs2::syncer):
// package pipeline's Syncer, made at the first frame from the stream
// profiles of that frame's device, as librealsense makes its matcher from
// the device of the first frame.
type syncBlock struct {
	mu sync.Mutex // one frame at a time, so that the framesets come out in order
	sy *pipeline.Syncer
}

// Name is the block's name, as librealsense's (syncer_process_unit).
func (*syncBlock) Name() string { return "syncer" }

// syncQueue is the capacity of the Syncer's own queue of framesets, which
// run drains after every frame: the queue size of the rs2::syncer of
// librealsense's reference outputs (testdata/librealsense/sync).
const syncQueue = 1000

//export rs2_create_sync_processing_block
func rs2_create_sync_processing_block(e **C.rs2_error) (r *C.rs2_processing_block) {
	defer catch(e, "rs2_create_sync_processing_block", nil)
	return (*C.rs2_processing_block)(newHandle(&blockHandle{b: &syncBlock{}, opts: baseOptions()}))
}

// run hands the frames of in to the syncer and the framesets it releases,
// as composite frames, to out (nowhere when the block is not started).
func (sb *syncBlock) run(in *frameRef, out func(*C.rs2_frame)) {
	sb.mu.Lock()
	defer sb.mu.Unlock()
	if sb.sy == nil {
		var profiles []*sensor.StreamProfile
		if in.o != nil {
			for _, s := range in.o.dev.Sensors() {
				profiles = append(profiles, s.Profiles()...)
			}
		}
		sb.sy = pipeline.NewSyncer(profiles, syncQueue)
	}
	if in.f != nil {
		sb.sy.HandleFrame(in.f)
	}
	for _, f := range in.set {
		sb.sy.HandleFrame(f)
	}
	for {
		fs, ok := sb.sy.PollForFrames()
		if !ok {
			return
		}
		r := newFrame(nil, fs.Frames(), in.o)
		frameOf(r, "frame").halt = in.halt
		if out == nil {
			frameOf(r, "frame").release()
			continue
		}
		out(r)
	}
}

// runCustom hands the custom block's callback a new reference to in.
func (b *blockHandle) runCustom(c *customBlock, in *frameRef) {
	src := newHandle(&source{b})
	defer freeHandle(src)
	in.refs.Add(1)
	c.call((*C.rs2_frame)(in.handle), (*C.rs2_source)(src))
}

//export rs2_allocate_composite_frame
func rs2_allocate_composite_frame(src *C.rs2_source, frames **C.rs2_frame, count C.int, e **C.rs2_error) (r *C.rs2_frame) {
	defer catch(e, "rs2_allocate_composite_frame", func() string { return fmtArgs("frames", ptrPtrArg(unsafe.Pointer(frames)), "count", count) })
	lookup[*source](unsafe.Pointer(src), "source")
	if frames == nil || count <= 0 {
		failNull("frames")
	}
	refs := make([]*frameRef, count)
	for i, f := range unsafe.Slice(frames, int(count)) {
		refs[i] = frameOf(f, "frame")
		refs[i].shared.Store(true) // the composite holds its frame
	}
	var set []*sensor.Frame
	var o *owner
	var halt <-chan struct{}
	for _, fr := range refs {
		if halt == nil {
			halt = fr.halt // blocking when a frame of it is
		}
		if fr.f != nil {
			set = append(set, fr.f)
		} else {
			set = append(set, fr.set...)
		}
		if o == nil {
			o = fr.o
		}
	}
	out := newFrame(nil, set, o)
	frameOf(out, "frame").halt = halt
	for _, fr := range refs { // the composite takes the program's references
		fr.release()
	}
	return out
}

//export rs2_synthetic_frame_ready
func rs2_synthetic_frame_ready(src *C.rs2_source, f *C.rs2_frame, e **C.rs2_error) {
	defer catch(e, "rs2_synthetic_frame_ready", func() string {
		return fmtArgs("source", ptrArg(unsafe.Pointer(src)), "frame", ptrArg(unsafe.Pointer(f)))
	})
	r := frameOf(f, "frame")
	if src == nil { // as librealsense, which owns the frame from here
		r.release()
		failNull("source")
	}
	s := lookup[*source](unsafe.Pointer(src), "source")
	s.b.mu.Lock()
	out := s.b.out
	s.b.mu.Unlock()
	if out == nil {
		r.release()
		return
	}
	out(f)
}

// rsbag_create_rotation is rs2_create_rotation_filter_block (shim.c takes
// its C++ argument apart): a rotation of the frames of the n streams at p.
// librealsense's block rotates nothing for an empty list, where
// processing.NewRotation would rotate depth: it is then given a stream no
// frame has.
//
//export rsbag_create_rotation
func rsbag_create_rotation(p *C.rs2_stream, n C.int, e **C.rs2_error) (r *C.rs2_processing_block) {
	defer catch(e, "rs2_create_rotation_filter_block", nil) // no arguments, as librealsense's
	streams := []sensor.Stream{sensor.Stream(C.RS2_STREAM_COUNT)}
	if n > 0 && p != nil {
		streams = streams[:0]
		for _, s := range unsafe.Slice(p, int(n)) {
			streams = append(streams, sensor.Stream(s))
		}
	}
	return newBlock(processing.NewRotation(streams...))
}
