package main

/*
#include "shim.h"
*/
import "C"

import (
	"time"
	"unsafe"

	"github.com/rsbag/rsbag/extensions"
	"github.com/rsbag/rsbag/playback"
	"github.com/rsbag/rsbag/sensor"
)

// playbackOf returns the playback device of a device handle.
func playbackOf(dev *C.rs2_device, arg string) (*owner, *playback.Device) {
	o := lookup[*deviceHandle](unsafe.Pointer(dev), arg).o
	if o.pb == nil {
		fail(C.RS2_EXCEPTION_TYPE_COUNT, "Object does not support \"librealsense::playback_device\" interface! ")
	}
	return o, o.pb
}

//export rs2_playback_device_get_file_path
func rs2_playback_device_get_file_path(dev *C.rs2_device, e **C.rs2_error) (r *C.char) {
	defer catch(e, "rs2_playback_device_get_file_path", func() string { return fmtArgs("device", ptrArg(unsafe.Pointer(dev))) })
	_, pb := playbackOf(dev, "device")
	return cstr(pb.Filename())
}

//export rs2_playback_get_duration
func rs2_playback_get_duration(dev *C.rs2_device, e **C.rs2_error) (r C.ulonglong) {
	defer catch(e, "rs2_playback_get_duration", func() string { return fmtArgs("device", ptrArg(unsafe.Pointer(dev))) })
	_, pb := playbackOf(dev, "device")
	// librealsense's duration is the time from the first frame to the last.
	first, last := pb.Span()
	return C.ulonglong(last - first)
}

//export rs2_playback_seek
func rs2_playback_seek(dev *C.rs2_device, t C.longlong, e **C.rs2_error) {
	defer catch(e, "rs2_playback_seek", func() string { return fmtArgs("device", ptrArg(unsafe.Pointer(dev))) })
	if dev == nil {
		failNull("device")
	}
	if t < 0 {
		// VALIDATE_LE(0, time) in src/rs.cpp: a std::runtime_error naming "0"
		fail(C.RS2_EXCEPTION_TYPE_COUNT, "out of range value for argument \"0\"")
	}
	_, pb := playbackOf(dev, "device")
	if err := pb.Seek(time.Duration(t)); err != nil {
		fail(C.RS2_EXCEPTION_TYPE_INVALID_VALUE, "%v", err)
	}
}

//export rs2_playback_get_position
func rs2_playback_get_position(dev *C.rs2_device, e **C.rs2_error) (r C.ulonglong) {
	defer catch(e, "rs2_playback_get_position", func() string { return fmtArgs("device", ptrArg(unsafe.Pointer(dev))) })
	_, pb := playbackOf(dev, "device")
	return C.ulonglong(pb.Position())
}

//export rs2_playback_device_resume
func rs2_playback_device_resume(dev *C.rs2_device, e **C.rs2_error) {
	defer catch(e, "rs2_playback_device_resume", func() string { return fmtArgs("device", ptrArg(unsafe.Pointer(dev))) })
	_, pb := playbackOf(dev, "device")
	check(pb.Resume())
}

//export rs2_playback_device_pause
func rs2_playback_device_pause(dev *C.rs2_device, e **C.rs2_error) {
	defer catch(e, "rs2_playback_device_pause", func() string { return fmtArgs("device", ptrArg(unsafe.Pointer(dev))) })
	_, pb := playbackOf(dev, "device")
	check(pb.Pause())
}

//export rs2_playback_device_set_real_time
func rs2_playback_device_set_real_time(dev *C.rs2_device, on C.int, e **C.rs2_error) {
	defer catch(e, "rs2_playback_device_set_real_time", func() string { return fmtArgs("device", ptrArg(unsafe.Pointer(dev))) })
	_, pb := playbackOf(dev, "device")
	check(pb.SetRealTime(on != 0))
}

