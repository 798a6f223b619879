package main

/*
#include "shim.h"
*/
import "C"

import (
	"encoding/json"
	"errors"
	"io/fs"
	"slices"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/rsbag/rsbag/device"
	"github.com/rsbag/rsbag/extensions"
	"github.com/rsbag/rsbag/playback"
	"github.com/rsbag/rsbag/sensor"
)

// owner is a device with the handles that refer to it: it is closed, and
// its stream profiles' handles freed, when the last is released (the
// context, device, sensor and list handles, and every frame of it).
type owner struct {
	refs     atomic.Int64
	dev      device.Device
	pb       *playback.Device // nil for a device that is not a bag
	closeDev bool

	mu       sync.Mutex
	prof     map[*sensor.StreamProfile]unsafe.Pointer
	statusCB unsafe.Pointer                            // the program's rs2_playback_status_changed_callback
	active   map[sensor.Sensor][]*sensor.StreamProfile // the opened profiles of each sensor
	// halts holds, for each started sensor, the channel its stop closes:
	// a frame of it waiting for room in a full frame queue gives up then
	// (see frameQueue.enqueue).
	halts map[sensor.Sensor]chan struct{}
}

func newOwner(dev device.Device, closeDev bool) *owner {
	o := &owner{dev: dev, closeDev: closeDev, prof: map[*sensor.StreamProfile]unsafe.Pointer{}}
	o.pb, _ = dev.(*playback.Device)
	o.refs.Store(1)
	return o
}

// setHalt records halt as the channel that s's stop closes (closing the
// one of an earlier start, if any is left).
func (o *owner) setHalt(s sensor.Sensor, halt chan struct{}) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.halts == nil {
		o.halts = map[sensor.Sensor]chan struct{}{}
	}
	if old := o.halts[s]; old != nil {
		close(old)
	}
	o.halts[s] = halt
}

// halt closes the halt channel of s's start (of every started sensor for
// nil): its frames waiting for room in a frame queue give up, so that
// stopping it does not wait for a program that no longer reads the queue.
func (o *owner) halt(s sensor.Sensor) {
	o.mu.Lock()
	defer o.mu.Unlock()
	for k, ch := range o.halts {
		if s == nil || k == s {
			close(ch)
			delete(o.halts, k)
		}
	}
}

func (o *owner) acquire() *owner { o.refs.Add(1); return o }

// tryAcquire takes a new reference to o unless its last one was released,
// and reports whether it did.
func (o *owner) tryAcquire() bool {
	for {
		n := o.refs.Load()
		if n <= 0 {
			return false
		}
		if o.refs.CompareAndSwap(n, n+1) {
			return true
		}
	}
}

func (o *owner) release() {
	if o.refs.Add(-1) != 0 {
		return
	}
	if o.closeDev {
		o.dev.Close()
	}
	o.mu.Lock()
	for _, p := range o.prof {
		freeHandle(p)
	}
	clear(o.prof)
	cb := o.statusCB
	o.statusCB = nil
	o.mu.Unlock()
	if cb != nil {
		C.rsbag_cpp_release_status_callback((*C.rs2_playback_status_changed_callback)(cb))
	}
}

// profileEntry is what a stream profile handle names.
type profileEntry struct {
	p     *sensor.StreamProfile
	o     *owner // nil for a clone
	clone bool   // made by rs2_clone_stream_profile: the program deletes it
}

// profile returns the handle of p, which lives as long as o.
func (o *owner) profile(p *sensor.StreamProfile) *C.rs2_stream_profile {
	o.mu.Lock()
	defer o.mu.Unlock()
	h, ok := o.prof[p]
	if !ok {
		h = newHandle(&profileEntry{p: p, o: o})
		o.prof[p] = h
	}
	return (*C.rs2_stream_profile)(h)
}

// sensorIndex returns the index of the sensor that streams p, or -1.
func (o *owner) sensorIndex(p *sensor.StreamProfile) int {
	for i, s := range o.dev.Sensors() {
		if slices.Contains(s.Profiles(), p) {
			return i
		}
	}
	return -1
}

// contextState is an rs2_context: the bags added to it. As librealsense's
// context (src/context.cpp, which keeps weak pointers to the devices the
// program added), it holds no reference to them: a bag leaves the
// context's devices when the program releases its last handle to it (the
// device, a device list, a sensor, a frame).
type contextState struct {
	mu   sync.Mutex
	devs []*owner

	// The program's devices-changed callback, and its C++ object
	// (released when replaced and with the context).
	changed    func(removed, added *C.rs2_device_list)
	changedObj unsafe.Pointer
}

type deviceList struct{ devs []*owner }

type deviceHandle struct{ o *owner }

type sensorHandle struct {
	o     *owner
	s     sensor.Sensor
	index int

	mu       sync.Mutex
	cppCB    unsafe.Pointer // an rs2_frame_callback object the sensor was started with
	notifyCB func()         // cancels the notification callback
	notifObj unsafe.Pointer // an rs2_notifications_callback object
}

type sensorList struct {
	o  *owner
	ss []sensor.Sensor
}

type profileList struct {
	o     *owner
	profs []*sensor.StreamProfile
}

// optionsList is an rs2_options_list: the options and their values when it
// was made.
type optionsList struct {
	opts   []sensor.Option
	values []listValue
}

// verifyVersion is librealsense's verify_version_compatibility.
func verifyVersion(v int) {
	major, minor := func(v int) int { return v / 10000 }, func(v int) int { return v % 10000 / 100 }
	bad := false
	switch {
	case apiVersion < 10 || v < 10, major(v) == 1 && minor(v) <= 9:
		bad = v != apiVersion
	default:
		bad = major(v) != major(apiVersion) || minor(apiVersion) < minor(v)
	}
	if bad {
		fail(C.RS2_EXCEPTION_TYPE_INVALID_VALUE, "API version mismatch: librealsense.so was compiled with API version %s but the application was compiled with %s! Make sure correct version of the library is installed (make install)",
			versionString(apiVersion), versionString(v))
	}
}

