// wrap_dump: testdata/dump.c written as a user of librealsense's C++
// wrapper writes it (rs.hpp, header-only over the rs2_* functions):
// rs2::context::load_device, rs2::playback with real time off, every sensor
// opened and started with a lambda, options, profiles, intrinsics,
// extrinsics, metadata and notifications. It prints the lines dump.c
// prints. Compiled only against librealsense's own headers.
#include "wrap.h"

#include <algorithm>
#include <cinttypes>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <mutex>
#include <string>
#include <vector>

static std::string str(const char* s) {
	std::string b = "\"";
	for (; *s; s++) {
		char u[8];
		if (*s == '"' || *s == '\\') b += '\\', b += *s;
		else if ((unsigned char)*s < 0x20) std::snprintf(u, sizeof u, "\\u%04x", *s), b += u;
		else b += *s;
	}
	return b + "\"";
}

static void f32s(const float* v, int n) {
	std::putchar('[');
	for (int i = 0; i < n; i++) std::printf("%s%.9g", i ? "," : "", v[i]);
	std::putchar(']');
}

static uint64_t fnv(const unsigned char* p, int n) {
	uint64_t h = 14695981039346656037ull;
	for (int i = 0; i < n; i++) { h ^= p[i]; h *= 1099511628211ull; }
	return h;
}

template <class T> static void info(const T& obj) {
	std::printf(",\"info\":{");
	bool first = true;
	for (int i = 0; i < RS2_CAMERA_INFO_COUNT; i++) {
		auto k = rs2_camera_info(i);
		if (!obj.supports(k)) continue;
		std::printf("%s%s:%s", first ? "" : ",", str(rs2_camera_info_to_string(k)).c_str(), str(obj.get_info(k)).c_str());
		first = false;
	}
	std::putchar('}');
}

struct state {
	std::mutex mu;
	std::condition_variable cv;
	bool stopped = false, limit_hit = false;
	int seq = 0, limit = 0;
	std::map<std::string, int> counts;
	std::vector<std::string> notifications;
	std::vector<std::map<rs2_option, float>> last;
};

static int uid_of(const std::vector<rs2::stream_profile>& profs, const rs2::stream_profile& p) {
	for (size_t i = 0; i < profs.size(); i++)
		if (profs[i].unique_id() == p.unique_id()) return int(i);
	return -1;
}

