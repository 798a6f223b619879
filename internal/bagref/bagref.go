// Package bagref lets the recorder hand a rosbag.Writer a message whose
// large middle part (a frame's pixels) the Writer holds by reference until
// its chunk is compressed, instead of copying it into the chunk buffer,
// without a name in rosbag's public API. Package rosbag sets WriteMessageRef.
package bagref

// WriteMessageRef appends to the *rosbag.Writer w a message of connection
// conn at time t (a rosbag.Time) whose serialization is head, data, tail.
// head and tail are copied before it returns; data is copied, or held by
// reference until its chunk is compressed, so data must not change after
// the call (a sensor.Frame's Data never does) and stays reachable for as
// long as the Writer needs it.
var WriteMessageRef func(w any, conn uint32, t uint64, head, data, tail []byte) error
