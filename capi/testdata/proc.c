/* proc: runs the processing blocks on every depth frame of a bag, through
   rs2_process_frame and a frame queue, as rs-record dump --processing does
   (depth paired with color, or else infrared in Y8), and prints its depth
   lines: each output's hash and shape. With PROC_TIMES set in the
   environment it also prints, on standard error, the process's CPU
   milliseconds per depth frame spent in each block (rs2_process_frame and
   the poll of its output, every thread of the library included). */
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "rs2test.h"

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static int nops;
static rs2_frame_queue* q;
static rs2_frame *pending, *last;
static const rs2_stream_profile* paired;
static rs2_processing_block *col, *schemes[10], *pc, *singles[9], *chain[6], *pairer, *toOther, *toDepth;
static char pairedTo[32];
static rs2_frame* pairWith;

/* pair is a processing block of the program's own: it makes a frameset of
   the depth frame it gets and pairWith. */
static void pair(rs2_frame* f, rs2_source* src, void* user) {
	rs2_error* e = NULL;
	rs2_frame_add_ref(pairWith, &e); check(e);
	rs2_frame* fs[2] = {f, pairWith};
	rs2_frame* c = rs2_allocate_composite_frame(src, fs, 2, &e); check(e);
	rs2_synthetic_frame_ready(src, c, &e); check(e);
}

/* find returns a new reference to the frame of a frameset that is depth
   (or, with depth 0, is not). */
static rs2_frame* find(rs2_frame* fs, int depth) {
	rs2_error* e = NULL;
	int n = rs2_embedded_frames_count(fs, &e); check(e);
	for (int i = 0; i < n; i++) {
		rs2_frame* f = rs2_extract_frame(fs, i, &e); check(e);
		rs2_stream s; rs2_format fmt; int idx, uid, fps;
		rs2_get_stream_profile_data(rs2_get_frame_stream_profile(f, &e), &s, &fmt, &idx, &uid, &fps, &e); check(e);
		if ((s == RS2_STREAM_DEPTH) == depth) return f;
		rs2_release_frame(f);
	}
	printf("no frame\n");
	fflush(stdout);
	_exit(1);
}
static const char* singleNames[9] = {"decimation", "threshold", "disparity", "spatial", "temporal",
	"hole-filling.mode-0", "hole-filling.mode-1", "hole-filling.mode-2", "units"};

static void op(const char* name, rs2_frame* f) {
	rs2_error* e = NULL;
	int n = rs2_get_frame_data_size(f, &e); check(e);
	printf("%s\"%s\":{\"hash\":\"%016" PRIx64 "\",\"bytes\":%d", nops++ ? "," : "", name, fnv1a64(rs2_get_frame_data(f, &e), n), n);
	check(e);
	if (rs2_is_frame_extendable_to(f, RS2_EXTENSION_VIDEO_FRAME, &e)) {
		rs2_stream s; rs2_format fmt; int idx, uid, fps;
		rs2_get_stream_profile_data(rs2_get_frame_stream_profile(f, &e), &s, &fmt, &idx, &uid, &fps, &e); check(e);
		printf(",\"format\":\"%s\",\"width\":%d,\"height\":%d,\"stride\":%d", rs2_format_to_string(fmt), rs2_get_frame_width(f, &e),
			rs2_get_frame_height(f, &e), rs2_get_frame_stride_in_bytes(f, &e));
	}
	check(e);
	printf("}");
}

/* The blocks timed with PROC_TIMES, as TIMES.md of the reference outputs
   groups them. */
enum { T_ALIGN_PAIRED, T_ALIGN_DEPTH, T_POINTCLOUD, T_COLORIZE, T_SCHEMES, T_SPATIAL, T_TEMPORAL, T_HOLES, T_DECIMATION,
	T_DISPARITY, T_THRESHOLD, T_UNITS, T_CHAIN, T_COUNT, T_NONE = T_COUNT };
static const char* timeNames[T_COUNT] = {"align.to-paired", "align.to-depth", "pointcloud", "colorize", "colorize.schemes",
	"spatial", "temporal", "hole-filling", "decimation", "disparity", "threshold", "units", "chain"};
static const int singleTimes[9] = {T_DECIMATION, T_THRESHOLD, T_DISPARITY, T_SPATIAL, T_TEMPORAL, T_HOLES, T_HOLES, T_HOLES, T_UNITS};
static double cpuMs[T_COUNT + 1];
static int depthFrames;

