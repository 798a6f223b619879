/* Generated: every other function of librealsense 2.56.5's public C interface, present so
   that programs linked against librealsense load, and failing with an rs2_error that names
   it (functions without one do nothing). See README.md (capi). */
#include "shim.h"
#include "_cgo_export.h"

#pragma GCC diagnostic ignored "-Wunused-parameter"

const char* rs2_matchers_to_string(rs2_matchers stream) {
	return NULL;
}

rs2_error * rs2_create_error(const char* what, const char* name, const char* args, rs2_exception_type type) {
	return NULL;
}

int rs2_get_raw_data_size(const rs2_raw_data_buffer* buffer, rs2_error** error) {
	if (error) *error = rsbag_unsupported("rs2_get_raw_data_size");
	return (int)0;
}

void rs2_delete_raw_data(const rs2_raw_data_buffer* buffer) {
}

const unsigned char* rs2_get_raw_data(const rs2_raw_data_buffer* buffer, rs2_error** error) {
	if (error) *error = rsbag_unsupported("rs2_get_raw_data");
	return NULL;
}

void rs2_log_to_callback_cpp(rs2_log_severity min_severity, rs2_log_callback * callback, rs2_error ** error) {
	if (error) *error = rsbag_unsupported("rs2_log_to_callback_cpp");
}

void rs2_log_to_callback(rs2_log_severity min_severity, rs2_log_callback_ptr callback, void * arg, rs2_error** error) {
	if (error) *error = rsbag_unsupported("rs2_log_to_callback");
}

void rs2_enable_rolling_log_file(unsigned max_size, rs2_error ** error) {
	if (error) *error = rsbag_unsupported("rs2_enable_rolling_log_file");
}

unsigned rs2_get_log_message_line_number(rs2_log_message const * msg, rs2_error** error) {
	if (error) *error = rsbag_unsupported("rs2_get_log_message_line_number");
	return (unsigned)0;
}

const char * rs2_get_log_message_filename(rs2_log_message const * msg, rs2_error** error) {
	if (error) *error = rsbag_unsupported("rs2_get_log_message_filename");
	return NULL;
}

const char * rs2_get_raw_log_message(rs2_log_message const * msg, rs2_error** error) {
	if (error) *error = rsbag_unsupported("rs2_get_raw_log_message");
	return NULL;
}

const char * rs2_get_full_log_message(rs2_log_message const * msg, rs2_error** error) {
	if (error) *error = rsbag_unsupported("rs2_get_full_log_message");
	return NULL;
}

void rs2_log(rs2_log_severity severity, const char * message, rs2_error ** error) {
	if (error) *error = rsbag_unsupported("rs2_log");
}

rs2_time_t rs2_get_time(rs2_error** error) {
	if (error) *error = rsbag_unsupported("rs2_get_time");
	return (rs2_time_t)0;
}

void rs2_hw_monitor_get_opcode_string(int opcode, char* buffer, size_t buffer_size,rs2_device* device, rs2_error** error) {
	if (error) *error = rsbag_unsupported("rs2_hw_monitor_get_opcode_string");
}

void rs2_context_add_software_device(rs2_context* ctx, rs2_device* dev, rs2_error** error) {
	if (error) *error = rsbag_unsupported("rs2_context_add_software_device");
}

rs2_device_hub* rs2_create_device_hub(const rs2_context* context, rs2_error** error) {
	if (error) *error = rsbag_unsupported("rs2_create_device_hub");
	return NULL;
}

void rs2_delete_device_hub(const rs2_device_hub* hub) {
}

rs2_device* rs2_device_hub_wait_for_device(const rs2_device_hub* hub, rs2_error** error) {
	if (error) *error = rsbag_unsupported("rs2_device_hub_wait_for_device");
	return NULL;
}

int rs2_device_hub_is_device_connected(const rs2_device_hub* hub, const rs2_device* device, rs2_error** error) {
	if (error) *error = rsbag_unsupported("rs2_device_hub_is_device_connected");
	return (int)0;
}

