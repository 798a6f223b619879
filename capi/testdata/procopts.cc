// procopts: the options of every processing block (rs2_get_options_list:
// name, range, value, description, the names of its values) and what the
// stream filter options do: each block, with its defaults and with each
// filter set, given the first depth and the first color frame of a bag,
// passes the frame through ("pass") or makes a frame of it, and the
// filter extensions each block has (rs2_is_processing_block_extendable_to).
// Compiled by g++ (the rotation filter takes a C++ argument). Then each
// block on the frameset of those two frames: what comes out. With the
// arguments "recommended BAG": each sensor's recommended blocks of the bag,
// with their filter extensions.
#include <cstdio>
#include <cstring>
#include <vector>
#include "rs2test.h"

struct rs2_streams_list {
	std::vector<rs2_stream> list;
};
extern "C" rs2_processing_block* rs2_create_rotation_filter_block(rs2_streams_list streams_to_rotate, rs2_error** error);

static void nothing(rs2_frame* f, rs2_source*, void*) { rs2_release_frame(f); }

static rs2_processing_block* create(int k) {
	rs2_error* e = nullptr;
	rs2_processing_block* b = nullptr;
	switch (k) {
	case 0: b = rs2_create_colorizer(&e); break;
	case 1: b = rs2_create_pointcloud(&e); break;
	case 2: b = rs2_create_align(RS2_STREAM_COLOR, &e); break;
	case 3: b = rs2_create_align(RS2_STREAM_DEPTH, &e); break;
	case 4: b = rs2_create_decimation_filter_block(&e); break;
	case 5: b = rs2_create_threshold(&e); break;
	case 6: b = rs2_create_disparity_transform_block(1, &e); break;
	case 7: b = rs2_create_disparity_transform_block(0, &e); break;
	case 8: b = rs2_create_spatial_filter_block(&e); break;
	case 9: b = rs2_create_temporal_filter_block(&e); break;
	case 10: b = rs2_create_hole_filling_filter_block(&e); break;
	case 11: b = rs2_create_units_transform(&e); break;
	case 12: {
		rs2_streams_list depth;
		depth.list = {RS2_STREAM_DEPTH};
		b = rs2_create_rotation_filter_block(depth, &e);
		break;
	}
	case 13: b = rs2_create_sync_processing_block(&e); break;
	case 14: b = rs2_create_processing_block_fptr(nothing, nullptr, &e); break;
	}
	check(e);
	return b;
}
static const int nblocks = 15;

/* print_extensions prints the filter extensions b has, a line each. */
static void print_extensions(rs2_processing_block* b) {
	rs2_error* e = nullptr;
	static const rs2_extension exts[] = {RS2_EXTENSION_DECIMATION_FILTER, RS2_EXTENSION_THRESHOLD_FILTER, RS2_EXTENSION_DISPARITY_FILTER,
		RS2_EXTENSION_SPATIAL_FILTER, RS2_EXTENSION_TEMPORAL_FILTER, RS2_EXTENSION_HOLE_FILLING_FILTER, RS2_EXTENSION_ROTATION_FILTER,
		RS2_EXTENSION_HDR_MERGE, RS2_EXTENSION_SEQUENCE_ID_FILTER, RS2_EXTENSION_VIDEO_FRAME};
	for (rs2_extension x : exts) {
		if (rs2_is_processing_block_extendable_to(b, x, &e)) printf("  is %s\n", rs2_extension_type_to_string(x));
		check(e);
	}
}

/* list prints the options of block k; the ends of each range are taken,
   one step beyond is not (on a second instance, the values printed first). */