static double cpuNow(void) {
	struct timespec ts;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* run hands f (a new reference) to block b and returns its output; its CPU
   time counts for block t. */
static rs2_frame* run(rs2_processing_block* b, rs2_frame* f, int t) {
	rs2_error* e = NULL;
	double t0 = cpuNow();
	rs2_frame_add_ref(f, &e); check(e);
	rs2_start_processing_queue(b, q, &e); check(e);
	rs2_process_frame(b, f, &e); check(e);
	rs2_frame* out = NULL;
	if (!rs2_poll_for_frame(q, &out, &e)) { printf("no output\n"); fflush(stdout); _exit(1); }
	cpuMs[t] += cpuNow() - t0;
	return out;
}

/* plyPrefix, when given (the second argument), names the PLY file each
   point cloud is exported to; a second argument --defaults instead leaves
   the point cloud's options at their defaults (defaults). */
static const char* plyPrefix;
static int defaults;

static void set(rs2_processing_block* b, rs2_option o, float v);

static void process(rs2_frame* depth, rs2_frame* other) {
	rs2_error* e = NULL;
	nops = 0;
	depthFrames++;
	printf("{\"type\":\"depth\",\"number\":%llu,\"timestamp\":%.17g,\"paired\":", rs2_get_frame_number(depth, &e), rs2_get_frame_timestamp(depth, &e));
	if (other) printf("%llu", rs2_get_frame_number(other, &e)); else printf("null");
	printf(",\"ops\":{");
	op("depth", depth);
	rs2_frame* f = run(col, depth, T_COLORIZE); op("colorize", f); rs2_release_frame(f);
	for (int k = 0; k < 10; k++) {
		char name[32]; snprintf(name, sizeof name, "colorize.scheme-%d", k);
		f = run(schemes[k], depth, T_SCHEMES); op(name, f); rs2_release_frame(f);
	}
	if (other) {
		double t0 = cpuNow();
		/* The cloud takes the other frame as its texture when its
		   stream filter options name the frame's stream, format and
		   index (as rs2::pointcloud::map_to sets them; with
		   --defaults they are left alone, and the cloud takes no
		   texture), and gives it back either way, as librealsense's. */
		if (!defaults) {
			rs2_stream s; rs2_format fmt; int idx, uid, fps;
			rs2_get_stream_profile_data(rs2_get_frame_stream_profile(other, &e), &s, &fmt, &idx, &uid, &fps, &e); check(e);
			set(pc, RS2_OPTION_STREAM_FILTER, s);
			set(pc, RS2_OPTION_STREAM_FORMAT_FILTER, fmt);
			set(pc, RS2_OPTION_STREAM_INDEX_FILTER, idx);
		}
		rs2_frame_add_ref(other, &e); check(e);
		rs2_process_frame(pc, other, &e); check(e);
		rs2_frame* back = NULL;
		if (rs2_poll_for_frame(q, &back, &e)) {
			if (back != other) { printf("texture not given back\n"); fflush(stdout); _exit(1); }
			rs2_release_frame(back);
		}
		check(e);
		cpuMs[T_POINTCLOUD] += cpuNow() - t0;
	}
	rs2_frame* pts = run(pc, depth, T_POINTCLOUD);
	if (!rs2_is_frame_extendable_to(pts, RS2_EXTENSION_POINTS, &e)) { printf("not points\n"); fflush(stdout); _exit(1); }
	int n = rs2_get_frame_points_count(pts, &e); check(e);
	printf(",\"pointcloud.vertices\":{\"hash\":\"%016" PRIx64 "\",\"bytes\":%d}", fnv1a64((const unsigned char*)rs2_get_frame_vertices(pts, &e), 12L * n), 12 * n);
	const rs2_pixel* tc = rs2_get_frame_texture_coordinates(pts, &e); check(e);
	/* as the references: the coordinates of a cloud given a texture frame only */
	if (tc && other) printf(",\"pointcloud.texcoords\":{\"hash\":\"%016" PRIx64 "\",\"bytes\":%d}", fnv1a64((const unsigned char*)tc, 8L * n), 8 * n);
	if (plyPrefix) {
		/* rs2_export_to_ply, named as rs-record convert -l names its files. */
		char name[4096];
		snprintf(name, sizeof name, "%s_%.14f.ply", plyPrefix, rs2_get_frame_timestamp(depth, &e)); check(e);
		rs2_export_to_ply(pts, name, other, &e); check(e);
	}
	rs2_release_frame(pts);
	if (other) {
		pairWith = other;
		rs2_frame* fs = run(pairer, depth, T_NONE);
		rs2_frame* a = run(toOther, fs, T_ALIGN_PAIRED);
		rs2_frame* d = find(a, 1);
		op(pairedTo, d);
		rs2_release_frame(d);
		rs2_release_frame(a);
		a = run(toDepth, fs, T_ALIGN_DEPTH);
		d = find(a, 0);
		op("align.to-depth", d);
		rs2_release_frame(d);
		rs2_release_frame(a);
		rs2_release_frame(fs);
	}
	for (int i = 0; i < 9; i++) {
		f = run(singles[i], depth, singleTimes[i]);
		op(singleNames[i], f);
		if (i == 2 && !(rs2_depth_stereo_frame_get_baseline(f, &e) > 0)) { printf("no baseline\n"); fflush(stdout); _exit(1); }
		check(e);
		rs2_release_frame(f);
	}
	rs2_frame* out = depth;
	rs2_frame_add_ref(out, &e); check(e);
	for (int i = 0; i < 6; i++) { f = run(chain[i], out, T_CHAIN); rs2_release_frame(out); out = f; }
	op("chain", out);
	rs2_release_frame(out);
	printf("}}\n");
}

static void on_frame(rs2_frame* f, void* user) {
	rs2_error* e = NULL;
	const rs2_stream_profile* p = rs2_get_frame_stream_profile(f, &e); check(e);
	rs2_stream s; rs2_format fmt; int idx, uid, fps;
	rs2_get_stream_profile_data(p, &s, &fmt, &idx, &uid, &fps, &e); check(e);
	pthread_mutex_lock(&mu);
	if (s == RS2_STREAM_DEPTH && fmt == RS2_FORMAT_Z16) {
		if (pending) { process(pending, last); rs2_release_frame(pending); }
		pending = f;
	} else if (p == paired) {
		if (last) rs2_release_frame(last);
		last = f;
		if (pending) { process(pending, f); rs2_release_frame(pending); pending = NULL; }
	} else {
		rs2_release_frame(f);
	}
	pthread_mutex_unlock(&mu);
}

static struct stop_waiter status;

static void set(rs2_processing_block* b, rs2_option o, float v) {
	rs2_error* e = NULL;
	rs2_set_option((rs2_options*)b, o, v, &e); check(e);
}

int main(int argc, char** argv) {
	rs2_error* e = NULL;
	q = rs2_create_frame_queue(4, &e); check(e);
	col = rs2_create_colorizer(&e); check(e);
	for (int k = 0; k < 10; k++) {
		schemes[k] = rs2_create_colorizer(&e); check(e);
		set(schemes[k], RS2_OPTION_COLOR_SCHEME, k);
		set(schemes[k], RS2_OPTION_HISTOGRAM_EQUALIZATION_ENABLED, 0);
		set(schemes[k], RS2_OPTION_MIN_DISTANCE, 0.3f);
		set(schemes[k], RS2_OPTION_MAX_DISTANCE, 4);
	}
	pc = rs2_create_pointcloud(&e); check(e);
	singles[0] = rs2_create_decimation_filter_block(&e);
	singles[1] = rs2_create_threshold(&e); check(e);
	set(singles[1], RS2_OPTION_MIN_DISTANCE, 0.15f);
	set(singles[1], RS2_OPTION_MAX_DISTANCE, 4);
	singles[2] = rs2_create_disparity_transform_block(1, &e);
	singles[3] = rs2_create_spatial_filter_block(&e);
	singles[4] = rs2_create_temporal_filter_block(&e);
	for (int m = 0; m < 3; m++) { singles[5 + m] = rs2_create_hole_filling_filter_block(&e); check(e); set(singles[5 + m], RS2_OPTION_HOLES_FILL, m); }
	singles[8] = rs2_create_units_transform(&e);
	chain[0] = rs2_create_decimation_filter_block(&e);
	chain[1] = rs2_create_disparity_transform_block(1, &e);
	chain[2] = rs2_create_spatial_filter_block(&e);
	chain[3] = rs2_create_temporal_filter_block(&e);
	chain[4] = rs2_create_disparity_transform_block(0, &e);
	chain[5] = rs2_create_hole_filling_filter_block(&e); check(e);
	set(chain[5], RS2_OPTION_HOLES_FILL, 1);

	rs2_context* ctx = rs2_create_context(RS2_API_VERSION, &e); check(e);
	if (argc > 2 && !strcmp(argv[2], "--defaults")) defaults = 1;
	else if (argc > 2) plyPrefix = argv[2];
	rs2_device* dev = rs2_context_add_device(ctx, argv[1], &e); check(e);
	rs2_playback_device_set_real_time(dev, 0, &e); check(e);
	watch_stop(dev, &status, &mu, &cv);
	rs2_sensor_list* sl = rs2_query_sensors(dev, &e); check(e);
	int ns = rs2_get_sensors_count(sl, &e); check(e);
	rs2_sensor* sensors[8];
	rs2_stream_profile_list* lists[8];
	int opened[8] = {0};
	const rs2_stream_profile* ir = NULL;
	for (int i = 0; i < ns; i++) {
		sensors[i] = rs2_create_sensor(sl, i, &e); check(e);
		lists[i] = rs2_get_stream_profiles(sensors[i], &e); check(e);
		int n = rs2_get_stream_profiles_count(lists[i], &e); check(e);
		const rs2_stream_profile* video[16];
		int nv = 0;
		for (int j = 0; j < n; j++) {
			const rs2_stream_profile* p = rs2_get_stream_profile(lists[i], j, &e); check(e);
			rs2_stream s; rs2_format fmt; int idx, uid, fps;
			rs2_get_stream_profile_data(p, &s, &fmt, &idx, &uid, &fps, &e); check(e);
			if (s == RS2_STREAM_COLOR && !paired) paired = p;
			if (s == RS2_STREAM_INFRARED && fmt == RS2_FORMAT_Y8 && idx <= 1 && !ir) ir = p;
			if (rs2_stream_profile_is(p, RS2_EXTENSION_VIDEO_PROFILE, &e)) video[nv++] = p;
		}
		if (nv) { rs2_open_multiple(sensors[i], video, nv, &e); check(e); opened[i] = 1; }
	}
	if (!paired) paired = ir;
	pairer = rs2_create_processing_block_fptr(pair, NULL, &e); check(e);
	toDepth = rs2_create_align(RS2_STREAM_DEPTH, &e); check(e);
	if (paired) {
		rs2_stream s; rs2_format fmt; int idx, uid, fps;
		rs2_get_stream_profile_data(paired, &s, &fmt, &idx, &uid, &fps, &e); check(e);
		toOther = rs2_create_align(s, &e); check(e);
		snprintf(pairedTo, sizeof pairedTo, "align.to-%s", s == RS2_STREAM_COLOR ? "color" : "infrared");
	}
	for (int i = 0; i < ns; i++)
		if (opened[i]) { rs2_start(sensors[i], on_frame, NULL, &e); check(e); }
	int any = 0;
	for (int i = 0; i < ns; i++) any |= opened[i];
	pthread_mutex_lock(&mu);
	while (any && !status.stopped) pthread_cond_wait(&cv, &mu);
	if (pending) { process(pending, last); rs2_release_frame(pending); }
	if (last) rs2_release_frame(last);
	pthread_mutex_unlock(&mu);
	for (int i = 0; i < ns; i++)
		if (opened[i]) { rs2_stop(sensors[i], &e); check(e); rs2_close(sensors[i], &e); check(e); }
	for (int i = 0; i < ns; i++) { rs2_delete_stream_profiles_list(lists[i]); rs2_delete_sensor(sensors[i]); }
	rs2_delete_sensor_list(sl);
	rs2_delete_device(dev);
	rs2_delete_context(ctx);
	rs2_delete_processing_block(col);
	rs2_delete_processing_block(pairer);
	rs2_delete_processing_block(toDepth);
	if (toOther) rs2_delete_processing_block(toOther);
	rs2_delete_processing_block(pc);
	for (int k = 0; k < 10; k++) rs2_delete_processing_block(schemes[k]);
	for (int i = 0; i < 9; i++) rs2_delete_processing_block(singles[i]);
	for (int i = 0; i < 6; i++) rs2_delete_processing_block(chain[i]);
	rs2_delete_frame_queue(q);
	if (getenv("PROC_TIMES") && depthFrames) {
		fprintf(stderr, "{\"frames\":%d", depthFrames);
		for (int t = 0; t < T_COUNT; t++) fprintf(stderr, ",\"%s\":%.3f", timeNames[t], cpuMs[t] / depthFrames);
		fprintf(stderr, "}\n");
	}
	return 0;
}
