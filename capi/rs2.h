/* Declarations of librealsense 2.56.5's public C interface (include/librealsense2/rs.h and h/rs_*.h)
 * that librealsense2.so.2.56 built from this folder exports (stubs.c: those it refuses): names, signatures, struct
 * layouts and enum values as in those headers. Generated; see README.md (capi). */
#ifndef RSBAG_CAPI_RS2_H
#define RSBAG_CAPI_RS2_H
#ifdef __cplusplus
extern "C" {
#endif
#include <stdint.h>

#define RS2_API_MAJOR_VERSION 2
#define RS2_API_MINOR_VERSION 56
#define RS2_API_PATCH_VERSION 5
#define RS2_API_BUILD_VERSION 0
#define RS2_API_VERSION (((RS2_API_MAJOR_VERSION) * 10000) + ((RS2_API_MINOR_VERSION) * 100) + (RS2_API_PATCH_VERSION))
#define RS2_DEFAULT_TIMEOUT 15000
#define RS2_PRODUCT_LINE_ANY 0xff
#define RS2_PRODUCT_LINE_SW_ONLY 0x100

typedef enum rs2_notification_category
{
    RS2_NOTIFICATION_CATEGORY_FRAMES_TIMEOUT,
    RS2_NOTIFICATION_CATEGORY_FRAME_CORRUPTED,
    RS2_NOTIFICATION_CATEGORY_HARDWARE_ERROR,
    RS2_NOTIFICATION_CATEGORY_HARDWARE_EVENT,
    RS2_NOTIFICATION_CATEGORY_UNKNOWN_ERROR,
    RS2_NOTIFICATION_CATEGORY_FIRMWARE_UPDATE_RECOMMENDED,
    RS2_NOTIFICATION_CATEGORY_POSE_RELOCALIZATION,
    RS2_NOTIFICATION_CATEGORY_COUNT
} rs2_notification_category;

typedef enum rs2_exception_type
{
    RS2_EXCEPTION_TYPE_UNKNOWN,
    RS2_EXCEPTION_TYPE_CAMERA_DISCONNECTED,
    RS2_EXCEPTION_TYPE_BACKEND,
    RS2_EXCEPTION_TYPE_INVALID_VALUE,
    RS2_EXCEPTION_TYPE_WRONG_API_CALL_SEQUENCE,
    RS2_EXCEPTION_TYPE_NOT_IMPLEMENTED,
    RS2_EXCEPTION_TYPE_DEVICE_IN_RECOVERY_MODE,
    RS2_EXCEPTION_TYPE_IO,
    RS2_EXCEPTION_TYPE_COUNT
} rs2_exception_type;

typedef enum rs2_distortion
{
    RS2_DISTORTION_NONE,
    RS2_DISTORTION_MODIFIED_BROWN_CONRADY,
    RS2_DISTORTION_INVERSE_BROWN_CONRADY,
    RS2_DISTORTION_FTHETA,
    RS2_DISTORTION_BROWN_CONRADY,
    RS2_DISTORTION_KANNALA_BRANDT4,
    RS2_DISTORTION_COUNT
} rs2_distortion;

typedef struct rs2_intrinsics
{
    int width;
    int height;
    float ppx;
    float ppy;
    float fx;
    float fy;
    rs2_distortion model;
    float coeffs[5];
} rs2_intrinsics;

typedef struct rs2_motion_device_intrinsic
{
    float data[3][4];
    float noise_variances[3];
    float bias_variances[3];
} rs2_motion_device_intrinsic;

typedef struct rs2_vertex
{
    float xyz[3];
} rs2_vertex;

typedef struct rs2_pixel
{
    int ij[2];
} rs2_pixel;

typedef struct rs2_vector
{
    float x, y, z;
}rs2_vector;

typedef struct rs2_quaternion
{
    float x, y, z, w;
}rs2_quaternion;

typedef struct rs2_pose
{
    rs2_vector translation;
    rs2_vector velocity;
    rs2_vector acceleration;
    rs2_quaternion rotation;
    rs2_vector angular_velocity;
    rs2_vector angular_acceleration;
    unsigned int tracker_confidence;
    unsigned int mapper_confidence;
} rs2_pose;

typedef enum rs2_log_severity
{
    RS2_LOG_SEVERITY_DEBUG,
    RS2_LOG_SEVERITY_INFO,
    RS2_LOG_SEVERITY_WARN,
    RS2_LOG_SEVERITY_ERROR,
    RS2_LOG_SEVERITY_FATAL,
    RS2_LOG_SEVERITY_NONE,
    RS2_LOG_SEVERITY_COUNT,
    RS2_LOG_SEVERITY_ALL = RS2_LOG_SEVERITY_DEBUG
} rs2_log_severity;

typedef enum rs2_extension
{
    RS2_EXTENSION_UNKNOWN,
    RS2_EXTENSION_DEBUG,
    RS2_EXTENSION_INFO,
    RS2_EXTENSION_MOTION,
    RS2_EXTENSION_OPTIONS,
    RS2_EXTENSION_VIDEO,
    RS2_EXTENSION_ROI,
    RS2_EXTENSION_DEPTH_SENSOR,
    RS2_EXTENSION_VIDEO_FRAME,
    RS2_EXTENSION_MOTION_FRAME,
    RS2_EXTENSION_COMPOSITE_FRAME,
    RS2_EXTENSION_POINTS,
    RS2_EXTENSION_DEPTH_FRAME,
    RS2_EXTENSION_ADVANCED_MODE,
    RS2_EXTENSION_RECORD,
    RS2_EXTENSION_VIDEO_PROFILE,
    RS2_EXTENSION_PLAYBACK,
    RS2_EXTENSION_DEPTH_STEREO_SENSOR,
    RS2_EXTENSION_DISPARITY_FRAME,
    RS2_EXTENSION_MOTION_PROFILE,
    RS2_EXTENSION_POSE_FRAME,
    RS2_EXTENSION_POSE_PROFILE,
    RS2_EXTENSION_TM2,
    RS2_EXTENSION_SOFTWARE_DEVICE,
    RS2_EXTENSION_SOFTWARE_SENSOR,
    RS2_EXTENSION_DECIMATION_FILTER,
    RS2_EXTENSION_THRESHOLD_FILTER,
    RS2_EXTENSION_DISPARITY_FILTER,
    RS2_EXTENSION_SPATIAL_FILTER,
    RS2_EXTENSION_TEMPORAL_FILTER,
    RS2_EXTENSION_HOLE_FILLING_FILTER,
    RS2_EXTENSION_ZERO_ORDER_FILTER,
    RS2_EXTENSION_RECOMMENDED_FILTERS,
    RS2_EXTENSION_POSE,
    RS2_EXTENSION_POSE_SENSOR,
    RS2_EXTENSION_WHEEL_ODOMETER,
    RS2_EXTENSION_GLOBAL_TIMER,
    RS2_EXTENSION_UPDATABLE,
    RS2_EXTENSION_UPDATE_DEVICE,
    RS2_EXTENSION_L500_DEPTH_SENSOR,
    RS2_EXTENSION_TM2_SENSOR,
    RS2_EXTENSION_AUTO_CALIBRATED_DEVICE,
    RS2_EXTENSION_COLOR_SENSOR,
    RS2_EXTENSION_MOTION_SENSOR,
    RS2_EXTENSION_FISHEYE_SENSOR,
    RS2_EXTENSION_DEPTH_HUFFMAN_DECODER,
    RS2_EXTENSION_SERIALIZABLE,
    RS2_EXTENSION_FW_LOGGER,
    RS2_EXTENSION_AUTO_CALIBRATION_FILTER,
    RS2_EXTENSION_DEVICE_CALIBRATION,
    RS2_EXTENSION_CALIBRATED_SENSOR,
    RS2_EXTENSION_HDR_MERGE,
    RS2_EXTENSION_SEQUENCE_ID_FILTER,
    RS2_EXTENSION_MAX_USABLE_RANGE_SENSOR,
    RS2_EXTENSION_DEBUG_STREAM_SENSOR,
    RS2_EXTENSION_CALIBRATION_CHANGE_DEVICE,
    RS2_EXTENSION_ROTATION_FILTER,
    RS2_EXTENSION_COUNT
} rs2_extension;

typedef enum rs2_matchers
{
    RS2_MATCHER_DI,
    RS2_MATCHER_DI_C,
    RS2_MATCHER_DLR_C,
    RS2_MATCHER_DLR,
    RS2_MATCHER_DIC,
    RS2_MATCHER_DIC_C,
    RS2_MATCHER_DEFAULT,
    RS2_MATCHER_COUNT
} rs2_matchers;

typedef struct rs2_device_info rs2_device_info;

typedef struct rs2_device rs2_device;

typedef struct rs2_error rs2_error;

typedef struct rs2_log_message rs2_log_message;

typedef struct rs2_raw_data_buffer rs2_raw_data_buffer;

typedef struct rs2_frame rs2_frame;

typedef struct rs2_frame_queue rs2_frame_queue;

typedef struct rs2_pipeline rs2_pipeline;

typedef struct rs2_pipeline_profile rs2_pipeline_profile;

typedef struct rs2_config rs2_config;

typedef struct rs2_device_list rs2_device_list;

typedef struct rs2_stream_profile_list rs2_stream_profile_list;

typedef struct rs2_processing_block_list rs2_processing_block_list;

typedef struct rs2_stream_profile rs2_stream_profile;

typedef struct rs2_frame_callback rs2_frame_callback;

typedef struct rs2_log_callback rs2_log_callback;

typedef struct rs2_syncer rs2_syncer;

typedef struct rs2_device_serializer rs2_device_serializer;

typedef struct rs2_source rs2_source;

typedef struct rs2_processing_block rs2_processing_block;

typedef struct rs2_frame_processor_callback rs2_frame_processor_callback;

typedef struct rs2_playback_status_changed_callback rs2_playback_status_changed_callback;

typedef struct rs2_update_progress_callback rs2_update_progress_callback;

typedef struct rs2_context rs2_context;

typedef struct rs2_device_hub rs2_device_hub;

typedef struct rs2_sensor_list rs2_sensor_list;

typedef struct rs2_sensor rs2_sensor;

typedef struct rs2_options rs2_options;

typedef struct rs2_options_list rs2_options_list;

typedef struct rs2_streams_list rs2_streams_list;

typedef struct rs2_options_changed_callback rs2_options_changed_callback;

typedef struct rs2_devices_changed_callback rs2_devices_changed_callback;

typedef struct rs2_notification rs2_notification;

typedef struct rs2_notifications_callback rs2_notifications_callback;

typedef struct rs2_firmware_log_message rs2_firmware_log_message;

typedef struct rs2_firmware_log_parsed_message rs2_firmware_log_parsed_message;

typedef struct rs2_firmware_log_parser rs2_firmware_log_parser;

typedef struct rs2_terminal_parser rs2_terminal_parser;

typedef void (*rs2_log_callback_ptr)(rs2_log_severity, rs2_log_message const *, void * arg);

typedef void (*rs2_notification_callback_ptr)(rs2_notification*, void*);

typedef void (*rs2_software_device_destruction_callback_ptr)(void*);

typedef void (*rs2_devices_changed_callback_ptr)(rs2_device_list*, rs2_device_list*, void*);

typedef void (*rs2_frame_callback_ptr)(rs2_frame*, void*);

typedef void (*rs2_frame_processor_callback_ptr)(rs2_frame*, rs2_source*, void*);

typedef void (*rs2_update_progress_callback_ptr)(const float, void*);

typedef void (*rs2_options_changed_callback_ptr)(const rs2_options_list *);

typedef double rs2_time_t;

typedef long long rs2_metadata_type;

typedef enum rs2_calibration_type
{
    RS2_CALIBRATION_AUTO_DEPTH_TO_RGB,
    RS2_CALIBRATION_MANUAL_DEPTH_TO_RGB,
    RS2_CALIBRATION_THERMAL,
    RS2_CALIBRATION_TYPE_COUNT
} rs2_calibration_type;

typedef enum rs2_calibration_status
{
    RS2_CALIBRATION_TRIGGERED = 0,
    RS2_CALIBRATION_SPECIAL_FRAME = 1,
    RS2_CALIBRATION_STARTED = 2,
    RS2_CALIBRATION_NOT_NEEDED = 3,
    RS2_CALIBRATION_SUCCESSFUL = 4,
    RS2_CALIBRATION_RETRY = -1,
    RS2_CALIBRATION_FAILED = -2,
    RS2_CALIBRATION_SCENE_INVALID = -3,
    RS2_CALIBRATION_BAD_RESULT = -4,
    RS2_CALIBRATION_BAD_CONDITIONS = -5,
    RS2_CALIBRATION_STATUS_FIRST = -5,
    RS2_CALIBRATION_STATUS_LAST = 4,
    RS2_CALIBRATION_STATUS_COUNT = RS2_CALIBRATION_STATUS_LAST - RS2_CALIBRATION_STATUS_FIRST + 1
} rs2_calibration_status;

typedef struct rs2_calibration_change_callback rs2_calibration_change_callback;

typedef void (*rs2_calibration_change_callback_ptr)(rs2_calibration_status, void* arg);

typedef enum rs2_camera_info
{
    RS2_CAMERA_INFO_NAME,
    RS2_CAMERA_INFO_SERIAL_NUMBER,
    RS2_CAMERA_INFO_FIRMWARE_VERSION,
    RS2_CAMERA_INFO_RECOMMENDED_FIRMWARE_VERSION,
    RS2_CAMERA_INFO_PHYSICAL_PORT,
    RS2_CAMERA_INFO_DEBUG_OP_CODE,
    RS2_CAMERA_INFO_ADVANCED_MODE,
    RS2_CAMERA_INFO_PRODUCT_ID,
    RS2_CAMERA_INFO_CAMERA_LOCKED,
    RS2_CAMERA_INFO_USB_TYPE_DESCRIPTOR,
    RS2_CAMERA_INFO_PRODUCT_LINE,
    RS2_CAMERA_INFO_ASIC_SERIAL_NUMBER,
    RS2_CAMERA_INFO_FIRMWARE_UPDATE_ID,
    RS2_CAMERA_INFO_IP_ADDRESS,
    RS2_CAMERA_INFO_DFU_DEVICE_PATH,
    RS2_CAMERA_INFO_CONNECTION_TYPE,
    RS2_CAMERA_INFO_COUNT
} rs2_camera_info;

typedef enum rs2_stream
{
    RS2_STREAM_ANY,
    RS2_STREAM_DEPTH,
    RS2_STREAM_COLOR,
    RS2_STREAM_INFRARED,
    RS2_STREAM_FISHEYE,
    RS2_STREAM_GYRO,
    RS2_STREAM_ACCEL,
    RS2_STREAM_GPIO,
    RS2_STREAM_POSE,
    RS2_STREAM_CONFIDENCE,
    RS2_STREAM_MOTION,
    RS2_STREAM_COUNT
} rs2_stream;

typedef enum rs2_format
{
    RS2_FORMAT_ANY,
    RS2_FORMAT_Z16,
    RS2_FORMAT_DISPARITY16,
    RS2_FORMAT_XYZ32F,
    RS2_FORMAT_YUYV,
    RS2_FORMAT_RGB8,
    RS2_FORMAT_BGR8,
    RS2_FORMAT_RGBA8,
    RS2_FORMAT_BGRA8,
    RS2_FORMAT_Y8,
    RS2_FORMAT_Y16,
    RS2_FORMAT_RAW10,
    RS2_FORMAT_RAW16,
    RS2_FORMAT_RAW8,
    RS2_FORMAT_UYVY,
    RS2_FORMAT_MOTION_RAW,
    RS2_FORMAT_MOTION_XYZ32F,
    RS2_FORMAT_GPIO_RAW,
    RS2_FORMAT_6DOF,
    RS2_FORMAT_DISPARITY32,
    RS2_FORMAT_Y10BPACK,
    RS2_FORMAT_DISTANCE,
    RS2_FORMAT_MJPEG,
    RS2_FORMAT_Y8I,
    RS2_FORMAT_Y12I,
    RS2_FORMAT_INZI,
    RS2_FORMAT_INVI,
    RS2_FORMAT_W10,
    RS2_FORMAT_Z16H,
    RS2_FORMAT_FG,
    RS2_FORMAT_Y411,
    RS2_FORMAT_Y16I,
    RS2_FORMAT_M420,
    RS2_FORMAT_COMBINED_MOTION,
    RS2_FORMAT_COUNT
} rs2_format;

typedef struct rs2_extrinsics
{
    float rotation[9];
    float translation[3];
} rs2_extrinsics;

typedef struct rs2_combined_motion
{
    struct { double x, y, z, w;
    } orientation;
    struct { double x, y, z;
    } angular_velocity;
    struct { double x, y, z;
    } linear_acceleration;
} rs2_combined_motion;

typedef enum rs2_timestamp_domain
{
    RS2_TIMESTAMP_DOMAIN_HARDWARE_CLOCK,
    RS2_TIMESTAMP_DOMAIN_SYSTEM_TIME,
    RS2_TIMESTAMP_DOMAIN_GLOBAL_TIME,
    RS2_TIMESTAMP_DOMAIN_COUNT
} rs2_timestamp_domain;

typedef enum rs2_frame_metadata_value
{
    RS2_FRAME_METADATA_FRAME_COUNTER,
    RS2_FRAME_METADATA_FRAME_TIMESTAMP,
    RS2_FRAME_METADATA_SENSOR_TIMESTAMP,
    RS2_FRAME_METADATA_ACTUAL_EXPOSURE,
    RS2_FRAME_METADATA_GAIN_LEVEL,
    RS2_FRAME_METADATA_AUTO_EXPOSURE,
    RS2_FRAME_METADATA_WHITE_BALANCE,
    RS2_FRAME_METADATA_TIME_OF_ARRIVAL,
    RS2_FRAME_METADATA_TEMPERATURE,
    RS2_FRAME_METADATA_BACKEND_TIMESTAMP,
    RS2_FRAME_METADATA_ACTUAL_FPS,
    RS2_FRAME_METADATA_FRAME_LASER_POWER,
    RS2_FRAME_METADATA_FRAME_LASER_POWER_MODE,
    RS2_FRAME_METADATA_EXPOSURE_PRIORITY,
    RS2_FRAME_METADATA_EXPOSURE_ROI_LEFT,
    RS2_FRAME_METADATA_EXPOSURE_ROI_RIGHT,
    RS2_FRAME_METADATA_EXPOSURE_ROI_TOP,
    RS2_FRAME_METADATA_EXPOSURE_ROI_BOTTOM,
    RS2_FRAME_METADATA_BRIGHTNESS,
    RS2_FRAME_METADATA_CONTRAST,
    RS2_FRAME_METADATA_SATURATION,
    RS2_FRAME_METADATA_SHARPNESS,
    RS2_FRAME_METADATA_AUTO_WHITE_BALANCE_TEMPERATURE,
    RS2_FRAME_METADATA_BACKLIGHT_COMPENSATION,
    RS2_FRAME_METADATA_HUE,
    RS2_FRAME_METADATA_GAMMA,
    RS2_FRAME_METADATA_MANUAL_WHITE_BALANCE,
    RS2_FRAME_METADATA_POWER_LINE_FREQUENCY,
    RS2_FRAME_METADATA_LOW_LIGHT_COMPENSATION,
    RS2_FRAME_METADATA_FRAME_EMITTER_MODE,
    RS2_FRAME_METADATA_FRAME_LED_POWER,
    RS2_FRAME_METADATA_RAW_FRAME_SIZE,
    RS2_FRAME_METADATA_GPIO_INPUT_DATA,
    RS2_FRAME_METADATA_SEQUENCE_NAME,
    RS2_FRAME_METADATA_SEQUENCE_ID,
    RS2_FRAME_METADATA_SEQUENCE_SIZE,
    RS2_FRAME_METADATA_TRIGGER,
    RS2_FRAME_METADATA_PRESET,
    RS2_FRAME_METADATA_INPUT_WIDTH,
    RS2_FRAME_METADATA_INPUT_HEIGHT,
    RS2_FRAME_METADATA_SUB_PRESET_INFO,
    RS2_FRAME_METADATA_CALIB_INFO,
    RS2_FRAME_METADATA_CRC,
    RS2_FRAME_METADATA_COUNT
} rs2_frame_metadata_value;

typedef enum rs2_calib_target_type
{
    RS2_CALIB_TARGET_RECT_GAUSSIAN_DOT_VERTICES,
    RS2_CALIB_TARGET_ROI_RECT_GAUSSIAN_DOT_VERTICES,
    RS2_CALIB_TARGET_POS_GAUSSIAN_DOT_VERTICES,
    RS2_CALIB_TARGET_COUNT
} rs2_calib_target_type;

typedef enum rs2_option
{
    RS2_OPTION_BACKLIGHT_COMPENSATION,
    RS2_OPTION_BRIGHTNESS,
    RS2_OPTION_CONTRAST,
    RS2_OPTION_EXPOSURE,
    RS2_OPTION_GAIN,
    RS2_OPTION_GAMMA,
    RS2_OPTION_HUE,
    RS2_OPTION_SATURATION,
    RS2_OPTION_SHARPNESS,
    RS2_OPTION_WHITE_BALANCE,
    RS2_OPTION_ENABLE_AUTO_EXPOSURE,
    RS2_OPTION_ENABLE_AUTO_WHITE_BALANCE,
    RS2_OPTION_VISUAL_PRESET,
    RS2_OPTION_LASER_POWER,
    RS2_OPTION_ACCURACY,
    RS2_OPTION_MOTION_RANGE,
    RS2_OPTION_FILTER_OPTION,
    RS2_OPTION_CONFIDENCE_THRESHOLD,
    RS2_OPTION_EMITTER_ENABLED,
    RS2_OPTION_FRAMES_QUEUE_SIZE,
    RS2_OPTION_TOTAL_FRAME_DROPS,
    RS2_OPTION_AUTO_EXPOSURE_MODE,
    RS2_OPTION_POWER_LINE_FREQUENCY,
    RS2_OPTION_ASIC_TEMPERATURE,
    RS2_OPTION_ERROR_POLLING_ENABLED,
    RS2_OPTION_PROJECTOR_TEMPERATURE,
    RS2_OPTION_OUTPUT_TRIGGER_ENABLED,
    RS2_OPTION_MOTION_MODULE_TEMPERATURE,
    RS2_OPTION_DEPTH_UNITS,
    RS2_OPTION_ENABLE_MOTION_CORRECTION,
    RS2_OPTION_AUTO_EXPOSURE_PRIORITY,
    RS2_OPTION_COLOR_SCHEME,
    RS2_OPTION_HISTOGRAM_EQUALIZATION_ENABLED,
    RS2_OPTION_MIN_DISTANCE,
    RS2_OPTION_MAX_DISTANCE,
    RS2_OPTION_TEXTURE_SOURCE,
    RS2_OPTION_FILTER_MAGNITUDE,
    RS2_OPTION_FILTER_SMOOTH_ALPHA,
    RS2_OPTION_FILTER_SMOOTH_DELTA,
    RS2_OPTION_HOLES_FILL,
    RS2_OPTION_STEREO_BASELINE,
    RS2_OPTION_AUTO_EXPOSURE_CONVERGE_STEP,
    RS2_OPTION_INTER_CAM_SYNC_MODE,
    RS2_OPTION_STREAM_FILTER,
    RS2_OPTION_STREAM_FORMAT_FILTER,
    RS2_OPTION_STREAM_INDEX_FILTER,
    RS2_OPTION_EMITTER_ON_OFF,
    RS2_OPTION_ZERO_ORDER_POINT_X,
    RS2_OPTION_ZERO_ORDER_POINT_Y,
    RS2_OPTION_LLD_TEMPERATURE,
    RS2_OPTION_MC_TEMPERATURE,
    RS2_OPTION_MA_TEMPERATURE,
    RS2_OPTION_HARDWARE_PRESET,
    RS2_OPTION_GLOBAL_TIME_ENABLED,
    RS2_OPTION_APD_TEMPERATURE,
    RS2_OPTION_ENABLE_MAPPING,
    RS2_OPTION_ENABLE_RELOCALIZATION,
    RS2_OPTION_ENABLE_POSE_JUMPING,
    RS2_OPTION_ENABLE_DYNAMIC_CALIBRATION,
    RS2_OPTION_DEPTH_OFFSET,
    RS2_OPTION_LED_POWER,
    RS2_OPTION_ZERO_ORDER_ENABLED,
    RS2_OPTION_ENABLE_MAP_PRESERVATION,
    RS2_OPTION_FREEFALL_DETECTION_ENABLED,
    RS2_OPTION_AVALANCHE_PHOTO_DIODE,
    RS2_OPTION_POST_PROCESSING_SHARPENING,
    RS2_OPTION_PRE_PROCESSING_SHARPENING,
    RS2_OPTION_NOISE_FILTERING,
    RS2_OPTION_INVALIDATION_BYPASS,
    RS2_OPTION_AMBIENT_LIGHT,
    RS2_OPTION_DIGITAL_GAIN = RS2_OPTION_AMBIENT_LIGHT,
    RS2_OPTION_SENSOR_MODE,
    RS2_OPTION_EMITTER_ALWAYS_ON,
    RS2_OPTION_THERMAL_COMPENSATION,
    RS2_OPTION_TRIGGER_CAMERA_ACCURACY_HEALTH,
    RS2_OPTION_RESET_CAMERA_ACCURACY_HEALTH,
    RS2_OPTION_HOST_PERFORMANCE,
    RS2_OPTION_HDR_ENABLED,
    RS2_OPTION_SEQUENCE_NAME,
    RS2_OPTION_SEQUENCE_SIZE,
    RS2_OPTION_SEQUENCE_ID,
    RS2_OPTION_HUMIDITY_TEMPERATURE,
    RS2_OPTION_ENABLE_MAX_USABLE_RANGE,
    RS2_OPTION_ALTERNATE_IR,
    RS2_OPTION_NOISE_ESTIMATION,
    RS2_OPTION_ENABLE_IR_REFLECTIVITY,
    RS2_OPTION_AUTO_EXPOSURE_LIMIT,
    RS2_OPTION_AUTO_GAIN_LIMIT,
    RS2_OPTION_AUTO_RX_SENSITIVITY,
    RS2_OPTION_TRANSMITTER_FREQUENCY,
    RS2_OPTION_VERTICAL_BINNING,
    RS2_OPTION_RECEIVER_SENSITIVITY,
    RS2_OPTION_AUTO_EXPOSURE_LIMIT_TOGGLE,
    RS2_OPTION_AUTO_GAIN_LIMIT_TOGGLE,
    RS2_OPTION_EMITTER_FREQUENCY,
    RS2_OPTION_DEPTH_AUTO_EXPOSURE_MODE,
    RS2_OPTION_OHM_TEMPERATURE,
    RS2_OPTION_SOC_PVT_TEMPERATURE,
    RS2_OPTION_GYRO_SENSITIVITY,
    RS2_OPTION_REGION_OF_INTEREST,
    RS2_OPTION_ROTATION,
    RS2_OPTION_COUNT
} rs2_option;

typedef enum rs2_option_type
{
    RS2_OPTION_TYPE_INTEGER,
    RS2_OPTION_TYPE_FLOAT,
    RS2_OPTION_TYPE_STRING,
    RS2_OPTION_TYPE_BOOLEAN,
    RS2_OPTION_TYPE_RECT,
    RS2_OPTION_TYPE_COUNT
} rs2_option_type;

typedef struct rs2_option_rect
{
    int16_t x1, y1;
    int16_t x2, y2;
} rs2_option_rect;

typedef struct rs2_option_value
{
    rs2_option id;
    int is_valid;
    rs2_option_type type;
    _Pragma("pack(push,1)") union { char const * as_string;
    float as_float;
    int64_t as_integer;
    rs2_option_rect as_rect;
    };
    _Pragma("pack(pop)")
} rs2_option_value;

typedef enum rs2_sr300_visual_preset
{
    RS2_SR300_VISUAL_PRESET_SHORT_RANGE,
    RS2_SR300_VISUAL_PRESET_LONG_RANGE,
    RS2_SR300_VISUAL_PRESET_BACKGROUND_SEGMENTATION,
    RS2_SR300_VISUAL_PRESET_GESTURE_RECOGNITION,
    RS2_SR300_VISUAL_PRESET_OBJECT_SCANNING,
    RS2_SR300_VISUAL_PRESET_FACE_ANALYTICS,
    RS2_SR300_VISUAL_PRESET_FACE_LOGIN,
    RS2_SR300_VISUAL_PRESET_GR_CURSOR,
    RS2_SR300_VISUAL_PRESET_DEFAULT,
    RS2_SR300_VISUAL_PRESET_MID_RANGE,
    RS2_SR300_VISUAL_PRESET_IR_ONLY,
    RS2_SR300_VISUAL_PRESET_COUNT
} rs2_sr300_visual_preset;

typedef enum rs2_rs400_visual_preset
{
    RS2_RS400_VISUAL_PRESET_CUSTOM,
    RS2_RS400_VISUAL_PRESET_DEFAULT,
    RS2_RS400_VISUAL_PRESET_HAND,
    RS2_RS400_VISUAL_PRESET_HIGH_ACCURACY,
    RS2_RS400_VISUAL_PRESET_HIGH_DENSITY,
    RS2_RS400_VISUAL_PRESET_MEDIUM_DENSITY,
    RS2_RS400_VISUAL_PRESET_REMOVE_IR_PATTERN,
    RS2_RS400_VISUAL_PRESET_COUNT
} rs2_rs400_visual_preset;

typedef enum rs2_l500_visual_preset
{
    RS2_L500_VISUAL_PRESET_CUSTOM,
    RS2_L500_VISUAL_PRESET_DEFAULT,
    RS2_L500_VISUAL_PRESET_NO_AMBIENT,
    RS2_L500_VISUAL_PRESET_LOW_AMBIENT,
    RS2_L500_VISUAL_PRESET_MAX_RANGE,
    RS2_L500_VISUAL_PRESET_SHORT_RANGE,
    RS2_L500_VISUAL_PRESET_AUTOMATIC,
    RS2_L500_VISUAL_PRESET_COUNT
} rs2_l500_visual_preset;

typedef enum rs2_sensor_mode
{
    RS2_SENSOR_MODE_VGA,
    RS2_SENSOR_MODE_XGA,
    RS2_SENSOR_MODE_QVGA,
    RS2_SENSOR_MODE_COUNT
} rs2_sensor_mode;

typedef enum rs2_ambient_light
{
    RS2_AMBIENT_LIGHT_NO_AMBIENT = 1,
    RS2_AMBIENT_LIGHT_LOW_AMBIENT = 2
} rs2_ambient_light;

typedef enum rs2_digital_gain
{
    RS2_DIGITAL_GAIN_AUTO = 0,
    RS2_DIGITAL_GAIN_HIGH = 1,
    RS2_DIGITAL_GAIN_LOW = 2
} rs2_digital_gain;

typedef enum rs2_host_perf_mode
{
    RS2_HOST_PERF_DEFAULT = 0,
    RS2_HOST_PERF_LOW = 1,
    RS2_HOST_PERF_HIGH = 2,
    RS2_HOST_PERF_COUNT
} rs2_host_perf_mode;

typedef enum rs2_emitter_frequency_mode
{
    RS2_EMITTER_FREQUENCY_57_KHZ = 0,
    RS2_EMITTER_FREQUENCY_91_KHZ = 1,
    RS2_EMITTER_FREQUENCY_COUNT
} rs2_emitter_frequency_mode;

typedef enum rs2_depth_auto_exposure_mode
{
    RS2_DEPTH_AUTO_EXPOSURE_REGULAR = 0,
    RS2_DEPTH_AUTO_EXPOSURE_ACCELERATED = 1,
    RS2_DEPTH_AUTO_EXPOSURE_COUNT
} rs2_depth_auto_exposure_mode;

typedef enum rs2_gyro_sensitivity
{
    RS2_GYRO_SENSITIVITY_61_0_MILLI_DEG_SEC = 0,
    RS2_GYRO_SENSITIVITY_30_5_MILLI_DEG_SEC = 1,
    RS2_GYRO_SENSITIVITY_15_3_MILLI_DEG_SEC = 2,
    RS2_GYRO_SENSITIVITY_7_6_MILLI_DEG_SEC = 3,
    RS2_GYRO_SENSITIVITY_3_8_MILLI_DEG_SEC = 4,
    RS2_GYRO_SENSITIVITY_COUNT
} rs2_gyro_sensitivity;

typedef enum rs2_playback_status
{
    RS2_PLAYBACK_STATUS_UNKNOWN,
    RS2_PLAYBACK_STATUS_PLAYING,
    RS2_PLAYBACK_STATUS_PAUSED,
    RS2_PLAYBACK_STATUS_STOPPED,
    RS2_PLAYBACK_STATUS_COUNT
} rs2_playback_status;

typedef void (*rs2_playback_status_changed_callback_ptr)(rs2_playback_status);

#ifndef RSBAG_CAPI_TYPES_ONLY
rs2_frame* rs2_allocate_composite_frame(rs2_source* source, rs2_frame** frames, int count, rs2_error** error);
rs2_frame* rs2_allocate_points(rs2_source* source, const rs2_stream_profile* new_stream, rs2_frame* original, rs2_error** error);
rs2_frame* rs2_allocate_synthetic_motion_frame(rs2_source* source, const rs2_stream_profile* new_stream, rs2_frame* original, rs2_extension frame_type, rs2_error** error);
rs2_frame* rs2_allocate_synthetic_video_frame(rs2_source* source, const rs2_stream_profile* new_stream, rs2_frame* original, int new_bpp, int new_width, int new_height, int new_stride, rs2_extension frame_type, rs2_error** error);
const char* rs2_ambient_light_to_string(rs2_ambient_light preset);
const rs2_raw_data_buffer* rs2_build_debug_protocol_command(rs2_device* device, unsigned opcode, unsigned param1, unsigned param2, unsigned param3, unsigned param4, void* data, unsigned size_of_data, rs2_error** error);
float rs2_calculate_target_z(rs2_device* device, rs2_frame_queue* queue1, rs2_frame_queue* queue2, rs2_frame_queue* queue3, float target_width, float target_height, rs2_update_progress_callback_ptr progress_callback, void* client_data, rs2_error** error);
float rs2_calculate_target_z_cpp(rs2_device* device, rs2_frame_queue* queue1, rs2_frame_queue* queue2, rs2_frame_queue* queue3, float target_width, float target_height, rs2_update_progress_callback* callback, rs2_error** error);
const char* rs2_calib_target_type_to_string(rs2_calib_target_type type);
const char* rs2_calibration_status_to_string( rs2_calibration_status );
const char* rs2_calibration_type_to_string( rs2_calibration_type );
const char* rs2_camera_info_to_string(rs2_camera_info info);
int rs2_check_firmware_compatibility(const rs2_device* device, const void* fw_image, int fw_image_size, rs2_error** error);
rs2_stream_profile* rs2_clone_stream_profile(const rs2_stream_profile* mode, rs2_stream stream, int index, rs2_format format, rs2_error** error);
rs2_stream_profile* rs2_clone_video_stream_profile(const rs2_stream_profile* mode, rs2_stream stream, int index, rs2_format format, int width, int height, const rs2_intrinsics* intr, rs2_error** error);
void rs2_close(const rs2_sensor* sensor, rs2_error** error);
int rs2_config_can_resolve(rs2_config* config, rs2_pipeline* pipe, rs2_error ** error);
void rs2_config_disable_all_streams(rs2_config* config, rs2_error ** error);
void rs2_config_disable_indexed_stream(rs2_config* config, rs2_stream stream, int index, rs2_error ** error);
void rs2_config_disable_stream(rs2_config* config, rs2_stream stream, rs2_error ** error);
void rs2_config_enable_all_stream(rs2_config* config, rs2_error ** error);
void rs2_config_enable_device(rs2_config* config, const char* serial, rs2_error ** error);
void rs2_config_enable_device_from_file(rs2_config* config, const char* file, rs2_error ** error);
void rs2_config_enable_device_from_file_repeat_option(rs2_config* config, const char* file, int repeat_playback, rs2_error ** error);
void rs2_config_enable_record_to_file(rs2_config* config, const char* file, rs2_error ** error);
void rs2_config_enable_stream(rs2_config* config, rs2_stream stream, int index, int width, int height, rs2_format format, int framerate, rs2_error** error);
rs2_pipeline_profile* rs2_config_resolve(rs2_config* config, rs2_pipeline* pipe, rs2_error ** error);
void rs2_connect_tm2_controller(const rs2_device* device, const unsigned char* mac_addr, rs2_error** error);
rs2_device* rs2_context_add_device(rs2_context* ctx, const char* file, rs2_error** error);
void rs2_context_add_software_device(rs2_context* ctx, rs2_device* dev, rs2_error** error);
void rs2_context_remove_device(rs2_context* ctx, const char* file, rs2_error** error);
void rs2_context_unload_tracking_module(rs2_context* ctx, rs2_error** error);
rs2_processing_block* rs2_create_align(rs2_stream align_to, rs2_error** error);
rs2_processing_block* rs2_create_colorizer(rs2_error** error);
rs2_config* rs2_create_config(rs2_error** error);
rs2_context* rs2_create_context(int api_version, rs2_error** error);
rs2_context* rs2_create_context_ex(int api_version, const char * json_settings, rs2_error** error);
rs2_processing_block* rs2_create_decimation_filter_block(rs2_error** error);
rs2_device* rs2_create_device(const rs2_device_list* info_list, int index, rs2_error** error);
rs2_device* rs2_create_device_from_sensor(const rs2_sensor* sensor, rs2_error** error);
rs2_device_hub* rs2_create_device_hub(const rs2_context* context, rs2_error** error);
rs2_processing_block* rs2_create_disparity_transform_block(unsigned char transform_to_disparity, rs2_error** error);
rs2_error * rs2_create_error(const char* what, const char* name, const char* args, rs2_exception_type type);
const rs2_raw_data_buffer* rs2_create_flash_backup(const rs2_device* device, rs2_update_progress_callback_ptr callback, void* client_data, rs2_error** error);
const rs2_raw_data_buffer* rs2_create_flash_backup_cpp(const rs2_device* device, rs2_update_progress_callback* callback, rs2_error** error);
rs2_frame_queue* rs2_create_frame_queue(int capacity, rs2_error** error);
rs2_processing_block* rs2_create_hdr_merge_processing_block(rs2_error** error);
rs2_processing_block* rs2_create_hole_filling_filter_block(rs2_error** error);
rs2_processing_block* rs2_create_huffman_depth_decompress_block(rs2_error** error);
rs2_pipeline* rs2_create_pipeline(rs2_context* ctx, rs2_error ** error);
rs2_device* rs2_create_playback_device(const char* file, rs2_error** error);
rs2_processing_block* rs2_create_pointcloud(rs2_error** error);
rs2_processing_block* rs2_create_processing_block(rs2_frame_processor_callback* proc, rs2_error** error);
rs2_processing_block* rs2_create_processing_block_fptr(rs2_frame_processor_callback_ptr proc, void * context, rs2_error** error);
rs2_processing_block* rs2_create_rates_printer_block(rs2_error** error);
rs2_device* rs2_create_record_device(const rs2_device* device, const char* file, rs2_error** error);
rs2_device* rs2_create_record_device_ex(const rs2_device* device, const char* file, int compression_enabled, rs2_error** error);
rs2_sensor* rs2_create_sensor(const rs2_sensor_list* list, int index, rs2_error** error);
rs2_processing_block* rs2_create_sequence_id_filter(rs2_error** error);
rs2_processing_block* rs2_create_spatial_filter_block(rs2_error** error);
rs2_processing_block* rs2_create_sync_processing_block(rs2_error** error);
rs2_processing_block* rs2_create_temporal_filter_block(rs2_error** error);
rs2_processing_block* rs2_create_threshold(rs2_error** error);
rs2_processing_block* rs2_create_units_transform(rs2_error** error);
rs2_processing_block* rs2_create_y411_decoder(rs2_error** error);
rs2_processing_block* rs2_create_yuy_decoder(rs2_error** error);
rs2_processing_block* rs2_create_zero_order_invalidation_block(rs2_error** error);
void rs2_delete_config(rs2_config* config);
void rs2_delete_context(rs2_context* context);
void rs2_delete_device(rs2_device* device);
void rs2_delete_device_hub(const rs2_device_hub* hub);
void rs2_delete_device_list(rs2_device_list* info_list);
void rs2_delete_frame_queue(rs2_frame_queue* queue);
void rs2_delete_option_value( rs2_option_value const * handle );
void rs2_delete_options_list(rs2_options_list* list);
void rs2_delete_pipeline(rs2_pipeline* pipe);
void rs2_delete_pipeline_profile(rs2_pipeline_profile* profile);
void rs2_delete_processing_block(rs2_processing_block* block);
void rs2_delete_raw_data(const rs2_raw_data_buffer* buffer);
void rs2_delete_recommended_processing_blocks(rs2_processing_block_list* list);
void rs2_delete_sensor(rs2_sensor* sensor);
void rs2_delete_sensor_list(rs2_sensor_list* info_list);
void rs2_delete_stream_profile(rs2_stream_profile* mode);
void rs2_delete_stream_profiles_list(rs2_stream_profile_list* list);
const char* rs2_depth_auto_exposure_mode_to_string( rs2_depth_auto_exposure_mode mode );
float rs2_depth_frame_get_distance(const rs2_frame* frame_ref, int x, int y, rs2_error** error);
float rs2_depth_frame_get_units( const rs2_frame* frame, rs2_error** error );
float rs2_depth_stereo_frame_get_baseline(const rs2_frame* frame_ref, rs2_error** error);
int rs2_device_hub_is_device_connected(const rs2_device_hub* hub, const rs2_device* device, rs2_error** error);
rs2_device* rs2_device_hub_wait_for_device(const rs2_device_hub* hub, rs2_error** error);
int rs2_device_is_connected( const rs2_device * device, rs2_error ** error );
int rs2_device_list_contains(const rs2_device_list* info_list, const rs2_device* device, rs2_error** error);
const char* rs2_digital_gain_to_string(rs2_digital_gain preset);
void rs2_disconnect_tm2_controller(const rs2_device* device, int id, rs2_error** error);
const char* rs2_distortion_to_string(rs2_distortion distortion);
int rs2_embedded_frames_count(rs2_frame* composite, rs2_error** error);
const char* rs2_emitter_frequency_mode_to_string( rs2_emitter_frequency_mode mode );
void rs2_enable_rolling_log_file( unsigned max_size, rs2_error ** error );
void rs2_enqueue_frame(rs2_frame* frame, void* queue);
void rs2_enter_update_state(const rs2_device* device, rs2_error** error);
const char* rs2_exception_type_to_string(rs2_exception_type type);
const rs2_raw_data_buffer* rs2_export_localization_map(const rs2_sensor* sensor, rs2_error** error);
void rs2_export_to_ply(const rs2_frame* frame, const char* fname, rs2_frame* texture, rs2_error** error);
const char* rs2_extension_to_string(rs2_extension type);
const char* rs2_extension_type_to_string(rs2_extension type);
rs2_frame* rs2_extract_frame(rs2_frame* composite, int index, rs2_error** error);
void rs2_extract_target_dimensions(const rs2_frame* frame, rs2_calib_target_type calib_type, float * target_dims, unsigned int target_dims_size, rs2_error** error);
const char* rs2_format_to_string(rs2_format format);
void rs2_frame_add_ref(rs2_frame* frame, rs2_error ** error);
const char* rs2_frame_metadata_to_string(rs2_frame_metadata_value metadata);
const char* rs2_frame_metadata_value_to_string(rs2_frame_metadata_value metadata);
int rs2_frame_queue_size(rs2_frame_queue* queue, rs2_error** error);
void rs2_free_error (rs2_error* error);
rs2_stream_profile_list* rs2_get_active_streams(rs2_sensor* sensor, rs2_error** error);
int rs2_get_api_version(rs2_error** error);
const rs2_raw_data_buffer* rs2_get_calibration_config(rs2_device* device, rs2_error** error);
const rs2_raw_data_buffer* rs2_get_calibration_table(const rs2_device* dev, rs2_error** error);
rs2_stream_profile_list * rs2_get_debug_stream_profiles( rs2_sensor * sensor, rs2_error ** error );
float rs2_get_depth_scale(rs2_sensor* sensor, rs2_error** error);
int rs2_get_device_count(const rs2_device_list* info_list, rs2_error** error);
const char* rs2_get_device_info(const rs2_device* device, rs2_camera_info info, rs2_error** error);
const char* rs2_get_error_message (const rs2_error* error);
void rs2_get_extrinsics(const rs2_stream_profile* from, const rs2_stream_profile* to, rs2_extrinsics* extrin, rs2_error** error);
const char* rs2_get_failed_args (const rs2_error* error);
const char* rs2_get_failed_function (const rs2_error* error);
int rs2_get_frame_bits_per_pixel(const rs2_frame* frame, rs2_error** error);
const void* rs2_get_frame_data(const rs2_frame* frame, rs2_error** error);
int rs2_get_frame_data_size(const rs2_frame* frame, rs2_error** error);
int rs2_get_frame_height(const rs2_frame* frame, rs2_error** error);
rs2_metadata_type rs2_get_frame_metadata(const rs2_frame* frame, rs2_frame_metadata_value frame_metadata, rs2_error** error);
unsigned long long rs2_get_frame_number(const rs2_frame* frame, rs2_error** error);
int rs2_get_frame_points_count(const rs2_frame* frame, rs2_error** error);
rs2_sensor* rs2_get_frame_sensor(const rs2_frame* frame, rs2_error** error);
const rs2_stream_profile* rs2_get_frame_stream_profile(const rs2_frame* frame, rs2_error** error);
int rs2_get_frame_stride_in_bytes(const rs2_frame* frame, rs2_error** error);
rs2_pixel* rs2_get_frame_texture_coordinates(const rs2_frame* frame, rs2_error** error);
rs2_time_t rs2_get_frame_timestamp(const rs2_frame* frame, rs2_error** error);
rs2_timestamp_domain rs2_get_frame_timestamp_domain(const rs2_frame* frameset, rs2_error** error);
rs2_vertex* rs2_get_frame_vertices(const rs2_frame* frame, rs2_error** error);
int rs2_get_frame_width(const rs2_frame* frame, rs2_error** error);
const char * rs2_get_full_log_message( rs2_log_message const * msg, rs2_error** error );
rs2_exception_type rs2_get_librealsense_exception_type(const rs2_error* error);
const char * rs2_get_log_message_filename( rs2_log_message const * msg, rs2_error** error );
unsigned rs2_get_log_message_line_number( rs2_log_message const * msg, rs2_error** error );
float rs2_get_max_usable_depth_range(rs2_sensor const * sensor, rs2_error** error);
void rs2_get_motion_intrinsics(const rs2_stream_profile* mode, rs2_motion_device_intrinsic * intrinsics, rs2_error ** error);
rs2_notification_category rs2_get_notification_category(rs2_notification* notification, rs2_error** error);
const char* rs2_get_notification_description(rs2_notification* notification, rs2_error** error);
const char* rs2_get_notification_serialized_data(rs2_notification* notification, rs2_error** error);
rs2_log_severity rs2_get_notification_severity(rs2_notification* notification, rs2_error** error);
rs2_time_t rs2_get_notification_timestamp(rs2_notification* notification, rs2_error** error);
float rs2_get_option(const rs2_options* options, rs2_option option, rs2_error** error);
const char* rs2_get_option_description(const rs2_options* options, rs2_option option, rs2_error ** error);
rs2_option rs2_get_option_from_list(const rs2_options_list* options, int i, rs2_error** error);
const char* rs2_get_option_name(const rs2_options* options, rs2_option option, rs2_error** error);
void rs2_get_option_range(const rs2_options* sensor, rs2_option option, float* min, float* max, float* step, float* def, rs2_error** error);
rs2_option_value const * rs2_get_option_value( const rs2_options * options, rs2_option option_id, rs2_error ** error );
const char* rs2_get_option_value_description(const rs2_options* options, rs2_option option, float value, rs2_error ** error);
rs2_option_value const * rs2_get_option_value_from_list( const rs2_options_list * options, int i, rs2_error ** error );
rs2_options_list* rs2_get_options_list(const rs2_options* options, rs2_error** error);
int rs2_get_options_list_size(const rs2_options_list* options, rs2_error** error);
rs2_processing_block* rs2_get_processing_block(const rs2_processing_block_list* list, int index, rs2_error** error);
const char* rs2_get_processing_block_info(const rs2_processing_block* block, rs2_camera_info info, rs2_error** error);
const unsigned char* rs2_get_raw_data(const rs2_raw_data_buffer* buffer, rs2_error** error);
int rs2_get_raw_data_size(const rs2_raw_data_buffer* buffer, rs2_error** error);
const char * rs2_get_raw_log_message( rs2_log_message const * msg, rs2_error** error );
rs2_processing_block_list* rs2_get_recommended_processing_blocks(rs2_sensor* sensor, rs2_error** error);
int rs2_get_recommended_processing_blocks_count(const rs2_processing_block_list* list, rs2_error** error);
void rs2_get_region_of_interest(const rs2_sensor* sensor, int* min_x, int* min_y, int* max_x, int* max_y, rs2_error** error);
const char* rs2_get_sensor_info(const rs2_sensor* sensor, rs2_camera_info info, rs2_error** error);
int rs2_get_sensors_count(const rs2_sensor_list* info_list, rs2_error** error);
int rs2_get_static_node(const rs2_sensor* sensor, const char* guid, rs2_vector *pos, rs2_quaternion *orient, rs2_error** error);
float rs2_get_stereo_baseline(rs2_sensor* sensor, rs2_error** error);
const rs2_stream_profile* rs2_get_stream_profile(const rs2_stream_profile_list* list, int index, rs2_error** error);
void rs2_get_stream_profile_data(const rs2_stream_profile* mode, rs2_stream* stream, rs2_format* format, int* index, int* unique_id, int* framerate, rs2_error** error);
const char * rs2_get_stream_profile_name( const rs2_stream_profile * profile, rs2_error ** error );
rs2_stream_profile_list* rs2_get_stream_profiles(rs2_sensor* sensor, rs2_error** error);
int rs2_get_stream_profiles_count(const rs2_stream_profile_list* list, rs2_error** error);
rs2_time_t rs2_get_time( rs2_error** error);
void rs2_get_video_stream_intrinsics(const rs2_stream_profile* mode, rs2_intrinsics* intrinsics, rs2_error** error);
void rs2_get_video_stream_resolution(const rs2_stream_profile* mode, int* width, int* height, rs2_error** error);
const char * rs2_gyro_sensitivity_to_string( rs2_gyro_sensitivity mode );
void rs2_hardware_reset(const rs2_device * device, rs2_error ** error);
const char* rs2_host_perf_mode_to_string( rs2_host_perf_mode perf );
void rs2_hw_monitor_get_opcode_string(int opcode, char* buffer, size_t buffer_size,rs2_device* device, rs2_error** error);
int rs2_import_localization_map(const rs2_sensor* sensor, const unsigned char* lmap_blob, unsigned int blob_size, rs2_error** error);
int rs2_is_device_extendable_to(const rs2_device* device, rs2_extension extension, rs2_error ** error);
int rs2_is_frame_extendable_to(const rs2_frame* frame, rs2_extension extension_type, rs2_error ** error);
int rs2_is_option_read_only(const rs2_options* options, rs2_option option, rs2_error** error);
int rs2_is_processing_block_extendable_to(const rs2_processing_block* block, rs2_extension extension_type, rs2_error** error);
int rs2_is_sensor_extendable_to(const rs2_sensor* sensor, rs2_extension extension, rs2_error** error);
int rs2_is_stream_profile_default(const rs2_stream_profile* mode, rs2_error** error);
void rs2_keep_frame(rs2_frame* frame);
const char* rs2_l500_visual_preset_to_string(rs2_l500_visual_preset preset);
void rs2_load_json(rs2_device* dev, const void* json_content, unsigned content_size, rs2_error** error);
int rs2_load_wheel_odometry_config(const rs2_sensor* sensor, const unsigned char* odometry_config_buf, unsigned int blob_size, rs2_error** error);
void rs2_log(rs2_log_severity severity, const char * message, rs2_error ** error);
const char* rs2_log_severity_to_string(rs2_log_severity info);
void rs2_log_to_callback( rs2_log_severity min_severity, rs2_log_callback_ptr callback, void * arg, rs2_error** error );
void rs2_log_to_callback_cpp( rs2_log_severity min_severity, rs2_log_callback * callback, rs2_error ** error );
void rs2_log_to_console(rs2_log_severity min_severity, rs2_error ** error);
void rs2_log_to_file(rs2_log_severity min_severity, const char * file_path, rs2_error ** error);
void rs2_loopback_disable(const rs2_device* device, rs2_error** error);
void rs2_loopback_enable(const rs2_device* device, const char* from_file, rs2_error** error);
int rs2_loopback_is_enabled(const rs2_device* device, rs2_error** error);
const char* rs2_matchers_to_string(rs2_matchers stream);
const char* rs2_notification_category_to_string(rs2_notification_category category);
void rs2_open(rs2_sensor* device, const rs2_stream_profile* profile, rs2_error** error);
void rs2_open_multiple(rs2_sensor* device, const rs2_stream_profile** profiles, int count, rs2_error** error);
rs2_option rs2_option_from_string( const char * option_name );
const char* rs2_option_to_string(rs2_option option);
const char * rs2_option_type_to_string( rs2_option_type type );
void rs2_override_extrinsics( const rs2_sensor* sensor, const rs2_extrinsics* extrinsics, rs2_error** error );
void rs2_override_intrinsics( const rs2_sensor* sensor, const rs2_intrinsics* intrinsics, rs2_error** error );
rs2_pipeline_profile* rs2_pipeline_get_active_profile(rs2_pipeline* pipe, rs2_error ** error);
int rs2_pipeline_poll_for_frames(rs2_pipeline* pipe, rs2_frame** output_frame, rs2_error ** error);
rs2_device* rs2_pipeline_profile_get_device(rs2_pipeline_profile* profile, rs2_error ** error);
rs2_stream_profile_list* rs2_pipeline_profile_get_streams(rs2_pipeline_profile* profile, rs2_error** error);
void rs2_pipeline_set_device( rs2_pipeline * pipe, rs2_device * device, rs2_error ** error );
rs2_pipeline_profile* rs2_pipeline_start(rs2_pipeline* pipe, rs2_error ** error);
rs2_pipeline_profile* rs2_pipeline_start_with_callback(rs2_pipeline* pipe, rs2_frame_callback_ptr on_frame, void* user, rs2_error ** error);
rs2_pipeline_profile* rs2_pipeline_start_with_callback_cpp(rs2_pipeline* pipe, rs2_frame_callback* callback, rs2_error ** error);
rs2_pipeline_profile* rs2_pipeline_start_with_config(rs2_pipeline* pipe, rs2_config* config, rs2_error ** error);
rs2_pipeline_profile* rs2_pipeline_start_with_config_and_callback(rs2_pipeline* pipe, rs2_config* config, rs2_frame_callback_ptr on_frame, void* user, rs2_error ** error);
rs2_pipeline_profile* rs2_pipeline_start_with_config_and_callback_cpp(rs2_pipeline* pipe, rs2_config* config, rs2_frame_callback* callback, rs2_error ** error);
void rs2_pipeline_stop(rs2_pipeline* pipe, rs2_error ** error);
int rs2_pipeline_try_wait_for_frames(rs2_pipeline* pipe, rs2_frame** output_frame, unsigned int timeout_ms, rs2_error ** error);
rs2_frame* rs2_pipeline_wait_for_frames(rs2_pipeline* pipe, unsigned int timeout_ms, rs2_error ** error);
rs2_playback_status rs2_playback_device_get_current_status(const rs2_device* device, rs2_error** error);
const char* rs2_playback_device_get_file_path(const rs2_device* device, rs2_error** error);
int rs2_playback_device_is_real_time(const rs2_device* device, rs2_error** error);
void rs2_playback_device_pause(const rs2_device* device, rs2_error** error);
void rs2_playback_device_resume(const rs2_device* device, rs2_error** error);
void rs2_playback_device_set_playback_speed(const rs2_device* device, float speed, rs2_error** error);
void rs2_playback_device_set_real_time(const rs2_device* device, int real_time, rs2_error** error);
void rs2_playback_device_set_status_changed_callback(const rs2_device* device, rs2_playback_status_changed_callback* callback, rs2_error** error);
void rs2_playback_device_stop(const rs2_device* device, rs2_error** error);
unsigned long long int rs2_playback_get_duration(const rs2_device* device, rs2_error** error);
unsigned long long int rs2_playback_get_position(const rs2_device* device, rs2_error** error);
void rs2_playback_seek(const rs2_device* device, long long int time, rs2_error** error);
const char* rs2_playback_status_to_string(rs2_playback_status status);
int rs2_poll_for_frame(rs2_frame_queue* queue, rs2_frame** output_frame, rs2_error** error);
void rs2_pose_frame_get_pose_data(const rs2_frame* frame, rs2_pose* pose, rs2_error** error);
const rs2_raw_data_buffer* rs2_process_calibration_frame(rs2_device* dev, const rs2_frame* f, float* const health, rs2_update_progress_callback* progress_callback, int timeout_ms, rs2_error** error);
void rs2_process_frame(rs2_processing_block* block, rs2_frame* frame, rs2_error** error);
int rs2_processing_block_register_simple_option(rs2_processing_block* block, rs2_option option_id, float min, float max, float step, float def, rs2_error** error);
rs2_device_list* rs2_query_devices(const rs2_context* context, rs2_error** error);
rs2_device_list* rs2_query_devices_ex(const rs2_context* context, int product_mask, rs2_error** error);
rs2_sensor_list* rs2_query_sensors(const rs2_device* device, rs2_error** error);
const char* rs2_record_device_filename(const rs2_device* device, rs2_error** error);
void rs2_record_device_pause(const rs2_device* device, rs2_error** error);
void rs2_record_device_resume(const rs2_device* device, rs2_error** error);
void rs2_register_calibration_change_callback( rs2_device* dev, rs2_calibration_change_callback_ptr callback, void* user, rs2_error** error );
void rs2_register_calibration_change_callback_cpp( rs2_device* dev, rs2_calibration_change_callback* callback, rs2_error** error );
void rs2_register_extrinsics(const rs2_stream_profile* from, const rs2_stream_profile* to, rs2_extrinsics extrin, rs2_error** error);
void rs2_release_frame(rs2_frame* frame);
int rs2_remove_static_node(const rs2_sensor* sensor, const char* guid, rs2_error** error);
void rs2_reset_logger( rs2_error ** error);
void rs2_reset_sensor_calibration( rs2_sensor const * sensor, rs2_error** error );
void rs2_reset_to_factory_calibration(const rs2_device* device, rs2_error** e);
const char* rs2_rs400_visual_preset_to_string(rs2_rs400_visual_preset preset);
const rs2_raw_data_buffer* rs2_run_focal_length_calibration(rs2_device* device, rs2_frame_queue* left_queue, rs2_frame_queue* right_queue, float target_width, float target_height, int adjust_both_sides, float* ratio, float* angle, rs2_update_progress_callback_ptr callback, void* client_data, rs2_error** error);
const rs2_raw_data_buffer* rs2_run_focal_length_calibration_cpp(rs2_device* device, rs2_frame_queue* left_queue , rs2_frame_queue* right_queue, float target_width, float target_height, int adjust_both_sides, float* ratio, float* angle, rs2_update_progress_callback * progress_callback, rs2_error** error);
const rs2_raw_data_buffer* rs2_run_on_chip_calibration(rs2_device* device, const void* json_content, int content_size, float* health, rs2_update_progress_callback_ptr callback, void* client_data, int timeout_ms, rs2_error** error);
const rs2_raw_data_buffer* rs2_run_on_chip_calibration_cpp(rs2_device* device, const void* json_content, int content_size, float* health, rs2_update_progress_callback* progress_callback, int timeout_ms, rs2_error** error);
const rs2_raw_data_buffer* rs2_run_tare_calibration(rs2_device* dev, float ground_truth_mm, const void* json_content, int content_size, float* health, rs2_update_progress_callback_ptr callback, void* client_data, int timeout_ms, rs2_error** error);
const rs2_raw_data_buffer* rs2_run_tare_calibration_cpp(rs2_device* dev, float ground_truth_mm, const void* json_content, int content_size, float* health, rs2_update_progress_callback* progress_callback, int timeout_ms, rs2_error** error);
const rs2_raw_data_buffer* rs2_run_uv_map_calibration(rs2_device* device, rs2_frame_queue* left_queue, rs2_frame_queue* color_queue, rs2_frame_queue* depth_queue, int py_px_only, float* health, int health_size, rs2_update_progress_callback_ptr callback, void* client_data, rs2_error** error);
const rs2_raw_data_buffer* rs2_run_uv_map_calibration_cpp(rs2_device* device, rs2_frame_queue* left_queue, rs2_frame_queue* color_queue, rs2_frame_queue* depth_queue, int py_px_only, float * health, int health_size, rs2_update_progress_callback * progress_callback, rs2_error** error);
const rs2_raw_data_buffer* rs2_send_and_receive_raw_data(rs2_device* device, void* raw_data_to_send, unsigned size_of_raw_data_to_send, rs2_error** error);
int rs2_send_wheel_odometry(const rs2_sensor* sensor, char wo_sensor_id, unsigned int frame_num, const rs2_vector translational_velocity, rs2_error** error);
const char* rs2_sensor_mode_to_string(rs2_sensor_mode preset);
rs2_raw_data_buffer* rs2_serialize_json(rs2_device* dev, rs2_error** error);
void rs2_set_calibration_config(rs2_device* device, const char* calibration_config_json_str, rs2_error** error);
void rs2_set_calibration_table(const rs2_device* device, const void* calibration, int calibration_size, rs2_error** error);
void rs2_set_devices_changed_callback(const rs2_context* context, rs2_devices_changed_callback_ptr callback, void* user, rs2_error** error);
void rs2_set_devices_changed_callback_cpp(rs2_context* context, rs2_devices_changed_callback* callback, rs2_error** error);
void rs2_set_extrinsics(const rs2_sensor* from_sensor, const rs2_stream_profile* from_profile, rs2_sensor* to_sensor, const rs2_stream_profile* to_profile, const rs2_extrinsics* extrinsics, rs2_error** error);
void rs2_set_intrinsics(const rs2_sensor* sensor, const rs2_stream_profile* profile , const rs2_intrinsics* intrinsics, rs2_error** error);
void rs2_set_motion_device_intrinsics(const rs2_sensor* sensor, const rs2_stream_profile* profile, const rs2_motion_device_intrinsic* intrinsics, rs2_error** error);
void rs2_set_notifications_callback(const rs2_sensor* sensor, rs2_notification_callback_ptr on_notification, void* user, rs2_error** error);
void rs2_set_notifications_callback_cpp(const rs2_sensor* sensor, rs2_notifications_callback* callback, rs2_error** error);
void rs2_set_option(const rs2_options* options, rs2_option option, float value, rs2_error** error);
void rs2_set_option_value( rs2_options const * options, rs2_option_value const * option_value, rs2_error ** error );
void rs2_set_options_changed_callback( rs2_options * options, rs2_options_changed_callback_ptr callback, rs2_error ** error );
void rs2_set_options_changed_callback_cpp( rs2_options * options, rs2_options_changed_callback * callback, rs2_error ** error );
void rs2_set_region_of_interest(const rs2_sensor* sensor, int min_x, int min_y, int max_x, int max_y, rs2_error** error);
int rs2_set_static_node(const rs2_sensor* sensor, const char* guid, const rs2_vector pos, const rs2_quaternion orient, rs2_error** error);
void rs2_set_stream_profile_data(rs2_stream_profile* mode, rs2_stream stream, int index, rs2_format format, rs2_error** error);
const char* rs2_sr300_visual_preset_to_string(rs2_sr300_visual_preset preset);
void rs2_start(const rs2_sensor* sensor, rs2_frame_callback_ptr on_frame, void* user, rs2_error** error);
void rs2_start_cpp(const rs2_sensor* sensor, rs2_frame_callback* callback, rs2_error** error);
void rs2_start_processing(rs2_processing_block* block, rs2_frame_callback* on_frame, rs2_error** error);
void rs2_start_processing_fptr(rs2_processing_block* block, rs2_frame_callback_ptr on_frame, void* user, rs2_error** error);
void rs2_start_processing_queue(rs2_processing_block* block, rs2_frame_queue* queue, rs2_error** error);
void rs2_start_queue(const rs2_sensor* sensor, rs2_frame_queue* queue, rs2_error** error);
void rs2_stop(const rs2_sensor* sensor, rs2_error** error);
int rs2_stream_profile_is(const rs2_stream_profile* mode, rs2_extension type, rs2_error** error);
const char* rs2_stream_to_string(rs2_stream stream);
int rs2_supports_device_info(const rs2_device* device, rs2_camera_info info, rs2_error** error);
int rs2_supports_frame_metadata(const rs2_frame* frame, rs2_frame_metadata_value frame_metadata, rs2_error** error);
int rs2_supports_option(const rs2_options* options, rs2_option option, rs2_error** error);
int rs2_supports_processing_block_info(const rs2_processing_block* block, rs2_camera_info info, rs2_error** error);
int rs2_supports_sensor_info(const rs2_sensor* sensor, rs2_camera_info info, rs2_error** error);
void rs2_synthetic_frame_ready(rs2_source* source, rs2_frame* frame, rs2_error** error);
const char* rs2_timestamp_domain_to_string(rs2_timestamp_domain info);
void rs2_trigger_device_calibration( rs2_device* dev, rs2_calibration_type type, rs2_error** error );
int rs2_try_wait_for_frame(rs2_frame_queue* queue, unsigned int timeout_ms, rs2_frame** output_frame, rs2_error** error);
void rs2_update_firmware(const rs2_device* device, const void* fw_image, int fw_image_size, rs2_update_progress_callback_ptr callback, void* client_data, rs2_error** error);
void rs2_update_firmware_cpp(const rs2_device* device, const void* fw_image, int fw_image_size, rs2_update_progress_callback* callback, rs2_error** error);
void rs2_update_firmware_unsigned(const rs2_device* device, const void* fw_image, int fw_image_size, rs2_update_progress_callback_ptr callback, void* client_data, int update_mode, rs2_error** error);
void rs2_update_firmware_unsigned_cpp(const rs2_device* device, const void* fw_image, int fw_image_size, rs2_update_progress_callback* callback, int update_mode, rs2_error** error);
rs2_frame* rs2_wait_for_frame(rs2_frame_queue* queue, unsigned int timeout_ms, rs2_error** error);
void rs2_write_calibration(const rs2_device* device, rs2_error** e);
#endif
#ifdef __cplusplus
}
#endif
#endif
