// Helpers of the test programs written with librealsense's C++ wrapper.
#ifndef WRAP_H
#define WRAP_H
#include <librealsense2/rs.hpp>

#include <condition_variable>
#include <cstdio>
#include <mutex>

// watch_stop sets a status callback on pb that sets stopped and notifies cv
// under mu when the playback stops.
static inline void watch_stop(rs2::playback& pb, std::mutex& mu, std::condition_variable& cv, bool& stopped) {
	pb.set_status_changed_callback([&mu, &cv, &stopped](rs2_playback_status s) {
		std::lock_guard<std::mutex> l(mu);
		if (s == RS2_PLAYBACK_STATUS_STOPPED) stopped = true;
		cv.notify_all();
	});
}

// print_error prints a librealsense error as a JSON line, as rs2test.h's
// check does, and returns the program's exit status.
static inline int print_error(const rs2::error& e) {
	std::printf("{\"type\":\"error\",\"function\":\"%s\",\"message\":\"%s\"}\n", e.get_failed_function().c_str(), e.what());
	return 1;
}
#endif
