/* Declarations the Go side of librealsense2.so needs: the rs2 types, and the
   C helpers of shim.c that call the program's callbacks. */
#ifndef RSBAG_CAPI_SHIM_H
#define RSBAG_CAPI_SHIM_H
#define RSBAG_CAPI_TYPES_ONLY
#include <stdlib.h>
#include "rs2.h"

struct rs2_error {
	char* message;
	char* function;
	char* args;
	rs2_exception_type type;
};

void rsbag_call_frame(rs2_frame_callback_ptr cb, rs2_frame* f, void* user);
void rsbag_call_status(rs2_playback_status_changed_callback* obj, rs2_playback_status s);
void rsbag_call_notification(rs2_notification_callback_ptr cb, rs2_notification* n, void* user);
void rsbag_call_processor(rs2_frame_processor_callback_ptr cb, rs2_frame* f, rs2_source* src, void* user);

/* The C++ callback objects of rs_types.hpp, through the Itanium C++ ABI. */
void rsbag_cpp_on_frame(rs2_frame_callback* obj, rs2_frame* f);
void rsbag_cpp_release_frame_callback(rs2_frame_callback* obj);
void rsbag_cpp_release_status_callback(rs2_playback_status_changed_callback* obj);
void rsbag_cpp_on_notification(rs2_notifications_callback* obj, rs2_notification* n);
void rsbag_cpp_release_notifications_callback(rs2_notifications_callback* obj);
void rsbag_cpp_processor_on_frame(rs2_frame_processor_callback* obj, rs2_frame* f, rs2_source* src);
void rsbag_cpp_release_processor_callback(rs2_frame_processor_callback* obj);
void rsbag_call_devices_changed(rs2_devices_changed_callback_ptr cb, rs2_device_list* removed, rs2_device_list* added, void* user);
void rsbag_cpp_on_devices_changed(rs2_devices_changed_callback* obj, rs2_device_list* removed, rs2_device_list* added);
void rsbag_cpp_release_devices_changed_callback(rs2_devices_changed_callback* obj);

/* rsbag_log_line writes a line of librealsense's console log to the
   program's stdout, in order with its own printf; rsbag_thread_id is the
   calling thread's id as librealsense's log prints it. */
void rsbag_log_line(const char* line);
unsigned long rsbag_thread_id(void);

/* The Go side of rs2_create_rotation_filter_block (shim.c). */
rs2_processing_block* rsbag_create_rotation(rs2_stream* streams, int n, rs2_error** error);
#endif
