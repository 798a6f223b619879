/* errors BAG [rsbag]: the rs2_error of failing calls, the console log of
   errors, the *_to_string functions and the option ranges. Prints one line
   each, as librealsense 2.56.5 does (testdata/errors.librealsense.out).
   With a second argument, also what only rsbag's library gives: the
   error of a function present but not supported for a bag, and of a
   handle of the wrong kind (librealsense would crash). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "rs2test.h"

int main(int argc, char** argv) {
	rs2_error* e = NULL;
	printf("api %d\n", rs2_get_api_version(&e));
	rs2_create_context(RS2_API_VERSION + 100, &e);
	show("newer minor", e); e = NULL;
	rs2_create_context(30000, &e);
	show("other major", e); e = NULL;
	rs2_context* ctx = rs2_create_context_ex(25600, "{}", &e);
	show("older minor", e); e = NULL;
	rs2_delete_context(ctx);
	ctx = rs2_create_context(RS2_API_VERSION, &e); show("create", e); e = NULL;
	rs2_context_add_device(ctx, "/nonexistent/x.bag", &e);
	show("missing file", e); e = NULL;
	rs2_device* dev = rs2_context_add_device(ctx, argv[1], &e); show("add", e); e = NULL;
	rs2_get_device_info(dev, RS2_CAMERA_INFO_IP_ADDRESS, &e); show("info", e); e = NULL;
	rs2_context_remove_device(ctx, "no-such.bag", &e); show("remove unknown", e); e = NULL;
	rs2_context_remove_device(ctx, NULL, &e); show("remove null", e); e = NULL;
	rs2_hardware_reset(dev, &e); show("reset", e); e = NULL;
	printf("connected %d\n", rs2_device_is_connected(dev, &e)); show("connected", e); e = NULL;
	rs2_get_frame_width(NULL, &e); show("null frame", e); e = NULL;
	rs2_log_to_console(RS2_LOG_SEVERITY_ERROR, &e); show("log", e); e = NULL;
	rs2_processing_block* dec = rs2_create_decimation_filter_block(&e); check(e);
	printf("decimation is decimation %d, threshold %d\n", rs2_is_processing_block_extendable_to(dec, RS2_EXTENSION_DECIMATION_FILTER, &e),
		rs2_is_processing_block_extendable_to(dec, RS2_EXTENSION_THRESHOLD_FILTER, &e));
	check(e);
	rs2_delete_processing_block(dec);
	rs2_processing_block* sy = rs2_create_sync_processing_block(&e); check(e);
	printf("sync block %s\n", rs2_get_processing_block_info(sy, RS2_CAMERA_INFO_NAME, &e)); check(e);
	rs2_delete_processing_block(sy);
	rs2_sensor_list* sl = rs2_query_sensors(dev, &e);
	rs2_sensor* s = rs2_create_sensor(sl, 0, &e);
	rs2_create_sensor(sl, 99, &e); show("sensor index", e); e = NULL;
	rs2_set_option((rs2_options*)s, RS2_OPTION_EXPOSURE, 1, &e); show("set option", e); e = NULL;
	rs2_get_option((rs2_options*)s, RS2_OPTION_WHITE_BALANCE, &e); show("unsupported option", e); e = NULL;
	rs2_stream_profile_list* pl = rs2_get_stream_profiles(s, &e);
	const rs2_stream_profile* p = rs2_get_stream_profile(pl, 0, &e);
	rs2_open_multiple(s, &p, -1, &e); show("negative count", e); e = NULL;
	rs2_start_queue(s, NULL, &e); show("null queue", e); e = NULL;
	rs2_frame_queue* q = rs2_create_frame_queue(1, &e);
	rs2_start_queue(s, q, &e); show("start unopened", e); e = NULL;
	rs2_stop(s, &e); show("stop unopened", e); e = NULL;
	rs2_frame* none = NULL;
	printf("frames of unopened: %d\n", rs2_poll_for_frame(q, &none, &e)); check(e);
	rs2_stop(s, &e); show("stop again", e); e = NULL;
	rs2_delete_frame_queue(q);
	rs2_playback_seek(dev, -1, &e); show("seek", e); e = NULL;
	printf("%s|%s|%s|%s|%s|%s|%s|%s\n", rs2_stream_to_string(RS2_STREAM_GYRO), rs2_format_to_string(RS2_FORMAT_Y16),
		rs2_option_to_string(RS2_OPTION_LASER_POWER), rs2_camera_info_to_string(RS2_CAMERA_INFO_SERIAL_NUMBER),
		rs2_timestamp_domain_to_string(RS2_TIMESTAMP_DOMAIN_GLOBAL_TIME), rs2_frame_metadata_to_string(RS2_FRAME_METADATA_ACTUAL_FPS),
		rs2_distortion_to_string(RS2_DISTORTION_INVERSE_BROWN_CONRADY), rs2_format_to_string((rs2_format)999));
	printf("%s|%s|%s|%s|%s|%s\n", rs2_exception_type_to_string(RS2_EXCEPTION_TYPE_WRONG_API_CALL_SEQUENCE),
		rs2_extension_type_to_string(RS2_EXTENSION_DEPTH_STEREO_SENSOR), rs2_playback_status_to_string(RS2_PLAYBACK_STATUS_STOPPED),
		rs2_log_severity_to_string(RS2_LOG_SEVERITY_WARN), rs2_notification_category_to_string(RS2_NOTIFICATION_CATEGORY_HARDWARE_EVENT),
		rs2_extension_to_string(RS2_EXTENSION_POINTS));
	/* Option ranges of the sensor and of a colorizer. */
	rs2_processing_block* col = rs2_create_colorizer(&e); check(e);
	rs2_options* objs[2] = {(rs2_options*)s, (rs2_options*)col};
	for (int k = 0; k < 2; k++) {
		rs2_options_list* ol = rs2_get_options_list(objs[k], &e); check(e);
		int n = rs2_get_options_list_size(ol, &e); check(e);
		for (int i = 0; i < n; i++) {
			rs2_option o = rs2_get_option_from_list(ol, i, &e); check(e);
			float min, max, step, def;
			rs2_get_option_range(objs[k], o, &min, &max, &step, &def, &e); check(e);
			printf("range %d %s %.9g %.9g %.9g %.9g %d\n", k, rs2_get_option_name(objs[k], o, &e), min, max, step, def,
				rs2_is_option_read_only(objs[k], o, &e));
			check(e);
		}
		rs2_delete_options_list(ol);
	}
	rs2_set_option((rs2_options*)col, RS2_OPTION_COLOR_SCHEME, 3, &e); check(e);
	printf("colorizer scheme %.9g\n", rs2_get_option((rs2_options*)col, RS2_OPTION_COLOR_SCHEME, &e)); check(e);
	rs2_delete_processing_block(col);
	if (argc > 2) {
		if (rs2_create_yuy_decoder(&e)) return 1;
		show("stub", e); e = NULL;
		rs2_get_frame_width((rs2_frame*)dev, &e); show("device as frame", e); e = NULL;
	}
	rs2_delete_stream_profiles_list(pl);
	rs2_delete_sensor(s);
	rs2_delete_sensor_list(sl);
	rs2_delete_device(dev);
	rs2_delete_context(ctx);
	return 0;
}