func versionString(v int) string {
	if v/10000 == 0 {
		return itoa(v)
	}
	return itoa(v/10000) + "." + itoa(v%10000/100) + "." + itoa(v%100)
}

//export rs2_create_context
func rs2_create_context(version C.int, e **C.rs2_error) (r *C.rs2_context) {
	defer catch(e, "rs2_create_context", func() string { return fmtArgs("api_version", version) })
	verifyVersion(int(version))
	return (*C.rs2_context)(newHandle(&contextState{}))
}

//export rs2_create_context_ex
func rs2_create_context_ex(version C.int, settings *C.char, e **C.rs2_error) (r *C.rs2_context) {
	defer catch(e, "rs2_create_context_ex", func() string {
		return fmtArgs("api_version", version, "json_settings", charArg(unsafe.Pointer(settings)))
	})
	verifyVersion(int(version))
	if s := goStr(settings); s != "" && !json.Valid([]byte(s)) {
		fail(C.RS2_EXCEPTION_TYPE_INVALID_VALUE, "invalid JSON settings: %s", s)
	}
	return (*C.rs2_context)(newHandle(&contextState{}))
}

//export rs2_delete_context
func rs2_delete_context(ctx *C.rs2_context) {
	defer catch(nil, "rs2_delete_context", nil)
	c := lookup[*contextState](unsafe.Pointer(ctx), "context")
	freeHandle(unsafe.Pointer(ctx))
	c.mu.Lock()
	c.devs = nil
	obj := c.changedObj
	c.changed, c.changedObj = nil, nil
	c.mu.Unlock()
	if obj != nil {
		C.rsbag_cpp_release_devices_changed_callback((*C.rs2_devices_changed_callback)(obj))
	}
}

func goStr(s *C.char) string {
	if s == nil {
		return ""
	}
	return C.GoString(s)
}

// addDevice opens the bag at file as a playback device of c (real time, as
// librealsense) and returns it with one reference, the caller's. A bag
// already in c, with a handle left to it, is refused as librealsense's
// context::add_device refuses it.
func (c *contextState) addDevice(file string) *owner {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.prune()
	for _, o := range c.devs {
		if o.pb != nil && o.pb.Filename() == file && o.tryAcquire() {
			o.release()
			fail(C.RS2_EXCEPTION_TYPE_INVALID_VALUE, "device already in context: file://%s", file)
		}
	}
	o := newOwner(openBag(file), true)
	c.devs = append(c.devs, o)
	return o
}

// openBag opens the bag at file as a playback device, or fails as
// librealsense's ros_reader does (src/media/ros/ros_reader.cpp): an
// io_exception, "Failed to create ros reader: " and the reason, for a file
// that cannot be opened the rosbag library's "Error opening file: FILE".
func openBag(file string) *playback.Device {
	dev, err := playback.Open(file, nil)
	if err != nil {
		msg := err.Error()
		if errors.Is(err, fs.ErrNotExist) || errors.Is(err, fs.ErrPermission) {
			msg = "Error opening file: " + file
		}
		fail(C.RS2_EXCEPTION_TYPE_IO, "Failed to create ros reader: %s", msg)
	}
	return dev
}

// prune forgets the devices of c whose last reference was released; c.mu
// is held.
func (c *contextState) prune() {
	c.devs = slices.DeleteFunc(c.devs, func(o *owner) bool { return o.refs.Load() <= 0 })
}

// devicesChanged hands the program's devices-changed callback, if it set
// one, a new list of the removed devices and one of the added (which the
// program deletes), as librealsense's context does when a bag is added or
// removed, on the caller's thread.
func (c *contextState) devicesChanged(removed, added []*owner) {
	c.mu.Lock()
	cb := c.changed
	c.mu.Unlock()
	if cb != nil {
		cb(newDeviceList(removed), newDeviceList(added))
	}
}

// newDeviceList returns a device list of devs, each with a new reference.
func newDeviceList(devs []*owner) *C.rs2_device_list {
	l := &deviceList{}
	for _, o := range devs {
		l.devs = append(l.devs, o.acquire())
	}
	return (*C.rs2_device_list)(newHandle(l))
}

// setDevicesChanged makes cb (with its C++ object obj, or nil) the
// context's devices-changed callback, in place of the one before.
func (c *contextState) setDevicesChanged(cb func(removed, added *C.rs2_device_list), obj unsafe.Pointer) {
	c.mu.Lock()
	old := c.changedObj
	c.changed, c.changedObj = cb, obj
	c.mu.Unlock()
	if old != nil {
		C.rsbag_cpp_release_devices_changed_callback((*C.rs2_devices_changed_callback)(old))
	}
}

//export rs2_set_devices_changed_callback
func rs2_set_devices_changed_callback(ctx *C.rs2_context, cb C.rs2_devices_changed_callback_ptr, user unsafe.Pointer, e **C.rs2_error) {
	defer catch(e, "rs2_set_devices_changed_callback", func() string {
		return fmtArgs("context", ptrArg(unsafe.Pointer(ctx)), "callback", funcArg(unsafe.Pointer(cb)), "user", ptrArg(user))
	})
	c := lookup[*contextState](unsafe.Pointer(ctx), "context")
	if cb == nil {
		failNull("callback")
	}
	c.setDevicesChanged(func(removed, added *C.rs2_device_list) { C.rsbag_call_devices_changed(cb, removed, added, user) }, nil)
}

