/* race: streams every sensor of a bag in real time with C callbacks that
   call into the library from their threads, while the main thread takes the
   frames they queue, reads them and releases them, and polls the playback. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include "rs2test.h"

static rs2_frame_queue* q;
static rs2_device* dev;
static int counts[8];

static void on_frame(rs2_frame* f, void* user) {
	rs2_error* e = NULL;
	int i = (int)(intptr_t)user;
	const rs2_stream_profile* p = rs2_get_frame_stream_profile(f, &e); check(e);
	rs2_stream s; rs2_format fmt; int idx, uid, fps;
	rs2_get_stream_profile_data(p, &s, &fmt, &idx, &uid, &fps, &e); check(e);
	for (int k = 0; k < RS2_FRAME_METADATA_COUNT; k++)
		if (rs2_supports_frame_metadata(f, (rs2_frame_metadata_value)k, &e)) rs2_get_frame_metadata(f, (rs2_frame_metadata_value)k, &e);
	check(e);
	rs2_playback_get_position(dev, &e); check(e);
	__atomic_add_fetch(&counts[i], 1, __ATOMIC_SEQ_CST);
	rs2_enqueue_frame(f, q); /* the queue takes the callback's reference */
}

int main(int argc, char** argv) {
	rs2_error* e = NULL;
	rs2_context* ctx = rs2_create_context(RS2_API_VERSION, &e); check(e);
	dev = rs2_context_add_device(ctx, argv[1], &e); check(e);
	rs2_playback_device_set_playback_speed(dev, 4, &e); check(e);
	q = rs2_create_frame_queue(64, &e); check(e);
	rs2_sensor_list* sl = rs2_query_sensors(dev, &e); check(e);
	int n = rs2_get_sensors_count(sl, &e); check(e);
	rs2_sensor* ss[8];
	rs2_stream_profile_list* pls[8];
	for (int i = 0; i < n; i++) {
		ss[i] = rs2_create_sensor(sl, i, &e); check(e);
		int opened;
		pls[i] = open_profiles(ss[i], 0, &opened);
	}
	for (int i = 0; i < n; i++) { rs2_start(ss[i], on_frame, (void*)(intptr_t)i, &e); check(e); }
	long bytes = 0;
	int got = 0;
	rs2_frame* f;
	while (rs2_try_wait_for_frame(q, 1000, &f, &e)) {
		check(e);
		const unsigned char* d = rs2_get_frame_data(f, &e);
		int size = rs2_get_frame_data_size(f, &e); check(e);
		for (int k = 0; k < size; k += 64) bytes += d[k];
		rs2_playback_device_get_current_status(dev, &e); check(e);
		rs2_release_frame(f);
		got++;
	}
	check(e);
	for (int i = 0; i < n; i++) { rs2_stop(ss[i], &e); check(e); rs2_close(ss[i], &e); check(e); }
	int delivered = 0;
	for (int i = 0; i < n; i++) { delivered += counts[i]; printf("sensor %d: %d frames\n", i, counts[i]); }
	printf("taken %d of %d (%d)\n", got, delivered, bytes > 0);
	for (int i = 0; i < n; i++) { rs2_delete_stream_profiles_list(pls[i]); rs2_delete_sensor(ss[i]); }
	rs2_delete_sensor_list(sl);
	rs2_delete_frame_queue(q);
	rs2_delete_device(dev);
	rs2_delete_context(ctx);
	return 0;
}
