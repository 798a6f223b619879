/* pipe: plays a bag through rs2_pipeline (config from the file, no repeat,
   real time off) and prints each frameset's frames, then the active
   profile's streams. */
#include <stdio.h>
#include <stdlib.h>
#include "rs2test.h"

int main(int argc, char** argv) {
	rs2_error* e = NULL;
	rs2_context* ctx = rs2_create_context(RS2_API_VERSION, &e); check(e);
	rs2_pipeline* pipe = rs2_create_pipeline(ctx, &e); check(e);
	rs2_config* cfg = rs2_create_config(&e); check(e);
	rs2_config_enable_device_from_file_repeat_option(cfg, argv[1], 0, &e); check(e);
	rs2_pipeline_profile* resolved = rs2_config_resolve(cfg, pipe, &e); check(e);
	rs2_stream_profile_list* rs = rs2_pipeline_profile_get_streams(resolved, &e); check(e);
	const rs2_stream_profile* p0 = rs2_get_stream_profile(rs, 0, &e); check(e);
	printf("{\"type\":\"resolved\",\"streams\":%d,\"can\":%d,\"name\":\"%s\"}\n", rs2_get_stream_profiles_count(rs, &e),
		rs2_config_can_resolve(cfg, pipe, &e), rs2_get_stream_profile_name(p0, &e));
	check(e);
	rs2_delete_stream_profiles_list(rs);
	rs2_delete_pipeline_profile(resolved);
	rs2_pipeline_profile* prof = rs2_pipeline_start_with_config(pipe, cfg, &e); check(e);
	rs2_device* dev = rs2_pipeline_profile_get_device(prof, &e); check(e);
	rs2_playback_device_set_real_time(dev, 0, &e); check(e);
	rs2_frame* fs;
	while (rs2_pipeline_try_wait_for_frames(pipe, &fs, 5000, &e)) {
		check(e);
		print_frameset(fs);
		rs2_release_frame(fs);
	}
	check(e);
	rs2_pipeline_profile* active = rs2_pipeline_get_active_profile(pipe, &e); check(e);
	rs2_stream_profile_list* streams = rs2_pipeline_profile_get_streams(active, &e); check(e);
	int n = rs2_get_stream_profiles_count(streams, &e); check(e);
	printf("{\"type\":\"active\",\"file\":\"%s\",\"streams\":%d}\n", rs2_playback_device_get_file_path(dev, &e), n); check(e);
	rs2_delete_stream_profiles_list(streams);
	rs2_delete_pipeline_profile(active);
	/* A pipeline frame outlives the stop until it is released. */
	rs2_frame* last = NULL;
	if (rs2_pipeline_poll_for_frames(pipe, &last, &e)) rs2_release_frame(last);
	check(e);
	rs2_pipeline_stop(pipe, &e); check(e);
	rs2_pipeline_stop(pipe, &e);
	if (!e || rs2_get_librealsense_exception_type(e) != RS2_EXCEPTION_TYPE_WRONG_API_CALL_SEQUENCE) { printf("second stop: no error\n"); return 1; }
	printf("{\"type\":\"stop_again\",\"message\":\"%s\"}\n", rs2_get_error_message(e));
	rs2_free_error(e);
	delete_pipeline(ctx, pipe, cfg, prof, dev);
	return 0;
}
