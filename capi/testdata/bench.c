/* bench: plays a bag in non-real-time mode through every sensor, touching
   each frame's data through the C API, and prints the frames and the
   nanoseconds from the first start to the end of the playback. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include "rs2.h"

static void check(rs2_error* e) {
	if (e) {
		printf("error: %s: %s\n", rs2_get_failed_function(e), rs2_get_error_message(e));
		exit(1);
	}
}

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static int stopped;
static long frames, sum;

static void on_frame(rs2_frame* f, void* user) {
	rs2_error* e = NULL;
	const unsigned char* d = rs2_get_frame_data(f, &e);
	int n = rs2_get_frame_data_size(f, &e);
	unsigned long long num = rs2_get_frame_number(f, &e);
	check(e);
	__atomic_add_fetch(&sum, (long)d[n - 1] + (long)num, __ATOMIC_RELAXED);
	__atomic_add_fetch(&frames, 1, __ATOMIC_RELAXED);
	rs2_release_frame(f);
}

struct status_cb { void** vtable; };
static void status_changed(struct status_cb* self, rs2_playback_status s) {
	pthread_mutex_lock(&mu);
	if (s == RS2_PLAYBACK_STATUS_STOPPED) { stopped = 1; pthread_cond_broadcast(&cv); }
	pthread_mutex_unlock(&mu);
}
static void status_nop(struct status_cb* self) {}
static void* status_vtable[] = {(void*)status_changed, (void*)status_nop, (void*)status_nop, (void*)status_nop};
static struct status_cb status = {status_vtable};

int main(int argc, char** argv) {
	rs2_error* e = NULL;
	rs2_context* ctx = rs2_create_context(RS2_API_VERSION, &e); check(e);
	rs2_device* dev = rs2_context_add_device(ctx, argv[1], &e); check(e);
	rs2_playback_device_set_real_time(dev, 0, &e); check(e);
	rs2_playback_device_set_status_changed_callback(dev, (rs2_playback_status_changed_callback*)&status, &e); check(e);
	rs2_sensor_list* sl = rs2_query_sensors(dev, &e); check(e);
	int n = rs2_get_sensors_count(sl, &e); check(e);
	rs2_sensor* ss[8];
	for (int i = 0; i < n; i++) {
		ss[i] = rs2_create_sensor(sl, i, &e); check(e);
		rs2_stream_profile_list* pl = rs2_get_stream_profiles(ss[i], &e); check(e);
		int np = rs2_get_stream_profiles_count(pl, &e); check(e);
		const rs2_stream_profile* ps[16];
		for (int j = 0; j < np; j++) ps[j] = rs2_get_stream_profile(pl, j, &e);
		rs2_open_multiple(ss[i], ps, np, &e); check(e);
		rs2_delete_stream_profiles_list(pl);
	}
	struct timespec t0, t1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (int i = 0; i < n; i++) { rs2_start(ss[i], on_frame, NULL, &e); check(e); }
	pthread_mutex_lock(&mu);
	while (!stopped) pthread_cond_wait(&cv, &mu);
	pthread_mutex_unlock(&mu);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	for (int i = 0; i < n; i++) { rs2_stop(ss[i], &e); rs2_close(ss[i], &e); rs2_delete_sensor(ss[i]); }
	rs2_delete_sensor_list(sl);
	rs2_delete_device(dev);
	rs2_delete_context(ctx);
	printf("%ld %lld %ld\n", frames, (long long)(t1.tv_sec - t0.tv_sec) * 1000000000LL + (t1.tv_nsec - t0.tv_nsec), sum);
	return 0;
}
