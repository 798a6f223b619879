/* url: a bag named by a URL through the entry points that take a file:
   rs2_create_playback_device (its file path and frames, every sensor
   started with a C callback) and a pipeline with
   rs2_config_enable_device_from_file (its framesets' frames). An error is
   printed as "error FUNCTION: MESSAGE" and ends the program with status 0. */
#include <stdio.h>
#include <stdlib.h>
#include "rs2test.h"

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static int frames;

static void refused(rs2_error* e) {
	if (e) {
		printf("error %s: %s\n", rs2_get_failed_function(e), rs2_get_error_message(e));
		rs2_free_error(e);
		exit(0);
	}
}

static void on_frame(rs2_frame* f, void* user) {
	(void)user;
	pthread_mutex_lock(&mu);
	frames++;
	pthread_mutex_unlock(&mu);
	rs2_release_frame(f);
}

int main(int argc, char** argv) {
	(void)argc;
	rs2_error* e = NULL;
	rs2_device* dev = rs2_create_playback_device(argv[1], &e); refused(e);
	printf("file %s\n", rs2_playback_device_get_file_path(dev, &e)); check(e);
	rs2_playback_device_set_real_time(dev, 0, &e); check(e);
	struct stop_waiter status;
	watch_stop(dev, &status, &mu, &cv);
	struct sensors ss;
	open_all(dev, &ss);
	start_all(&ss, on_frame);
	pthread_mutex_lock(&mu);
	while (!status.stopped) pthread_cond_wait(&cv, &mu);
	pthread_mutex_unlock(&mu);
	close_all(&ss);
	rs2_delete_device(dev);
	printf("playback frames %d\n", frames);

	rs2_context* ctx = rs2_create_context(RS2_API_VERSION, &e); check(e);
	rs2_pipeline* pipe = rs2_create_pipeline(ctx, &e); check(e);
	rs2_config* cfg = rs2_create_config(&e); check(e);
	rs2_config_enable_device_from_file_repeat_option(cfg, argv[1], 0, &e); check(e);
	rs2_pipeline_profile* prof = rs2_pipeline_start_with_config(pipe, cfg, &e); check(e);
	rs2_device* pd = rs2_pipeline_profile_get_device(prof, &e); check(e);
	rs2_playback_device_set_real_time(pd, 0, &e); check(e);
	int inSets = 0;
	rs2_frame* fs;
	while (rs2_pipeline_try_wait_for_frames(pipe, &fs, 5000, &e)) {
		check(e);
		inSets += rs2_embedded_frames_count(fs, &e); check(e);
		rs2_release_frame(fs);
	}
	check(e);
	printf("pipeline frames %d\n", inSets);
	rs2_pipeline_stop(pipe, &e); check(e);
	rs2_delete_device(pd);
	rs2_delete_pipeline_profile(prof);
	rs2_delete_config(cfg);
	rs2_delete_pipeline(pipe);
	rs2_delete_context(ctx);
	return 0;
}