const rs2_raw_data_buffer* rs2_build_debug_protocol_command(rs2_device* device, unsigned opcode, unsigned param1, unsigned param2, unsigned param3, unsigned param4, void* data, unsigned size_of_data, rs2_error** error) {
	if (error) *error = rsbag_unsupported("rs2_build_debug_protocol_command");
	return NULL;
}

const rs2_raw_data_buffer* rs2_send_and_receive_raw_data(rs2_device* device, void* raw_data_to_send, unsigned size_of_raw_data_to_send, rs2_error** error) {
	if (error) *error = rsbag_unsupported("rs2_send_and_receive_raw_data");
	return NULL;
}

void rs2_loopback_enable(const rs2_device* device, const char* from_file, rs2_error** error) {
	if (error) *error = rsbag_unsupported("rs2_loopback_enable");
}

void rs2_loopback_disable(const rs2_device* device, rs2_error** error) {
	if (error) *error = rsbag_unsupported("rs2_loopback_disable");
}

int rs2_loopback_is_enabled(const rs2_device* device, rs2_error** error) {
	if (error) *error = rsbag_unsupported("rs2_loopback_is_enabled");
	return (int)0;
}

void rs2_connect_tm2_controller(const rs2_device* device, const unsigned char* mac_addr, rs2_error** error) {
	if (error) *error = rsbag_unsupported("rs2_connect_tm2_controller");
}

void rs2_disconnect_tm2_controller(const rs2_device* device, int id, rs2_error** error) {
	if (error) *error = rsbag_unsupported("rs2_disconnect_tm2_controller");
}

void rs2_reset_to_factory_calibration(const rs2_device* device, rs2_error** e) {
	if (e) *e = rsbag_unsupported("rs2_reset_to_factory_calibration");
}

void rs2_write_calibration(const rs2_device* device, rs2_error** e) {
	if (e) *e = rsbag_unsupported("rs2_write_calibration");
}

void rs2_update_firmware_cpp(const rs2_device* device, const void* fw_image, int fw_image_size, rs2_update_progress_callback* callback, rs2_error** error) {
	if (error) *error = rsbag_unsupported("rs2_update_firmware_cpp");
}

void rs2_update_firmware(const rs2_device* device, const void* fw_image, int fw_image_size, rs2_update_progress_callback_ptr callback, void* client_data, rs2_error** error) {
	if (error) *error = rsbag_unsupported("rs2_update_firmware");
}

const rs2_raw_data_buffer* rs2_create_flash_backup_cpp(const rs2_device* device, rs2_update_progress_callback* callback, rs2_error** error) {
	if (error) *error = rsbag_unsupported("rs2_create_flash_backup_cpp");
	return NULL;
}

const rs2_raw_data_buffer* rs2_create_flash_backup(const rs2_device* device, rs2_update_progress_callback_ptr callback, void* client_data, rs2_error** error) {
	if (error) *error = rsbag_unsupported("rs2_create_flash_backup");
	return NULL;
}

void rs2_update_firmware_unsigned_cpp(const rs2_device* device, const void* fw_image, int fw_image_size, rs2_update_progress_callback* callback, int update_mode, rs2_error** error) {
	if (error) *error = rsbag_unsupported("rs2_update_firmware_unsigned_cpp");
}

int rs2_check_firmware_compatibility(const rs2_device* device, const void* fw_image, int fw_image_size, rs2_error** error) {
	if (error) *error = rsbag_unsupported("rs2_check_firmware_compatibility");
	return (int)0;
}

void rs2_update_firmware_unsigned(const rs2_device* device, const void* fw_image, int fw_image_size, rs2_update_progress_callback_ptr callback, void* client_data, int update_mode, rs2_error** error) {
	if (error) *error = rsbag_unsupported("rs2_update_firmware_unsigned");
}

void rs2_enter_update_state(const rs2_device* device, rs2_error** error) {
	if (error) *error = rsbag_unsupported("rs2_enter_update_state");
}

const rs2_raw_data_buffer* rs2_run_on_chip_calibration_cpp(rs2_device* device, const void* json_content, int content_size, float* health, rs2_update_progress_callback* progress_callback, int timeout_ms, rs2_error** error) {
	if (error) *error = rsbag_unsupported("rs2_run_on_chip_calibration_cpp");
	return NULL;
}

