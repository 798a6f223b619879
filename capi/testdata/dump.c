/* dump: prints a bag as `rs-record dump` does, through the rs2_* functions
   of librealsense2.so (a context, the bag added as a playback device in
   non-real-time mode, every sensor started with a C callback). */
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "rs2test.h"

static void str(const char* s) {
	putchar('"');
	for (; *s; s++) {
		if (*s == '"' || *s == '\\') printf("\\%c", *s);
		else if ((unsigned char)*s < 0x20) printf("\\u%04x", *s);
		else putchar(*s);
	}
	putchar('"');
}

static void f32s(const float* v, int n) {
	putchar('[');
	for (int i = 0; i < n; i++) printf("%s%.9g", i ? "," : "", v[i]);
	putchar(']');
}

#define MAXP 64
static rs2_device* dev;
static rs2_sensor* sensors[16];
static int nsensors;
static const rs2_stream_profile* profs[MAXP];
static int profSensor[MAXP], nprofs;
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static int seq, limit, limitHit;
static float lastOpt[16][RS2_OPTION_COUNT];
static char names[MAXP][32];
static int counts[MAXP];
static char notifs[64][1024];
static int nnotifs;

static int uidOf(const rs2_stream_profile* p) {
	for (int i = 0; i < nprofs; i++)
		if (profs[i] == p) return i;
	rs2_stream s; rs2_format f; int idx, uid, fps; rs2_error* e = NULL;
	rs2_get_stream_profile_data(p, &s, &f, &idx, &uid, &fps, &e); check(e);
	for (int i = 0; i < nprofs; i++) {
		rs2_stream s2; rs2_format f2; int idx2, uid2, fps2;
		rs2_get_stream_profile_data(profs[i], &s2, &f2, &idx2, &uid2, &fps2, &e); check(e);
		if (uid2 == uid) return i;
	}
	return -1;
}

static void option_changes(long long pos) {
	rs2_error* e = NULL;
	for (int i = 0; i < nsensors; i++) {
		rs2_options_list* l = rs2_get_options_list((rs2_options*)sensors[i], &e); check(e);
		int n = rs2_get_options_list_size(l, &e); check(e);
		for (int j = 0; j < n; j++) {
			rs2_option o = rs2_get_option_from_list(l, j, &e); check(e);
			float v = rs2_get_option((rs2_options*)sensors[i], o, &e); check(e);
			if (v != lastOpt[i][o]) {
				printf("{\"type\":\"option_change\",\"sensor\":%d,\"id\":%d,\"name\":", i, o);
				str(rs2_option_to_string(o));
				printf(",\"value\":%.9g,\"previous\":%.9g,\"position_ns\":%lld}\n", v, lastOpt[i][o], pos);
				lastOpt[i][o] = v;
			}
		}
		rs2_delete_options_list(l);
	}
}

static uint64_t fnv(const unsigned char* p, int n) {
	uint64_t h = 14695981039346656037ull;
	for (int i = 0; i < n; i++) { h ^= p[i]; h *= 1099511628211ull; }
	return h;
}

