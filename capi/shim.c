#include <pthread.h>
#include <stdio.h>
#include "shim.h"

void rsbag_call_frame(rs2_frame_callback_ptr cb, rs2_frame* f, void* user) { cb(f, user); }

void rsbag_call_notification(rs2_notification_callback_ptr cb, rs2_notification* n, void* user) { cb(n, user); }

void rsbag_call_processor(rs2_frame_processor_callback_ptr cb, rs2_frame* f, rs2_source* src, void* user) { cb(f, src, user); }

/* Under the Itanium C++ ABI an object of a polymorphic class starts with a
   pointer to its virtual table, whose entries are the virtual functions in
   declaration order: rs_types.hpp declares each callback class's handler
   first (entry 0) and release() second (entry 1), then the destructor. */
typedef void (*vfn)(void);

static vfn entry(void* obj, int i) { return (*(vfn**)obj)[i]; }

void rsbag_cpp_on_frame(rs2_frame_callback* obj, rs2_frame* f) {
	((void (*)(void*, rs2_frame*))entry(obj, 0))(obj, f);
}

void rsbag_cpp_release_frame_callback(rs2_frame_callback* obj) { ((void (*)(void*))entry(obj, 1))(obj); }

void rsbag_call_status(rs2_playback_status_changed_callback* obj, rs2_playback_status s) {
	((void (*)(void*, rs2_playback_status))entry(obj, 0))(obj, s);
}

void rsbag_cpp_release_status_callback(rs2_playback_status_changed_callback* obj) {
	((void (*)(void*))entry(obj, 1))(obj);
}

void rsbag_cpp_on_notification(rs2_notifications_callback* obj, rs2_notification* n) {
	((void (*)(void*, rs2_notification*))entry(obj, 0))(obj, n);
}

void rsbag_cpp_release_notifications_callback(rs2_notifications_callback* obj) {
	((void (*)(void*))entry(obj, 1))(obj);
}

void rsbag_cpp_processor_on_frame(rs2_frame_processor_callback* obj, rs2_frame* f, rs2_source* src) {
	((void (*)(void*, rs2_frame*, rs2_source*))entry(obj, 0))(obj, f, src);
}

void rsbag_cpp_release_processor_callback(rs2_frame_processor_callback* obj) {
	((void (*)(void*))entry(obj, 1))(obj);
}

void rsbag_call_devices_changed(rs2_devices_changed_callback_ptr cb, rs2_device_list* removed, rs2_device_list* added, void* user) {
	cb(removed, added, user);
}

void rsbag_cpp_on_devices_changed(rs2_devices_changed_callback* obj, rs2_device_list* removed, rs2_device_list* added) {
	((void (*)(void*, rs2_device_list*, rs2_device_list*))entry(obj, 0))(obj, removed, added);
}

void rsbag_cpp_release_devices_changed_callback(rs2_devices_changed_callback* obj) {
	((void (*)(void*))entry(obj, 1))(obj);
}

/* rs2_streams_list is a C++ struct holding a std::vector<rs2_stream>
   (rs_types.hpp). A class with a non-trivial destructor is passed by value
   under the Itanium C++ ABI as a pointer to the caller's copy, and
   libstdc++'s vector is three pointers: begin, end, end of storage. */
struct rsbag_streams_list {
	const rs2_stream *begin, *end, *end_of_storage;
};

rs2_processing_block* rs2_create_rotation_filter_block(const struct rsbag_streams_list* streams, rs2_error** error) {
	if (!streams) return rsbag_create_rotation(NULL, 0, error);
	return rsbag_create_rotation((rs2_stream*)streams->begin, (int)(streams->end - streams->begin), error);
}

void rsbag_log_line(const char* line) { fputs(line, stdout); }
unsigned long rsbag_thread_id(void) { return (unsigned long)pthread_self(); }
