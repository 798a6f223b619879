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