static void on_frame(rs2_frame* f, void* user) {
	rs2_error* e = NULL;
	int sens = (int)(intptr_t)user;
	pthread_mutex_lock(&mu);
	if (limitHit) {
		pthread_mutex_unlock(&mu);
		rs2_release_frame(f);
		return;
	}
	long long pos = (long long)rs2_playback_get_position(dev, &e); check(e);
	option_changes(pos);
	const rs2_stream_profile* p = rs2_get_frame_stream_profile(f, &e); check(e);
	rs2_stream s; rs2_format fmt; int idx, uid, fps;
	rs2_get_stream_profile_data(p, &s, &fmt, &idx, &uid, &fps, &e); check(e);
	int u = uidOf(p);
	rs2_sensor* from = rs2_get_frame_sensor(f, &e); check(e);
	if (strcmp(rs2_get_sensor_info(from, RS2_CAMERA_INFO_NAME, &e), rs2_get_sensor_info(sensors[sens], RS2_CAMERA_INFO_NAME, &e))) {
		printf("rs2_get_frame_sensor: another sensor\n");
		fflush(stdout);
		_exit(1);
	}
	check(e);
	rs2_delete_sensor(from);
	printf("{\"type\":\"frame\",\"seq\":%d,\"sensor\":%d,\"stream\":\"%s\",\"index\":%d,\"uid\":%d,\"format\":\"%s\",", seq, sens,
		rs2_stream_to_string(s), idx, u, rs2_format_to_string(fmt));
	printf("\"frame_number\":%llu,\"timestamp\":%.17g,\"domain\":", rs2_get_frame_number(f, &e), rs2_get_frame_timestamp(f, &e));
	check(e);
	str(rs2_timestamp_domain_to_string(rs2_get_frame_timestamp_domain(f, &e))); check(e);
	printf(",\"position_ns\":%lld,\"metadata\":{", pos);
	int first = 1;
	for (int k = 0; k < RS2_FRAME_METADATA_COUNT; k++) {
		if (!rs2_supports_frame_metadata(f, (rs2_frame_metadata_value)k, &e)) continue;
		check(e);
		printf("%s", first ? "" : ",");
		str(rs2_frame_metadata_to_string((rs2_frame_metadata_value)k));
		printf(":%lld", rs2_get_frame_metadata(f, (rs2_frame_metadata_value)k, &e)); check(e);
		first = 0;
	}
	int size = rs2_get_frame_data_size(f, &e); check(e);
	const unsigned char* data = rs2_get_frame_data(f, &e); check(e);
	printf("},\"size\":%d,\"fnv1a64\":\"%016" PRIx64 "\"", size, fnv(data, size));
	if (rs2_is_frame_extendable_to(f, RS2_EXTENSION_VIDEO_FRAME, &e)) {
		printf(",\"width\":%d,\"height\":%d,\"stride\":%d,\"bpp\":%d", rs2_get_frame_width(f, &e), rs2_get_frame_height(f, &e),
			rs2_get_frame_stride_in_bytes(f, &e), rs2_get_frame_bits_per_pixel(f, &e));
		check(e);
		if (s == RS2_STREAM_DEPTH) { printf(",\"depth_units\":%.9g", rs2_depth_frame_get_units(f, &e)); check(e); }
	} else if (rs2_is_frame_extendable_to(f, RS2_EXTENSION_MOTION_FRAME, &e)) {
		printf(",\"motion_data\":"); f32s((const float*)data, 3);
	} else if (rs2_is_frame_extendable_to(f, RS2_EXTENSION_POSE_FRAME, &e)) {
		rs2_pose ps; rs2_pose_frame_get_pose_data(f, &ps, &e); check(e);
		printf(",\"pose\":{\"translation\":"); f32s(&ps.translation.x, 3);
		printf(",\"velocity\":"); f32s(&ps.velocity.x, 3);
		printf(",\"acceleration\":"); f32s(&ps.acceleration.x, 3);
		printf(",\"rotation\":"); f32s(&ps.rotation.x, 4);
		printf(",\"angular_velocity\":"); f32s(&ps.angular_velocity.x, 3);
		printf(",\"angular_acceleration\":"); f32s(&ps.angular_acceleration.x, 3);
		printf(",\"tracker_confidence\":%u,\"mapper_confidence\":%u}", ps.tracker_confidence, ps.mapper_confidence);
	}
	check(e);
	printf("}\n");
	seq++;
	if (limit && seq >= limit) {
		limitHit = 1;
		pthread_cond_broadcast(&cv);
	}
	char name[32];
	snprintf(name, sizeof name, "%s/%d", rs2_stream_to_string(s), idx);
	int i;
	for (i = 0; i < MAXP && names[i][0] && strcmp(names[i], name); i++) {}
	if (i < MAXP) { strcpy(names[i], name); counts[i]++; }
	pthread_mutex_unlock(&mu);
	rs2_release_frame(f);
}

/* esc appends s to b as a JSON string. */
static char* esc(char* b, const char* s) {
	*b++ = '"';
	for (; *s; s++) {
		if (*s == '"' || *s == '\\') *b++ = '\\';
		*b++ = *s;
	}
	*b++ = '"';
	*b = 0;
	return b;
}

