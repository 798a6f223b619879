/* errdetail BAG: more errors, each as librealsense 2.56.5 gives it
   (testdata/errdetail.librealsense.out): a bag added twice, the devices of
   a context as handles to a bag come and go, NULL outputs, a sensor opened
   with no profile and closed, the errors of options (unsupported, read-only,
   out of range), when the pipeline releases its C++ callback object, and
   that a call that fails releases the one it was given. */
#include <stdio.h>
#include "rs2test.h"

/* counter is an rs2_frame_callback object as a C++ compiler lays it out
   under the Itanium ABI (see rs2test.h's stop_waiter). */
struct counter { void* const* vtable; int released; };
static void counter_on_frame(struct counter* c, rs2_frame* f) { (void)c; rs2_release_frame(f); }
static void counter_release(struct counter* c) { c->released++; }
static void counter_dtor(struct counter* c) { (void)c; }
static void* const counter_vtable[] = {(void*)counter_on_frame, (void*)counter_release, (void*)counter_dtor, (void*)counter_dtor};

int main(int argc, char** argv) {
	(void)argc;
	rs2_error* e = NULL;
	rs2_context* ctx = rs2_create_context(RS2_API_VERSION, &e); check(e);
	printf("devices %d\n", device_count(ctx));
	rs2_device* dev = rs2_context_add_device(ctx, argv[1], &e); show("add", e); e = NULL;
	rs2_device* again = rs2_context_add_device(ctx, argv[1], &e); show("add again", e); e = NULL;
	printf("again %s, devices %d\n", again ? "a device" : "no device", device_count(ctx));
	rs2_device_list* l = rs2_query_devices(ctx, &e); check(e);
	rs2_delete_device(dev);
	printf("devices with a list left %d\n", device_count(ctx));
	rs2_device* d2 = rs2_create_device(l, 0, &e); show("device of the list", e); e = NULL;
	rs2_delete_device(d2);
	printf("devices with the list left %d\n", device_count(ctx));
	rs2_delete_device_list(l);
	printf("devices after the last handle %d\n", device_count(ctx));
	dev = rs2_context_add_device(ctx, argv[1], &e); show("add after the last handle", e); e = NULL;
	rs2_context_remove_device(ctx, argv[1], &e); show("remove", e); e = NULL;
	printf("devices after remove %d\n", device_count(ctx));

	rs2_sensor_list* sl = rs2_query_sensors(dev, &e); check(e);
	rs2_sensor* s = rs2_create_sensor(sl, 0, &e); check(e);
	rs2_stream_profile_list* pl = rs2_get_stream_profiles(s, &e); check(e);
	const rs2_stream_profile* p = rs2_get_stream_profile(pl, 0, &e); check(e);
	rs2_stream st = RS2_STREAM_POSE;
	rs2_format fm = RS2_FORMAT_XYZ32F;
	int idx = 5, uid = 6, fps = 8;
	rs2_get_stream_profile_data(p, NULL, &fm, &idx, &uid, &fps, &e); show("data null stream", e); e = NULL;
	rs2_get_stream_profile_data(p, &st, NULL, &idx, &uid, &fps, &e); show("data null format", e); e = NULL;
	rs2_get_stream_profile_data(p, &st, &fm, NULL, &uid, &fps, &e); show("data null index", e); e = NULL;
	rs2_get_stream_profile_data(p, &st, &fm, &idx, NULL, &fps, &e); show("data null unique id", e); e = NULL;
	rs2_get_stream_profile_data(NULL, &st, &fm, &idx, &uid, &fps, &e); show("data null profile", e); e = NULL;
	rs2_get_video_stream_intrinsics(p, NULL, &e); show("intrinsics null", e); e = NULL;
	rs2_extrinsics ex = {{1, 0, 0, 0, 1, 0, 0, 0, 1}, {0.5f, -0.25f, 0.001f}};
	rs2_get_extrinsics(p, NULL, &ex, &e); show("extrinsics to null", e); e = NULL;
	rs2_intrinsics in = {320, 240, 160.5f, 120.25f, 300, 301, RS2_DISTORTION_BROWN_CONRADY, {0.125f, 0, 0, 0, 0}};
	rs2_clone_video_stream_profile(NULL, RS2_STREAM_COLOR, 0, RS2_FORMAT_RGB8, 320, 240, &in, &e); show("clone null", e); e = NULL;
	rs2_open(s, NULL, &e); show("open null", e); e = NULL;
	rs2_open_multiple(s, &p, 0, &e); show("open none", e); e = NULL;
	rs2_close(s, &e); show("close", e); e = NULL;

	rs2_options* o = (rs2_options*)s;
	float a = 1, b = 2, c = 3, d = 4;
	rs2_set_option(o, RS2_OPTION_WHITE_BALANCE, 1, &e); show("set unsupported", e); e = NULL;
	rs2_get_option_range(o, RS2_OPTION_WHITE_BALANCE, NULL, NULL, NULL, NULL, &e); show("range null", e); e = NULL;
	rs2_get_option_range(o, RS2_OPTION_WHITE_BALANCE, &a, &b, &c, &d, &e); show("range unsupported", e); e = NULL;
	rs2_is_option_read_only(o, RS2_OPTION_WHITE_BALANCE, &e); show("read-only unsupported", e); e = NULL;
	rs2_get_option_description(o, RS2_OPTION_WHITE_BALANCE, &e); show("description unsupported", e); e = NULL;
	rs2_get_option_value_description(o, RS2_OPTION_WHITE_BALANCE, 1, &e); show("value description unsupported", e); e = NULL;
	rs2_get_option_value(o, RS2_OPTION_WHITE_BALANCE, &e); show("value unsupported", e); e = NULL;
	rs2_set_option(o, RS2_OPTION_DEPTH_UNITS, 0.5f, &e); show("set read-only", e); e = NULL;
	rs2_set_option(o, RS2_OPTION_EXPOSURE, 12.25f, &e); show("set read-only fraction", e); e = NULL;
	rs2_processing_block* col = rs2_create_colorizer(&e); check(e);
	rs2_set_option((rs2_options*)col, RS2_OPTION_COLOR_SCHEME, 30, &e); show("set out of range", e); e = NULL;
	rs2_set_option((rs2_options*)col, RS2_OPTION_WHITE_BALANCE, 30, &e); show("set unsupported of a block", e); e = NULL;
	rs2_get_option((rs2_options*)col, RS2_OPTION_WHITE_BALANCE, &e); show("get unsupported of a block", e); e = NULL;
	rs2_get_option_range((rs2_options*)col, RS2_OPTION_WHITE_BALANCE, &a, &b, &c, &d, &e); show("range unsupported of a block", e); e = NULL;
	rs2_delete_processing_block(col);
	int nsensors = rs2_get_sensors_count(sl, &e); check(e);
	rs2_sensor* s1 = rs2_create_sensor(sl, nsensors - 1, &e); check(e); /* never opened, unless the only one */
	rs2_close(s1, &e); show("close the last sensor", e); e = NULL;
	rs2_delete_sensor(s1);
	rs2_delete_stream_profiles_list(pl);
	rs2_delete_sensor(s);
	rs2_delete_sensor_list(sl);
	rs2_delete_device(dev);
	printf("devices at the end %d\n", device_count(ctx));

	/* The pipeline's C++ callback object: kept past stop, released at
	   the next start or with the pipeline. */
	rs2_pipeline* pipe = rs2_create_pipeline(ctx, &e); check(e);
	rs2_config* cfg = rs2_create_config(&e); check(e);
	rs2_config_enable_device_from_file_repeat_option(cfg, argv[1], 0, &e); check(e);
	struct counter c1 = {counter_vtable, 0}, c2 = {counter_vtable, 0};
	rs2_pipeline_profile* prof = rs2_pipeline_start_with_config_and_callback_cpp(pipe, cfg, (rs2_frame_callback*)&c1, &e); check(e);
	rs2_pipeline_stop(pipe, &e); check(e);
	printf("released after stop %d\n", c1.released);
	rs2_delete_pipeline_profile(prof);
	printf("released after the profile's delete %d\n", c1.released);
	prof = rs2_pipeline_start_with_config(pipe, cfg, &e); check(e);
	printf("released after the next start %d\n", c1.released);
	rs2_pipeline_stop(pipe, &e); check(e);
	rs2_delete_pipeline_profile(prof);
	prof = rs2_pipeline_start_with_config_and_callback_cpp(pipe, cfg, (rs2_frame_callback*)&c2, &e); check(e);
	rs2_pipeline_stop(pipe, &e); check(e);
	rs2_delete_pipeline_profile(prof);
	rs2_delete_config(cfg);
	printf("released before the pipeline's delete %d\n", c2.released);
	rs2_delete_pipeline(pipe);
	printf("released after the pipeline's delete %d %d\n", c1.released, c2.released);

	/* A C++ callback object handed to a call that fails is released. */
	struct counter c3 = {counter_vtable, 0}, c4 = {counter_vtable, 0};
	rs2_start_cpp(NULL, (rs2_frame_callback*)&c3, &e); show("start no sensor", e); e = NULL;
	printf("released by the failed start %d\n", c3.released);
	rs2_pipeline_start_with_callback_cpp(NULL, (rs2_frame_callback*)&c4, &e); show("start no pipeline", e); e = NULL;
	printf("released by the failed pipeline start %d\n", c4.released);
	rs2_delete_context(ctx);
	return 0;
}
