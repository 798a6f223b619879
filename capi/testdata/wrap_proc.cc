// wrap_proc: testdata/proc.c written with librealsense's C++ wrapper: the
// processing blocks as rs2:: filters (colorizer, pointcloud with map_to and
// calculate, align, decimation, threshold, disparity, spatial, temporal,
// hole filling, units), a processing block of the program's own that makes
// a frameset, and sensors started with lambdas. It prints the depth lines
// proc.c prints. Compiled only against librealsense's own headers.
#include "wrap.h"

#include <cinttypes>
#include <condition_variable>
#include <cstdio>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

static uint64_t fnv(const void* data, long n) {
	const unsigned char* p = static_cast<const unsigned char*>(data);
	uint64_t h = 14695981039346656037ull;
	for (long i = 0; i < n; i++) { h ^= p[i]; h *= 1099511628211ull; }
	return h;
}

static int nops;

static void op(const char* name, const rs2::frame& f) {
	int n = f.get_data_size();
	std::printf("%s\"%s\":{\"hash\":\"%016" PRIx64 "\",\"bytes\":%d", nops++ ? "," : "", name, fnv(f.get_data(), n), n);
	if (auto v = f.as<rs2::video_frame>())
		std::printf(",\"format\":\"%s\",\"width\":%d,\"height\":%d,\"stride\":%d", rs2_format_to_string(v.get_profile().format()), v.get_width(),
			v.get_height(), v.get_stride_in_bytes());
	std::printf("}");
}

struct blocks {
	rs2::colorizer col;
	std::vector<rs2::colorizer> schemes = std::vector<rs2::colorizer>(10);
	rs2::pointcloud pc;
	std::vector<std::pair<const char*, std::shared_ptr<rs2::filter>>> singles;
	std::vector<std::shared_ptr<rs2::filter>> chain;
	std::unique_ptr<rs2::align> to_other;
	rs2::align to_depth{RS2_STREAM_DEPTH};
	std::string paired_to;
	rs2::frame pair_with;
	rs2::frame_queue pairs{1};
	rs2::processing_block pairer{[this](rs2::frame f, const rs2::frame_source& src) {
		src.frame_ready(src.allocate_composite_frame({f, pair_with}));
	}};
	const char* ply = nullptr;

	blocks() {
		for (int k = 0; k < 10; k++) {
			schemes[k].set_option(RS2_OPTION_COLOR_SCHEME, float(k));
			schemes[k].set_option(RS2_OPTION_HISTOGRAM_EQUALIZATION_ENABLED, 0);
			schemes[k].set_option(RS2_OPTION_MIN_DISTANCE, 0.3f);
			schemes[k].set_option(RS2_OPTION_MAX_DISTANCE, 4);
		}
		singles.emplace_back("decimation", std::make_shared<rs2::decimation_filter>());
		singles.emplace_back("threshold", std::make_shared<rs2::threshold_filter>(0.15f, 4.f));
		singles.emplace_back("disparity", std::make_shared<rs2::disparity_transform>(true));
		singles.emplace_back("spatial", std::make_shared<rs2::spatial_filter>());
		singles.emplace_back("temporal", std::make_shared<rs2::temporal_filter>());
		for (int m = 0; m < 3; m++) {
			static const char* names[] = {"hole-filling.mode-0", "hole-filling.mode-1", "hole-filling.mode-2"};
			singles.emplace_back(names[m], std::make_shared<rs2::hole_filling_filter>(m));
		}
		singles.emplace_back("units", std::make_shared<rs2::units_transform>());
		chain = {std::make_shared<rs2::decimation_filter>(), std::make_shared<rs2::disparity_transform>(true),
			std::make_shared<rs2::spatial_filter>(), std::make_shared<rs2::temporal_filter>(),
			std::make_shared<rs2::disparity_transform>(false), std::make_shared<rs2::hole_filling_filter>(1)};
		pairer.start(pairs);
	}

