// wrap_pipe: testdata/pipe.c written with librealsense's C++ wrapper:
// rs2::pipeline started with an rs2::config from the file (no repeat),
// real time turned off through rs2::playback, wait_for_frames,
// try_wait_for_frames and poll_for_frames, each frameset passed through an
// rs2::frame_queue. It prints the lines pipe.c prints. Compiled only
// against librealsense's own headers.
#include "wrap.h"

#include <cstdio>

static void print_frameset(const rs2::frameset& fs) {
	std::printf("{\"type\":\"frameset\",\"frames\":[");
	for (size_t i = 0; i < fs.size(); i++) {
		rs2::frame f = fs[i];
		rs2::stream_profile p = f.get_profile();
		std::printf("%s{\"stream\":\"%s/%d\",\"number\":%llu,\"timestamp\":%.17g,\"domain\":\"%s\"}", i ? "," : "", rs2_stream_to_string(p.stream_type()),
			p.stream_index(), f.get_frame_number(), f.get_timestamp(), rs2_timestamp_domain_to_string(f.get_frame_timestamp_domain()));
	}
	std::printf("]}\n");
}

int main(int, char** argv) try {
	rs2::context ctx;
	rs2::pipeline pipe(ctx);
	rs2::config cfg;
	cfg.enable_device_from_file(argv[1], false);
	{
		rs2::pipeline_profile resolved = cfg.resolve(pipe);
		auto streams = resolved.get_streams();
		rs2_error* e = nullptr;
		const char* name = rs2_get_stream_profile_name(streams.at(0).get(), &e);
		rs2::error::handle(e);
		std::printf("{\"type\":\"resolved\",\"streams\":%zu,\"can\":%d,\"name\":\"%s\"}\n", streams.size(), cfg.can_resolve(pipe) ? 1 : 0, name);
	}
	rs2::pipeline_profile prof = pipe.start(cfg);
	rs2::playback pb = prof.get_device().as<rs2::playback>();
	pb.set_real_time(false);
	rs2::frame_queue q(1);
	rs2::frameset fs = pipe.wait_for_frames();
	q.enqueue(fs);
	print_frameset(q.wait_for_frame());
	while (pipe.try_wait_for_frames(&fs, 5000)) {
		q.enqueue(fs);
		rs2::frameset got;
		if (!q.poll_for_frame(&got)) { std::printf("frame queue: nothing\n"); return 1; }
		print_frameset(got);
	}
	std::printf("{\"type\":\"active\",\"file\":\"%s\",\"streams\":%zu}\n", pb.file_name().c_str(), pipe.get_active_profile().get_streams().size());
	{
		// A pipeline frame outlives the stop until it is released.
		rs2::frameset last;
		pipe.poll_for_frames(&last);
		pipe.stop();
	}
	try {
		pipe.stop();
		std::printf("second stop: no error\n");
		return 1;
	} catch (const rs2::wrong_api_call_sequence_error& e) {
		std::printf("{\"type\":\"stop_again\",\"message\":\"%s\"}\n", e.what());
	}
	return 0;
} catch (const rs2::error& e) {
	return print_error(e);
}
