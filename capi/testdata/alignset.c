/* alignset: the align blocks on framesets of more than two frames, and
   what a block gives while the program holds many of its outputs.
   Takes the first depth, color and infrared 1 and 2 frames of a bag, makes
   framesets of them in several orders (with a custom block) and prints
   what align to depth, to color and to infrared make of each: every
   frame of the output, its stream, format, index, size and the FNV-1a 64
   hash of its bytes. Then, for Frames Queue Size values, hands the depth
   frame to a block again and again, holding every output, and prints
   which calls gave an output, and the same with every output kept
   (rs2_keep_frame). */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include "rs2test.h"

static uint64_t fnv(const unsigned char* p, long n) {
	uint64_t h = 14695981039346656037ull;
	for (long i = 0; i < n; i++) { h ^= p[i]; h *= 1099511628211ull; }
	return h;
}

/* describe prints a frame, or the frames of a frameset in brackets. */
static void describe(rs2_frame* f) {
	rs2_error* e = NULL;
	if (rs2_is_frame_extendable_to(f, RS2_EXTENSION_COMPOSITE_FRAME, &e)) {
		int n = rs2_embedded_frames_count(f, &e); check(e);
		printf(" [");
		for (int i = 0; i < n; i++) {
			rs2_frame* g = rs2_extract_frame(f, i, &e); check(e);
			describe(g);
			rs2_release_frame(g);
		}
		printf(" ]");
		return;
	}
	check(e);
	rs2_stream s; rs2_format fmt; int idx, uid, fps;
	rs2_get_stream_profile_data(rs2_get_frame_stream_profile(f, &e), &s, &fmt, &idx, &uid, &fps, &e); check(e);
	int n = rs2_get_frame_data_size(f, &e); check(e);
	printf(" %s/%s/%d/%dx%d/%016" PRIx64, rs2_stream_to_string(s), rs2_format_to_string(fmt), idx, rs2_get_frame_width(f, &e),
		rs2_get_frame_height(f, &e), fnv(rs2_get_frame_data(f, &e), n));
	check(e);
}

/* set and nset: the frames the join block makes a frameset of. */
static rs2_frame* set[4];
static int nset;

/* join is a processing block of the program's own: whatever it gets, it
   gives the frameset of set[0..nset). */
static void join(rs2_frame* f, rs2_source* src, void* user) {
	rs2_error* e = NULL;
	(void)user;
	rs2_release_frame(f);
	rs2_frame* fs[4];
	for (int i = 0; i < nset; i++) {
		rs2_frame_add_ref(set[i], &e); check(e);
		fs[i] = set[i];
	}
	rs2_frame* c = rs2_allocate_composite_frame(src, fs, nset, &e); check(e);
	rs2_synthetic_frame_ready(src, c, &e); check(e);
}

enum { DEPTH, COLOR, IR1, IR2 };
static const char* names[4] = {"depth", "color", "ir1", "ir2"};