	void process(const rs2::frame& depth, const rs2::frame& other) {
		nops = 0;
		std::printf("{\"type\":\"depth\",\"number\":%llu,\"timestamp\":%.17g,\"paired\":", depth.get_frame_number(), depth.get_timestamp());
		if (other) std::printf("%llu", other.get_frame_number()); else std::printf("null");
		std::printf(",\"ops\":{");
		op("depth", depth);
		op("colorize", col.process(depth));
		for (int k = 0; k < 10; k++) {
			char name[32];
			std::snprintf(name, sizeof name, "colorize.scheme-%d", k);
			op(name, schemes[k].process(depth));
		}
		if (other) pc.map_to(other);
		rs2::points pts = pc.calculate(depth);
		size_t n = pts.size();
		std::printf(",\"pointcloud.vertices\":{\"hash\":\"%016" PRIx64 "\",\"bytes\":%zu}", fnv(pts.get_vertices(), 12L * n), 12 * n);
		// as the references: the coordinates of a cloud mapped to a texture only
		auto tc = pts.get_texture_coordinates();
		if (tc && other)
			std::printf(",\"pointcloud.texcoords\":{\"hash\":\"%016" PRIx64 "\",\"bytes\":%zu}", fnv(tc, 8L * n), 8 * n);
		if (ply) {
			char name[4096];
			std::snprintf(name, sizeof name, "%s_%.14f.ply", ply, depth.get_timestamp());
			pts.export_to_ply(name, other);
		}
		if (other) {
			pair_with = other;
			pairer.invoke(depth);
			rs2::frameset fs = pairs.wait_for_frame();
			op(paired_to.c_str(), to_other->process(fs).first(RS2_STREAM_DEPTH));
			rs2::frameset a = to_depth.process(fs);
			for (auto f : a)
				if (f.get_profile().stream_type() != RS2_STREAM_DEPTH) { op("align.to-depth", f); break; }
		}
		for (auto& s : singles) {
			rs2::frame f = s.second->process(depth);
			op(s.first, f);
			if (s.first == std::string("disparity") && !(f.as<rs2::disparity_frame>().get_baseline() > 0)) {
				std::printf("no baseline\n");
				std::fflush(stdout);
				std::_Exit(1);
			}
		}
		rs2::frame out = depth;
		for (auto& c : chain) out = c->process(out);
		op("chain", out);
		std::printf("}}\n");
	}
};

int main(int argc, char** argv) try {
	blocks b;
	if (argc > 2) b.ply = argv[2];
	rs2::context ctx;
	rs2::playback pb = ctx.load_device(argv[1]);
	pb.set_real_time(false);
	std::mutex mu;
	std::condition_variable cv;
	bool stopped = false;
	watch_stop(pb, mu, cv, stopped);
	std::vector<rs2::sensor> sensors = pb.query_sensors();
	std::vector<bool> opened(sensors.size());
	rs2::stream_profile paired, ir;
	for (size_t i = 0; i < sensors.size(); i++) {
		std::vector<rs2::stream_profile> video;
		for (auto& p : sensors[i].get_stream_profiles()) {
			if (p.stream_type() == RS2_STREAM_COLOR && !paired) paired = p;
			if (p.stream_type() == RS2_STREAM_INFRARED && p.format() == RS2_FORMAT_Y8 && p.stream_index() <= 1 && !ir) ir = p;
			if (p.is<rs2::video_stream_profile>()) video.push_back(p);
		}
		if (!video.empty()) {
			sensors[i].open(video);
			opened[i] = true;
		}
	}
	if (!paired) paired = ir;
	if (paired) {
		b.to_other.reset(new rs2::align(paired.stream_type()));
		b.paired_to = paired.stream_type() == RS2_STREAM_COLOR ? "align.to-color" : "align.to-infrared";
	}
	rs2::frame pending, last;
	for (size_t i = 0; i < sensors.size(); i++) {
		if (!opened[i]) continue;
		sensors[i].start([&](rs2::frame f) {
			rs2::stream_profile p = f.get_profile();
			std::lock_guard<std::mutex> l(mu);
			if (p.stream_type() == RS2_STREAM_DEPTH && p.format() == RS2_FORMAT_Z16) {
				if (pending) b.process(pending, last);
				pending = f;
			} else if (paired && p.unique_id() == paired.unique_id()) {
				last = f;
				if (pending) {
					b.process(pending, f);
					pending = rs2::frame();
				}
			}
		});
	}
	bool any = false;
	for (bool o : opened) any = any || o;
	{
		std::unique_lock<std::mutex> l(mu);
		cv.wait(l, [&] { return !any || stopped; });
		if (pending) b.process(pending, last);
		pending = last = rs2::frame();
	}
	for (size_t i = 0; i < sensors.size(); i++)
		if (opened[i]) {
			sensors[i].stop();
			sensors[i].close();
		}
	return 0;
} catch (const rs2::error& e) {
	return print_error(e);
} catch (const std::exception& e) {
	std::printf("{\"type\":\"error\",\"message\":\"%s\"}\n", e.what());
	return 1;
}
