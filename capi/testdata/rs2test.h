/* Helpers of the test programs: errors, the playback status callback
   object, opening a sensor's profiles. */
#ifndef RS2TEST_H
#define RS2TEST_H
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include "rs2.h"

/* fnv1a64 is the FNV-1a 64 hash of the n bytes at p. */
static inline uint64_t fnv1a64(const void* p, long n) {
	const unsigned char* b = (const unsigned char*)p;
	uint64_t h = 14695981039346656037ull;
	for (long i = 0; i < n; i++) { h ^= b[i]; h *= 1099511628211ull; }
	return h;
}

/* check prints an error as a JSON line and ends the program at once,
   from any thread (also a callback's, where exit would wait for the
   library). */
static inline void check(rs2_error* e) {
	if (e) {
		printf("{\"type\":\"error\",\"function\":\"%s\",\"message\":\"%s\"}\n", rs2_get_failed_function(e), rs2_get_error_message(e));
		fflush(stdout);
		_exit(1);
	}
}

/* print_frame prints f's stream, number, timestamp and timestamp domain
   as a JSON object, after a comma unless it is the first (i == 0). */
static inline void print_frame(rs2_frame* f, int i) {
	rs2_error* e = NULL;
	const rs2_stream_profile* p = rs2_get_frame_stream_profile(f, &e); check(e);
	rs2_stream s; rs2_format fmt; int idx, uid, fps;
	rs2_get_stream_profile_data(p, &s, &fmt, &idx, &uid, &fps, &e); check(e);
	printf("%s{\"stream\":\"%s/%d\",\"number\":%llu,\"timestamp\":%.17g,\"domain\":\"%s\"}", i ? "," : "", rs2_stream_to_string(s), idx,
		rs2_get_frame_number(f, &e), rs2_get_frame_timestamp(f, &e), rs2_timestamp_domain_to_string(rs2_get_frame_timestamp_domain(f, &e)));
	check(e);
}

/* print_frameset prints the composite frame fs as a frameset line of its
   frames (print_frame). */
static inline void print_frameset(rs2_frame* fs) {
	rs2_error* e = NULL;
	int n = rs2_embedded_frames_count(fs, &e); check(e);
	printf("{\"type\":\"frameset\",\"frames\":[");
	for (int i = 0; i < n; i++) {
		rs2_frame* f = rs2_extract_frame(fs, i, &e); check(e);
		print_frame(f, i);
		rs2_release_frame(f);
	}
	printf("]}\n");
}

/* delete_pipeline deletes a stopped pipeline's handles: its device and
   profile (of the start), config, the pipeline and its context. */
static inline void delete_pipeline(rs2_context* ctx, rs2_pipeline* pipe, rs2_config* cfg, rs2_pipeline_profile* prof, rs2_device* dev) {
	rs2_delete_device(dev);
	rs2_delete_pipeline_profile(prof);
	rs2_delete_config(cfg);
	rs2_delete_pipeline(pipe);
	rs2_delete_context(ctx);
}

/* show prints what, then the error's failed function, arguments,
   exception type and message, or "no error"; and frees the error. */
static inline void show(const char* what, rs2_error* e) {
	if (!e) {
		printf("%s: no error\n", what);
		return;
	}
	printf("%s: %s | %s | %s | %s\n", what, rs2_get_failed_function(e), rs2_get_failed_args(e),
		rs2_exception_type_to_string(rs2_get_librealsense_exception_type(e)), rs2_get_error_message(e));
	rs2_free_error(e);
}

/* device_count is the number of devices rs2_query_devices gives. */
static inline int device_count(rs2_context* ctx) {
	rs2_error* e = NULL;
	rs2_device_list* l = rs2_query_devices(ctx, &e); check(e);
	int n = rs2_get_device_count(l, &e); check(e);
	rs2_delete_device_list(l);
	return n;
}

/* stop_waiter is an rs2_playback_status_changed_callback object as a C++
   compiler lays it out under the Itanium ABI: a pointer to its virtual
   table (on_playback_status_changed, release, two destructors). At
   RS2_PLAYBACK_STATUS_STOPPED it sets stopped and signals cv under mu. */
struct stop_waiter {
	void* const* vtable;
	pthread_mutex_t* mu;
	pthread_cond_t* cv;
	int stopped, released;
};

static inline void stop_waiter_status(struct stop_waiter* w, rs2_playback_status s) {
	pthread_mutex_lock(w->mu);
	if (s == RS2_PLAYBACK_STATUS_STOPPED) {
		w->stopped = 1;
		pthread_cond_broadcast(w->cv);
	}
	pthread_mutex_unlock(w->mu);
}
static inline void stop_waiter_release(struct stop_waiter* w) { w->released = 1; }
static inline void stop_waiter_dtor(struct stop_waiter* w) { (void)w; }
static void* const stop_waiter_vtable[] = {(void*)stop_waiter_status, (void*)stop_waiter_release, (void*)stop_waiter_dtor, (void*)stop_waiter_dtor};

/* watch_stop sets w as dev's status callback. */
static inline void watch_stop(rs2_device* dev, struct stop_waiter* w, pthread_mutex_t* mu, pthread_cond_t* cv) {
	rs2_error* e = NULL;
	w->vtable = stop_waiter_vtable;
	w->mu = mu;
	w->cv = cv;
	w->stopped = w->released = 0;
	rs2_playback_device_set_status_changed_callback(dev, (rs2_playback_status_changed_callback*)w, &e);
	check(e);
}