static void on_notification(rs2_notification* n, void* user) {
	rs2_error* e = NULL;
	pthread_mutex_lock(&mu);
	if (nnotifs < 64) {
		char* b = notifs[nnotifs++];
		b += sprintf(b, "{\"type\":\"notification\",\"sensor\":%d,\"category\":\"%s\",\"severity\":\"%s\",\"description\":",
			(int)(intptr_t)user, rs2_notification_category_to_string(rs2_get_notification_category(n, &e)),
			rs2_log_severity_to_string(rs2_get_notification_severity(n, &e)));
		b = esc(b, rs2_get_notification_description(n, &e));
		b += sprintf(b, ",\"timestamp\":%.17g,\"serialized_data\":", rs2_get_notification_timestamp(n, &e));
		b = esc(b, rs2_get_notification_serialized_data(n, &e));
		strcpy(b, "}");
	}
	check(e);
	pthread_mutex_unlock(&mu);
}

static struct stop_waiter status;

static const char* kinds[] = {"depth_sensor", "depth_stereo_sensor", "color_sensor", "motion_sensor", "fisheye_sensor", "pose_sensor"};
static const rs2_extension kindExt[] = {RS2_EXTENSION_DEPTH_SENSOR, RS2_EXTENSION_DEPTH_STEREO_SENSOR, RS2_EXTENSION_COLOR_SENSOR,
	RS2_EXTENSION_MOTION_SENSOR, RS2_EXTENSION_FISHEYE_SENSOR, RS2_EXTENSION_POSE_SENSOR};

static void info(const char* key, int (*supports)(const void*, rs2_camera_info, rs2_error**),
		const char* (*get)(const void*, rs2_camera_info, rs2_error**), const void* obj) {
	rs2_error* e = NULL;
	printf(",\"%s\":{", key);
	int first = 1;
	for (int i = 0; i < RS2_CAMERA_INFO_COUNT; i++) {
		if (!supports(obj, (rs2_camera_info)i, &e)) continue;
		check(e);
		printf("%s", first ? "" : ",");
		str(rs2_camera_info_to_string((rs2_camera_info)i));
		putchar(':');
		str(get(obj, (rs2_camera_info)i, &e)); check(e);
		first = 0;
	}
	putchar('}');
}

