package main

/*
#include "shim.h"
*/
import "C"

import (
	"context"
	"errors"
	"sync"
	"time"
	"unsafe"

	"github.com/rsbag/rsbag/pipeline"
	"github.com/rsbag/rsbag/playback"
	"github.com/rsbag/rsbag/sensor"
)

// pipelineState is an rs2_pipeline: the Go pipeline and the device of its
// current start.
type pipelineState struct {
	p  *pipeline.Pipeline
	mu sync.Mutex
	o  *owner // nil when stopped
	// cb is the C++ callback object of the last start, if it had one. As
	// librealsense's pipeline (whose aggregator keeps it past stop, in
	// src/pipeline/pipeline.cpp), it is released at the next start or at
	// rs2_delete_pipeline, not at stop.
	cb unsafe.Pointer
}

// configState is an rs2_config; file is the bag it plays, if any.
type configState struct {
	c    *pipeline.Config
	mu   sync.Mutex
	file string
}

// pipelineProfile is an rs2_pipeline_profile: a device and the streams a
// config resolved to on it.
type pipelineProfile struct {
	o       *owner
	streams []*sensor.StreamProfile
}

//export rs2_create_pipeline
func rs2_create_pipeline(ctx *C.rs2_context, e **C.rs2_error) (r *C.rs2_pipeline) {
	defer catch(e, "rs2_create_pipeline", func() string { return fmtArgs("ctx", ptrArg(unsafe.Pointer(ctx))) })
	lookup[*contextState](unsafe.Pointer(ctx), "ctx")
	return (*C.rs2_pipeline)(newHandle(&pipelineState{p: pipeline.New()}))
}

//export rs2_delete_pipeline
func rs2_delete_pipeline(p *C.rs2_pipeline) {
	defer catch(nil, "rs2_delete_pipeline", nil)
	ps := lookup[*pipelineState](unsafe.Pointer(p), "pipe")
	freeHandle(unsafe.Pointer(p))
	ps.stop()
	ps.setCallback(nil)
}

func (ps *pipelineState) stop() error {
	err := ps.p.Stop()
	ps.mu.Lock()
	o := ps.o
	ps.o = nil
	ps.mu.Unlock()
	if o != nil {
		o.release()
	}
	return err
}

// setCallback makes cb the pipeline's C++ callback object and releases the
// one before it, if any.
func (ps *pipelineState) setCallback(cb unsafe.Pointer) { swapFrameCallback(&ps.mu, &ps.cb, cb) }

// swapFrameCallback puts the C++ frame callback object cb in *slot, under
// mu, and releases the one it held, if any.
func swapFrameCallback(mu *sync.Mutex, slot *unsafe.Pointer, cb unsafe.Pointer) {
	mu.Lock()
	old := *slot
	*slot = cb
	mu.Unlock()
	if old != nil {
		C.rsbag_cpp_release_frame_callback((*C.rs2_frame_callback)(old))
	}
}

//export rs2_create_config
func rs2_create_config(e **C.rs2_error) (r *C.rs2_config) {
	defer catch(e, "rs2_create_config", nil)
	return (*C.rs2_config)(newHandle(&configState{c: &pipeline.Config{}}))
}

//export rs2_delete_config
func rs2_delete_config(c *C.rs2_config) {
	defer catch(nil, "rs2_delete_config", nil)
	lookup[*configState](unsafe.Pointer(c), "config")
	freeHandle(unsafe.Pointer(c))
}

func configOf(c *C.rs2_config, arg string) *pipeline.Config {
	return lookup[*configState](unsafe.Pointer(c), arg).c
}