int main(int argc, char** argv) {
	rs2_error* e = NULL;
	if (argc < 2) return 2;
	struct bag bg = open_bag(argv[1]);
	struct sensors ss;
	rs2_frame_queue* q = queue_all(bg.dev, &ss);
	rs2_frame* fr[4] = {NULL, NULL, NULL, NULL};
	while (!fr[DEPTH] || !fr[COLOR] || !fr[IR1] || !fr[IR2]) {
		rs2_frame* f = rs2_wait_for_frame(q, 10000, &e); check(e);
		rs2_stream s; rs2_format fmt; int idx, uid, fps;
		rs2_get_stream_profile_data(rs2_get_frame_stream_profile(f, &e), &s, &fmt, &idx, &uid, &fps, &e); check(e);
		int k = -1;
		if (s == RS2_STREAM_DEPTH && fmt == RS2_FORMAT_Z16) k = DEPTH;
		else if (s == RS2_STREAM_COLOR) k = COLOR;
		else if (s == RS2_STREAM_INFRARED && idx == 1) k = IR1;
		else if (s == RS2_STREAM_INFRARED && idx == 2) k = IR2;
		if (k >= 0 && !fr[k]) fr[k] = f;
		else rs2_release_frame(f);
	}
	unqueue_all(&ss, q);

	static const int orders[][5] = {
		{4, DEPTH, COLOR, IR1, IR2},
		{4, COLOR, IR1, DEPTH, IR2},
		{3, IR2, IR1, DEPTH},
		{2, DEPTH, COLOR},
		{2, IR1, COLOR},
	};
	static const rs2_stream tos[3] = {RS2_STREAM_DEPTH, RS2_STREAM_COLOR, RS2_STREAM_INFRARED};
	rs2_processing_block* joiner = rs2_create_processing_block_fptr(join, NULL, &e); check(e);
	for (size_t o = 0; o < sizeof orders / sizeof orders[0]; o++) {
		nset = orders[o][0];
		printf("set");
		for (int i = 0; i < nset; i++) {
			set[i] = fr[orders[o][1 + i]];
			printf(" %s", names[orders[o][1 + i]]);
		}
		printf("\n");
		rs2_frame_add_ref(fr[DEPTH], &e); check(e);
		rs2_frame* in = process_one(joiner, fr[DEPTH]);
		rs2_release_frame(fr[DEPTH]);
		printf("  in:");
		describe(in);
		printf("\n");
		for (int t = 0; t < 3; t++) {
			rs2_processing_block* b = rs2_create_align(tos[t], &e); check(e);
			rs2_frame* out = process_one(b, in);
			printf("  align to %s:", rs2_stream_to_string(tos[t]));
			if (!out) printf(" none");
			else if (out == in) printf(" pass");
			else describe(out);
			printf("\n");
			if (out) rs2_release_frame(out);
			rs2_delete_processing_block(b);
		}
		rs2_release_frame(in);
	}

	/* Holding outputs: each block takes the depth frame (or the frameset
	   {depth, color} for align) 20 times; every output is kept. */
	nset = 2;
	set[0] = fr[DEPTH];
	set[1] = fr[COLOR];
	rs2_frame_add_ref(fr[DEPTH], &e); check(e);
	rs2_frame* pairset = process_one(joiner, fr[DEPTH]);
	static const float sizes[] = {-1, 0, 1, 3};
	for (int k = 0; k < 3; k++) {
		for (size_t z = 0; z < sizeof sizes / sizeof sizes[0]; z++) {
			rs2_processing_block* b = NULL;
			rs2_frame* in = fr[DEPTH];
			switch (k) {
			case 0: b = rs2_create_colorizer(&e); break;
			case 1: b = rs2_create_decimation_filter_block(&e); break;
			case 2: b = rs2_create_align(RS2_STREAM_DEPTH, &e); in = pairset; break;
			}
			check(e);
			if (sizes[z] >= 0) { rs2_set_option((rs2_options*)b, RS2_OPTION_FRAMES_QUEUE_SIZE, sizes[z], &e); check(e); }
			float v = rs2_get_option((rs2_options*)b, RS2_OPTION_FRAMES_QUEUE_SIZE, &e); check(e);
			printf("hold %s queue size %g:", rs2_get_processing_block_info(b, RS2_CAMERA_INFO_NAME, &e), v); check(e);
			rs2_frame* held[20];
			for (int i = 0; i < 20; i++) {
				held[i] = process_one(b, in);
				printf(" %c", held[i] == NULL ? '-' : held[i] == in ? 'p' : '+');
			}
			/* after one output is let go */
			for (int i = 0; i < 20; i++) {
				if (held[i] && held[i] != in) {
					rs2_release_frame(held[i]);
					held[i] = NULL;
					break;
				}
			}
			rs2_frame* again = process_one(b, in);
			printf(" | %c\n", again == NULL ? '-' : again == in ? 'p' : '+');
			if (again) rs2_release_frame(again);
			for (int i = 0; i < 20; i++) {
				if (held[i]) rs2_release_frame(held[i]);
			}
			rs2_delete_processing_block(b);
		}
	}
	/* Outputs the program keeps (rs2_keep_frame) are not counted. */
	{
		rs2_processing_block* b = rs2_create_colorizer(&e); check(e);
		rs2_set_option((rs2_options*)b, RS2_OPTION_FRAMES_QUEUE_SIZE, 3, &e); check(e);
		printf("hold kept %s queue size 3:", rs2_get_processing_block_info(b, RS2_CAMERA_INFO_NAME, &e)); check(e);
		rs2_frame* held[20];
		for (int i = 0; i < 20; i++) {
			held[i] = process_one(b, fr[DEPTH]);
			printf(" %c", held[i] == NULL ? '-' : '+');
			if (held[i]) rs2_keep_frame(held[i]);
		}
		printf("\n");
		for (int i = 0; i < 20; i++) {
			if (held[i]) rs2_release_frame(held[i]);
		}
		rs2_delete_processing_block(b);
	}
	rs2_release_frame(pairset);
	rs2_delete_processing_block(joiner);
	for (int i = 0; i < 4; i++) rs2_release_frame(fr[i]);
	rs2_delete_frame_queue(q);
	close_all(&ss);
	close_bag(&bg);
	return 0;
}
