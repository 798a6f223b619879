/* cloudkeep: a point cloud handed to a block of the program's own, which
   keeps it in a composite frame, stays as it was after the program
   releases its own reference and the point cloud block computes the next
   cloud. Prints the hashes of the first cloud, of the second, and of the
   first as the composite holds it, then "reused" when a third cloud,
   computed once the second is released, is made in the second's memory
   ("new" otherwise). With a second argument "units" or "colorizer", the
   same of the outputs of a units transform or a colorizer, whose memory
   the library reuses too. */
#include <inttypes.h>
#include <string.h>
#include "rs2test.h"

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static rs2_frame* depth[2];
static int ndepth;

static void on_frame(rs2_frame* f, void* user) {
	rs2_error* e = NULL;
	(void)user;
	rs2_stream s; rs2_format fmt; int idx, uid, fps;
	rs2_get_stream_profile_data(rs2_get_frame_stream_profile(f, &e), &s, &fmt, &idx, &uid, &fps, &e); check(e);
	pthread_mutex_lock(&mu);
	if (s == RS2_STREAM_DEPTH && fmt == RS2_FORMAT_Z16 && ndepth < 2) {
		depth[ndepth++] = f;
		pthread_cond_broadcast(&cv);
	} else {
		rs2_release_frame(f);
	}
	pthread_mutex_unlock(&mu);
}

/* keep makes a composite of the frame it gets. */
static void keep(rs2_frame* f, rs2_source* src, void* user) {
	rs2_error* e = NULL;
	(void)user;
	rs2_frame* c = rs2_allocate_composite_frame(src, &f, 1, &e); check(e);
	rs2_synthetic_frame_ready(src, c, &e); check(e);
}

static rs2_frame* run(rs2_processing_block* b, rs2_frame_queue* q, rs2_frame* f) {
	rs2_error* e = NULL;
	rs2_frame_add_ref(f, &e); check(e);
	rs2_start_processing_queue(b, q, &e); check(e);
	rs2_process_frame(b, f, &e); check(e);
	rs2_frame* out = NULL;
	if (!rs2_poll_for_frame(q, &out, &e)) { printf("no output\n"); fflush(stdout); _exit(1); }
	return out;
}

static uint64_t hash(rs2_frame* f) {
	rs2_error* e = NULL;
	int n = rs2_get_frame_data_size(f, &e); check(e);
	uint64_t h = fnv1a64(rs2_get_frame_data(f, &e), n); check(e);
	return h;
}

int main(int argc, char** argv) {
	rs2_error* e = NULL;
	if (argc < 2) return 2;
	rs2_context* ctx = rs2_create_context(RS2_API_VERSION, &e); check(e);
	rs2_device* dev = rs2_context_add_device(ctx, argv[1], &e); check(e);
	rs2_playback_device_set_real_time(dev, 0, &e); check(e);
	rs2_sensor_list* sl = rs2_query_sensors(dev, &e); check(e);
	int ns = rs2_get_sensors_count(sl, &e); check(e);
	rs2_sensor* sensors[8];
	rs2_stream_profile_list* lists[8];
	int opened[8];
	for (int i = 0; i < ns && i < 8; i++) {
		sensors[i] = rs2_create_sensor(sl, i, &e); check(e);
		lists[i] = open_profiles(sensors[i], 1, &opened[i]);
		if (opened[i]) { rs2_start(sensors[i], on_frame, NULL, &e); check(e); }
	}
	pthread_mutex_lock(&mu);
	while (ndepth < 2) pthread_cond_wait(&cv, &mu);
	pthread_mutex_unlock(&mu);

	rs2_frame_queue* q = rs2_create_frame_queue(4, &e); check(e);
	const char* block = argc > 2 ? argv[2] : "pointcloud";
	rs2_processing_block* pc = !strcmp(block, "units") ? rs2_create_units_transform(&e)
		: !strcmp(block, "colorizer") ? rs2_create_colorizer(&e) : rs2_create_pointcloud(&e);
	check(e);
	if (!strcmp(block, "colorizer")) {
		/* colors by distance, which tell the frames apart */
		rs2_set_option((rs2_options*)pc, RS2_OPTION_HISTOGRAM_EQUALIZATION_ENABLED, 0, &e); check(e);
	}
	rs2_processing_block* keeper = rs2_create_processing_block_fptr(keep, NULL, &e); check(e);
	rs2_frame* first = run(pc, q, depth[0]);
	uint64_t h1 = hash(first);
	rs2_frame* kept = run(keeper, q, first);
	rs2_release_frame(first);
	rs2_frame* second = run(pc, q, depth[1]);
	uint64_t h2 = hash(second);
	const void* mem2 = rs2_get_frame_data(second, &e); check(e);
	rs2_release_frame(second);
	rs2_frame* third = run(pc, q, depth[1]);
	const void* mem3 = rs2_get_frame_data(third, &e); check(e);
	rs2_release_frame(third);
	rs2_frame* inner = rs2_extract_frame(kept, 0, &e); check(e);
	printf("%016" PRIx64 " %016" PRIx64 " %016" PRIx64 " %s\n", h1, h2, hash(inner), mem3 == mem2 ? "reused" : "new");
	rs2_release_frame(inner);
	rs2_release_frame(kept);

	for (int i = 0; i < 2; i++) rs2_release_frame(depth[i]);
	for (int i = 0; i < ns && i < 8; i++) {
		if (opened[i]) { rs2_stop(sensors[i], &e); check(e); rs2_close(sensors[i], &e); check(e); }
		rs2_delete_stream_profiles_list(lists[i]);
		rs2_delete_sensor(sensors[i]);
	}
	rs2_delete_processing_block(pc);
	rs2_delete_processing_block(keeper);
	rs2_delete_frame_queue(q);
	rs2_delete_sensor_list(sl);
	rs2_delete_device(dev);
	rs2_delete_context(ctx);
	return 0;
}
