package viewer

import (
	"encoding/json"
	"fmt"
	"sort"

	"github.com/rsbag/rsbag/units"
)

// unitTopic is one unit output topic recorded in the bag (package units):
// its outputs' bag times, in order, and their values as the units package
// decodes them (JSON).
type unitTopic struct {
	name    string
	version int
	times   []int64
	values  []json.RawMessage
}

// helloOutput describes a recorded unit output topic to the page.
type helloOutput struct {
	Topic   string `json:"topic"`
	Version int    `json:"version"`
	Count   int    `json:"count"`
}

// stateOutput is the latest output of a topic at or before the position:
// its bag time and value.
type stateOutput struct {
	Topic  string          `json:"topic"`
	TimeNs int64           `json:"tNs"`
	Value  json.RawMessage `json:"value"`
}

// loadOutputs reads the unit outputs recorded in the bag played, sorted by
// topic; none for a bag without any. A value that is not JSON is shown as
// a string.
func (s *Server) loadOutputs() error {
	rec, err := units.ReadRecorded([]string{s.pb.Filename()})
	if err != nil {
		return fmt.Errorf("unit outputs: %w", err)
	}
	for name, rs := range rec.Outputs {
		ut := unitTopic{name: name, version: rec.Versions[name], times: make([]int64, len(rs)), values: make([]json.RawMessage, len(rs))}
		for i, r := range rs {
			ut.times[i], ut.values[i] = int64(r.Time), r.Value
			if !json.Valid(r.Value) {
				ut.values[i], _ = json.Marshal(string(r.Value))
			}
		}
		s.outputs = append(s.outputs, ut)
	}
	sort.Slice(s.outputs, func(i, j int) bool { return s.outputs[i].name < s.outputs[j].name })
	return nil
}

// helloOutputs are the recorded output topics, for the hello message.
func (s *Server) helloOutputs() []helloOutput {
	var out []helloOutput
	for _, ut := range s.outputs {
		out = append(out, helloOutput{Topic: ut.name, Version: ut.version, Count: len(ut.times)})
	}
	return out
}

// outputsAt returns, per recorded topic, its latest output at or before bag
// time pos; a topic with none yet is left out.
func (s *Server) outputsAt(pos int64) []stateOutput {
	var out []stateOutput
	for _, ut := range s.outputs {
		i := sort.Search(len(ut.times), func(i int) bool { return ut.times[i] > pos }) - 1
		if i < 0 {
			continue
		}
		out = append(out, stateOutput{Topic: ut.name, TimeNs: ut.times[i], Value: ut.values[i]})
	}
	return out
}
