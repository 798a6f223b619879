// rotate: rs2_create_rotation_filter_block called as librealsense's
// rs_processing.hpp calls it, with rs2_streams_list (rs_types.hpp's C++
// struct) by value: rotates the first depth frame of a bag by 90 degrees
// and writes its pixels to argv[2]; a block with an empty list passes the
// frame through. Compiled by g++.
#include <cstdio>
#include <vector>
#include "rs2test.h"

struct rs2_streams_list {
	std::vector<rs2_stream> list;
};
extern "C" rs2_processing_block* rs2_create_rotation_filter_block(rs2_streams_list streams_to_rotate, rs2_error** error);

static rs2_frame* process(rs2_processing_block* b, rs2_frame* f) {
	rs2_frame* out = process_one(b, f);
	if (!out) printf("no output\n");
	return out;
}

int main(int argc, char** argv) {
	rs2_error* e = nullptr;
	struct bag b = open_bag(argv[1]);
	rs2_playback_device_set_real_time(b.dev, 0, &e); check(e);
	rs2_sensor* s = b.s;
	const rs2_stream_profile* p = rs2_get_stream_profile(b.pl, 0, &e); check(e);
	rs2_open(s, p, &e); check(e);
	rs2_frame_queue* q = rs2_create_frame_queue(1, &e); check(e);
	rs2_start_queue(s, q, &e); check(e);
	rs2_frame* f = rs2_wait_for_frame(q, 10000, &e); check(e);
	rs2_stop(s, &e); check(e);
	printf("frame %llu %dx%d\n", rs2_get_frame_number(f, &e), rs2_get_frame_width(f, &e), rs2_get_frame_height(f, &e)); check(e);

	rs2_streams_list depth;
	depth.list = {RS2_STREAM_DEPTH};
	rs2_processing_block* rot = rs2_create_rotation_filter_block(depth, &e); check(e);
	printf("is rotation %d\n", rs2_is_processing_block_extendable_to(rot, RS2_EXTENSION_ROTATION_FILTER, &e)); check(e);
	rs2_set_option((rs2_options*)rot, RS2_OPTION_ROTATION, 90, &e); check(e);
	rs2_frame* r = process(rot, f);
	if (!r) return 1;
	printf("rotated %dx%d\n", rs2_get_frame_width(r, &e), rs2_get_frame_height(r, &e)); check(e);
	FILE* out = fopen(argv[2], "wb");
	fwrite(rs2_get_frame_data(r, &e), 1, rs2_get_frame_data_size(r, &e), out); check(e);
	fclose(out);
	rs2_release_frame(r);

	rs2_processing_block* none = rs2_create_rotation_filter_block(rs2_streams_list{}, &e); check(e);
	rs2_set_option((rs2_options*)none, RS2_OPTION_ROTATION, 90, &e); check(e);
	r = process(none, f);
	if (!r) return 1;
	printf("empty list %dx%d same %d\n", rs2_get_frame_width(r, &e), rs2_get_frame_height(r, &e),
		rs2_get_frame_data(r, &e) == rs2_get_frame_data(f, &e)); check(e);
	rs2_release_frame(r);

	rs2_release_frame(f);
	rs2_delete_processing_block(rot);
	rs2_delete_processing_block(none);
	rs2_delete_frame_queue(q);
	rs2_close(s, &e); check(e);
	close_bag(&b);
	return 0;
}
