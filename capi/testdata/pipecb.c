/* pipecb: plays a bag through rs2_pipeline (config from the file, no
   repeat) and prints what the pipeline hands out, one line each: a
   composite frame as a frameset of its embedded frames, any other frame
   alone.
   usage: pipecb MODE BAG [STREAM]
   MODE callback: rs2_pipeline_start_with_config_and_callback, in real
   time (librealsense's aggregator also queues every frameset for
   wait_for_frames, and blocks on that full queue when real time is off),
   until the playback has stopped and no callback came for a second;
   callback_nrt: the same with real time off right after the start
   (librealsense then hangs after its second callback, on its
   aggregator's full queue);
   wait: rs2_pipeline_wait_for_frames, real time off right after the
   start, until it fails (2 s without a frame);
   try: rs2_pipeline_try_wait_for_frames, real time off right after the
   start, until it finds nothing in 2 s;
   poll: rs2_pipeline_poll_for_frames, real time off right after the
   start, until it found nothing for 2 s.
   STREAM (depth, color, accel, gyro, pose) enables that stream alone.
   The environment variable PIPECB_IDLE_MS, when set, replaces those 1 s
   and 2 s: the tests of this library set it far above any stall of a
   loaded machine, so that the end of the file, not the machine's speed,
   ends a run (it only lengthens the wait after the last frame). */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "rs2test.h"

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static int calls;

/* print prints f as a frameset line when it is a composite frame, else as
   a frame line. */
static void print(rs2_frame* f) {
	rs2_error* e = NULL;
	if (!rs2_is_frame_extendable_to(f, RS2_EXTENSION_COMPOSITE_FRAME, &e)) {
		check(e);
		printf("{\"type\":\"frame\",\"frames\":[");
		print_frame(f, 0);
		printf("]}\n");
		return;
	}
	print_frameset(f);
}

static void on_frame(rs2_frame* f, void* user) {
	(void)user;
	pthread_mutex_lock(&mu);
	print(f);
	calls++;
	pthread_cond_broadcast(&cv);
	pthread_mutex_unlock(&mu);
	rs2_release_frame(f);
}

static rs2_stream stream_named(const char* name) {
	for (int s = 0; s < RS2_STREAM_COUNT; s++)
		if (!strcasecmp(rs2_stream_to_string((rs2_stream)s), name)) return (rs2_stream)s;
	fprintf(stderr, "unknown stream %s\n", name);
	exit(2);
}

/* idle returns the wait that ends a run: ms, or PIPECB_IDLE_MS. */
static int idle_ms(int ms) {
	const char* v = getenv("PIPECB_IDLE_MS");
	return v && atoi(v) > 0 ? atoi(v) : ms;
}

static struct timespec after(int ms) {
	struct timespec t;
	clock_gettime(CLOCK_REALTIME, &t);
	t.tv_sec += ms / 1000;
	t.tv_nsec += (long)(ms % 1000) * 1000000;
	if (t.tv_nsec >= 1000000000) { t.tv_sec++; t.tv_nsec -= 1000000000; }
	return t;
}

int main(int argc, char** argv) {
	if (argc < 3) { fprintf(stderr, "usage: pipecb callback|callback_nrt|wait|try|poll BAG [STREAM]\n"); return 2; }
	const char* mode = argv[1];
	int callback = !strncmp(mode, "callback", 8), real_time = !strcmp(mode, "callback");
	rs2_error* e = NULL;
	rs2_context* ctx = rs2_create_context(RS2_API_VERSION, &e); check(e);
	rs2_pipeline* pipe = rs2_create_pipeline(ctx, &e); check(e);
	rs2_config* cfg = rs2_create_config(&e); check(e);
	rs2_config_enable_device_from_file_repeat_option(cfg, argv[2], 0, &e); check(e);
	if (argc > 3) { rs2_config_enable_stream(cfg, stream_named(argv[3]), -1, 0, 0, RS2_FORMAT_ANY, 0, &e); check(e); }
	rs2_pipeline_profile* prof = callback ? rs2_pipeline_start_with_config_and_callback(pipe, cfg, on_frame, NULL, &e)
	                                      : rs2_pipeline_start_with_config(pipe, cfg, &e);
	check(e);
	rs2_device* dev = rs2_pipeline_profile_get_device(prof, &e); check(e);
	struct stop_waiter w;
	watch_stop(dev, &w, &mu, &cv);
	if (!real_time) { rs2_playback_device_set_real_time(dev, 0, &e); check(e); }
	if (callback) {
		pthread_mutex_lock(&mu);
		while (!w.stopped) pthread_cond_wait(&cv, &mu);
		for (;;) {
			int seen = calls;
			struct timespec t = after(idle_ms(1000));
			while (calls == seen && pthread_cond_timedwait(&cv, &mu, &t) != ETIMEDOUT) {
			}
			if (calls == seen) break;
		}
		pthread_mutex_unlock(&mu);
	} else if (!strcmp(mode, "wait")) {
		for (;;) {
			rs2_frame* f = rs2_pipeline_wait_for_frames(pipe, idle_ms(2000), &e);
			if (e) {
				printf("{\"type\":\"error\",\"message\":\"%s\"}\n", rs2_get_error_message(e));
				rs2_free_error(e);
				e = NULL;
				break;
			}
			print(f);
			rs2_release_frame(f);
		}
	} else if (!strcmp(mode, "try")) {
		rs2_frame* f = NULL;
		while (rs2_pipeline_try_wait_for_frames(pipe, &f, idle_ms(2000), &e)) {
			check(e);
			print(f);
			rs2_release_frame(f);
		}
		check(e);
	} else {
		int idle = 0;
		while (idle < idle_ms(2000)) {
			rs2_frame* f = NULL;
			if (rs2_pipeline_poll_for_frames(pipe, &f, &e)) {
				print(f);
				rs2_release_frame(f);
				idle = 0;
			} else {
				usleep(1000);
				idle++;
			}
			check(e);
		}
	}
	fflush(stdout);
	rs2_pipeline_stop(pipe, &e); check(e);
	delete_pipeline(ctx, pipe, cfg, prof, dev);
	return 0;
}