const rs2_raw_data_buffer* rs2_run_on_chip_calibration(rs2_device* device, const void* json_content, int content_size, float* health, rs2_update_progress_callback_ptr callback, void* client_data, int timeout_ms, rs2_error** error) {
	if (error) *error = rsbag_unsupported("rs2_run_on_chip_calibration");
	return NULL;
}

const rs2_raw_data_buffer* rs2_run_tare_calibration_cpp(rs2_device* dev, float ground_truth_mm, const void* json_content, int content_size, float* health, rs2_update_progress_callback* progress_callback, int timeout_ms, rs2_error** error) {
	if (error) *error = rsbag_unsupported("rs2_run_tare_calibration_cpp");
	return NULL;
}

const rs2_raw_data_buffer* rs2_process_calibration_frame(rs2_device* dev, const rs2_frame* f, float* const health, rs2_update_progress_callback* progress_callback, int timeout_ms, rs2_error** error) {
	if (error) *error = rsbag_unsupported("rs2_process_calibration_frame");
	return NULL;
}

const char* rs2_calibration_type_to_string(rs2_calibration_type) {
	return NULL;
}

const char* rs2_calibration_status_to_string(rs2_calibration_status) {
	return NULL;
}

void rs2_register_calibration_change_callback(rs2_device* dev, rs2_calibration_change_callback_ptr callback, void* user, rs2_error** error) {
	if (error) *error = rsbag_unsupported("rs2_register_calibration_change_callback");
}

void rs2_register_calibration_change_callback_cpp(rs2_device* dev, rs2_calibration_change_callback* callback, rs2_error** error) {
	if (error) *error = rsbag_unsupported("rs2_register_calibration_change_callback_cpp");
}

void rs2_trigger_device_calibration(rs2_device* dev, rs2_calibration_type type, rs2_error** error) {
	if (error) *error = rsbag_unsupported("rs2_trigger_device_calibration");
}

const rs2_raw_data_buffer* rs2_run_tare_calibration(rs2_device* dev, float ground_truth_mm, const void* json_content, int content_size, float* health, rs2_update_progress_callback_ptr callback, void* client_data, int timeout_ms, rs2_error** error) {
	if (error) *error = rsbag_unsupported("rs2_run_tare_calibration");
	return NULL;
}

const rs2_raw_data_buffer* rs2_get_calibration_table(const rs2_device* dev, rs2_error** error) {
	if (error) *error = rsbag_unsupported("rs2_get_calibration_table");
	return NULL;
}

void rs2_set_calibration_table(const rs2_device* device, const void* calibration, int calibration_size, rs2_error** error) {
	if (error) *error = rsbag_unsupported("rs2_set_calibration_table");
}

rs2_raw_data_buffer* rs2_serialize_json(rs2_device* dev, rs2_error** error) {
	if (error) *error = rsbag_unsupported("rs2_serialize_json");
	return NULL;
}

void rs2_load_json(rs2_device* dev, const void* json_content, unsigned content_size, rs2_error** error) {
	if (error) *error = rsbag_unsupported("rs2_load_json");
}

const rs2_raw_data_buffer* rs2_run_focal_length_calibration_cpp(rs2_device* device, rs2_frame_queue* left_queue , rs2_frame_queue* right_queue, float target_width, float target_height, int adjust_both_sides, float* ratio, float* angle, rs2_update_progress_callback * progress_callback, rs2_error** error) {
	if (error) *error = rsbag_unsupported("rs2_run_focal_length_calibration_cpp");
	return NULL;
}

const rs2_raw_data_buffer* rs2_run_focal_length_calibration(rs2_device* device, rs2_frame_queue* left_queue, rs2_frame_queue* right_queue, float target_width, float target_height, int adjust_both_sides, float* ratio, float* angle, rs2_update_progress_callback_ptr callback, void* client_data, rs2_error** error) {
	if (error) *error = rsbag_unsupported("rs2_run_focal_length_calibration");
	return NULL;
}