//export rs2_config_enable_stream
func rs2_config_enable_stream(c *C.rs2_config, stream C.rs2_stream, index, width, height C.int, format C.rs2_format, fps C.int, e **C.rs2_error) {
	defer catch(e, "rs2_config_enable_stream", func() string {
		return fmtArgs("config", ptrArg(unsafe.Pointer(c)), "stream", stream, "index", index, "width", width, "height", height, "format", format, "framerate", fps)
	})
	configOf(c, "config").EnableStream(pipeline.StreamRequest{Stream: sensor.Stream(stream), Index: int(index), Width: int(width), Height: int(height),
		Format: sensor.Format(format), FPS: int(fps)})
}

//export rs2_config_enable_all_stream
func rs2_config_enable_all_stream(c *C.rs2_config, e **C.rs2_error) {
	defer catch(e, "rs2_config_enable_all_stream", func() string { return fmtArgs("config", ptrArg(unsafe.Pointer(c))) })
	configOf(c, "config").EnableAllStreams()
}

//export rs2_config_disable_stream
func rs2_config_disable_stream(c *C.rs2_config, stream C.rs2_stream, e **C.rs2_error) {
	defer catch(e, "rs2_config_disable_stream", func() string { return fmtArgs("config", ptrArg(unsafe.Pointer(c)), "stream", stream) })
	configOf(c, "config").DisableStream(sensor.Stream(stream), pipeline.AnyIndex)
}

//export rs2_config_disable_indexed_stream
func rs2_config_disable_indexed_stream(c *C.rs2_config, stream C.rs2_stream, index C.int, e **C.rs2_error) {
	defer catch(e, "rs2_config_disable_indexed_stream", func() string { return fmtArgs("config", ptrArg(unsafe.Pointer(c)), "stream", stream, "index", index) })
	configOf(c, "config").DisableStream(sensor.Stream(stream), int(index))
}

//export rs2_config_disable_all_streams
func rs2_config_disable_all_streams(c *C.rs2_config, e **C.rs2_error) {
	defer catch(e, "rs2_config_disable_all_streams", func() string { return fmtArgs("config", ptrArg(unsafe.Pointer(c))) })
	configOf(c, "config").DisableAllStreams()
}

//export rs2_config_enable_device
func rs2_config_enable_device(c *C.rs2_config, serial *C.char, e **C.rs2_error) {
	defer catch(e, "rs2_config_enable_device", func() string {
		return fmtArgs("config", ptrArg(unsafe.Pointer(c)), "serial", charArg(unsafe.Pointer(serial)))
	})
	configOf(c, "config").EnableDevice(goStr(serial))
}

//export rs2_config_enable_device_from_file
func rs2_config_enable_device_from_file(c *C.rs2_config, file *C.char, e **C.rs2_error) {
	defer catch(e, "rs2_config_enable_device_from_file", func() string {
		return fmtArgs("config", ptrArg(unsafe.Pointer(c)), "file", charArg(unsafe.Pointer(file)))
	})
	enableFile(c, file, true)
}

//export rs2_config_enable_device_from_file_repeat_option
func rs2_config_enable_device_from_file_repeat_option(c *C.rs2_config, file *C.char, repeat C.int, e **C.rs2_error) {
	defer catch(e, "rs2_config_enable_device_from_file_repeat_option", func() string {
		return fmtArgs("config", ptrArg(unsafe.Pointer(c)), "file", charArg(unsafe.Pointer(file)))
	})
	enableFile(c, file, repeat != 0)
}

func enableFile(c *C.rs2_config, file *C.char, repeat bool) {
	cs := lookup[*configState](unsafe.Pointer(c), "config")
	if file == nil {
		failNull("file")
	}
	name := C.GoString(file)
	check(cs.c.EnableDeviceFromFile(name, repeat))
	cs.mu.Lock()
	cs.file = name
	cs.mu.Unlock()
}

// resolve resolves the config on its bag, opened for the purpose, and
// returns the device and the streams.
func (cs *configState) resolve() (*playback.Device, []*sensor.StreamProfile, error) {
	cs.mu.Lock()
	file := cs.file
	cs.mu.Unlock()
	if file == "" {
		fail(C.RS2_EXCEPTION_TYPE_NOT_IMPLEMENTED, "resolving a config without a file (a live camera) is not supported by rsbag's librealsense2")
	}
	dev := openBag(file)
	streams, err := cs.c.Resolve(dev)
	if err != nil {
		dev.Close()
	}
	return dev, streams, err
}

