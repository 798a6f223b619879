package layout_test

import (
	"fmt"

	"github.com/rsbag/rsbag/internal/layout"
	"github.com/rsbag/rsbag/sensor"
)

// The recorder builds topics and times from a stream and a capture time.
func Example_record() {
	topic, _ := layout.FrameDataTopic(0, sensor.StreamDepth, 0)
	fmt.Println(topic, layout.Parse(topic).Kind.Type().Name)
	fmt.Println(layout.OptionValueTopic(0, sensor.OptionEnableAutoExposure))
	fmt.Println(layout.NotificationTopic(0, sensor.NotificationCategoryHardwareEvent))
	fmt.Println(layout.Encoding(sensor.FormatZ16))
	fmt.Println(layout.ToROSTime(0), layout.ToROSTime(1500))
	fmt.Println(layout.FrameStamp(360815.089))
	fmt.Println(layout.FormatFixed(1534232519732.935547))
	// Output:
	// /device_0/sensor_0/Depth_0/image/data sensor_msgs/Image
	// /device_0/sensor_0/option/Enable_Auto_Exposure/value
	// /device_0/sensor_0/notification/Hardware Event
	// mono16
	// {0 1} {0 1500}
	// {360 815089000}
	// 1534232519732.935547
}

// The player parses topics, accepting both option spellings.
func ExampleParse() {
	for _, s := range []string{
		"/device_0/sensor_0/option/Enable Auto Exposure/value",
		"/device_0/sensor_0/option/Enable_Auto_Exposure/value",
		"/device_0/sensor_1/Color_0/tf/0",
		"/device_0/sensor_0/Depth_0/image/data_extra",
	} {
		t := layout.Parse(s)
		o, known := t.Option()
		fmt.Printf("%s sensor=%d stream=%s_%d group=%d option=%q (%v %v)\n", t.Kind, t.Sensor, t.Stream, t.Index, t.Group, t.OptionName, known, o == sensor.OptionEnableAutoExposure)
	}
	// Output:
	// option_value sensor=0 stream=Any_0 group=0 option="Enable Auto Exposure" (true true)
	// option_value sensor=0 stream=Any_0 group=0 option="Enable Auto Exposure" (true true)
	// extrinsics sensor=1 stream=Color_0 group=0 option="" (false false)
	// unknown sensor=0 stream=Any_0 group=0 option="" (false false)
}
