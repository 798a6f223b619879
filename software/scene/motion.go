package scene

// Gravity is standard gravity (m/s²), pointing along the world's +y.
const Gravity = 9.80665

// Motions lists the camera trajectories the synthetic camera moves on
// ("still": the camera does not move; "pan": a slow pan, the yaw swinging
// ±0.5 rad over 12 s with the camera in place; "walk": a handheld walk,
// 0.4 m forward and back over 16 s with steps of 0.9 Hz that bob, sway and
// tilt the camera, and a slow look around); the first is the default.
var Motions = []string{"still", "pan", "walk"}