//export rs2_config_resolve
func rs2_config_resolve(c *C.rs2_config, p *C.rs2_pipeline, e **C.rs2_error) (r *C.rs2_pipeline_profile) {
	defer catch(e, "rs2_config_resolve", func() string { return fmtArgs("config", ptrArg(unsafe.Pointer(c)), "pipe", ptrArg(unsafe.Pointer(p))) })
	cs := lookup[*configState](unsafe.Pointer(c), "config")
	lookup[*pipelineState](unsafe.Pointer(p), "pipe")
	dev, streams, err := cs.resolve()
	check(err)
	return (*C.rs2_pipeline_profile)(newHandle(&pipelineProfile{newOwner(dev, true), streams}))
}

//export rs2_config_can_resolve
func rs2_config_can_resolve(c *C.rs2_config, p *C.rs2_pipeline, e **C.rs2_error) (r C.int) {
	defer catch(e, "rs2_config_can_resolve", func() string { return fmtArgs("config", ptrArg(unsafe.Pointer(c)), "pipe", ptrArg(unsafe.Pointer(p))) })
	cs := lookup[*configState](unsafe.Pointer(c), "config")
	lookup[*pipelineState](unsafe.Pointer(p), "pipe")
	dev, _, err := cs.resolve()
	if err == nil {
		dev.Close()
	}
	return cbool(err == nil)
}

//export rs2_config_enable_record_to_file
func rs2_config_enable_record_to_file(c *C.rs2_config, file *C.char, e **C.rs2_error) {
	defer catch(e, "rs2_config_enable_record_to_file", func() string {
		return fmtArgs("config", ptrArg(unsafe.Pointer(c)), "file", charArg(unsafe.Pointer(file)))
	})
	check(configOf(c, "config").EnableRecordToFile(goStr(file)))
}

// start starts ps with cfg (nil: the default config), calling cb with each
// frameset when not nil; cpp is the C++ callback object cb calls, if any,
// which the pipeline then holds (setCallback).
func (ps *pipelineState) start(cfg *pipeline.Config, cb func(*C.rs2_frame), cpp unsafe.Pointer) *C.rs2_pipeline_profile {
	var (
		prof  *pipeline.Profile
		err   error
		o     *owner
		ready = make(chan struct{})
	)
	if cb == nil {
		prof, err = ps.p.Start(context.Background(), cfg)
	} else {
		prof, err = ps.p.StartWithCallback(context.Background(), cfg, func(fs *pipeline.Frameset) {
			<-ready
			if f := passedAlone(fs); f != nil {
				cb(newFrame(f, nil, o))
				return
			}
			cb(newFrame(nil, fs.Frames(), o))
		})
	}
	if err != nil {
		close(ready)
		if errors.Is(err, pipeline.ErrStarted) {
			fail(C.RS2_EXCEPTION_TYPE_WRONG_API_CALL_SEQUENCE, "start() cannot be called before stop()")
		}
		check(err)
	}
	o = newOwner(prof.Device(), false)
	close(ready)
	ps.setCallback(cpp)
	ps.mu.Lock()
	old := ps.o
	ps.o = o
	ps.mu.Unlock()
	if old != nil {
		old.release()
	}
	return (*C.rs2_pipeline_profile)(newHandle(&pipelineProfile{o.acquire(), prof.Streams()}))
}