//export rs2_set_devices_changed_callback_cpp
func rs2_set_devices_changed_callback_cpp(ctx *C.rs2_context, cb *C.rs2_devices_changed_callback, e **C.rs2_error) {
	defer catch(e, "rs2_set_devices_changed_callback_cpp", func() string {
		return fmtArgs("context", ptrArg(unsafe.Pointer(ctx)), "callback", ptrArg(unsafe.Pointer(cb)))
	})
	checkCallback(unsafe.Pointer(cb))
	defer releaseOnFailure(func() { C.rsbag_cpp_release_devices_changed_callback(cb) })
	c := lookup[*contextState](unsafe.Pointer(ctx), "context")
	c.setDevicesChanged(func(removed, added *C.rs2_device_list) { C.rsbag_cpp_on_devices_changed(cb, removed, added) }, unsafe.Pointer(cb))
}

//export rs2_context_add_device
func rs2_context_add_device(ctx *C.rs2_context, file *C.char, e **C.rs2_error) (r *C.rs2_device) {
	defer catch(e, "rs2_context_add_device", func() string {
		return fmtArgs("ctx", ptrArg(unsafe.Pointer(ctx)), "file", charArg(unsafe.Pointer(file)))
	})
	c := lookup[*contextState](unsafe.Pointer(ctx), "ctx")
	if file == nil {
		failNull("file")
	}
	o := c.addDevice(C.GoString(file))
	r = (*C.rs2_device)(newHandle(&deviceHandle{o}))
	c.devicesChanged(nil, []*owner{o})
	return r
}

//export rs2_create_playback_device
func rs2_create_playback_device(file *C.char, e **C.rs2_error) (r *C.rs2_device) {
	defer catch(e, "rs2_create_playback_device", func() string { return fmtArgs("file", charArg(unsafe.Pointer(file))) })
	if file == nil {
		failNull("file")
	}
	dev := openBag(C.GoString(file))
	return (*C.rs2_device)(newHandle(&deviceHandle{newOwner(dev, true)}))
}

//export rs2_context_remove_device
func rs2_context_remove_device(ctx *C.rs2_context, file *C.char, e **C.rs2_error) {
	defer catch(e, "rs2_context_remove_device", func() string {
		return fmtArgs("ctx", ptrArg(unsafe.Pointer(ctx)), "file", charArg(unsafe.Pointer(file)))
	})
	c := lookup[*contextState](unsafe.Pointer(ctx), "ctx")
	if file == nil {
		failNull("file")
	}
	name := C.GoString(file)
	c.mu.Lock()
	c.prune()
	i := slices.IndexFunc(c.devs, func(o *owner) bool { return o.pb != nil && o.pb.Filename() == name })
	if i < 0 {
		// A file that is not in the context is no error, as in
		// librealsense 2.56.5 (context::remove_device).
		c.mu.Unlock()
		return
	}
	o := c.devs[i]
	c.devs = slices.Delete(c.devs, i, i+1)
	c.mu.Unlock()
	if o.tryAcquire() { // as librealsense: no callback for a device already gone
		c.devicesChanged([]*owner{o}, nil)
		o.release()
	}
}

//export rs2_context_unload_tracking_module
func rs2_context_unload_tracking_module(ctx *C.rs2_context, e **C.rs2_error) {
	defer catch(e, "rs2_context_unload_tracking_module", func() string { return fmtArgs("ctx", ptrArg(unsafe.Pointer(ctx))) })
}

func (c *contextState) list() *C.rs2_device_list {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.prune()
	l := &deviceList{}
	for _, o := range c.devs {
		if o.tryAcquire() {
			l.devs = append(l.devs, o)
		}
	}
	return (*C.rs2_device_list)(newHandle(l))
}

//export rs2_query_devices
func rs2_query_devices(ctx *C.rs2_context, e **C.rs2_error) (r *C.rs2_device_list) {
	defer catch(e, "rs2_query_devices", func() string { return fmtArgs("context", ptrArg(unsafe.Pointer(ctx))) })
	// As librealsense's, which fails as rs2_query_devices_ex.
	return rs2_query_devices_ex(ctx, productLineAnyIntel, e)
}

// productLineAnyIntel is RS2_PRODUCT_LINE_ANY_INTEL of librealsense's
// rs_context.h, the mask rs2_query_devices passes.
const productLineAnyIntel = 0xfe

//export rs2_query_devices_ex
func rs2_query_devices_ex(ctx *C.rs2_context, mask C.int, e **C.rs2_error) (r *C.rs2_device_list) {
	defer catch(e, "rs2_query_devices_ex", func() string { return fmtArgs("context", ptrArg(unsafe.Pointer(ctx)), "product_mask", mask) })
	return lookup[*contextState](unsafe.Pointer(ctx), "context").list()
}

//export rs2_get_device_count
func rs2_get_device_count(list *C.rs2_device_list, e **C.rs2_error) (r C.int) {
	defer catch(e, "rs2_get_device_count", func() string { return fmtArgs("list", ptrArg(unsafe.Pointer(list))) })
	if list == nil {
		return 0
	}
	return C.int(len(lookup[*deviceList](unsafe.Pointer(list), "list").devs))
}

//export rs2_delete_device_list
func rs2_delete_device_list(list *C.rs2_device_list) {
	defer catch(nil, "rs2_delete_device_list", nil)
	l := lookup[*deviceList](unsafe.Pointer(list), "info_list")
	freeHandle(unsafe.Pointer(list))
	for _, o := range l.devs {
		o.release()
	}
}

//export rs2_device_list_contains
func rs2_device_list_contains(list *C.rs2_device_list, dev *C.rs2_device, e **C.rs2_error) (r C.int) {
	defer catch(e, "rs2_device_list_contains", func() string {
		return fmtArgs("info_list", ptrArg(unsafe.Pointer(list)), "device", ptrArg(unsafe.Pointer(dev)))
	})
	l := lookup[*deviceList](unsafe.Pointer(list), "info_list")
	d := lookup[*deviceHandle](unsafe.Pointer(dev), "device")
	return cbool(slices.Contains(l.devs, d.o))
}

