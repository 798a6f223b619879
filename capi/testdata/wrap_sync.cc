// wrap_sync: testdata/sync.c written with librealsense's C++ wrapper: every
// frame of every sensor's callback handed to one rs2::syncer (queue size
// 1000), drained with poll_for_frames after each. It prints the lines
// sync.c prints. Compiled only against librealsense's own headers.
#include "wrap.h"

#include <condition_variable>
#include <cstdio>
#include <mutex>
#include <string>
#include <vector>

static std::string name(const rs2::frame& f) {
	return std::string(rs2_stream_to_string(f.get_profile().stream_type())) + "/" + std::to_string(f.get_profile().stream_index());
}

static void drain(rs2::syncer& sync, const rs2::frame* after) {
	rs2::frameset fs;
	while (sync.poll_for_frames(&fs)) {
		if (after)
			std::printf("{\"type\":\"frameset\",\"after\":{\"stream\":\"%s\",\"number\":%llu},\"frames\":[", name(*after).c_str(), after->get_frame_number());
		else
			std::printf("{\"type\":\"frameset\",\"after\":\"flush\",\"frames\":[");
		bool first = true;
		for (auto f : fs) {
			std::printf("%s{\"stream\":\"%s\",\"number\":%llu,\"timestamp\":%.17g,\"domain\":\"%s\"}", first ? "" : ",", name(f).c_str(),
				f.get_frame_number(), f.get_timestamp(), rs2_timestamp_domain_to_string(f.get_frame_timestamp_domain()));
			first = false;
		}
		std::printf("]}\n");
	}
}

int main(int, char** argv) try {
	rs2::syncer sync(1000);
	rs2::context ctx;
	rs2::playback pb = ctx.load_device(argv[1]);
	pb.set_real_time(false);
	std::mutex mu;
	std::condition_variable cv;
	bool stopped = false;
	int frames = 0;
	watch_stop(pb, mu, cv, stopped);
	std::vector<rs2::sensor> sensors = pb.query_sensors();
	for (auto& s : sensors) s.open(s.get_stream_profiles());
	{
		// The callbacks wait for mu until every sensor is started.
		std::unique_lock<std::mutex> l(mu);
		for (auto& s : sensors)
			s.start([&](rs2::frame f) {
				std::lock_guard<std::mutex> lk(mu);
				frames++;
				sync(f);
				drain(sync, &f);
			});
		cv.wait(l, [&] { return stopped; });
	}
	for (auto& s : sensors) {
		s.stop();
		s.close();
	}
	drain(sync, nullptr);
	std::printf("{\"type\":\"summary\",\"frames\":%d}\n", frames);
	return 0;
} catch (const rs2::error& e) {
	return print_error(e);
}
