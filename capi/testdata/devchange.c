/* devchange: the devices-changed callback of a context, as librealsense's:
   adding a bag calls it with the bag in the added list (adding it again is
   an error), removing it with the bag in the removed list; a C++ callback
   object set in its place is called the same way and released with the
   context. A bag leaves the context's devices with its last handle. */
#include <stdio.h>
#include "rs2test.h"

static void print_change(const char* who, rs2_device_list* removed, rs2_device_list* added) {
	rs2_error* e = NULL;
	int nr = rs2_get_device_count(removed, &e); check(e);
	int na = rs2_get_device_count(added, &e); check(e);
	printf("%s: removed %d added %d", who, nr, na);
	for (int i = 0; i < na; i++) {
		rs2_device* d = rs2_create_device(added, i, &e); check(e);
		printf(" %s", rs2_get_device_info(d, RS2_CAMERA_INFO_NAME, &e)); check(e);
		rs2_delete_device(d);
	}
	printf("\n");
	rs2_delete_device_list(removed);
	rs2_delete_device_list(added);
}

static void on_change(rs2_device_list* removed, rs2_device_list* added, void* user) { print_change((const char*)user, removed, added); }

/* watcher is an rs2_devices_changed_callback object as a C++ compiler lays
   it out under the Itanium ABI (see rs2test.h's stop_waiter). */
struct watcher { void* const* vtable; int released; };
static void watcher_changed(struct watcher* w, rs2_device_list* removed, rs2_device_list* added) { (void)w; print_change("object", removed, added); }
static void watcher_release(struct watcher* w) { w->released++; }
static void watcher_dtor(struct watcher* w) { (void)w; }
static void* const watcher_vtable[] = {(void*)watcher_changed, (void*)watcher_release, (void*)watcher_dtor, (void*)watcher_dtor};

int main(int argc, char** argv) {
	(void)argc;
	rs2_error* e = NULL;
	rs2_context* ctx = rs2_create_context(RS2_API_VERSION, &e); check(e);
	rs2_set_devices_changed_callback(ctx, on_change, "function", &e); check(e);
	rs2_device* dev = rs2_context_add_device(ctx, argv[1], &e); check(e);
	rs2_device* again = rs2_context_add_device(ctx, argv[1], &e);
	printf("again %s | %s | %s\n", again ? "device" : "none", rs2_exception_type_to_string(rs2_get_librealsense_exception_type(e)), rs2_get_error_message(e));
	rs2_free_error(e); e = NULL;
	rs2_context_remove_device(ctx, argv[1], &e); check(e);
	rs2_delete_device(dev);
	struct watcher w = {watcher_vtable, 0};
	rs2_set_devices_changed_callback_cpp(ctx, (rs2_devices_changed_callback*)&w, &e); check(e);
	dev = rs2_context_add_device(ctx, argv[1], &e); check(e);
	printf("devices %d\n", device_count(ctx));
	rs2_device_list* l = rs2_query_devices(ctx, &e); check(e);
	rs2_delete_device(dev);
	printf("devices with a list %d\n", device_count(ctx));
	rs2_delete_device_list(l);
	printf("devices after the last handle %d\n", device_count(ctx));
	dev = rs2_context_add_device(ctx, argv[1], &e); check(e);
	rs2_delete_device(dev);
	printf("released before %d\n", w.released);
	rs2_delete_context(ctx);
	printf("released after %d\n", w.released);
	return 0;
}
