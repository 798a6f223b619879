// cpp: the _cpp entry points with C++ callback objects declared as
// librealsense's rs_types.hpp declares them, compiled by g++: the library
// calls their virtual on_frame / on_playback_status_changed and release().
#include <atomic>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include "rs2test.h"

struct rs2_frame_callback {
	virtual void on_frame(rs2_frame* f) = 0;
	virtual void release() = 0;
	virtual ~rs2_frame_callback() {}
};

struct rs2_playback_status_changed_callback {
	virtual void on_playback_status_changed(rs2_playback_status status) = 0;
	virtual void release() = 0;
	virtual ~rs2_playback_status_changed_callback() {}
};

struct counter : rs2_frame_callback {
	std::atomic<int> frames{0}, sets{0};
	std::atomic<long> pixels{0};
	std::atomic<bool> released{false};
	void on_frame(rs2_frame* f) override {
		rs2_error* e = nullptr;
		if (rs2_is_frame_extendable_to(f, RS2_EXTENSION_COMPOSITE_FRAME, &e)) {
			sets++;
			frames += rs2_embedded_frames_count(f, &e);
		} else {
			frames++;
			pixels += rs2_get_frame_data_size(f, &e);
		}
		check(e);
		rs2_release_frame(f);
	}
	void release() override { released = true; }
};

struct status_waiter : rs2_playback_status_changed_callback {
	std::mutex mu;
	std::condition_variable cv;
	bool stopped = false, released = false;
	void on_playback_status_changed(rs2_playback_status s) override {
		std::lock_guard<std::mutex> l(mu);
		if (s == RS2_PLAYBACK_STATUS_STOPPED) stopped = true;
		cv.notify_all();
	}
	void release() override { released = true; }
	void wait() {
		std::unique_lock<std::mutex> l(mu);
		cv.wait(l, [this] { return stopped; });
	}
};

int main(int argc, char** argv) {
	rs2_error* e = nullptr;
	rs2_context* ctx = rs2_create_context(RS2_API_VERSION, &e); check(e);
	rs2_device* dev = rs2_context_add_device(ctx, argv[1], &e); check(e);
	rs2_playback_device_set_real_time(dev, 0, &e); check(e);
	auto* status = new status_waiter;
	rs2_playback_device_set_status_changed_callback(dev, status, &e); check(e);
	rs2_sensor_list* sl = rs2_query_sensors(dev, &e); check(e);
	int n = rs2_get_sensors_count(sl, &e); check(e);
	rs2_sensor* ss[8];
	rs2_stream_profile_list* pls[8];
	counter* cbs[8];
	for (int i = 0; i < n; i++) {
		ss[i] = rs2_create_sensor(sl, i, &e); check(e);
		int opened;
		pls[i] = open_profiles(ss[i], 0, &opened);
	}
	for (int i = 0; i < n; i++) { cbs[i] = new counter; rs2_start_cpp(ss[i], cbs[i], &e); check(e); }
	status->wait();
	int total = 0;
	for (int i = 0; i < n; i++) {
		rs2_stop(ss[i], &e); check(e);
		if (!cbs[i]->released) { std::printf("sensor callback not released at stop\n"); return 1; }
		total += cbs[i]->frames;
		rs2_close(ss[i], &e); check(e);
		rs2_delete_stream_profiles_list(pls[i]);
		rs2_delete_sensor(ss[i]);
	}
	std::printf("sensors %d frames\n", total);
	rs2_delete_sensor_list(sl);
	rs2_delete_device(dev);
	rs2_delete_context(ctx);
	if (!status->released) { std::printf("status callback not released\n"); return 1; }

	// A processing block's C++ callback: the colorizer on a depth frame.
	rs2_processing_block* col = rs2_create_colorizer(&e); check(e);
	auto* colored = new counter;
	rs2_start_processing(col, colored, &e); check(e);

	// The pipeline with a C++ callback: every frameset, not repeating.
	rs2_pipeline* pipe = rs2_create_pipeline(nullptr, &e);
	if (!e) { std::printf("pipeline without a context: no error\n"); return 1; }
	rs2_free_error(e); e = nullptr;
	ctx = rs2_create_context(RS2_API_VERSION, &e); check(e);
	pipe = rs2_create_pipeline(ctx, &e); check(e);
	rs2_config* cfg = rs2_create_config(&e); check(e);
	rs2_config_enable_device_from_file_repeat_option(cfg, argv[1], 0, &e); check(e);
	auto* sets = new counter;
	rs2_pipeline_profile* prof = rs2_pipeline_start_with_config_and_callback_cpp(pipe, cfg, sets, &e); check(e);
	rs2_device* pdev = rs2_pipeline_profile_get_device(prof, &e); check(e);
	auto* pstatus = new status_waiter;
	rs2_playback_device_set_status_changed_callback(pdev, pstatus, &e); check(e);
	pstatus->wait();
	rs2_pipeline_stop(pipe, &e); check(e);
	// As librealsense's pipeline, whose aggregator holds the callback
	// until the next start or the pipeline's end: not released at stop.
	if (sets->released) { std::printf("pipeline callback released at stop\n"); return 1; }
	std::printf("pipeline %d framesets\n", int(sets->sets));
	rs2_delete_device(pdev);
	rs2_delete_pipeline_profile(prof);
	rs2_delete_config(cfg);
	rs2_delete_pipeline(pipe);
	if (!sets->released) { std::printf("pipeline callback not released with the pipeline\n"); return 1; }
	rs2_delete_context(ctx);

	rs2_delete_processing_block(col);
	if (!colored->released) { std::printf("processing callback not released\n"); return 1; }
	return 0;
}
