/* bench: plays a bag in non-real-time mode through every sensor, touching
   each frame's data through the C API, and prints the frames, the
   nanoseconds from the first start to the end of the playback, and the
   picoseconds of one rs2_get_frame_number call. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include "rs2test.h"

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static long frames, sum;
static rs2_frame* first; /* kept for the per-call measure */

static void on_frame(rs2_frame* f, void* user) {
	rs2_error* e = NULL;
	const unsigned char* d = rs2_get_frame_data(f, &e);
	int n = rs2_get_frame_data_size(f, &e);
	unsigned long long num = rs2_get_frame_number(f, &e);
	check(e);
	rs2_frame* none = NULL;
	if (__atomic_compare_exchange_n(&first, &none, f, 0, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST)) {
		rs2_frame_add_ref(f, &e);
		check(e);
	}
	__atomic_add_fetch(&sum, (long)d[n - 1] + (long)num, __ATOMIC_RELAXED);
	__atomic_add_fetch(&frames, 1, __ATOMIC_RELAXED);
	rs2_release_frame(f);
}

static struct stop_waiter status;

int main(int argc, char** argv) {
	rs2_error* e = NULL;
	rs2_context* ctx = rs2_create_context(RS2_API_VERSION, &e); check(e);
	rs2_device* dev = rs2_context_add_device(ctx, argv[1], &e); check(e);
	rs2_playback_device_set_real_time(dev, 0, &e); check(e);
	watch_stop(dev, &status, &mu, &cv);
	rs2_sensor_list* sl = rs2_query_sensors(dev, &e); check(e);
	int n = rs2_get_sensors_count(sl, &e); check(e);
	rs2_sensor* ss[8];
	for (int i = 0; i < n; i++) {
		ss[i] = rs2_create_sensor(sl, i, &e); check(e);
		int opened;
		rs2_delete_stream_profiles_list(open_profiles(ss[i], 0, &opened));
	}
	struct timespec t0, t1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (int i = 0; i < n; i++) { rs2_start(ss[i], on_frame, NULL, &e); check(e); }
	pthread_mutex_lock(&mu);
	while (!status.stopped) pthread_cond_wait(&cv, &mu);
	pthread_mutex_unlock(&mu);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	/* The cost of one call across the boundary: a frame accessor. */
	const int calls = 1000000;
	struct timespec c0, c1;
	clock_gettime(CLOCK_MONOTONIC, &c0);
	for (int i = 0; i < calls; i++) sum += (long)rs2_get_frame_number(first, &e);
	clock_gettime(CLOCK_MONOTONIC, &c1);
	check(e);
	rs2_release_frame(first);
	long long callNs = ((long long)(c1.tv_sec - c0.tv_sec) * 1000000000LL + (c1.tv_nsec - c0.tv_nsec)) / (calls / 1000);
	for (int i = 0; i < n; i++) { rs2_stop(ss[i], &e); rs2_close(ss[i], &e); rs2_delete_sensor(ss[i]); }
	rs2_delete_sensor_list(sl);
	rs2_delete_device(dev);
	rs2_delete_context(ctx);
	printf("%ld %lld %lld %ld\n", frames, (long long)(t1.tv_sec - t0.tv_sec) * 1000000000LL + (t1.tv_nsec - t0.tv_nsec), callNs, sum);
	return 0;
}
