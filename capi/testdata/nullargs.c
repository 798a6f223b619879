/* nullargs: every function of librealsense's C interface this library
   implements, called with null pointers and zero values: the error of each
   is what librealsense 2.56.5 gives (testdata/nullargs.librealsense.out),
   with its argument names and values as librealsense's API macros print
   them. Left out: rs2_create_processing_block, for which librealsense gives
   no error for a null block, rs2_start_processing, which crashes it, and
   the log functions, which would log the errors that follow. */
#include <stdio.h>
#include "rs2test.h"

#define CALL(fn, ...)                  \
	do {                           \
		rs2_error* e = NULL;   \
		fn(__VA_ARGS__);       \
		show(#fn, e);          \
	} while (0)

int main(void) {
	CALL(rs2_allocate_composite_frame, NULL, NULL, 0, &e);
	CALL(rs2_clone_stream_profile, NULL, 0, 0, 0, &e);
	CALL(rs2_clone_video_stream_profile, NULL, 0, 0, 0, 0, 0, NULL, &e);
	CALL(rs2_close, NULL, &e);
	CALL(rs2_config_can_resolve, NULL, NULL, &e);
	CALL(rs2_config_disable_all_streams, NULL, &e);
	CALL(rs2_config_disable_indexed_stream, NULL, 0, 0, &e);
	CALL(rs2_config_disable_stream, NULL, 0, &e);
	CALL(rs2_config_enable_all_stream, NULL, &e);
	CALL(rs2_config_enable_device, NULL, NULL, &e);
	CALL(rs2_config_enable_device_from_file, NULL, NULL, &e);
	CALL(rs2_config_enable_device_from_file_repeat_option, NULL, NULL, 0, &e);
	CALL(rs2_config_enable_record_to_file, NULL, NULL, &e);
	CALL(rs2_config_enable_stream, NULL, 0, 0, 0, 0, 0, 0, &e);
	CALL(rs2_config_resolve, NULL, NULL, &e);
	CALL(rs2_context_add_device, NULL, NULL, &e);
	CALL(rs2_context_remove_device, NULL, NULL, &e);
	CALL(rs2_context_unload_tracking_module, NULL, &e);
	CALL(rs2_create_align, 0, &e);
	CALL(rs2_create_config, &e);
	CALL(rs2_create_context, 0, &e);
	CALL(rs2_create_context_ex, 0, NULL, &e);
	CALL(rs2_create_device, NULL, 0, &e);
	CALL(rs2_create_disparity_transform_block, 0, &e);
	CALL(rs2_create_frame_queue, 0, &e);
	CALL(rs2_create_pipeline, NULL, &e);
	CALL(rs2_create_processing_block_fptr, NULL, NULL, &e);
	CALL(rs2_create_sensor, NULL, 0, &e);
	CALL(rs2_depth_frame_get_distance, NULL, 0, 0, &e);
	CALL(rs2_depth_frame_get_units, NULL, &e);
	CALL(rs2_depth_stereo_frame_get_baseline, NULL, &e);
	CALL(rs2_device_is_connected, NULL, &e);
	CALL(rs2_device_list_contains, NULL, NULL, &e);
	CALL(rs2_embedded_frames_count, NULL, &e);
	CALL(rs2_export_to_ply, NULL, NULL, NULL, &e);
	CALL(rs2_extract_frame, NULL, 0, &e);
	CALL(rs2_frame_add_ref, NULL, &e);
	CALL(rs2_frame_queue_size, NULL, &e);
	CALL(rs2_get_active_streams, NULL, &e);
	CALL(rs2_get_api_version, &e);
	CALL(rs2_get_depth_scale, NULL, &e);
	CALL(rs2_get_device_count, NULL, &e);
	CALL(rs2_get_device_info, NULL, 0, &e);
	CALL(rs2_get_extrinsics, NULL, NULL, NULL, &e);
	CALL(rs2_get_frame_bits_per_pixel, NULL, &e);
	CALL(rs2_get_frame_data, NULL, &e);
	CALL(rs2_get_frame_data_size, NULL, &e);
	CALL(rs2_get_frame_height, NULL, &e);
	CALL(rs2_get_frame_metadata, NULL, 0, &e);
	CALL(rs2_get_frame_number, NULL, &e);
	CALL(rs2_get_frame_points_count, NULL, &e);
	CALL(rs2_get_frame_sensor, NULL, &e);
	CALL(rs2_get_frame_stream_profile, NULL, &e);
	CALL(rs2_get_frame_stride_in_bytes, NULL, &e);
	CALL(rs2_get_frame_texture_coordinates, NULL, &e);
	CALL(rs2_get_frame_timestamp, NULL, &e);
	CALL(rs2_get_frame_timestamp_domain, NULL, &e);
	CALL(rs2_get_frame_vertices, NULL, &e);
	CALL(rs2_get_frame_width, NULL, &e);
	CALL(rs2_get_motion_intrinsics, NULL, NULL, &e);
	CALL(rs2_get_notification_category, NULL, &e);
	CALL(rs2_get_notification_description, NULL, &e);
	CALL(rs2_get_notification_serialized_data, NULL, &e);
	CALL(rs2_get_notification_severity, NULL, &e);
	CALL(rs2_get_notification_timestamp, NULL, &e);
	CALL(rs2_get_option, NULL, 0, &e);
	CALL(rs2_get_option_description, NULL, 0, &e);
	CALL(rs2_get_option_from_list, NULL, 0, &e);
	CALL(rs2_get_option_name, NULL, 0, &e);
	CALL(rs2_get_option_range, NULL, 0, NULL, NULL, NULL, NULL, &e);
	CALL(rs2_get_option_value, NULL, 0, &e);
	CALL(rs2_get_option_value_description, NULL, 0, 0, &e);
	CALL(rs2_get_option_value_from_list, NULL, 0, &e);
	CALL(rs2_get_options_list, NULL, &e);
	CALL(rs2_get_options_list_size, NULL, &e);
	CALL(rs2_get_processing_block, NULL, 0, &e);
	CALL(rs2_get_processing_block_info, NULL, 0, &e);
	CALL(rs2_get_recommended_processing_blocks, NULL, &e);
	CALL(rs2_get_recommended_processing_blocks_count, NULL, &e);
	CALL(rs2_get_sensor_info, NULL, 0, &e);
	CALL(rs2_get_sensors_count, NULL, &e);
	CALL(rs2_get_stereo_baseline, NULL, &e);
	CALL(rs2_get_stream_profile, NULL, 0, &e);
	CALL(rs2_get_stream_profile_data, NULL, NULL, NULL, NULL, NULL, NULL, &e);
	CALL(rs2_get_stream_profile_name, NULL, &e);
	CALL(rs2_get_stream_profiles, NULL, &e);
	CALL(rs2_get_stream_profiles_count, NULL, &e);
	CALL(rs2_get_video_stream_intrinsics, NULL, NULL, &e);
	CALL(rs2_get_video_stream_resolution, NULL, NULL, NULL, &e);
	CALL(rs2_hardware_reset, NULL, &e);
	CALL(rs2_is_device_extendable_to, NULL, 0, &e);
	CALL(rs2_is_frame_extendable_to, NULL, 0, &e);
	CALL(rs2_is_option_read_only, NULL, 0, &e);
	CALL(rs2_is_processing_block_extendable_to, NULL, 0, &e);
	CALL(rs2_is_sensor_extendable_to, NULL, 0, &e);
	CALL(rs2_is_stream_profile_default, NULL, &e);
	CALL(rs2_open, NULL, NULL, &e);
	CALL(rs2_open_multiple, NULL, NULL, 0, &e);
	CALL(rs2_pipeline_get_active_profile, NULL, &e);
	CALL(rs2_pipeline_poll_for_frames, NULL, NULL, &e);
	CALL(rs2_pipeline_profile_get_device, NULL, &e);
	CALL(rs2_pipeline_profile_get_streams, NULL, &e);
	CALL(rs2_pipeline_start, NULL, &e);
	CALL(rs2_pipeline_start_with_callback, NULL, NULL, NULL, &e);
	CALL(rs2_pipeline_start_with_callback_cpp, NULL, NULL, &e);
	CALL(rs2_pipeline_start_with_config, NULL, NULL, &e);
	CALL(rs2_pipeline_start_with_config_and_callback, NULL, NULL, NULL, NULL, &e);
	CALL(rs2_pipeline_start_with_config_and_callback_cpp, NULL, NULL, NULL, &e);
	CALL(rs2_pipeline_stop, NULL, &e);
	CALL(rs2_pipeline_try_wait_for_frames, NULL, NULL, 0, &e);
	CALL(rs2_pipeline_wait_for_frames, NULL, 0, &e);
	CALL(rs2_playback_device_get_current_status, NULL, &e);
	CALL(rs2_playback_device_get_file_path, NULL, &e);
	CALL(rs2_playback_device_is_real_time, NULL, &e);
	CALL(rs2_playback_device_pause, NULL, &e);
	CALL(rs2_playback_device_resume, NULL, &e);
	CALL(rs2_playback_device_set_playback_speed, NULL, 0, &e);
	CALL(rs2_playback_device_set_real_time, NULL, 0, &e);
	CALL(rs2_playback_device_set_status_changed_callback, NULL, NULL, &e);
	CALL(rs2_playback_device_stop, NULL, &e);
	CALL(rs2_playback_get_duration, NULL, &e);
	CALL(rs2_playback_get_position, NULL, &e);
	CALL(rs2_playback_seek, NULL, 0, &e);
	CALL(rs2_poll_for_frame, NULL, NULL, &e);
	CALL(rs2_pose_frame_get_pose_data, NULL, NULL, &e);
	CALL(rs2_process_frame, NULL, NULL, &e);
	CALL(rs2_query_devices, NULL, &e);
	CALL(rs2_query_devices_ex, NULL, 0, &e);
	CALL(rs2_query_sensors, NULL, &e);
	CALL(rs2_set_devices_changed_callback, NULL, NULL, NULL, &e);
	CALL(rs2_set_devices_changed_callback_cpp, NULL, NULL, &e);
	CALL(rs2_set_notifications_callback, NULL, NULL, NULL, &e);
	CALL(rs2_set_notifications_callback_cpp, NULL, NULL, &e);
	CALL(rs2_set_option, NULL, 0, 0, &e);
	CALL(rs2_set_option_value, NULL, NULL, &e);
	CALL(rs2_start, NULL, NULL, NULL, &e);
	CALL(rs2_start_cpp, NULL, NULL, &e);
	CALL(rs2_start_processing_fptr, NULL, NULL, NULL, &e);
	CALL(rs2_start_processing_queue, NULL, NULL, &e);
	CALL(rs2_start_queue, NULL, NULL, &e);
	CALL(rs2_stop, NULL, &e);
	CALL(rs2_stream_profile_is, NULL, 0, &e);
	CALL(rs2_supports_device_info, NULL, 0, &e);
	CALL(rs2_supports_frame_metadata, NULL, 0, &e);
	CALL(rs2_supports_option, NULL, 0, &e);
	CALL(rs2_supports_processing_block_info, NULL, 0, &e);
	CALL(rs2_supports_sensor_info, NULL, 0, &e);
	CALL(rs2_synthetic_frame_ready, NULL, NULL, &e);
	CALL(rs2_try_wait_for_frame, NULL, 0, NULL, &e);
	CALL(rs2_wait_for_frame, NULL, 0, &e);
	return 0;
}