//export rs2_playback_device_is_real_time
func rs2_playback_device_is_real_time(dev *C.rs2_device, e **C.rs2_error) (r C.int) {
	defer catch(e, "rs2_playback_device_is_real_time", func() string { return fmtArgs("device", ptrArg(unsafe.Pointer(dev))) })
	_, pb := playbackOf(dev, "device")
	return cbool(pb.RealTime())
}

//export rs2_playback_device_set_playback_speed
func rs2_playback_device_set_playback_speed(dev *C.rs2_device, speed C.float, e **C.rs2_error) {
	defer catch(e, "rs2_playback_device_set_playback_speed", func() string { return fmtArgs("device", ptrArg(unsafe.Pointer(dev))) })
	_, pb := playbackOf(dev, "device")
	check(pb.SetSpeed(float64(speed)))
}

//export rs2_playback_device_get_current_status
func rs2_playback_device_get_current_status(dev *C.rs2_device, e **C.rs2_error) (r C.rs2_playback_status) {
	defer catch(e, "rs2_playback_device_get_current_status", func() string { return fmtArgs("device", ptrArg(unsafe.Pointer(dev))) })
	_, pb := playbackOf(dev, "device")
	return playbackStatus(pb.Status())
}

//export rs2_playback_device_stop
func rs2_playback_device_stop(dev *C.rs2_device, e **C.rs2_error) {
	defer catch(e, "rs2_playback_device_stop", func() string { return fmtArgs("device", ptrArg(unsafe.Pointer(dev))) })
	h, pb := playbackOf(dev, "device")
	h.halt(nil)
	check(pb.Stop())
}

//export rs2_playback_device_set_status_changed_callback
func rs2_playback_device_set_status_changed_callback(dev *C.rs2_device, cb *C.rs2_playback_status_changed_callback, e **C.rs2_error) {
	defer catch(e, "rs2_playback_device_set_status_changed_callback", func() string {
		return fmtArgs("device", ptrArg(unsafe.Pointer(dev)), "callback", ptrArg(unsafe.Pointer(cb)))
	})
	checkCallback(unsafe.Pointer(cb))
	defer releaseOnFailure(func() { C.rsbag_cpp_release_status_callback(cb) })
	o, pb := playbackOf(dev, "device")
	o.mu.Lock()
	old, first := o.statusCB, o.statusCB == nil
	o.statusCB = unsafe.Pointer(cb)
	o.mu.Unlock()
	if old != nil {
		C.rsbag_cpp_release_status_callback((*C.rs2_playback_status_changed_callback)(old))
	}
	if first {
		pb.OnStatusChange(func(s extensions.PlaybackStatus) {
			o.mu.Lock()
			cb := o.statusCB
			o.mu.Unlock()
			if cb != nil {
				C.rsbag_call_status((*C.rs2_playback_status_changed_callback)(cb), playbackStatus(s))
			}
		})
	}
}

// notification is an rs2_notification while the program's callback runs.
type notification struct {
	n  sensor.Notification
	cs []unsafe.Pointer // C strings handed out, freed after the callback
}

func (n *notification) str(s string) *C.char {
	p := C.CString(s)
	n.cs = append(n.cs, unsafe.Pointer(p))
	return p
}

func notificationOf(p *C.rs2_notification, arg string) *notification {
	return lookup[*notification](unsafe.Pointer(p), arg)
}

func (h *sensorHandle) onNotification(call func(*C.rs2_notification)) {
	nf, ok := h.s.(extensions.Notifier)
	if !ok {
		fail(C.RS2_EXCEPTION_TYPE_COUNT, "Object does not support \"librealsense::notifications_processor\" interface! ")
	}
	cancel := nf.OnNotification(func(n sensor.Notification) {
		nt := &notification{n: n}
		p := newHandle(nt)
		defer func() {
			freeHandle(p)
			for _, c := range nt.cs {
				C.free(c)
			}
		}()
		call((*C.rs2_notification)(p))
	})
	h.mu.Lock()
	old := h.notifyCB
	h.notifyCB = cancel
	h.mu.Unlock()
	if old != nil {
		old()
	}
}