// passedAlone returns the frame of fs, a frameset handed to a pipeline's
// callback, when it is a frame that passed the pipeline's syncer alone (a
// motion or pose frame): librealsense's pipeline hands such a frame to the
// callback as it is, not as a composite frame, and each match of its
// syncer as a composite frame, even of one frame
// (src/pipeline/aggregator.cpp). Its pipeline syncs the color, depth,
// infrared and fisheye streams (src/pipeline/pipeline.cpp), and a match
// holds only frames of those.
func passedAlone(fs *pipeline.Frameset) *sensor.Frame {
	if fs.Len() != 1 {
		return nil
	}
	switch f := fs.At(0); f.Profile.Stream {
	case sensor.StreamColor, sensor.StreamDepth, sensor.StreamInfrared, sensor.StreamFisheye:
		return nil
	default:
		return f
	}
}

//export rs2_pipeline_start
func rs2_pipeline_start(p *C.rs2_pipeline, e **C.rs2_error) (r *C.rs2_pipeline_profile) {
	defer catch(e, "rs2_pipeline_start", func() string { return fmtArgs("pipe", ptrArg(unsafe.Pointer(p))) })
	return lookup[*pipelineState](unsafe.Pointer(p), "pipe").start(nil, nil, nil)
}

//export rs2_pipeline_start_with_config
func rs2_pipeline_start_with_config(p *C.rs2_pipeline, c *C.rs2_config, e **C.rs2_error) (r *C.rs2_pipeline_profile) {
	defer catch(e, "rs2_pipeline_start_with_config", func() string { return fmtArgs("pipe", ptrArg(unsafe.Pointer(p)), "config", ptrArg(unsafe.Pointer(c))) })
	ps := lookup[*pipelineState](unsafe.Pointer(p), "pipe")
	return ps.start(configOf(c, "config"), nil, nil)
}

//export rs2_pipeline_start_with_callback
func rs2_pipeline_start_with_callback(p *C.rs2_pipeline, cb C.rs2_frame_callback_ptr, user unsafe.Pointer, e **C.rs2_error) (r *C.rs2_pipeline_profile) {
	defer catch(e, "rs2_pipeline_start_with_callback", func() string {
		return fmtArgs("pipe", ptrArg(unsafe.Pointer(p)), "on_frame", funcArg(unsafe.Pointer(cb)), "user", ptrArg(user))
	})
	ps := lookup[*pipelineState](unsafe.Pointer(p), "pipe")
	return ps.start(nil, func(f *C.rs2_frame) { C.rsbag_call_frame(cb, f, user) }, nil)
}

//export rs2_pipeline_start_with_config_and_callback
func rs2_pipeline_start_with_config_and_callback(p *C.rs2_pipeline, c *C.rs2_config, cb C.rs2_frame_callback_ptr, user unsafe.Pointer, e **C.rs2_error) (r *C.rs2_pipeline_profile) {
	defer catch(e, "rs2_pipeline_start_with_config_and_callback", func() string {
		return fmtArgs("pipe", ptrArg(unsafe.Pointer(p)), "config", ptrArg(unsafe.Pointer(c)), "on_frame", funcArg(unsafe.Pointer(cb)), "user", ptrArg(user))
	})
	ps := lookup[*pipelineState](unsafe.Pointer(p), "pipe")
	return ps.start(configOf(c, "config"), func(f *C.rs2_frame) { C.rsbag_call_frame(cb, f, user) }, nil)
}

func (ps *pipelineState) startCpp(cfg *pipeline.Config, cb *C.rs2_frame_callback) *C.rs2_pipeline_profile {
	return ps.start(cfg, func(f *C.rs2_frame) { C.rsbag_cpp_on_frame(cb, f) }, unsafe.Pointer(cb))
}

// checkCallback fails for a null C++ callback object, which librealsense
// checks before any other argument (it takes the object first).
func checkCallback(cb unsafe.Pointer) {
	if cb == nil {
		failNull("callback")
	}
}

// releaseOnFailure, deferred by an exported function that takes a C++
// callback object, calls release if the function fails before it took the
// object: librealsense holds the object in a shared pointer from its first
// line, which releases it when the call throws.
func releaseOnFailure(release func()) {
	if r := recover(); r != nil {
		release()
		panic(r)
	}
}

