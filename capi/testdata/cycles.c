/* cycles: opens, plays and closes a bag N times through every kind of
   handle, and prints the bytes malloc holds after the first cycles and at
   the end: every handle released, nothing kept, they stay flat. */
#include <malloc.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include "rs2test.h"

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static int frames;
static rs2_frame* kept;

static void on_frame(rs2_frame* f, void* user) {
	rs2_error* e = NULL;
	rs2_frame_queue* q = user;
	/* Keep one frame across callbacks, queue another. */
	rs2_frame_add_ref(f, &e); check(e);
	rs2_enqueue_frame(f, q);
	pthread_mutex_lock(&mu);
	if (kept) rs2_release_frame(kept);
	kept = f;
	frames++;
	pthread_cond_broadcast(&cv);
	pthread_mutex_unlock(&mu);
}

static int draining;

/* drain releases the frames of the queue q until draining is 0. */
static void* drain(void* q) {
	rs2_error* e = NULL;
	rs2_frame* f;
	while (__atomic_load_n(&draining, __ATOMIC_SEQ_CST)) {
		if (rs2_try_wait_for_frame(q, 10, &f, &e)) rs2_release_frame(f);
		check(e);
	}
	return NULL;
}

static void cycle(const char* bag) {
	rs2_error* e = NULL;
	rs2_context* ctx = rs2_create_context(RS2_API_VERSION, &e); check(e);
	rs2_device* added = rs2_context_add_device(ctx, bag, &e); check(e);
	rs2_device_list* dl = rs2_query_devices(ctx, &e); check(e);
	rs2_device* dev = rs2_create_device(dl, 0, &e); check(e);
	rs2_playback_device_set_real_time(dev, 0, &e); check(e);
	/* Room for the 4 frames waited for below: with real time off a frame
	   waits for room in a full queue (holding the callback and the
	   playback), as librealsense's, so a queue of fewer would never let
	   the count reach 4. */
	rs2_frame_queue* q = rs2_create_frame_queue(8, &e); check(e);
	rs2_sensor_list* sl = rs2_query_sensors(dev, &e); check(e);
	int n = rs2_get_sensors_count(sl, &e); check(e);
	rs2_sensor* ss[8];
	rs2_stream_profile_list* pls[8];
	for (int i = 0; i < n; i++) {
		ss[i] = rs2_create_sensor(sl, i, &e); check(e);
		pls[i] = rs2_get_stream_profiles(ss[i], &e); check(e);
		const rs2_stream_profile* p = rs2_get_stream_profile(pls[i], 0, &e); check(e);
		rs2_open(ss[i], p, &e); check(e);
		rs2_options_list* ol = rs2_get_options_list((rs2_options*)ss[i], &e); check(e);
		rs2_delete_options_list(ol);
	}
	frames = 0;
	for (int i = 0; i < n; i++) { rs2_start(ss[i], on_frame, q, &e); check(e); }
	pthread_mutex_lock(&mu);
	while (frames < 4) pthread_cond_wait(&cv, &mu);
	pthread_mutex_unlock(&mu);
	/* The queue is read while the sensors stop: a callback waiting for
	   room holds the playback, which stopping another sensor waits for. */
	draining = 1;
	pthread_t t;
	if (pthread_create(&t, NULL, drain, q)) exit(2);
	for (int i = 0; i < n; i++) { rs2_stop(ss[i], &e); check(e); rs2_close(ss[i], &e); check(e); }
	__atomic_store_n(&draining, 0, __ATOMIC_SEQ_CST);
	pthread_join(t, NULL);
	rs2_frame* f;
	while (rs2_poll_for_frame(q, &f, &e)) rs2_release_frame(f);
	check(e);
	pthread_mutex_lock(&mu);
	if (kept) rs2_release_frame(kept);
	kept = NULL;
	pthread_mutex_unlock(&mu);
	for (int i = 0; i < n; i++) { rs2_delete_stream_profiles_list(pls[i]); rs2_delete_sensor(ss[i]); }
	rs2_delete_sensor_list(sl);
	rs2_delete_frame_queue(q);
	rs2_delete_device(dev);
	rs2_delete_device_list(dl);
	rs2_delete_device(added);
	rs2_delete_context(ctx);
}

/* rss returns the resident set size in KiB. */
static long rss(void) {
	long pages = 0, res = 0;
	FILE* f = fopen("/proc/self/statm", "r");
	if (!f || fscanf(f, "%ld %ld", &pages, &res) != 2) exit(2);
	fclose(f);
	return res * 4;
}

int main(int argc, char** argv) {
	int n = atoi(argv[2]);
	for (int i = 0; i < 50; i++) cycle(argv[1]);
	struct mallinfo2 a = mallinfo2();
	long ra = rss();
	for (int i = 50; i < n; i++) cycle(argv[1]);
	struct mallinfo2 b = mallinfo2();
	printf("%zu %zu %ld %ld\n", a.uordblks, b.uordblks, ra, rss());
	return 0;
}