/* open_profiles opens every profile of s (video_only: its video profiles)
   and returns their list, which the caller deletes; *opened says whether
   there was any. */
static inline rs2_stream_profile_list* open_profiles(rs2_sensor* s, int video_only, int* opened) {
	rs2_error* e = NULL;
	rs2_stream_profile_list* pl = rs2_get_stream_profiles(s, &e); check(e);
	int n = rs2_get_stream_profiles_count(pl, &e); check(e);
	const rs2_stream_profile* ps[64];
	int k = 0;
	for (int j = 0; j < n && k < 64; j++) {
		const rs2_stream_profile* p = rs2_get_stream_profile(pl, j, &e); check(e);
		if (!video_only || rs2_stream_profile_is(p, RS2_EXTENSION_VIDEO_PROFILE, &e)) ps[k++] = p;
		check(e);
	}
	if (k) { rs2_open_multiple(s, ps, k, &e); check(e); }
	*opened = k > 0;
	return pl;
}

/* sensors is every sensor of a device, each opened with all its
   profiles. */
struct sensors {
	rs2_sensor_list* sl;
	int n;
	rs2_sensor* s[8];
	rs2_stream_profile_list* pl[8];
};

static inline void open_all(rs2_device* dev, struct sensors* ss) {
	rs2_error* e = NULL;
	ss->sl = rs2_query_sensors(dev, &e); check(e);
	ss->n = rs2_get_sensors_count(ss->sl, &e); check(e);
	if (ss->n > 8) ss->n = 8;
	for (int i = 0; i < ss->n; i++) {
		int opened;
		ss->s[i] = rs2_create_sensor(ss->sl, i, &e); check(e);
		ss->pl[i] = open_profiles(ss->s[i], 0, &opened);
	}
}

static inline void start_all(struct sensors* ss, rs2_frame_callback_ptr on_frame) {
	rs2_error* e = NULL;
	for (int i = 0; i < ss->n; i++) { rs2_start(ss->s[i], on_frame, NULL, &e); check(e); }
}

/* queue_all opens every sensor of dev with all its profiles, its playback
   not in real time, and starts them into a new queue of 64 frames. */
static inline rs2_frame_queue* queue_all(rs2_device* dev, struct sensors* ss) {
	rs2_error* e = NULL;
	rs2_playback_device_set_real_time(dev, 0, &e); check(e);
	open_all(dev, ss);
	rs2_frame_queue* q = rs2_create_frame_queue(64, &e); check(e);
	for (int i = 0; i < ss->n; i++) { rs2_start_queue(ss->s[i], q, &e); check(e); }
	return q;
}

/* unqueue_all stops the sensors queue_all started and empties q. */
static inline void unqueue_all(struct sensors* ss, rs2_frame_queue* q) {
	rs2_error* e = NULL;
	for (int i = 0; i < ss->n; i++) { rs2_stop(ss->s[i], &e); check(e); }
	rs2_frame* f = NULL;
	while (rs2_poll_for_frame(q, &f, &e)) rs2_release_frame(f);
	check(e);
}

/* close_all stops, closes and deletes the sensors. */
static inline void close_all(struct sensors* ss) {
	rs2_error* e = NULL;
	for (int i = 0; i < ss->n; i++) {
		rs2_stop(ss->s[i], &e); check(e);
		rs2_close(ss->s[i], &e); check(e);
		rs2_delete_stream_profiles_list(ss->pl[i]);
		rs2_delete_sensor(ss->s[i]);
	}
	rs2_delete_sensor_list(ss->sl);
}

/* bag is a context with one bag added, its sensors and its first sensor,
   with the first sensor's profiles. */
struct bag {
	rs2_context* ctx;
	rs2_device* dev;
	rs2_sensor_list* sl;
	rs2_sensor* s;
	rs2_stream_profile_list* pl;
};

static inline struct bag open_bag(const char* path) {
	rs2_error* e = NULL;
	struct bag b;
	b.ctx = rs2_create_context(RS2_API_VERSION, &e); check(e);
	b.dev = rs2_context_add_device(b.ctx, path, &e); check(e);
	b.sl = rs2_query_sensors(b.dev, &e); check(e);
	b.s = rs2_create_sensor(b.sl, 0, &e); check(e);
	b.pl = rs2_get_stream_profiles(b.s, &e); check(e);
	return b;
}

static inline void close_bag(struct bag* b) {
	rs2_delete_stream_profiles_list(b->pl);
	rs2_delete_sensor(b->s);
	rs2_delete_sensor_list(b->sl);
	rs2_delete_device(b->dev);
	rs2_delete_context(b->ctx);
}
/* process_one hands f (a new reference) to block b and returns the
   block's output, or NULL when it gives none. */
static inline rs2_frame* process_one(rs2_processing_block* b, rs2_frame* f) {
	rs2_error* e = NULL;
	rs2_frame_queue* q = rs2_create_frame_queue(1, &e); check(e);
	rs2_start_processing_queue(b, q, &e); check(e);
	rs2_frame_add_ref(f, &e); check(e);
	rs2_process_frame(b, f, &e); check(e);
	rs2_frame* out = NULL;
	if (!rs2_poll_for_frame(q, &out, &e)) out = NULL;
	check(e);
	rs2_delete_frame_queue(q);
	return out;
}
#endif