func cbool(b bool) C.int {
	if b {
		return 1
	}
	return 0
}

func checkIndex(i C.int, n int, arg string) int {
	if i < 0 || int(i) >= n {
		fail(C.RS2_EXCEPTION_TYPE_INVALID_VALUE, "out of range value for argument \"%s\"", arg)
	}
	return int(i)
}

//export rs2_create_device
func rs2_create_device(list *C.rs2_device_list, index C.int, e **C.rs2_error) (r *C.rs2_device) {
	defer catch(e, "rs2_create_device", func() string { return fmtArgs("info_list", ptrArg(unsafe.Pointer(list)), "index", index) })
	l := lookup[*deviceList](unsafe.Pointer(list), "info_list")
	i := checkIndex(index, len(l.devs), "index")
	return (*C.rs2_device)(newHandle(&deviceHandle{l.devs[i].acquire()}))
}

//export rs2_delete_device
func rs2_delete_device(dev *C.rs2_device) {
	defer catch(nil, "rs2_delete_device", nil)
	d := lookup[*deviceHandle](unsafe.Pointer(dev), "device")
	freeHandle(unsafe.Pointer(dev))
	d.o.release()
}

func infoValue(info sensor.Info, i C.rs2_camera_info) (string, bool) {
	v, ok := info[sensor.CameraInfo(i)]
	return v, ok
}

//export rs2_supports_device_info
func rs2_supports_device_info(dev *C.rs2_device, info C.rs2_camera_info, e **C.rs2_error) (r C.int) {
	defer catch(e, "rs2_supports_device_info", func() string { return fmtArgs("dev", ptrArg(unsafe.Pointer(dev)), "info", info) })
	_, ok := infoValue(lookup[*deviceHandle](unsafe.Pointer(dev), "dev").o.dev.Info(), info)
	return cbool(ok)
}

//export rs2_get_device_info
func rs2_get_device_info(dev *C.rs2_device, info C.rs2_camera_info, e **C.rs2_error) (r *C.char) {
	defer catch(e, "rs2_get_device_info", func() string { return fmtArgs("dev", ptrArg(unsafe.Pointer(dev)), "info", info) })
	v, ok := infoValue(lookup[*deviceHandle](unsafe.Pointer(dev), "dev").o.dev.Info(), info)
	if !ok {
		fail(C.RS2_EXCEPTION_TYPE_INVALID_VALUE, "%s", unsupportedInfo(info))
	}
	return cstr(v)
}

// unsupportedInfo is librealsense's message for an info a device lacks.
func unsupportedInfo(info C.rs2_camera_info) string {
	return "info " + C.GoString(rs2_camera_info_to_string(info)) + " not supported by the device!"
}

//export rs2_query_sensors
func rs2_query_sensors(dev *C.rs2_device, e **C.rs2_error) (r *C.rs2_sensor_list) {
	defer catch(e, "rs2_query_sensors", func() string { return fmtArgs("device", ptrArg(unsafe.Pointer(dev))) })
	d := lookup[*deviceHandle](unsafe.Pointer(dev), "device")
	return (*C.rs2_sensor_list)(newHandle(&sensorList{d.o.acquire(), d.o.dev.Sensors()}))
}

//export rs2_get_sensors_count
func rs2_get_sensors_count(list *C.rs2_sensor_list, e **C.rs2_error) (r C.int) {
	defer catch(e, "rs2_get_sensors_count", func() string { return fmtArgs("list", ptrArg(unsafe.Pointer(list))) })
	if list == nil {
		return 0 // as librealsense
	}
	return C.int(len(lookup[*sensorList](unsafe.Pointer(list), "list").ss))
}

//export rs2_delete_sensor_list
func rs2_delete_sensor_list(list *C.rs2_sensor_list) {
	defer catch(nil, "rs2_delete_sensor_list", nil)
	l := lookup[*sensorList](unsafe.Pointer(list), "info_list")
	freeHandle(unsafe.Pointer(list))
	l.o.release()
}

//export rs2_create_sensor
func rs2_create_sensor(list *C.rs2_sensor_list, index C.int, e **C.rs2_error) (r *C.rs2_sensor) {
	defer catch(e, "rs2_create_sensor", func() string { return fmtArgs("list", ptrArg(unsafe.Pointer(list)), "index", index) })
	l := lookup[*sensorList](unsafe.Pointer(list), "list")
	i := checkIndex(index, len(l.ss), "index")
	return (*C.rs2_sensor)(newHandle(&sensorHandle{o: l.o.acquire(), s: l.ss[i], index: i}))
}

//export rs2_delete_sensor
func rs2_delete_sensor(s *C.rs2_sensor) {
	defer catch(nil, "rs2_delete_sensor", nil)
	h := lookup[*sensorHandle](unsafe.Pointer(s), "sensor")
	freeHandle(unsafe.Pointer(s))
	h.mu.Lock()
	if h.notifyCB != nil {
		h.notifyCB()
	}
	obj := h.notifObj
	h.mu.Unlock()
	if obj != nil {
		C.rsbag_cpp_release_notifications_callback((*C.rs2_notifications_callback)(obj))
	}
	h.o.release()
}

//export rs2_supports_sensor_info
func rs2_supports_sensor_info(s *C.rs2_sensor, info C.rs2_camera_info, e **C.rs2_error) (r C.int) {
	defer catch(e, "rs2_supports_sensor_info", func() string { return fmtArgs("sensor", ptrArg(unsafe.Pointer(s)), "info", info) })
	_, ok := infoValue(lookup[*sensorHandle](unsafe.Pointer(s), "sensor").s.Info(), info)
	return cbool(ok)
}