const rs2_raw_data_buffer* rs2_run_uv_map_calibration_cpp(rs2_device* device, rs2_frame_queue* left_queue, rs2_frame_queue* color_queue, rs2_frame_queue* depth_queue, int py_px_only, float * health, int health_size, rs2_update_progress_callback * progress_callback, rs2_error** error) {
	if (error) *error = rsbag_unsupported("rs2_run_uv_map_calibration_cpp");
	return NULL;
}

const rs2_raw_data_buffer* rs2_run_uv_map_calibration(rs2_device* device, rs2_frame_queue* left_queue, rs2_frame_queue* color_queue, rs2_frame_queue* depth_queue, int py_px_only, float* health, int health_size, rs2_update_progress_callback_ptr callback, void* client_data, rs2_error** error) {
	if (error) *error = rsbag_unsupported("rs2_run_uv_map_calibration");
	return NULL;
}

float rs2_calculate_target_z_cpp(rs2_device* device, rs2_frame_queue* queue1, rs2_frame_queue* queue2, rs2_frame_queue* queue3, float target_width, float target_height, rs2_update_progress_callback* callback, rs2_error** error) {
	if (error) *error = rsbag_unsupported("rs2_calculate_target_z_cpp");
	return (float)0;
}

float rs2_calculate_target_z(rs2_device* device, rs2_frame_queue* queue1, rs2_frame_queue* queue2, rs2_frame_queue* queue3, float target_width, float target_height, rs2_update_progress_callback_ptr progress_callback, void* client_data, rs2_error** error) {
	if (error) *error = rsbag_unsupported("rs2_calculate_target_z");
	return (float)0;
}

const rs2_raw_data_buffer* rs2_get_calibration_config(rs2_device* device, rs2_error** error) {
	if (error) *error = rsbag_unsupported("rs2_get_calibration_config");
	return NULL;
}

void rs2_set_calibration_config(rs2_device* device, const char* calibration_config_json_str, rs2_error** error) {
	if (error) *error = rsbag_unsupported("rs2_set_calibration_config");
}

rs2_device* rs2_create_device_from_sensor(const rs2_sensor* sensor, rs2_error** error) {
	if (error) *error = rsbag_unsupported("rs2_create_device_from_sensor");
	return NULL;
}

void rs2_set_region_of_interest(const rs2_sensor* sensor, int min_x, int min_y, int max_x, int max_y, rs2_error** error) {
	if (error) *error = rsbag_unsupported("rs2_set_region_of_interest");
}

void rs2_get_region_of_interest(const rs2_sensor* sensor, int* min_x, int* min_y, int* max_x, int* max_y, rs2_error** error) {
	if (error) *error = rsbag_unsupported("rs2_get_region_of_interest");
}

rs2_stream_profile_list * rs2_get_debug_stream_profiles(rs2_sensor * sensor, rs2_error ** error) {
	if (error) *error = rsbag_unsupported("rs2_get_debug_stream_profiles");
	return NULL;
}

void rs2_set_stream_profile_data(rs2_stream_profile* mode, rs2_stream stream, int index, rs2_format format, rs2_error** error) {
	if (error) *error = rsbag_unsupported("rs2_set_stream_profile_data");
}

void rs2_register_extrinsics(const rs2_stream_profile* from, const rs2_stream_profile* to, rs2_extrinsics extrin, rs2_error** error) {
	if (error) *error = rsbag_unsupported("rs2_register_extrinsics");
}

void rs2_override_extrinsics(const rs2_sensor* sensor, const rs2_extrinsics* extrinsics, rs2_error** error) {
	if (error) *error = rsbag_unsupported("rs2_override_extrinsics");
}

int rs2_import_localization_map(const rs2_sensor* sensor, const unsigned char* lmap_blob, unsigned int blob_size, rs2_error** error) {
	if (error) *error = rsbag_unsupported("rs2_import_localization_map");
	return (int)0;
}

const rs2_raw_data_buffer* rs2_export_localization_map(const rs2_sensor* sensor, rs2_error** error) {
	if (error) *error = rsbag_unsupported("rs2_export_localization_map");
	return NULL;
}

int rs2_set_static_node(const rs2_sensor* sensor, const char* guid, const rs2_vector pos, const rs2_quaternion orient, rs2_error** error) {
	if (error) *error = rsbag_unsupported("rs2_set_static_node");
	return (int)0;
}