//export rs2_pipeline_start_with_callback_cpp
func rs2_pipeline_start_with_callback_cpp(p *C.rs2_pipeline, cb *C.rs2_frame_callback, e **C.rs2_error) (r *C.rs2_pipeline_profile) {
	defer catch(e, "rs2_pipeline_start_with_callback_cpp", func() string {
		return fmtArgs("pipe", ptrArg(unsafe.Pointer(p)), "callback", ptrArg(unsafe.Pointer(cb)))
	})
	checkCallback(unsafe.Pointer(cb))
	defer releaseOnFailure(func() { C.rsbag_cpp_release_frame_callback(cb) })
	return lookup[*pipelineState](unsafe.Pointer(p), "pipe").startCpp(nil, cb)
}

//export rs2_pipeline_start_with_config_and_callback_cpp
func rs2_pipeline_start_with_config_and_callback_cpp(p *C.rs2_pipeline, c *C.rs2_config, cb *C.rs2_frame_callback, e **C.rs2_error) (r *C.rs2_pipeline_profile) {
	defer catch(e, "rs2_pipeline_start_with_config_and_callback_cpp", func() string {
		return fmtArgs("pipe", ptrArg(unsafe.Pointer(p)), "config", ptrArg(unsafe.Pointer(c)), "callback", ptrArg(unsafe.Pointer(cb)))
	})
	checkCallback(unsafe.Pointer(cb))
	defer releaseOnFailure(func() { C.rsbag_cpp_release_frame_callback(cb) })
	ps := lookup[*pipelineState](unsafe.Pointer(p), "pipe")
	return ps.startCpp(configOf(c, "config"), cb)
}

//export rs2_pipeline_stop
func rs2_pipeline_stop(p *C.rs2_pipeline, e **C.rs2_error) {
	defer catch(e, "rs2_pipeline_stop", func() string { return fmtArgs("pipe", ptrArg(unsafe.Pointer(p))) })
	if err := lookup[*pipelineState](unsafe.Pointer(p), "pipe").stop(); errors.Is(err, pipeline.ErrNotStarted) {
		fail(C.RS2_EXCEPTION_TYPE_WRONG_API_CALL_SEQUENCE, "stop() cannot be called before start()")
	}
}

// frameset returns a composite frame of fs.
func (ps *pipelineState) frameset(fs *pipeline.Frameset) *C.rs2_frame {
	ps.mu.Lock()
	o := ps.o
	ps.mu.Unlock()
	return newFrame(nil, fs.Frames(), o)
}

func (ps *pipelineState) wait(timeout time.Duration) (*pipeline.Frameset, error) {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	return ps.p.WaitForFrames(ctx)
}

//export rs2_pipeline_wait_for_frames
func rs2_pipeline_wait_for_frames(p *C.rs2_pipeline, timeoutMs C.uint, e **C.rs2_error) (r *C.rs2_frame) {
	defer catch(e, "rs2_pipeline_wait_for_frames", func() string { return fmtArgs("pipe", ptrArg(unsafe.Pointer(p))) })
	ps := lookup[*pipelineState](unsafe.Pointer(p), "pipe")
	fs, err := ps.wait(time.Duration(timeoutMs) * time.Millisecond)
	switch {
	case errors.Is(err, pipeline.ErrNotStarted):
		fail(C.RS2_EXCEPTION_TYPE_WRONG_API_CALL_SEQUENCE, "wait_for_frames cannot be called before start()")
	case err != nil:
		fail(C.RS2_EXCEPTION_TYPE_COUNT, "Frame didn't arrive within %d", timeoutMs)
	}
	return ps.frameset(fs)
}