//export rs2_set_notifications_callback
func rs2_set_notifications_callback(s *C.rs2_sensor, cb C.rs2_notification_callback_ptr, user unsafe.Pointer, e **C.rs2_error) {
	defer catch(e, "rs2_set_notifications_callback", func() string {
		return fmtArgs("sensor", ptrArg(unsafe.Pointer(s)), "on_notification", funcArg(unsafe.Pointer(cb)), "user", ptrArg(user))
	})
	h := lookup[*sensorHandle](unsafe.Pointer(s), "sensor")
	if cb == nil {
		failNull("on_notification")
	}
	h.onNotification(func(n *C.rs2_notification) { C.rsbag_call_notification(cb, n, user) })
}

//export rs2_set_notifications_callback_cpp
func rs2_set_notifications_callback_cpp(s *C.rs2_sensor, cb *C.rs2_notifications_callback, e **C.rs2_error) {
	defer catch(e, "rs2_set_notifications_callback_cpp", func() string {
		return fmtArgs("sensor", ptrArg(unsafe.Pointer(s)), "callback", ptrArg(unsafe.Pointer(cb)))
	})
	checkCallback(unsafe.Pointer(cb))
	defer releaseOnFailure(func() { C.rsbag_cpp_release_notifications_callback(cb) })
	h := lookup[*sensorHandle](unsafe.Pointer(s), "sensor")
	h.onNotification(func(n *C.rs2_notification) { C.rsbag_cpp_on_notification(cb, n) })
	h.mu.Lock()
	old := h.notifObj
	h.notifObj = unsafe.Pointer(cb)
	h.mu.Unlock()
	if old != nil {
		C.rsbag_cpp_release_notifications_callback((*C.rs2_notifications_callback)(old))
	}
}

//export rs2_get_notification_description
func rs2_get_notification_description(p *C.rs2_notification, e **C.rs2_error) (r *C.char) {
	defer catch(e, "rs2_get_notification_description", func() string { return fmtArgs("notification", ptrArg(unsafe.Pointer(p))) })
	n := notificationOf(p, "notification")
	return n.str(n.n.Description)
}

//export rs2_get_notification_timestamp
func rs2_get_notification_timestamp(p *C.rs2_notification, e **C.rs2_error) (r C.rs2_time_t) {
	defer catch(e, "rs2_get_notification_timestamp", func() string { return fmtArgs("notification", ptrArg(unsafe.Pointer(p))) })
	return C.rs2_time_t(notificationOf(p, "notification").n.TimestampMs)
}

//export rs2_get_notification_severity
func rs2_get_notification_severity(p *C.rs2_notification, e **C.rs2_error) (r C.rs2_log_severity) {
	defer catch(e, "rs2_get_notification_severity", func() string { return fmtArgs("notification", ptrArg(unsafe.Pointer(p))) })
	return C.rs2_log_severity(notificationOf(p, "notification").n.Severity)
}

//export rs2_get_notification_category
func rs2_get_notification_category(p *C.rs2_notification, e **C.rs2_error) (r C.rs2_notification_category) {
	defer catch(e, "rs2_get_notification_category", func() string { return fmtArgs("notification", ptrArg(unsafe.Pointer(p))) })
	return C.rs2_notification_category(notificationOf(p, "notification").n.Category)
}

//export rs2_get_notification_serialized_data
func rs2_get_notification_serialized_data(p *C.rs2_notification, e **C.rs2_error) (r *C.char) {
	defer catch(e, "rs2_get_notification_serialized_data", func() string { return fmtArgs("notification", ptrArg(unsafe.Pointer(p))) })
	n := notificationOf(p, "notification")
	return n.str(n.n.SerializedData)
}