int rs2_get_static_node(const rs2_sensor* sensor, const char* guid, rs2_vector *pos, rs2_quaternion *orient, rs2_error** error) {
	if (error) *error = rsbag_unsupported("rs2_get_static_node");
	return (int)0;
}

int rs2_remove_static_node(const rs2_sensor* sensor, const char* guid, rs2_error** error) {
	if (error) *error = rsbag_unsupported("rs2_remove_static_node");
	return (int)0;
}

int rs2_load_wheel_odometry_config(const rs2_sensor* sensor, const unsigned char* odometry_config_buf, unsigned int blob_size, rs2_error** error) {
	if (error) *error = rsbag_unsupported("rs2_load_wheel_odometry_config");
	return (int)0;
}

int rs2_send_wheel_odometry(const rs2_sensor* sensor, char wo_sensor_id, unsigned int frame_num, const rs2_vector translational_velocity, rs2_error** error) {
	if (error) *error = rsbag_unsupported("rs2_send_wheel_odometry");
	return (int)0;
}

void rs2_set_intrinsics(const rs2_sensor* sensor, const rs2_stream_profile* profile , const rs2_intrinsics* intrinsics, rs2_error** error) {
	if (error) *error = rsbag_unsupported("rs2_set_intrinsics");
}

void rs2_override_intrinsics(const rs2_sensor* sensor, const rs2_intrinsics* intrinsics, rs2_error** error) {
	if (error) *error = rsbag_unsupported("rs2_override_intrinsics");
}

void rs2_set_extrinsics(const rs2_sensor* from_sensor, const rs2_stream_profile* from_profile, rs2_sensor* to_sensor, const rs2_stream_profile* to_profile, const rs2_extrinsics* extrinsics, rs2_error** error) {
	if (error) *error = rsbag_unsupported("rs2_set_extrinsics");
}

void rs2_reset_sensor_calibration(rs2_sensor const * sensor, rs2_error** error) {
	if (error) *error = rsbag_unsupported("rs2_reset_sensor_calibration");
}

void rs2_set_motion_device_intrinsics(const rs2_sensor* sensor, const rs2_stream_profile* profile, const rs2_motion_device_intrinsic* intrinsics, rs2_error** error) {
	if (error) *error = rsbag_unsupported("rs2_set_motion_device_intrinsics");
}

float rs2_get_max_usable_depth_range(rs2_sensor const * sensor, rs2_error** error) {
	if (error) *error = rsbag_unsupported("rs2_get_max_usable_depth_range");
	return (float)0;
}

const char* rs2_calib_target_type_to_string(rs2_calib_target_type type) {
	return NULL;
}

rs2_frame* rs2_allocate_synthetic_video_frame(rs2_source* source, const rs2_stream_profile* new_stream, rs2_frame* original, int new_bpp, int new_width, int new_height, int new_stride, rs2_extension frame_type, rs2_error** error) {
	if (error) *error = rsbag_unsupported("rs2_allocate_synthetic_video_frame");
	return NULL;
}

rs2_frame* rs2_allocate_synthetic_motion_frame(rs2_source* source, const rs2_stream_profile* new_stream, rs2_frame* original, rs2_extension frame_type, rs2_error** error) {
	if (error) *error = rsbag_unsupported("rs2_allocate_synthetic_motion_frame");
	return NULL;
}

rs2_frame* rs2_allocate_points(rs2_source* source, const rs2_stream_profile* new_stream, rs2_frame* original, rs2_error** error) {
	if (error) *error = rsbag_unsupported("rs2_allocate_points");
	return NULL;
}

void rs2_extract_target_dimensions(const rs2_frame* frame, rs2_calib_target_type calib_type, float * target_dims, unsigned int target_dims_size, rs2_error** error) {
	if (error) *error = rsbag_unsupported("rs2_extract_target_dimensions");
}

rs2_option rs2_option_from_string(const char * option_name) {
	return (rs2_option)0;
}

const char* rs2_sr300_visual_preset_to_string(rs2_sr300_visual_preset preset) {
	return NULL;
}

const char* rs2_rs400_visual_preset_to_string(rs2_rs400_visual_preset preset) {
	return NULL;
}