//export rs2_pipeline_poll_for_frames
func rs2_pipeline_poll_for_frames(p *C.rs2_pipeline, out **C.rs2_frame, e **C.rs2_error) (r C.int) {
	defer catch(e, "rs2_pipeline_poll_for_frames", func() string {
		return fmtArgs("pipe", ptrArg(unsafe.Pointer(p)), "output_frame", ptrPtrArg(unsafe.Pointer(out)))
	})
	ps := lookup[*pipelineState](unsafe.Pointer(p), "pipe")
	if out == nil {
		failNull("output_frame")
	}
	fs, ok := ps.p.PollForFrames()
	if !ok {
		return 0
	}
	*out = ps.frameset(fs)
	return 1
}

//export rs2_pipeline_try_wait_for_frames
func rs2_pipeline_try_wait_for_frames(p *C.rs2_pipeline, out **C.rs2_frame, timeoutMs C.uint, e **C.rs2_error) (r C.int) {
	defer catch(e, "rs2_pipeline_try_wait_for_frames", func() string {
		return fmtArgs("pipe", ptrArg(unsafe.Pointer(p)), "output_frame", ptrPtrArg(unsafe.Pointer(out)))
	})
	ps := lookup[*pipelineState](unsafe.Pointer(p), "pipe")
	if out == nil {
		failNull("output_frame")
	}
	fs, err := ps.wait(time.Duration(timeoutMs) * time.Millisecond)
	if errors.Is(err, pipeline.ErrNotStarted) {
		fail(C.RS2_EXCEPTION_TYPE_WRONG_API_CALL_SEQUENCE, "try_wait_for_frames cannot be called before start()")
	}
	if err != nil {
		return 0
	}
	*out = ps.frameset(fs)
	return 1
}

//export rs2_pipeline_get_active_profile
func rs2_pipeline_get_active_profile(p *C.rs2_pipeline, e **C.rs2_error) (r *C.rs2_pipeline_profile) {
	defer catch(e, "rs2_pipeline_get_active_profile", func() string { return fmtArgs("pipe", ptrArg(unsafe.Pointer(p))) })
	ps := lookup[*pipelineState](unsafe.Pointer(p), "pipe")
	prof, err := ps.p.ActiveProfile()
	ps.mu.Lock()
	o := ps.o
	ps.mu.Unlock()
	if err != nil || o == nil {
		fail(C.RS2_EXCEPTION_TYPE_WRONG_API_CALL_SEQUENCE, "get_active_profile() can only be called between a start() and a following stop()")
	}
	return (*C.rs2_pipeline_profile)(newHandle(&pipelineProfile{o.acquire(), prof.Streams()}))
}

//export rs2_pipeline_profile_get_device
func rs2_pipeline_profile_get_device(p *C.rs2_pipeline_profile, e **C.rs2_error) (r *C.rs2_device) {
	defer catch(e, "rs2_pipeline_profile_get_device", func() string { return fmtArgs("profile", ptrArg(unsafe.Pointer(p))) })
	pp := lookup[*pipelineProfile](unsafe.Pointer(p), "profile")
	return (*C.rs2_device)(newHandle(&deviceHandle{pp.o.acquire()}))
}

//export rs2_pipeline_profile_get_streams
func rs2_pipeline_profile_get_streams(p *C.rs2_pipeline_profile, e **C.rs2_error) (r *C.rs2_stream_profile_list) {
	defer catch(e, "rs2_pipeline_profile_get_streams", func() string { return fmtArgs("profile", ptrArg(unsafe.Pointer(p))) })
	pp := lookup[*pipelineProfile](unsafe.Pointer(p), "profile")
	return (*C.rs2_stream_profile_list)(newHandle(&profileList{pp.o.acquire(), pp.streams}))
}

//export rs2_delete_pipeline_profile
func rs2_delete_pipeline_profile(p *C.rs2_pipeline_profile) {
	defer catch(nil, "rs2_delete_pipeline_profile", nil)
	pp := lookup[*pipelineProfile](unsafe.Pointer(p), "profile")
	freeHandle(unsafe.Pointer(p))
	pp.o.release()
}