static void list(int k) {
	rs2_error* e = nullptr;
	rs2_processing_block* b = create(k);
	rs2_options* o = (rs2_options*)b;
	printf("block %s\n", rs2_supports_processing_block_info(b, RS2_CAMERA_INFO_NAME, &e) ? rs2_get_processing_block_info(b, RS2_CAMERA_INFO_NAME, &e) : "-");
	check(e);
	print_extensions(b);
	rs2_options_list* l = rs2_get_options_list(o, &e); check(e);
	int n = rs2_get_options_list_size(l, &e); check(e);
	for (int i = 0; i < n; i++) {
		rs2_option opt = rs2_get_option_from_list(l, i, &e); check(e);
		float min, max, step, def;
		rs2_get_option_range(o, opt, &min, &max, &step, &def, &e); check(e);
		float v = rs2_get_option(o, opt, &e); check(e);
		printf("  option %d %s supported %d read-only %d range %g %g %g %g value %g\n", (int)opt, rs2_get_option_name(o, opt, &e),
			rs2_supports_option(o, opt, &e), rs2_is_option_read_only(o, opt, &e), min, max, step, def, v);
		check(e);
		printf("    description %s\n", rs2_get_option_description(o, opt, &e)); check(e);
		for (float x = min; x <= max && step > 0; x += step) {
			const char* d = rs2_get_option_value_description(o, opt, x, &e); check(e);
			if (d) printf("    value %g %s\n", x, d);
		}
	}
	printf("  supports %d: %d\n", (int)RS2_OPTION_STREAM_FILTER, rs2_supports_option(o, RS2_OPTION_STREAM_FILTER, &e)); check(e);
	printf("  supports %d: %d\n", (int)RS2_OPTION_FRAMES_QUEUE_SIZE, rs2_supports_option(o, RS2_OPTION_FRAMES_QUEUE_SIZE, &e)); check(e);
	rs2_delete_processing_block(b);
	b = create(k);
	o = (rs2_options*)b;
	for (int i = 0; i < n; i++) {
		rs2_option opt = rs2_get_option_from_list(l, i, &e); check(e);
		float min, max, step, def;
		rs2_get_option_range(o, opt, &min, &max, &step, &def, &e); check(e);
		rs2_set_option(o, opt, max, &e); check(e);
		rs2_set_option(o, opt, min, &e); check(e);
		rs2_set_option(o, opt, max + step, &e);
		printf("  set %s above max: %s", rs2_get_option_name(o, opt, &e), e ? "refused" : "taken");
		if (e) { rs2_free_error(e); e = nullptr; }
		rs2_set_option(o, opt, min - step, &e);
		printf(", below min: %s\n", e ? "refused" : "taken");
		if (e) { rs2_free_error(e); e = nullptr; }
	}
	rs2_delete_options_list(l);
	rs2_delete_processing_block(b);
}

static void describe(rs2_frame* out, rs2_frame* in);

/* what processing f with b gives. */
static void effect(rs2_processing_block* b, rs2_frame* f) {
	rs2_frame* out = process_one(b, f);
	if (!out) printf(" none");
	else describe(out, f);
	if (out) rs2_release_frame(out);
}

/* describe prints what a frame is: "pass" when it is in itself,
   "points", a composite's frames in brackets, or stream/format/index/size. */
static void describe(rs2_frame* out, rs2_frame* in) {
	rs2_error* e = nullptr;
	if (out == in) {
		printf(" pass");
	} else if (rs2_is_frame_extendable_to(out, RS2_EXTENSION_POINTS, &e)) {
		printf(" points");
		rs2_frame* pts = out;
		const rs2_pixel* tc = rs2_get_frame_texture_coordinates(pts, &e); check(e);
		int n = rs2_get_frame_points_count(pts, &e); check(e);
		int nonzero = 0;
		for (int i = 0; tc && i < n; i++) nonzero += tc[i].ij[0] != 0 || tc[i].ij[1] != 0;
		printf("(mapped %d)", nonzero > 0);
	} else if (rs2_is_frame_extendable_to(out, RS2_EXTENSION_COMPOSITE_FRAME, &e)) {
		int n = rs2_embedded_frames_count(out, &e); check(e);
		printf(" [");
		for (int i = 0; i < n; i++) {
			rs2_frame* f = rs2_extract_frame(out, i, &e); check(e);
			describe(f, nullptr);
			rs2_release_frame(f);
		}
		printf(" ]");
	} else {
		rs2_stream s; rs2_format fmt; int idx, uid, fps;
		rs2_get_stream_profile_data(rs2_get_frame_stream_profile(out, &e), &s, &fmt, &idx, &uid, &fps, &e); check(e);
		printf(" %s/%s/%d/%dx%d", rs2_stream_to_string(s), rs2_format_to_string(fmt), idx, rs2_get_frame_width(out, &e), rs2_get_frame_height(out, &e));
	}
	check(e);
}