//export rs2_get_sensor_info
func rs2_get_sensor_info(s *C.rs2_sensor, info C.rs2_camera_info, e **C.rs2_error) (r *C.char) {
	defer catch(e, "rs2_get_sensor_info", func() string { return fmtArgs("sensor", ptrArg(unsafe.Pointer(s)), "info", info) })
	v, ok := infoValue(lookup[*sensorHandle](unsafe.Pointer(s), "sensor").s.Info(), info)
	if !ok {
		fail(C.RS2_EXCEPTION_TYPE_INVALID_VALUE, "%s", unsupportedInfo(info))
	}
	return cstr(v)
}

// sensorExtensions are the rs2_extension values a playback sensor of these
// kinds is extendable to.
func sensorIs(s sensor.Sensor, ext C.rs2_extension) bool {
	var kinds []extensions.SensorKind
	if k, ok := s.(extensions.Kinded); ok {
		kinds = k.Kinds()
	}
	switch ext {
	case C.RS2_EXTENSION_OPTIONS:
		_, ok := s.(extensions.Options)
		return ok
	case C.RS2_EXTENSION_INFO:
		return true
	case C.RS2_EXTENSION_DEPTH_SENSOR:
		return slices.Contains(kinds, extensions.KindDepthSensor)
	case C.RS2_EXTENSION_DEPTH_STEREO_SENSOR:
		return slices.Contains(kinds, extensions.KindDepthStereoSensor)
	case C.RS2_EXTENSION_COLOR_SENSOR:
		return slices.Contains(kinds, extensions.KindColorSensor)
	case C.RS2_EXTENSION_MOTION_SENSOR:
		return slices.Contains(kinds, extensions.KindMotionSensor)
	case C.RS2_EXTENSION_FISHEYE_SENSOR:
		return slices.Contains(kinds, extensions.KindFisheyeSensor)
	case C.RS2_EXTENSION_POSE_SENSOR:
		return slices.Contains(kinds, extensions.KindPoseSensor)
	case C.RS2_EXTENSION_RECOMMENDED_FILTERS:
		_, ok := s.(extensions.RecommendedFilters)
		return ok
	}
	return false
}

//export rs2_is_sensor_extendable_to
func rs2_is_sensor_extendable_to(s *C.rs2_sensor, ext C.rs2_extension, e **C.rs2_error) (r C.int) {
	defer catch(e, "rs2_is_sensor_extendable_to", func() string { return fmtArgs("sensor", ptrArg(unsafe.Pointer(s)), "extension_type", ext) })
	return cbool(sensorIs(lookup[*sensorHandle](unsafe.Pointer(s), "sensor").s, ext))
}

//export rs2_is_device_extendable_to
func rs2_is_device_extendable_to(dev *C.rs2_device, ext C.rs2_extension, e **C.rs2_error) (r C.int) {
	defer catch(e, "rs2_is_device_extendable_to", func() string { return fmtArgs("dev", ptrArg(unsafe.Pointer(dev)), "extension", ext) })
	d := lookup[*deviceHandle](unsafe.Pointer(dev), "dev")
	switch ext {
	case C.RS2_EXTENSION_PLAYBACK:
		return cbool(d.o.pb != nil)
	case C.RS2_EXTENSION_INFO:
		return 1
	}
	return 0
}

//export rs2_get_depth_scale
func rs2_get_depth_scale(s *C.rs2_sensor, e **C.rs2_error) (r C.float) {
	defer catch(e, "rs2_get_depth_scale", func() string { return fmtArgs("sensor", ptrArg(unsafe.Pointer(s))) })
	ds, ok := lookup[*sensorHandle](unsafe.Pointer(s), "sensor").s.(extensions.DepthSensor)
	if !ok || !sensorIs(ds.(sensor.Sensor), C.RS2_EXTENSION_DEPTH_SENSOR) {
		fail(C.RS2_EXCEPTION_TYPE_COUNT, "Object does not support \"librealsense::depth_sensor\" interface! ")
	}
	return C.float(ds.DepthUnits())
}

//export rs2_get_stereo_baseline
func rs2_get_stereo_baseline(s *C.rs2_sensor, e **C.rs2_error) (r C.float) {
	defer catch(e, "rs2_get_stereo_baseline", func() string { return fmtArgs("sensor", ptrArg(unsafe.Pointer(s))) })
	ds, ok := lookup[*sensorHandle](unsafe.Pointer(s), "sensor").s.(extensions.DepthStereoSensor)
	if !ok || !sensorIs(ds.(sensor.Sensor), C.RS2_EXTENSION_DEPTH_STEREO_SENSOR) {
		fail(C.RS2_EXCEPTION_TYPE_COUNT, "Object does not support \"librealsense::depth_stereo_sensor\" interface! ")
	}
	return C.float(ds.StereoBaselineMM())
}

//export rs2_get_recommended_processing_blocks
func rs2_get_recommended_processing_blocks(s *C.rs2_sensor, e **C.rs2_error) (r *C.rs2_processing_block_list) {
	defer catch(e, "rs2_get_recommended_processing_blocks", func() string { return fmtArgs("sensor", ptrArg(unsafe.Pointer(s))) })
	return recommendedBlocks(lookup[*sensorHandle](unsafe.Pointer(s), "sensor"))
}

//export rs2_get_stream_profiles
func rs2_get_stream_profiles(s *C.rs2_sensor, e **C.rs2_error) (r *C.rs2_stream_profile_list) {
	defer catch(e, "rs2_get_stream_profiles", func() string { return fmtArgs("sensor", ptrArg(unsafe.Pointer(s))) })
	h := lookup[*sensorHandle](unsafe.Pointer(s), "sensor")
	return (*C.rs2_stream_profile_list)(newHandle(&profileList{h.o.acquire(), h.s.Profiles()}))
}

