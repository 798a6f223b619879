// wrap_errors: failing calls through librealsense's C++ wrapper, which
// turns each rs2_error into the exception class of its type
// (rs2::error::handle); prints the class, the failed function and the
// message of each. Then a context's devices-changed callback as the
// wrapper sets it. Compiled only against librealsense's own headers.
#include "wrap.h"

#include <functional>
#include <string>

static const char* kind(const rs2::error& e) {
	if (dynamic_cast<const rs2::camera_disconnected_error*>(&e)) return "camera_disconnected_error";
	if (dynamic_cast<const rs2::invalid_value_error*>(&e)) return "invalid_value_error";
	if (dynamic_cast<const rs2::wrong_api_call_sequence_error*>(&e)) return "wrong_api_call_sequence_error";
	if (dynamic_cast<const rs2::not_implemented_error*>(&e)) return "not_implemented_error";
	return "error";
}

static void expect(const char* what, const std::function<void()>& f) {
	try {
		f();
		std::printf("%s: no error\n", what);
	} catch (const rs2::error& e) {
		std::printf("%s: %s %s: %s\n", what, kind(e), e.get_failed_function().c_str(), e.what());
	}
}

int main(int, char** argv) try {
	rs2::context ctx;
	expect("missing file", [&] { ctx.load_device(std::string(argv[1]) + ".missing"); });
	rs2::playback pb = ctx.load_device(argv[1]);
	expect("reset", [&] { pb.hardware_reset(); });
	rs2::sensor s = pb.query_sensors().at(0);
	expect("unsupported option", [&] { s.get_option(RS2_OPTION_WHITE_BALANCE); });
	expect("read-only option", [&] { s.set_option(RS2_OPTION_EXPOSURE, 1); });
	expect("frame timeout", [&] { rs2::frame_queue(1).wait_for_frame(1); });
	expect("stub", [&] { rs2::yuy_decoder(); });
	rs2::pipeline pipe(ctx);
	expect("stop unstarted pipeline", [&] { pipe.stop(); });
	expect("start unopened sensor", [&] { s.start([](rs2::frame) {}); });
	expect("stop it", [&] { s.stop(); });

	// The devices-changed callback (rs2_set_devices_changed_callback_cpp).
	rs2::context watched;
	int added = 0, removed = 0;
	rs2::device loaded;
	watched.set_devices_changed_callback([&](rs2::event_information& info) {
		added += int(info.get_new_devices().size());
		if (info.was_removed(loaded)) removed++;
	});
	loaded = watched.load_device(argv[1]);
	watched.unload_device(argv[1]);
	std::printf("devices changed: added %d removed %d\n", added, removed);
	return 0;
} catch (const rs2::error& e) {
	return print_error(e);
}
