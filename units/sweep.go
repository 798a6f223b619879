package units

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"runtime"
	"sort"
	"sync"
)

// Variant is one version of a graph in a sweep: other parameters, or other
// unit code. New builds the graph (with fresh unit state) for the run.
type Variant struct {
	Name string
	New  func() (*Graph, error)
}

// TopicDiff compares a topic's outputs of a variant with the first
// variant's.
type TopicDiff struct {
	// Count is the number of outputs of the variant, Base the first
	// variant's.
	Count, Base int
	// First is the first divergence from the first variant (values and
	// stamps), nil when the outputs are the same.
	First *Divergence
	// MaxDiff is the largest absolute difference between numeric values
	// (numbers, or arrays and objects of numbers) at the same position,
	// over the positions both have; NaN when the values are not numeric.
	MaxDiff float64
}

// VariantResult is a variant's replay and its comparison with the first
// variant (the baseline).
type VariantResult struct {
	Name   string
	Result *Result
	// Topics compares, per topic either publishes, with the baseline.
	Topics map[string]TopicDiff
}

// Sweep replays the bags through every variant in parallel (at most
// GOMAXPROCS at a time), each deterministically, and compares each
// variant's outputs with the first's. A variant that fails to build or
// replay fails the sweep with an error naming it.
func Sweep(ctx context.Context, bags []string, variants []Variant, opts *ReplayOptions) ([]VariantResult, error) {
	out := make([]VariantResult, len(variants))
	errs := make([]error, len(variants))
	sem := make(chan struct{}, runtime.GOMAXPROCS(0))
	var wg sync.WaitGroup
	for i, v := range variants {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			out[i].Name = v.Name
			g, err := v.New()
			if err == nil {
				out[i].Result, err = Replay(ctx, g, bags, opts)
			}
			if err != nil {
				errs[i] = fmt.Errorf("units: sweep variant %d (%s): %w", i, v.Name, err)
			}
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	if len(out) == 0 {
		return out, nil
	}
	base := out[0].Result.ByTopic()
	for i := range out {
		now := out[i].Result.ByTopic()
		out[i].Topics = map[string]TopicDiff{}
		var topics []string
		for t := range base {
			topics = append(topics, t)
		}
		for t := range now {
			if _, ok := base[t]; !ok {
				topics = append(topics, t)
			}
		}
		sort.Strings(topics)
		for _, t := range topics {
			out[i].Topics[t] = TopicDiff{Count: len(now[t]), Base: len(base[t]), First: diverge(t, base[t], now[t], true), MaxDiff: maxDiff(base[t], now[t])}
		}
	}
	return out, nil
}

// maxDiff is the largest absolute difference between the numbers of two
// output sequences, position by position; NaN when a value is not numeric.
func maxDiff(a, b []Record) float64 {
	var m float64
	for i := range min(len(a), len(b)) {
		x, ok1 := numbers(a[i].Value)
		y, ok2 := numbers(b[i].Value)
		if !ok1 || !ok2 || len(x) != len(y) {
			return math.NaN()
		}
		for k := range x {
			m = max(m, math.Abs(x[k]-y[k]))
		}
	}
	return m
}

// numbers returns the numbers of a JSON value: a number, or an array or
// object of numbers (in key order).
func numbers(raw json.RawMessage) ([]float64, bool) {
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		return nil, false
	}
	switch x := v.(type) {
	case float64:
		return []float64{x}, true
	case []any:
		out := make([]float64, len(x))
		for i, e := range x {
			f, ok := e.(float64)
			if !ok {
				return nil, false
			}
			out[i] = f
		}
		return out, true
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		var out []float64
		for _, k := range keys {
			if f, ok := x[k].(float64); ok {
				out = append(out, f)
			}
		}
		return out, len(out) > 0
	}
	return nil, false
}