//export rs2_get_stream_profiles_count
func rs2_get_stream_profiles_count(list *C.rs2_stream_profile_list, e **C.rs2_error) (r C.int) {
	defer catch(e, "rs2_get_stream_profiles_count", func() string { return fmtArgs("list", ptrArg(unsafe.Pointer(list))) })
	return C.int(len(lookup[*profileList](unsafe.Pointer(list), "list").profs))
}

//export rs2_get_stream_profile
func rs2_get_stream_profile(list *C.rs2_stream_profile_list, index C.int, e **C.rs2_error) (r *C.rs2_stream_profile) {
	defer catch(e, "rs2_get_stream_profile", func() string { return fmtArgs("list", ptrArg(unsafe.Pointer(list)), "index", index) })
	l := lookup[*profileList](unsafe.Pointer(list), "list")
	return l.o.profile(l.profs[checkIndex(index, len(l.profs), "index")])
}

//export rs2_delete_stream_profiles_list
func rs2_delete_stream_profiles_list(list *C.rs2_stream_profile_list) {
	defer catch(nil, "rs2_delete_stream_profiles_list", nil)
	l := lookup[*profileList](unsafe.Pointer(list), "list")
	freeHandle(unsafe.Pointer(list))
	l.o.release()
}

//export rs2_delete_stream_profile
func rs2_delete_stream_profile(p *C.rs2_stream_profile) {
	// Profiles handed out are owned by their device or list, as the
	// profiles of librealsense's lists are; only clones are freed.
	defer catch(nil, "rs2_delete_stream_profile", nil)
	if v, ok := handles.Load(uintptr(unsafe.Pointer(p))); ok && v.(*profileEntry).clone {
		freeHandle(unsafe.Pointer(p))
	}
}

//export rs2_get_stream_profile_data
func rs2_get_stream_profile_data(p *C.rs2_stream_profile, stream *C.rs2_stream, format *C.rs2_format, index *C.int, uid *C.int, fps *C.int, e **C.rs2_error) {
	defer catch(e, "rs2_get_stream_profile_data", func() string {
		return fmtArgs("profile", profileArg(unsafe.Pointer(p)), "stream", derefArg(stream), "format", derefArg(format), "index", derefArg(index), "framerate", derefArg(fps))
	})
	sp := lookup[*profileEntry](unsafe.Pointer(p), "profile").p
	switch {
	case stream == nil:
		failNull("stream")
	case format == nil:
		failNull("format")
	case index == nil:
		failNull("index")
	case uid == nil:
		failNull("unique_id")
	case fps == nil:
		// librealsense writes through framerate unchecked (a crash):
		// refused here with the error it gives the others.
		failNull("framerate")
	}
	*stream, *format, *index, *uid, *fps = C.rs2_stream(sp.Stream), C.rs2_format(sp.Format), C.int(sp.Index), C.int(sp.UID), C.int(sp.FPS)
}

//export rs2_is_stream_profile_default
func rs2_is_stream_profile_default(p *C.rs2_stream_profile, e **C.rs2_error) (r C.int) {
	defer catch(e, "rs2_is_stream_profile_default", func() string { return fmtArgs("profile", profileArg(unsafe.Pointer(p))) })
	return cbool(lookup[*profileEntry](unsafe.Pointer(p), "profile").p.Default)
}

//export rs2_stream_profile_is
func rs2_stream_profile_is(p *C.rs2_stream_profile, ext C.rs2_extension, e **C.rs2_error) (r C.int) {
	defer catch(e, "rs2_stream_profile_is", func() string { return fmtArgs("profile", profileArg(unsafe.Pointer(p)), "extension_type", ext) })
	sp := lookup[*profileEntry](unsafe.Pointer(p), "profile").p
	switch ext {
	case C.RS2_EXTENSION_VIDEO_PROFILE:
		return cbool(sp.Kind == sensor.KindVideo)
	case C.RS2_EXTENSION_MOTION_PROFILE:
		return cbool(sp.Kind == sensor.KindMotion)
	case C.RS2_EXTENSION_POSE_PROFILE:
		return cbool(sp.Kind == sensor.KindPose)
	}
	return 0
}

func videoProfile(p *C.rs2_stream_profile, arg string) *sensor.StreamProfile {
	sp := lookup[*profileEntry](unsafe.Pointer(p), arg).p
	if sp.Kind != sensor.KindVideo {
		fail(C.RS2_EXCEPTION_TYPE_COUNT, "Object does not support \"librealsense::video_stream_profile_interface\" interface! ")
	}
	return sp
}

//export rs2_get_video_stream_resolution
func rs2_get_video_stream_resolution(p *C.rs2_stream_profile, w, h *C.int, e **C.rs2_error) {
	defer catch(e, "rs2_get_video_stream_resolution", func() string {
		return fmtArgs("from", profileArg(unsafe.Pointer(p)), "width", derefArg(w), "height", derefArg(h))
	})
	sp := videoProfile(p, "from")
	if w != nil {
		*w = C.int(sp.Width)
	}
	if h != nil {
		*h = C.int(sp.Height)
	}
}

//export rs2_get_video_stream_intrinsics
func rs2_get_video_stream_intrinsics(p *C.rs2_stream_profile, out *C.rs2_intrinsics, e **C.rs2_error) {
	defer catch(e, "rs2_get_video_stream_intrinsics", func() string {
		return fmtArgs("profile", profileArg(unsafe.Pointer(p)), "intr", outArg(unsafe.Pointer(out)))
	})
	if p != nil && out == nil { // as librealsense: the arguments, then the kind of profile
		failNull("intr")
	}
	sp := videoProfile(p, "profile")
	in := sp.Intrinsics
	*out = C.rs2_intrinsics{width: C.int(in.Width), height: C.int(in.Height), ppx: C.float(in.PPX), ppy: C.float(in.PPY),
		fx: C.float(in.FX), fy: C.float(in.FY), model: C.rs2_distortion(in.Model)}
	for i, c := range in.Coeffs {
		out.coeffs[i] = C.float(c)
	}
}

