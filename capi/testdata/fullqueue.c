/* fullqueue: plays a bag's first sensor, every profile opened, real time
   off, into a frame queue of 2 frames, and prints every frame it reads in
   order (stream and number) until none comes for FULLQUEUE_IDLE_MS
   milliseconds (default 3000): with real time off a full queue holds the
   playback until there is room, so no frame is lost however slowly the
   program reads. With a second argument N it reads N frames only, then
   stops the sensor while the playback waits for room in the full queue,
   and prints "stopped" once rs2_stop returned. */
#include "rs2test.h"

int main(int argc, char** argv) {
	rs2_error* e = NULL;
	struct bag b = open_bag(argv[1]);
	int stop_after = argc > 2 ? atoi(argv[2]) : -1;
	const char* idle = getenv("FULLQUEUE_IDLE_MS");
	unsigned idle_ms = idle ? (unsigned)atoi(idle) : 3000;
	rs2_playback_device_set_real_time(b.dev, 0, &e); check(e);
	int opened;
	rs2_stream_profile_list* pl = open_profiles(b.s, 0, &opened);
	rs2_frame_queue* q = rs2_create_frame_queue(2, &e); check(e);
	rs2_start_queue(b.s, q, &e); check(e);
	int n = 0;
	rs2_frame* f = NULL;
	while (stop_after < 0 || n < stop_after) {
		if (!rs2_try_wait_for_frame(q, idle_ms, &f, &e)) break;
		check(e);
		const rs2_stream_profile* p = rs2_get_frame_stream_profile(f, &e); check(e);
		rs2_stream s; rs2_format fmt; int idx, uid, fps;
		rs2_get_stream_profile_data(p, &s, &fmt, &idx, &uid, &fps, &e); check(e);
		printf("%s/%d %llu\n", rs2_stream_to_string(s), idx, rs2_get_frame_number(f, &e)); check(e);
		rs2_release_frame(f);
		n++;
	}
	check(e);
	if (stop_after >= 0) {
		/* The playback refills the queue and waits for room again. */
		while (rs2_frame_queue_size(q, &e) < 2) check(e);
	}
	rs2_stop(b.s, &e); check(e);
	if (stop_after >= 0) printf("stopped\n");
	else printf("%d frames\n", n);
	while (rs2_poll_for_frame(q, &f, &e)) rs2_release_frame(f);
	check(e);
	rs2_delete_frame_queue(q);
	rs2_close(b.s, &e); check(e);
	rs2_delete_stream_profiles_list(pl);
	close_bag(&b);
	return 0;
}