int main(int argc, char** argv) try {
	rs2::context ctx;
	rs2::playback pb = ctx.load_device(argv[1]);
	if (ctx.query_devices().size() != 1) { std::printf("device count\n"); return 1; }
	std::printf("{\"type\":\"device\"");
	info(pb);
	std::printf("}\n");
	pb.set_real_time(false);
	std::printf("{\"type\":\"playback\",\"duration_ns\":%lld,\"real_time\":%s}\n", (long long)pb.get_duration().count(),
		pb.is_real_time() ? "true" : "false");
	static const char* kinds[] = {"depth_sensor", "depth_stereo_sensor", "color_sensor", "motion_sensor", "fisheye_sensor", "pose_sensor"};
	std::vector<rs2::sensor> sensors = pb.query_sensors();
	std::vector<rs2::stream_profile> profs;
	std::vector<int> prof_sensor;
	state st;
	st.last.resize(sensors.size());
	for (size_t i = 0; i < sensors.size(); i++) {
		rs2::sensor& s = sensors[i];
		std::printf("{\"type\":\"sensor\",\"index\":%zu", i);
		info(s);
		std::printf(",\"extensions\":[");
		bool is[] = {s.is<rs2::depth_sensor>(), s.is<rs2::depth_stereo_sensor>(), s.is<rs2::color_sensor>(),
			s.is<rs2::motion_sensor>(), s.is<rs2::fisheye_sensor>(), s.is<rs2::pose_sensor>()};
		bool first = true;
		for (int k = 0; k < 6; k++)
			if (is[k]) { std::printf("%s\"%s\"", first ? "" : ",", kinds[k]); first = false; }
		std::printf("]");
		if (auto d = s.as<rs2::depth_sensor>()) std::printf(",\"depth_scale\":%.9g", d.get_depth_scale());
		if (auto d = s.as<rs2::depth_stereo_sensor>()) std::printf(",\"stereo_baseline_mm\":%.9g", d.get_stereo_baseline());
		std::printf(",\"recommended_filters\":[");
		first = true;
		for (auto& f : s.get_recommended_filters()) {
			std::printf("%s%s", first ? "" : ",", str(f.get_info(RS2_CAMERA_INFO_NAME)).c_str());
			first = false;
		}
		std::printf("]}\n");
		for (auto o : s.get_supported_options()) {
			float v = s.get_option(o);
			st.last[i][o] = v;
			std::printf("{\"type\":\"option\",\"sensor\":%zu,\"id\":%d,\"name\":%s,\"value\":%.9g,\"description\":%s,\"read_only\":%s}\n", i, o,
				str(s.get_option_name(o)).c_str(), v, str(s.get_option_description(o)).c_str(), s.is_option_read_only(o) ? "true" : "false");
		}
		for (auto& p : s.get_stream_profiles()) {
			profs.push_back(p);
			prof_sensor.push_back(int(i));
			std::printf("{\"type\":\"stream_profile\",\"sensor\":%zu,\"stream\":\"%s\",\"stream_type\":%d,\"index\":%d,\"uid\":%zu,\"format\":\"%s\",\"format_id\":%d,\"fps\":%d,\"default\":%s",
				i, rs2_stream_to_string(p.stream_type()), p.stream_type(), p.stream_index(), profs.size() - 1, rs2_format_to_string(p.format()),
				p.format(), p.fps(), p.is_default() ? "true" : "false");
			if (auto v = p.as<rs2::video_stream_profile>()) {
				rs2_intrinsics in = v.get_intrinsics();
				std::printf(",\"width\":%d,\"height\":%d,\"intrinsics\":{\"width\":%d,\"height\":%d,\"ppx\":%.9g,\"ppy\":%.9g,\"fx\":%.9g,\"fy\":%.9g,\"model\":\"%s\",\"model_id\":%d,\"coeffs\":",
					v.width(), v.height(), in.width, in.height, in.ppx, in.ppy, in.fx, in.fy, rs2_distortion_to_string(in.model), in.model);
				f32s(in.coeffs, 5);
				std::printf("}");
			} else if (auto m = p.as<rs2::motion_stream_profile>()) {
				rs2_motion_device_intrinsic mi = m.get_motion_intrinsics();
				std::printf(",\"motion_intrinsics\":{\"data\":[");
				for (int r = 0; r < 3; r++) { std::printf("%s", r ? "," : ""); f32s(mi.data[r], 4); }
				std::printf("],\"noise_variances\":"); f32s(mi.noise_variances, 3);
				std::printf(",\"bias_variances\":"); f32s(mi.bias_variances, 3);
				std::printf("}");
			} else if (p.is<rs2::pose_stream_profile>()) {
				std::printf(",\"profile_kind\":\"pose\"");
			}
			std::printf("}\n");
		}
	}
	for (size_t a = 0; a < profs.size(); a++)
		for (size_t b = 0; b < profs.size(); b++) {
			if (a == b) continue;
			std::printf("{\"type\":\"extrinsics\",\"from\":\"%s/%d\",\"to\":\"%s/%d\",\"from_uid\":%zu,\"to_uid\":%zu,\"available\":",
				rs2_stream_to_string(profs[a].stream_type()), profs[a].stream_index(), rs2_stream_to_string(profs[b].stream_type()),
				profs[b].stream_index(), a, b);
			try {
				rs2_extrinsics x = profs[a].get_extrinsics_to(profs[b]);
				std::printf("true,\"rotation\":"); f32s(x.rotation, 9);
				std::printf(",\"translation\":"); f32s(x.translation, 3);
			} catch (const rs2::error& e) {
				std::printf("false,\"error\":%s", str(e.what()).c_str());
			}
			std::printf("}\n");
		}
	watch_stop(pb, st.mu, st.cv, st.stopped);
	std::vector<bool> opened(sensors.size());
	for (size_t i = 0; i < sensors.size(); i++) {
		sensors[i].set_notifications_callback([&st, i](rs2::notification n) {
			char b[64];
			std::snprintf(b, sizeof b, "%.17g", n.get_timestamp());
			std::string l = "{\"type\":\"notification\",\"sensor\":" + std::to_string(i) + ",\"category\":\"" +
				rs2_notification_category_to_string(n.get_category()) + "\",\"severity\":\"" + rs2_log_severity_to_string(n.get_severity()) +
				"\",\"description\":" + str(n.get_description().c_str()) + ",\"timestamp\":" + b + ",\"serialized_data\":" +
				str(n.get_serialized_data().c_str()) + "}";
			std::lock_guard<std::mutex> lk(st.mu);
			st.notifications.push_back(l);
		});
		std::vector<rs2::stream_profile> ps;
		for (size_t j = 0; j < profs.size(); j++)
			if (prof_sensor[j] == int(i)) ps.push_back(profs[j]);
		if (ps.empty()) continue;
		sensors[i].open(ps);
		opened[i] = true;
	}
	if (argc > 3) {
		long long target = std::atoll(argv[2]);
		st.limit = std::atoi(argv[3]);
		pb.seek(std::chrono::nanoseconds(target));
		std::printf("{\"type\":\"seek\",\"target_ns\":%lld,\"position_ns\":%llu}\n", target, (unsigned long long)pb.get_position());
	}
	for (size_t i = 0; i < sensors.size(); i++) {
		if (!opened[i]) continue;
		sensors[i].start([&, i](rs2::frame f) {
			std::lock_guard<std::mutex> l(st.mu);
			if (st.limit_hit) return;
			long long pos = (long long)pb.get_position();
			for (size_t k = 0; k < sensors.size(); k++)
				for (auto o : sensors[k].get_supported_options()) {
					float v = sensors[k].get_option(o);
					if (v != st.last[k][o]) {
						std::printf("{\"type\":\"option_change\",\"sensor\":%zu,\"id\":%d,\"name\":%s,\"value\":%.9g,\"previous\":%.9g,\"position_ns\":%lld}\n",
							k, o, str(rs2_option_to_string(o)).c_str(), v, st.last[k][o], pos);
						st.last[k][o] = v;
					}
				}
			rs2::stream_profile p = f.get_profile();
			if (std::string(rs2::sensor_from_frame(f)->get_info(RS2_CAMERA_INFO_NAME)) != sensors[i].get_info(RS2_CAMERA_INFO_NAME)) {
				std::printf("sensor_from_frame: another sensor\n");
				std::fflush(stdout);
				std::_Exit(1);
			}
			std::printf("{\"type\":\"frame\",\"seq\":%d,\"sensor\":%zu,\"stream\":\"%s\",\"index\":%d,\"uid\":%d,\"format\":\"%s\",", st.seq, i,
				rs2_stream_to_string(p.stream_type()), p.stream_index(), uid_of(profs, p), rs2_format_to_string(p.format()));
			std::printf("\"frame_number\":%llu,\"timestamp\":%.17g,\"domain\":%s,\"position_ns\":%lld,\"metadata\":{", f.get_frame_number(),
				f.get_timestamp(), str(rs2_timestamp_domain_to_string(f.get_frame_timestamp_domain())).c_str(), pos);
			bool first = true;
			for (int k = 0; k < RS2_FRAME_METADATA_COUNT; k++) {
				auto m = rs2_frame_metadata_value(k);
				if (!f.supports_frame_metadata(m)) continue;
				std::printf("%s%s:%lld", first ? "" : ",", str(rs2_frame_metadata_to_string(m)).c_str(), (long long)f.get_frame_metadata(m));
				first = false;
			}
			int size = f.get_data_size();
			std::printf("},\"size\":%d,\"fnv1a64\":\"%016" PRIx64 "\"", size, fnv(static_cast<const unsigned char*>(f.get_data()), size));
			if (auto v = f.as<rs2::video_frame>()) {
				std::printf(",\"width\":%d,\"height\":%d,\"stride\":%d,\"bpp\":%d", v.get_width(), v.get_height(), v.get_stride_in_bytes(),
					v.get_bits_per_pixel());
				if (auto d = f.as<rs2::depth_frame>()) std::printf(",\"depth_units\":%.9g", d.get_units());
			} else if (auto m = f.as<rs2::motion_frame>()) {
				rs2_vector d = m.get_motion_data();
				std::printf(",\"motion_data\":"); f32s(&d.x, 3);
			} else if (auto pf = f.as<rs2::pose_frame>()) {
				rs2_pose ps = pf.get_pose_data();
				std::printf(",\"pose\":{\"translation\":"); f32s(&ps.translation.x, 3);
				std::printf(",\"velocity\":"); f32s(&ps.velocity.x, 3);
				std::printf(",\"acceleration\":"); f32s(&ps.acceleration.x, 3);
				std::printf(",\"rotation\":"); f32s(&ps.rotation.x, 4);
				std::printf(",\"angular_velocity\":"); f32s(&ps.angular_velocity.x, 3);
				std::printf(",\"angular_acceleration\":"); f32s(&ps.angular_acceleration.x, 3);
				std::printf(",\"tracker_confidence\":%u,\"mapper_confidence\":%u}", ps.tracker_confidence, ps.mapper_confidence);
			}
			std::printf("}\n");
			st.seq++;
			if (st.limit && st.seq >= st.limit) {
				st.limit_hit = true;
				st.cv.notify_all();
			}
			st.counts[std::string(rs2_stream_to_string(p.stream_type())) + "/" + std::to_string(p.stream_index())]++;
		});
	}
	bool status_limit;
	{
		std::unique_lock<std::mutex> l(st.mu);
		st.cv.wait(l, [&] { return st.stopped || st.limit_hit; });
		status_limit = st.limit_hit;
		st.limit_hit = true;
	}
	pb.pause();
	pb.resume();
	for (size_t i = 0; i < sensors.size(); i++)
		if (opened[i]) sensors[i].stop();
	for (size_t i = 0; i < sensors.size(); i++)
		if (opened[i]) sensors[i].close();
	for (auto& n : st.notifications) std::printf("%s\n", n.c_str());
	std::printf("{\"type\":\"summary\",\"status\":\"%s\",\"frames\":%d,\"frames_per_stream\":{", status_limit ? "limit" : "ok", st.seq);
	bool first = true;
	for (auto& c : st.counts) { std::printf("%s\"%s\":%d", first ? "" : ",", c.first.c_str(), c.second); first = false; }
	std::printf("},\"duration_ns\":%lld}\n", (long long)pb.get_duration().count());
	return 0;
} catch (const rs2::error& e) {
	return print_error(e);
}
