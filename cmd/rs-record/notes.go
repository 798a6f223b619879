package main

import (
	"fmt"
	"strings"

	"github.com/rsbag/rsbag/record"
)

// noteFlag collects the notes of a repeated --note KEY=VALUE, for the
// recording's /additional_info.
type noteFlag struct{ p *[]record.Note }

func (n noteFlag) String() string {
	if n.p == nil {
		return ""
	}
	var s []string
	for _, x := range *n.p {
		s = append(s, x.Key+"="+x.Value)
	}
	return strings.Join(s, " ")
}

func (n noteFlag) Set(v string) error {
	k, val, ok := strings.Cut(v, "=")
	if !ok || strings.TrimSpace(k) == "" {
		return fmt.Errorf("want KEY=VALUE with a key, got %q", v)
	}
	*n.p = append(*n.p, record.Note{Key: k, Value: val})
	return nil
}