/* pairWith is the frame the pair block adds to the frame it gets. */
static rs2_frame* pairWith;

static void pair(rs2_frame* f, rs2_source* src, void*) {
	rs2_error* e = nullptr;
	rs2_frame_add_ref(pairWith, &e); check(e);
	rs2_frame* fs[2] = {f, pairWith};
	rs2_frame* c = rs2_allocate_composite_frame(src, fs, 2, &e); check(e);
	rs2_synthetic_frame_ready(src, c, &e); check(e);
}

struct setting {
	const char* name;
	float stream, format, index; /* -2: left alone */
};
static const setting settings[] = {
	{"defaults", -2, -2, -2},
	{"stream-color", RS2_STREAM_COLOR, -2, -2},
	{"stream-infrared", RS2_STREAM_INFRARED, -2, -2},
	{"stream-any", RS2_STREAM_ANY, -2, -2},
	{"format-any", -2, RS2_FORMAT_ANY, -2},
	{"any-any", RS2_STREAM_ANY, RS2_FORMAT_ANY, -2},
	{"format-rgb8", -2, RS2_FORMAT_RGB8, -2},
	{"format-disparity32", -2, RS2_FORMAT_DISPARITY32, -2},
	{"index-1", -2, -2, 1},
	{"index-0", -2, -2, 0},
	{"color-rgb8-0", RS2_STREAM_COLOR, RS2_FORMAT_RGB8, 0},
};