int main(int argc, char** argv) {
	rs2_error* e = NULL;
	rs2_context* ctx = rs2_create_context(RS2_API_VERSION, &e); check(e);
	dev = rs2_context_add_device(ctx, argv[1], &e); check(e);
	rs2_device_list* list = rs2_query_devices(ctx, &e); check(e);
	if (rs2_get_device_count(list, &e) != 1) { printf("device count\n"); return 1; }
	rs2_delete_device_list(list);
	printf("{\"type\":\"device\"");
	info("info", (void*)rs2_supports_device_info, (void*)rs2_get_device_info, dev);
	printf("}\n");
	rs2_playback_device_set_real_time(dev, 0, &e); check(e);
	printf("{\"type\":\"playback\",\"duration_ns\":%llu,\"real_time\":%s}\n", rs2_playback_get_duration(dev, &e),
		rs2_playback_device_is_real_time(dev, &e) ? "true" : "false");
	check(e);
	rs2_sensor_list* sl = rs2_query_sensors(dev, &e); check(e);
	nsensors = rs2_get_sensors_count(sl, &e); check(e);
	rs2_stream_profile_list* plists[16];
	for (int i = 0; i < nsensors; i++) {
		rs2_sensor* s = sensors[i] = rs2_create_sensor(sl, i, &e); check(e);
		printf("{\"type\":\"sensor\",\"index\":%d", i);
		info("info", (void*)rs2_supports_sensor_info, (void*)rs2_get_sensor_info, s);
		printf(",\"extensions\":[");
		int first = 1;
		for (int k = 0; k < 6; k++)
			if (rs2_is_sensor_extendable_to(s, kindExt[k], &e)) { printf("%s\"%s\"", first ? "" : ",", kinds[k]); first = 0; }
		printf("]");
		if (rs2_is_sensor_extendable_to(s, RS2_EXTENSION_DEPTH_SENSOR, &e)) printf(",\"depth_scale\":%.9g", rs2_get_depth_scale(s, &e));
		if (rs2_is_sensor_extendable_to(s, RS2_EXTENSION_DEPTH_STEREO_SENSOR, &e)) printf(",\"stereo_baseline_mm\":%.9g", rs2_get_stereo_baseline(s, &e));
		check(e);
		printf(",\"recommended_filters\":[");
		rs2_processing_block_list* bl = rs2_get_recommended_processing_blocks(s, &e); check(e);
		int nb = rs2_get_recommended_processing_blocks_count(bl, &e); check(e);
		for (int b = 0; b < nb; b++) {
			rs2_processing_block* pb = rs2_get_processing_block(bl, b, &e); check(e);
			printf("%s", b ? "," : "");
			str(rs2_get_processing_block_info(pb, RS2_CAMERA_INFO_NAME, &e)); check(e);
			rs2_delete_processing_block(pb);
		}
		rs2_delete_recommended_processing_blocks(bl);
		printf("]}\n");
		rs2_options_list* ol = rs2_get_options_list((rs2_options*)s, &e); check(e);
		int no = rs2_get_options_list_size(ol, &e); check(e);
		for (int j = 0; j < no; j++) {
			rs2_option o = rs2_get_option_from_list(ol, j, &e); check(e);
			float v = rs2_get_option((rs2_options*)s, o, &e); check(e);
			lastOpt[i][o] = v;
			printf("{\"type\":\"option\",\"sensor\":%d,\"id\":%d,\"name\":", i, o);
			str(rs2_option_to_string(o));
			printf(",\"value\":%.9g,\"description\":", v);
			str(rs2_get_option_description((rs2_options*)s, o, &e)); check(e);
			printf(",\"read_only\":%s}\n", rs2_is_option_read_only((rs2_options*)s, o, &e) ? "true" : "false"); check(e);
		}
		rs2_delete_options_list(ol);
		rs2_stream_profile_list* pl = plists[i] = rs2_get_stream_profiles(s, &e); check(e);
		int np = rs2_get_stream_profiles_count(pl, &e); check(e);
		for (int j = 0; j < np; j++) {
			const rs2_stream_profile* p = rs2_get_stream_profile(pl, j, &e); check(e);
			profSensor[nprofs] = i;
			profs[nprofs++] = p;
			rs2_stream st; rs2_format f; int idx, uid, fps;
			rs2_get_stream_profile_data(p, &st, &f, &idx, &uid, &fps, &e); check(e);
			printf("{\"type\":\"stream_profile\",\"sensor\":%d,\"stream\":\"%s\",\"stream_type\":%d,\"index\":%d,\"uid\":%d,\"format\":\"%s\",\"format_id\":%d,\"fps\":%d,\"default\":%s",
				i, rs2_stream_to_string(st), st, idx, nprofs - 1, rs2_format_to_string(f), f, fps, rs2_is_stream_profile_default(p, &e) ? "true" : "false");
			if (rs2_stream_profile_is(p, RS2_EXTENSION_VIDEO_PROFILE, &e)) {
				int w, h; rs2_intrinsics in;
				rs2_get_video_stream_resolution(p, &w, &h, &e); check(e);
				rs2_get_video_stream_intrinsics(p, &in, &e); check(e);
				printf(",\"width\":%d,\"height\":%d,\"intrinsics\":{\"width\":%d,\"height\":%d,\"ppx\":%.9g,\"ppy\":%.9g,\"fx\":%.9g,\"fy\":%.9g,\"model\":\"%s\",\"model_id\":%d,\"coeffs\":",
					w, h, in.width, in.height, in.ppx, in.ppy, in.fx, in.fy, rs2_distortion_to_string(in.model), in.model);
				f32s(in.coeffs, 5);
				printf("}");
			} else if (rs2_stream_profile_is(p, RS2_EXTENSION_MOTION_PROFILE, &e)) {
				rs2_motion_device_intrinsic mi;
				rs2_get_motion_intrinsics(p, &mi, &e); check(e);
				printf(",\"motion_intrinsics\":{\"data\":[");
				for (int r = 0; r < 3; r++) { printf("%s", r ? "," : ""); f32s(mi.data[r], 4); }
				printf("],\"noise_variances\":"); f32s(mi.noise_variances, 3);
				printf(",\"bias_variances\":"); f32s(mi.bias_variances, 3);
				printf("}");
			} else if (rs2_stream_profile_is(p, RS2_EXTENSION_POSE_PROFILE, &e)) {
				printf(",\"profile_kind\":\"pose\"");
			}
			check(e);
			printf("}\n");
		}
	}
	for (int a = 0; a < nprofs; a++)
		for (int b = 0; b < nprofs; b++) {
			if (a == b) continue;
			rs2_stream sa, sb; rs2_format f; int ia, ib, u, fps;
			rs2_get_stream_profile_data(profs[a], &sa, &f, &ia, &u, &fps, &e);
			rs2_get_stream_profile_data(profs[b], &sb, &f, &ib, &u, &fps, &e); check(e);
			printf("{\"type\":\"extrinsics\",\"from\":\"%s/%d\",\"to\":\"%s/%d\",\"from_uid\":%d,\"to_uid\":%d,\"available\":", rs2_stream_to_string(sa), ia,
				rs2_stream_to_string(sb), ib, a, b);
			rs2_extrinsics x;
			rs2_get_extrinsics(profs[a], profs[b], &x, &e);
			if (e) {
				printf("false,\"error\":");
				str(rs2_get_error_message(e));
				rs2_free_error(e);
				e = NULL;
			} else {
				printf("true,\"rotation\":"); f32s(x.rotation, 9);
				printf(",\"translation\":"); f32s(x.translation, 3);
			}
			printf("}\n");
		}
	watch_stop(dev, &status, &mu, &cv);
	int opened[16] = {0};
	for (int i = 0; i < nsensors; i++) {
		rs2_set_notifications_callback(sensors[i], on_notification, (void*)(intptr_t)i, &e); check(e);
		int n = 0;
		const rs2_stream_profile* ps[MAXP];
		for (int j = 0; j < nprofs; j++)
			if (profSensor[j] == i) ps[n++] = profs[j];
		if (!n) continue;
		rs2_open_multiple(sensors[i], ps, n, &e); check(e);
		opened[i] = 1;
	}
	if (argc > 3) {
		long long target = atoll(argv[2]);
		limit = atoi(argv[3]);
		rs2_playback_seek(dev, target, &e); check(e);
		printf("{\"type\":\"seek\",\"target_ns\":%lld,\"position_ns\":%llu}\n", target, rs2_playback_get_position(dev, &e)); check(e);
	}
	for (int i = 0; i < nsensors; i++)
		if (opened[i]) { rs2_start(sensors[i], on_frame, (void*)(intptr_t)i, &e); check(e); }
	pthread_mutex_lock(&mu);
	while (!status.stopped && !limitHit) pthread_cond_wait(&cv, &mu);
	int status_limit = limitHit;
	limitHit = 1;
	pthread_mutex_unlock(&mu);
	/* Pause and resume are accepted while playing, as by librealsense. */
	rs2_playback_device_pause(dev, &e); check(e);
	rs2_playback_device_resume(dev, &e); check(e);
	for (int i = 0; i < nsensors; i++)
		if (opened[i]) { rs2_stop(sensors[i], &e); check(e); }
	for (int i = 0; i < nsensors; i++)
		if (opened[i]) { rs2_close(sensors[i], &e); check(e); }
	for (int i = 0; i < nnotifs; i++) printf("%s\n", notifs[i]);
	printf("{\"type\":\"summary\",\"status\":\"%s\",\"frames\":%d,\"frames_per_stream\":{", status_limit ? "limit" : "ok", seq);
	/* names sorted */
	int order[MAXP], n = 0;
	for (int i = 0; i < MAXP && names[i][0]; i++) order[n++] = i;
	for (int i = 0; i < n; i++)
		for (int j = i + 1; j < n; j++)
			if (strcmp(names[order[j]], names[order[i]]) < 0) { int t = order[i]; order[i] = order[j]; order[j] = t; }
	for (int i = 0; i < n; i++) printf("%s\"%s\":%d", i ? "," : "", names[order[i]], counts[order[i]]);
	printf("},\"duration_ns\":%llu}\n", rs2_playback_get_duration(dev, &e)); check(e);
	for (int i = 0; i < nsensors; i++) { rs2_delete_stream_profiles_list(plists[i]); rs2_delete_sensor(sensors[i]); }
	rs2_delete_sensor_list(sl);
	rs2_delete_device(dev);
	rs2_delete_context(ctx);
	if (!status.released) { printf("status callback not released\n"); return 1; }
	return 0;
}