//export rs2_get_motion_intrinsics
func rs2_get_motion_intrinsics(p *C.rs2_stream_profile, out *C.rs2_motion_device_intrinsic, e **C.rs2_error) {
	defer catch(e, "rs2_get_motion_intrinsics", func() string {
		return fmtArgs("mode", profileArg(unsafe.Pointer(p)), "intrinsics", ptrArg(unsafe.Pointer(out)))
	})
	sp := lookup[*profileEntry](unsafe.Pointer(p), "mode").p
	if out == nil { // as librealsense: the arguments, then the kind of profile
		failNull("intrinsics")
	}
	if sp.Kind != sensor.KindMotion {
		fail(C.RS2_EXCEPTION_TYPE_COUNT, "Object does not support \"librealsense::motion_stream_profile_interface\" interface! ")
	}
	mi := sp.MotionIntrinsics
	for r := range mi.Data {
		for c := range mi.Data[r] {
			out.data[r][c] = C.float(mi.Data[r][c])
		}
	}
	for i := range 3 {
		out.noise_variances[i] = C.float(mi.NoiseVariances[i])
		out.bias_variances[i] = C.float(mi.BiasVariances[i])
	}
}

//export rs2_get_extrinsics
func rs2_get_extrinsics(from, to *C.rs2_stream_profile, out *C.rs2_extrinsics, e **C.rs2_error) {
	defer catch(e, "rs2_get_extrinsics", func() string {
		return fmtArgs("from", profileArg(unsafe.Pointer(from)), "to", profileArg(unsafe.Pointer(to)), "extrin", extrinsicsArg(out))
	})
	a := lookup[*profileEntry](unsafe.Pointer(from), "from")
	b := lookup[*profileEntry](unsafe.Pointer(to), "to")
	if out == nil {
		failNull("extrin")
	}
	if a.o == nil || b.o == nil {
		fail(C.RS2_EXCEPTION_TYPE_INVALID_VALUE, "a cloned profile has no extrinsics")
	}
	x, err := a.o.dev.Extrinsics(a.p, b.p)
	check(err)
	for i, v := range x.Rotation {
		out.rotation[i] = C.float(v)
	}
	for i, v := range x.Translation {
		out.translation[i] = C.float(v)
	}
}

// options returns the options of a handle cast to rs2_options*: a sensor's
// or a processing block's.
func options(p unsafe.Pointer) optionSet {
	if p == nil {
		failNull("options")
	}
	v, _ := handles.Load(uintptr(p))
	switch h := v.(type) {
	case *sensorHandle:
		if o, ok := h.s.(extensions.Options); ok {
			return o
		}
	case *blockHandle:
		if h.opts != nil {
			return h.opts
		}
	}
	fail(C.RS2_EXCEPTION_TYPE_INVALID_VALUE, "invalid handle passed for argument \"options\"")
	return nil
}

// optionSet is what the options of a sensor and of a processing block have.
type optionSet interface {
	SupportedOptions() []sensor.Option
	Option(o sensor.Option) (float32, error)
	SetOption(o sensor.Option, v float32) error
	OptionRange(o sensor.Option) (extensions.Range, error)
	OptionDescription(o sensor.Option) string
}

func readOnly(o optionSet, opt sensor.Option) bool {
	r, ok := o.(interface{ OptionReadOnly(sensor.Option) bool })
	return ok && r.OptionReadOnly(opt)
}

func supported(o optionSet, opt C.rs2_option) bool {
	return slices.Contains(o.SupportedOptions(), sensor.Option(opt))
}

// checkOption fails as librealsense's options container does for an
// option o lacks (get_option in src/core/options-container.cpp).
func checkOption(o optionSet, opt C.rs2_option) sensor.Option {
	if !supported(o, opt) {
		fail(C.RS2_EXCEPTION_TYPE_INVALID_VALUE, "option '%s' not supported", C.GoString(rs2_option_to_string(opt)))
	}
	return sensor.Option(opt)
}

// checkOptionEnabled fails as rs2_get_option and rs2_set_option do for an
// option o lacks (VALIDATE_OPTION_ENABLED in src/api.h).
func checkOptionEnabled(o optionSet, opt C.rs2_option) sensor.Option {
	if !supported(o, opt) {
		fail(C.RS2_EXCEPTION_TYPE_INVALID_VALUE, "object doesn't support option %s", C.GoString(rs2_option_to_string(opt)))
	}
	return sensor.Option(opt)
}

//export rs2_supports_option
func rs2_supports_option(p *C.rs2_options, opt C.rs2_option, e **C.rs2_error) (r C.int) {
	defer catch(e, "rs2_supports_option", func() string { return fmtArgs("options", ptrArg(unsafe.Pointer(p)), "option", opt) })
	return cbool(supported(options(unsafe.Pointer(p)), opt))
}

//export rs2_get_option
func rs2_get_option(p *C.rs2_options, opt C.rs2_option, e **C.rs2_error) (r C.float) {
	defer catch(e, "rs2_get_option", func() string { return fmtArgs("options", ptrArg(unsafe.Pointer(p)), "option_id", opt) })
	o := options(unsafe.Pointer(p))
	v, err := o.Option(checkOptionEnabled(o, opt))
	check(err)
	return C.float(v)
}