int main(int argc, char** argv) {
	rs2_error* e = nullptr;
	if (argc == 3 && !strcmp(argv[1], "recommended")) {
		/* each sensor's recommended blocks of the bag argv[2]: name and
		   filter extensions */
		struct bag bg = open_bag(argv[2]);
		rs2_sensor_list* sl = rs2_query_sensors(bg.dev, &e); check(e);
		int n = rs2_get_sensors_count(sl, &e); check(e);
		for (int i = 0; i < n; i++) {
			rs2_sensor* s = rs2_create_sensor(sl, i, &e); check(e);
			rs2_processing_block_list* bl = rs2_get_recommended_processing_blocks(s, &e); check(e);
			int nb = rs2_get_recommended_processing_blocks_count(bl, &e); check(e);
			for (int j = 0; j < nb; j++) {
				rs2_processing_block* b = rs2_get_processing_block(bl, j, &e); check(e);
				printf("sensor %d block %s\n", i, rs2_get_processing_block_info(b, RS2_CAMERA_INFO_NAME, &e)); check(e);
				print_extensions(b);
				rs2_delete_processing_block(b);
			}
			rs2_delete_recommended_processing_blocks(bl);
			rs2_delete_sensor(s);
		}
		rs2_delete_sensor_list(sl);
		return 0;
	}
	for (int k = 0; k < nblocks; k++) {
		list(k);
	}
	if (argc < 2) return 0;

	struct bag bg = open_bag(argv[1]);
	struct sensors ss;
	rs2_frame_queue* q = queue_all(bg.dev, &ss);
	rs2_frame *depth = nullptr, *color = nullptr;
	while (!depth || !color) {
		rs2_frame* f = rs2_wait_for_frame(q, 10000, &e); check(e);
		rs2_stream s; rs2_format fmt; int idx, uid, fps;
		rs2_get_stream_profile_data(rs2_get_frame_stream_profile(f, &e), &s, &fmt, &idx, &uid, &fps, &e); check(e);
		if (!depth && s == RS2_STREAM_DEPTH && fmt == RS2_FORMAT_Z16) depth = f;
		else if (!color && s == RS2_STREAM_COLOR && fmt == RS2_FORMAT_RGB8) color = f;
		else rs2_release_frame(f);
	}
	unqueue_all(&ss, q);
	for (int k = 0; k < nblocks; k++) {
		if (k == 2 || k == 3 || k >= 13) continue; /* align and syncer take framesets; no filters on a custom block */
		for (const setting& st : settings) {
			rs2_processing_block* b = create(k);
			rs2_options* o = (rs2_options*)b;
			if (k == 12) { rs2_set_option(o, RS2_OPTION_ROTATION, 90, &e); check(e); }
			bool ok = true;
			const float vals[3] = {st.stream, st.format, st.index};
			const rs2_option opts[3] = {RS2_OPTION_STREAM_FILTER, RS2_OPTION_STREAM_FORMAT_FILTER, RS2_OPTION_STREAM_INDEX_FILTER};
			for (int i = 0; i < 3; i++) {
				if (vals[i] == -2) continue;
				if (!rs2_supports_option(o, opts[i], &e)) ok = false;
				check(e);
				if (ok) { rs2_set_option(o, opts[i], vals[i], &e); check(e); }
			}
			/* librealsense's spatial, temporal and hole filling filters
			   told to take a color frame filter its bytes as if they
			   were depth and label the result depth: not copied. */
			if (k >= 8 && k <= 10 && (!strcmp(st.name, "any-any") || !strcmp(st.name, "color-rgb8-0"))) ok = false;
			if (!ok) { rs2_delete_processing_block(b); continue; }
			printf("effect %s %s: depth", rs2_get_processing_block_info(b, RS2_CAMERA_INFO_NAME, &e), st.name); check(e);
			effect(b, depth);
			printf(", color");
			effect(b, color);
			printf("\n");
			rs2_delete_processing_block(b);
		}
	}
	/* each block on the frameset {depth, color} (made by a custom block),
	   each setting but the ones the depth filters are not made for */
	rs2_processing_block* pairer = rs2_create_processing_block_fptr(pair, nullptr, &e); check(e);
	rs2_frame_queue* pq = rs2_create_frame_queue(1, &e); check(e);
	rs2_start_processing_queue(pairer, pq, &e); check(e);
	pairWith = color;
	rs2_frame_add_ref(depth, &e); check(e);
	rs2_process_frame(pairer, depth, &e); check(e);
	rs2_frame* set = rs2_wait_for_frame(pq, 1000, &e); check(e);
	/* Not compared: the rotation filter, and the threshold told to take
	   color frames, which librealsense counts as having processed a
	   frame they give back unchanged (the set comes out as a new
	   frameset of the same frames, the threshold's reordered). */
	for (int k = 0; k < 12; k++) {
		for (const setting& st : settings) {
			if (k >= 8 && k <= 10 && (!strcmp(st.name, "any-any") || !strcmp(st.name, "color-rgb8-0"))) continue;
			if (k == 5 && !strcmp(st.name, "color-rgb8-0")) continue;
			rs2_processing_block* b = create(k);
			rs2_options* o = (rs2_options*)b;
			bool ok = true;
			const float vals[3] = {st.stream, st.format, st.index};
			const rs2_option opts[3] = {RS2_OPTION_STREAM_FILTER, RS2_OPTION_STREAM_FORMAT_FILTER, RS2_OPTION_STREAM_INDEX_FILTER};
			for (int i = 0; i < 3 && ok; i++) {
				if (vals[i] == -2) continue;
				ok = rs2_supports_option(o, opts[i], &e); check(e);
				if (ok) { rs2_set_option(o, opts[i], vals[i], &e); check(e); }
			}
			if (ok) {
				printf("frameset %s %s:", rs2_get_processing_block_info(b, RS2_CAMERA_INFO_NAME, &e), st.name); check(e);
				effect(b, set);
				printf("\n");
			}
			rs2_delete_processing_block(b);
		}
	}
	rs2_release_frame(set);
	rs2_delete_frame_queue(pq);
	rs2_delete_processing_block(pairer);
	rs2_release_frame(depth);
	rs2_release_frame(color);
	rs2_delete_frame_queue(q);
	close_all(&ss);
	close_bag(&bg);
	return 0;
}