const char* rs2_l500_visual_preset_to_string(rs2_l500_visual_preset preset) {
	return NULL;
}

const char* rs2_sensor_mode_to_string(rs2_sensor_mode preset) {
	return NULL;
}

const char* rs2_ambient_light_to_string(rs2_ambient_light preset) {
	return NULL;
}

const char* rs2_digital_gain_to_string(rs2_digital_gain preset) {
	return NULL;
}

const char* rs2_host_perf_mode_to_string(rs2_host_perf_mode perf) {
	return NULL;
}

const char* rs2_emitter_frequency_mode_to_string(rs2_emitter_frequency_mode mode) {
	return NULL;
}

const char* rs2_depth_auto_exposure_mode_to_string(rs2_depth_auto_exposure_mode mode) {
	return NULL;
}

const char * rs2_gyro_sensitivity_to_string(rs2_gyro_sensitivity mode) {
	return NULL;
}

void rs2_set_options_changed_callback(rs2_options * options, rs2_options_changed_callback_ptr callback, rs2_error ** error) {
	if (error) *error = rsbag_unsupported("rs2_set_options_changed_callback");
}

void rs2_set_options_changed_callback_cpp(rs2_options * options, rs2_options_changed_callback * callback, rs2_error ** error) {
	if (error) *error = rsbag_unsupported("rs2_set_options_changed_callback_cpp");
}

rs2_processing_block* rs2_create_yuy_decoder(rs2_error** error) {
	if (error) *error = rsbag_unsupported("rs2_create_yuy_decoder");
	return NULL;
}

rs2_processing_block* rs2_create_y411_decoder(rs2_error** error) {
	if (error) *error = rsbag_unsupported("rs2_create_y411_decoder");
	return NULL;
}

int rs2_processing_block_register_simple_option(rs2_processing_block* block, rs2_option option_id, float min, float max, float step, float def, rs2_error** error) {
	if (error) *error = rsbag_unsupported("rs2_processing_block_register_simple_option");
	return (int)0;
}

rs2_processing_block* rs2_create_rates_printer_block(rs2_error** error) {
	if (error) *error = rsbag_unsupported("rs2_create_rates_printer_block");
	return NULL;
}

rs2_processing_block* rs2_create_zero_order_invalidation_block(rs2_error** error) {
	if (error) *error = rsbag_unsupported("rs2_create_zero_order_invalidation_block");
	return NULL;
}

rs2_processing_block* rs2_create_huffman_depth_decompress_block(rs2_error** error) {
	if (error) *error = rsbag_unsupported("rs2_create_huffman_depth_decompress_block");
	return NULL;
}

rs2_processing_block* rs2_create_hdr_merge_processing_block(rs2_error** error) {
	if (error) *error = rsbag_unsupported("rs2_create_hdr_merge_processing_block");
	return NULL;
}

rs2_processing_block* rs2_create_sequence_id_filter(rs2_error** error) {
	if (error) *error = rsbag_unsupported("rs2_create_sequence_id_filter");
	return NULL;
}

rs2_device* rs2_create_record_device(const rs2_device* device, const char* file, rs2_error** error) {
	if (error) *error = rsbag_unsupported("rs2_create_record_device");
	return NULL;
}

rs2_device* rs2_create_record_device_ex(const rs2_device* device, const char* file, int compression_enabled, rs2_error** error) {
	if (error) *error = rsbag_unsupported("rs2_create_record_device_ex");
	return NULL;
}

void rs2_record_device_pause(const rs2_device* device, rs2_error** error) {
	if (error) *error = rsbag_unsupported("rs2_record_device_pause");
}

void rs2_record_device_resume(const rs2_device* device, rs2_error** error) {
	if (error) *error = rsbag_unsupported("rs2_record_device_resume");
}

const char* rs2_record_device_filename(const rs2_device* device, rs2_error** error) {
	if (error) *error = rsbag_unsupported("rs2_record_device_filename");
	return NULL;
}

void rs2_pipeline_set_device(rs2_pipeline * pipe, rs2_device * device, rs2_error ** error) {
	if (error) *error = rsbag_unsupported("rs2_pipeline_set_device");
}
