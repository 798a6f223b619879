/* restart: starts a bag's first sensor, then starts it again with
   another C callback, a frame queue and a C++ callback object: as
   librealsense's playback sensor, the second starts are no error and
   change nothing (the C++ object is released at once), and every frame
   goes to the first callback. Once the playback stopped at the end of
   the file, a start plays the bag again (librealsense plays it to no
   callback: "second 0" on its last line, see TestStartStarted). */
#include <stdio.h>
#include "rs2test.h"

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static int first, second, cpp, released;

static void on_first(rs2_frame* f, void* user) {
	(void)user;
	pthread_mutex_lock(&mu);
	first++;
	pthread_mutex_unlock(&mu);
	rs2_release_frame(f);
}

static void on_second(rs2_frame* f, void* user) {
	(void)user;
	pthread_mutex_lock(&mu);
	second++;
	pthread_mutex_unlock(&mu);
	rs2_release_frame(f);
}

/* counter is an rs2_frame_callback object as a C++ compiler lays it out
   under the Itanium ABI (see rs2test.h's stop_waiter). */
struct counter { void* const* vtable; };
static void counter_on_frame(struct counter* c, rs2_frame* f) {
	(void)c;
	pthread_mutex_lock(&mu);
	cpp++;
	pthread_mutex_unlock(&mu);
	rs2_release_frame(f);
}
static void counter_release(struct counter* c) { (void)c; released++; }
static void counter_dtor(struct counter* c) { (void)c; }
static void* const counter_vtable[] = {(void*)counter_on_frame, (void*)counter_release, (void*)counter_dtor, (void*)counter_dtor};

static void said(const char* what, rs2_error* e) {
	if (e) {
		printf("%s: %s | %s\n", what, rs2_get_failed_function(e), rs2_get_error_message(e));
		rs2_free_error(e);
	} else {
		printf("%s: no error\n", what);
	}
}

int main(int argc, char** argv) {
	(void)argc;
	rs2_error* e = NULL;
	struct bag b = open_bag(argv[1]);
	rs2_playback_device_set_real_time(b.dev, 0, &e); check(e);
	struct stop_waiter status;
	watch_stop(b.dev, &status, &mu, &cv);
	int opened;
	rs2_stream_profile_list* pl = open_profiles(b.s, 0, &opened);
	rs2_frame_queue* q = rs2_create_frame_queue(64, &e); check(e);
	/* The callbacks wait for mu: no frame is counted before the second
	   starts are done. */
	pthread_mutex_lock(&mu);
	rs2_start(b.s, on_first, NULL, &e); check(e);
	rs2_start(b.s, on_second, NULL, &e); said("second start", e); e = NULL;
	rs2_start_queue(b.s, q, &e); said("start queue", e); e = NULL;
	struct counter c = {counter_vtable};
	rs2_start_cpp(b.s, (rs2_frame_callback*)&c, &e); said("start cpp", e); e = NULL;
	printf("released at once %d\n", released);
	while (!status.stopped) pthread_cond_wait(&cv, &mu);
	printf("first %d second %d cpp %d\n", first, second, cpp);
	/* At the end of the file the playback stopped the sensor: a start
	   plays the bag again, to the new callback. */
	status.stopped = 0;
	rs2_start(b.s, on_second, NULL, &e); said("start after the end", e); e = NULL;
	while (!status.stopped) pthread_cond_wait(&cv, &mu);
	pthread_mutex_unlock(&mu);
	rs2_stop(b.s, &e); check(e);
	rs2_close(b.s, &e); check(e);
	printf("first %d second %d queued %d cpp %d released %d\n", first, second, rs2_frame_queue_size(q, &e), cpp, released);
	check(e);
	rs2_delete_frame_queue(q);
	rs2_delete_stream_profiles_list(pl);
	close_bag(&b);
	return 0;
}
