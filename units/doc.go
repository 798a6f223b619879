// Package units runs programs made of units, the same handler code live on
// the robot and deterministically over recordings in CI.
//
// A Unit has a name and handlers; units share nothing, and the handlers of
// one unit never run at the same time, so handler code needs no locks. A
// Handler declares its inputs — camera streams (Camera), the
// pipeline's framesets (Framesets), clocks (Clock) and other
// units' output topics —, a synchronizer (All, Equal, Approximate, Rate,
// External) that decides when it fires and with which messages, optional
// and cached (sample and hold) inputs, and the typed output topics
// (Topic[T]) it publishes. Topic and unit names may hold {var} templates
// filled from Unit.Vars: two instances of one unit on two cameras.
//
// NewGraph validates the units as one graph before anything runs: a cycle
// between handlers, a topic nobody publishes and two publishers of one
// topic are errors that name them.
//
// Replay runs a graph over a bag, or the bags of a session,
// deterministically: each recorded message is processed and every handler
// it triggers through the graph runs, in an order fixed by the graph,
// before bag time moves on; clocks and rate handlers tick on bag time.
// Units that do not depend on each other run in parallel, and the outputs
// (Result.WriteLog) are byte for byte the same on every run. An MCAP file
// exported from a bag (ros1 profile) replays as the bag.
//
// Start runs the same graph live, from cameras, the synthetic camera,
// several cameras or real-time playback: a goroutine and a bounded queue
// per unit, drops counted per handler, rate handlers on the wall clock,
// panics reported while the other units go on. With LiveOptions.Record the
// outputs are recorded into the camera's bag (BagTopic, as rsbag_units/Output messages, a
// schema version per topic); Compare replays such a bag and reports the
// first divergence from what was recorded, and Sweep runs variants of a
// graph over one recording and compares them.
//
// Equal and approximate synchronizers match by stamps only, so live and
// replay make the same matches; what cached inputs, All with several inputs
// and rate handlers see live depends on when messages arrive.
package units