//export rs2_set_option
func rs2_set_option(p *C.rs2_options, opt C.rs2_option, value C.float, e **C.rs2_error) {
	defer catch(e, "rs2_set_option", func() string {
		return fmtArgs("options", ptrArg(unsafe.Pointer(p)), "option", opt, "value", floatArg(float64(value)))
	})
	o := options(unsafe.Pointer(p))
	id := checkOptionEnabled(o, opt)
	// As rs2_set_option in src/rs.cpp: the range first, when the option
	// has one, then the option's own refusal of a read-only value.
	rg, err := o.OptionRange(id)
	check(err)
	if rg.Min != rg.Max && rg.Step != 0 && (float32(value) < rg.Min || float32(value) > rg.Max) {
		fail(C.RS2_EXCEPTION_TYPE_INVALID_VALUE, "out of range value for argument \"value\"")
	}
	if readOnly(o, id) {
		fail(C.RS2_EXCEPTION_TYPE_NOT_IMPLEMENTED, "This option is read-only!")
	}
	check(o.SetOption(id, float32(value)))
}

//export rs2_is_option_read_only
func rs2_is_option_read_only(p *C.rs2_options, opt C.rs2_option, e **C.rs2_error) (r C.int) {
	defer catch(e, "rs2_is_option_read_only", func() string { return fmtArgs("options", ptrArg(unsafe.Pointer(p)), "option", opt) })
	o := options(unsafe.Pointer(p))
	return cbool(readOnly(o, checkOption(o, opt)))
}

//export rs2_get_option_range
func rs2_get_option_range(p *C.rs2_options, opt C.rs2_option, min, max, step, def *C.float, e **C.rs2_error) {
	defer catch(e, "rs2_get_option_range", func() string {
		return fmtArgs("options", ptrArg(unsafe.Pointer(p)), "option", opt, "min", derefArg(min), "max", derefArg(max), "step", derefArg(step), "def", derefArg(def))
	})
	o := options(unsafe.Pointer(p))
	for _, x := range []struct {
		p    *C.float
		name string
	}{{min, "min"}, {max, "max"}, {step, "step"}, {def, "def"}} {
		if x.p == nil {
			failNull(x.name)
		}
	}
	rg, err := o.OptionRange(checkOption(o, opt))
	check(err)
	*min, *max, *step, *def = C.float(rg.Min), C.float(rg.Max), C.float(rg.Step), C.float(rg.Default)
}

//export rs2_get_option_description
func rs2_get_option_description(p *C.rs2_options, opt C.rs2_option, e **C.rs2_error) (r *C.char) {
	defer catch(e, "rs2_get_option_description", func() string { return fmtArgs("options", ptrArg(unsafe.Pointer(p)), "option", opt) })
	o := options(unsafe.Pointer(p))
	return cstr(o.OptionDescription(checkOption(o, opt)))
}

//export rs2_get_option_name
func rs2_get_option_name(p *C.rs2_options, opt C.rs2_option, e **C.rs2_error) (r *C.char) {
	defer catch(e, "rs2_get_option_name", func() string { return fmtArgs("option", opt, "options", ptrArg(unsafe.Pointer(p))) })
	options(unsafe.Pointer(p))
	return rs2_option_to_string(opt)
}

//export rs2_get_options_list
func rs2_get_options_list(p *C.rs2_options, e **C.rs2_error) (r *C.rs2_options_list) {
	defer catch(e, "rs2_get_options_list", func() string { return fmtArgs("options", ptrArg(unsafe.Pointer(p))) })
	o := options(unsafe.Pointer(p))
	l := &optionsList{opts: o.SupportedOptions()}
	for _, opt := range l.opts {
		l.values = append(l.values, readValue(o, opt))
	}
	return (*C.rs2_options_list)(newHandle(l))
}

//export rs2_get_options_list_size
func rs2_get_options_list_size(l *C.rs2_options_list, e **C.rs2_error) (r C.int) {
	defer catch(e, "rs2_get_options_list_size", func() string { return fmtArgs("options", ptrArg(unsafe.Pointer(l))) })
	return C.int(len(lookup[*optionsList](unsafe.Pointer(l), "options").opts))
}

//export rs2_get_option_from_list
func rs2_get_option_from_list(l *C.rs2_options_list, i C.int, e **C.rs2_error) (r C.rs2_option) {
	defer catch(e, "rs2_get_option_from_list", func() string { return fmtArgs("options", ptrArg(unsafe.Pointer(l)), "i", i) })
	ol := lookup[*optionsList](unsafe.Pointer(l), "options")
	return C.rs2_option(ol.opts[checkIndex(i, len(ol.opts), "i")])
}

//export rs2_delete_options_list
func rs2_delete_options_list(l *C.rs2_options_list) {
	defer catch(nil, "rs2_delete_options_list", nil)
	lookup[*optionsList](unsafe.Pointer(l), "options")
	freeHandle(unsafe.Pointer(l))
}

// rs2_device_is_connected says yes for a bag (every device here is one), as
// librealsense's playback device (playback_device::is_valid).
//
//export rs2_device_is_connected
func rs2_device_is_connected(dev *C.rs2_device, e **C.rs2_error) (r C.int) {
	defer catch(e, "rs2_device_is_connected", func() string { return fmtArgs("device", ptrArg(unsafe.Pointer(dev))) })
	lookup[*deviceHandle](unsafe.Pointer(dev), "device")
	return 1
}

// rs2_hardware_reset does nothing to a bag (every device here is one), as
// librealsense's playback device (playback_device::hardware_reset).
//
//export rs2_hardware_reset
func rs2_hardware_reset(dev *C.rs2_device, e **C.rs2_error) {
	defer catch(e, "rs2_hardware_reset", func() string { return fmtArgs("device", ptrArg(unsafe.Pointer(dev))) })
	lookup[*deviceHandle](unsafe.Pointer(dev), "device")
}
