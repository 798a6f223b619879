/* streams: a sensor's active streams before, while and after it is open
   (rs2_get_active_streams), clones of a profile (rs2_clone_stream_profile,
   rs2_clone_video_stream_profile) and the name of a playback profile. One
   line each. */
#include <stdio.h>
#include "rs2test.h"

static void print_profile(const char* what, const rs2_stream_profile* p) {
	rs2_error* e = NULL;
	rs2_stream s; rs2_format f; int idx, uid, fps;
	rs2_get_stream_profile_data(p, &s, &f, &idx, &uid, &fps, &e); check(e);
	printf("%s %s %s %d %d", what, rs2_stream_to_string(s), rs2_format_to_string(f), idx, fps);
	if (rs2_stream_profile_is(p, RS2_EXTENSION_VIDEO_PROFILE, &e)) {
		int w, h;
		rs2_get_video_stream_resolution(p, &w, &h, &e); check(e);
		rs2_intrinsics in;
		rs2_get_video_stream_intrinsics(p, &in, &e); check(e);
		printf(" %dx%d %d %d %.9g %.9g %.9g %.9g %d %.9g", w, h, in.width, in.height, in.ppx, in.ppy, in.fx, in.fy, in.model, in.coeffs[0]);
	}
	check(e);
	printf(" name \"%s\"\n", rs2_get_stream_profile_name(p, &e)); check(e);
}

static void active(const char* when, rs2_sensor* s) {
	rs2_error* e = NULL;
	rs2_stream_profile_list* l = rs2_get_active_streams(s, &e); check(e);
	int n = rs2_get_stream_profiles_count(l, &e); check(e);
	printf("active %s %d\n", when, n);
	for (int i = 0; i < n; i++) {
		const rs2_stream_profile* p = rs2_get_stream_profile(l, i, &e); check(e);
		print_profile("  active", p);
	}
	rs2_delete_stream_profiles_list(l);
}

int main(int argc, char** argv) {
	rs2_error* e = NULL;
	struct bag b = open_bag(argv[1]);
	rs2_sensor* s = b.s;
	const rs2_stream_profile* p = rs2_get_stream_profile(b.pl, 0, &e); check(e);
	print_profile("profile", p);
	active("before open", s);
	rs2_open(s, p, &e); check(e);
	active("open", s);
	rs2_close(s, &e); check(e);
	active("closed", s);
	rs2_open_multiple(s, &p, 1, &e); check(e);
	active("open multiple", s);
	rs2_close(s, &e); check(e);

	int uid0, uid1, uid2, idx, fps;
	rs2_stream st;
	rs2_format fmt;
	rs2_get_stream_profile_data(p, &st, &fmt, &idx, &uid0, &fps, &e); check(e);
	rs2_stream_profile* c = rs2_clone_stream_profile(p, RS2_STREAM_INFRARED, 2, RS2_FORMAT_Y8, &e); check(e);
	print_profile("clone", c);
	rs2_get_stream_profile_data(c, &st, &fmt, &idx, &uid1, &fps, &e); check(e);
	rs2_intrinsics in = {320, 240, 160.5f, 120.25f, 300, 301, RS2_DISTORTION_BROWN_CONRADY, {0.125f, 0, 0, 0, 0}};
	rs2_stream_profile* v = rs2_clone_video_stream_profile(p, RS2_STREAM_COLOR, 0, RS2_FORMAT_RGB8, 320, 240, &in, &e); check(e);
	print_profile("video clone", v);
	rs2_get_stream_profile_data(v, &st, &fmt, &idx, &uid2, &fps, &e); check(e);
	printf("new uids %d\n", uid1 != uid0 && uid2 != uid0 && uid1 != uid2);
	rs2_delete_stream_profile(c);
	rs2_delete_stream_profile(v);
	rs2_clone_stream_profile(p, RS2_STREAM_COUNT, 0, RS2_FORMAT_Y8, &e);
	printf("bad stream: %s | %s\n", rs2_get_failed_function(e), rs2_get_error_message(e));
	rs2_free_error(e); e = NULL;
	rs2_clone_video_stream_profile(p, RS2_STREAM_COLOR, 0, RS2_FORMAT_RGB8, 1, 1, NULL, &e);
	printf("no intrinsics: %s | %s\n", rs2_get_failed_function(e), rs2_get_error_message(e));
	rs2_free_error(e); e = NULL;

	close_bag(&b);
	return 0;
}
