/* sync: hands every frame of a bag (real time off, every sensor opened
   with all its profiles and started with a C callback) to one
   rs2_create_sync_processing_block block, as rs2::syncer does, and drains
   its queue after each; prints the framesets as rs-record dump --sync. */
#include <stdio.h>
#include "rs2test.h"

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static rs2_processing_block* syncer;
static rs2_frame_queue* q;
static int frames;

static void name(rs2_frame* f, char* b, int n) {
	rs2_error* e = NULL;
	rs2_stream s; rs2_format fmt; int idx, uid, fps;
	rs2_get_stream_profile_data(rs2_get_frame_stream_profile(f, &e), &s, &fmt, &idx, &uid, &fps, &e); check(e);
	snprintf(b, n, "%s/%d", rs2_stream_to_string(s), idx);
}

static void drain(rs2_frame* after) {
	rs2_error* e = NULL;
	rs2_frame* fs;
	char nm[64];
	while (rs2_poll_for_frame(q, &fs, &e)) {
		if (after) { name(after, nm, sizeof nm); printf("{\"type\":\"frameset\",\"after\":{\"stream\":\"%s\",\"number\":%llu},\"frames\":[", nm, rs2_get_frame_number(after, &e)); }
		else printf("{\"type\":\"frameset\",\"after\":\"flush\",\"frames\":[");
		int n = rs2_embedded_frames_count(fs, &e); check(e);
		for (int i = 0; i < n; i++) {
			rs2_frame* f = rs2_extract_frame(fs, i, &e); check(e);
			name(f, nm, sizeof nm);
			printf("%s{\"stream\":\"%s\",\"number\":%llu,\"timestamp\":%.17g,\"domain\":\"%s\"}", i ? "," : "", nm, rs2_get_frame_number(f, &e),
				rs2_get_frame_timestamp(f, &e), rs2_timestamp_domain_to_string(rs2_get_frame_timestamp_domain(f, &e)));
			check(e);
			rs2_release_frame(f);
		}
		printf("]}\n");
		rs2_release_frame(fs);
	}
	check(e);
}

static void on_frame(rs2_frame* f, void* user) {
	(void)user;
	rs2_error* e = NULL;
	pthread_mutex_lock(&mu);
	frames++;
	rs2_frame_add_ref(f, &e); check(e);
	rs2_process_frame(syncer, f, &e); check(e);
	drain(f);
	pthread_mutex_unlock(&mu);
	rs2_release_frame(f);
}

int main(int argc, char** argv) {
	(void)argc;
	rs2_error* e = NULL;
	syncer = rs2_create_sync_processing_block(&e); check(e);
	q = rs2_create_frame_queue(1000, &e); check(e);
	rs2_start_processing_queue(syncer, q, &e); check(e);
	rs2_context* ctx = rs2_create_context(RS2_API_VERSION, &e); check(e);
	rs2_device* dev = rs2_context_add_device(ctx, argv[1], &e); check(e);
	rs2_playback_device_set_real_time(dev, 0, &e); check(e);
	struct stop_waiter status;
	watch_stop(dev, &status, &mu, &cv);
	struct sensors ss;
	open_all(dev, &ss);
	/* The callbacks wait for mu until every sensor is started. */
	pthread_mutex_lock(&mu);
	start_all(&ss, on_frame);
	while (!status.stopped) pthread_cond_wait(&cv, &mu);
	pthread_mutex_unlock(&mu);
	close_all(&ss);
	drain(NULL);
	printf("{\"type\":\"summary\",\"frames\":%d}\n", frames);
	rs2_delete_device(dev);
	rs2_delete_context(ctx);
	rs2_delete_processing_block(syncer);
	rs2_delete_frame_queue(q);
	return 0;
}
