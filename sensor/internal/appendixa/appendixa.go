// Package appendixa parses the enum tables of Appendix A of
// realsense-bag-format.md ("A.n rs2_xxx (...): 0 Name, 1 Name, ...").
package appendixa

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// Value is one id/name pair.
type Value struct {
	ID   int
	Name string
}

var (
	enumStart = regexp.MustCompile(`(rs2_[a-z_]+)[^:]*:\s*`)
	item      = regexp.MustCompile(`^(\d+) (.+?)(?:, |\.\s|\.$|$)`)
)

// Parse returns the values of every rs2_ enum of Appendix A, keyed by the
// librealsense type name (e.g. "rs2_stream"), in table order.
func Parse(spec string) (map[string][]Value, error) {
	i := strings.Index(spec, "## Appendix A")
	if i < 0 {
		return nil, fmt.Errorf("appendixa: no Appendix A heading")
	}
	body := spec[i:]
	if j := strings.Index(body[2:], "\n## "); j >= 0 {
		body = body[:j+2]
	}
	// Paragraphs start with "A.n "; lines of a paragraph are joined.
	var paras []string
	for _, line := range strings.Split(body, "\n") {
		line = strings.TrimSpace(line)
		switch {
		case regexp.MustCompile(`^A\.\d+ `).MatchString(line):
			paras = append(paras, regexp.MustCompile(`^A\.\d+ `).ReplaceAllString(line, ""))
		case line == "" || strings.HasPrefix(line, "---"):
			paras = append(paras, "")
		case len(paras) > 0 && paras[len(paras)-1] != "":
			paras[len(paras)-1] += " " + line
		}
	}
	out := map[string][]Value{}
	for _, p := range paras {
		for p != "" {
			loc := enumStart.FindStringSubmatchIndex(p)
			if loc == nil {
				break
			}
			name := p[loc[2]:loc[3]]
			rest := p[loc[1]:]
			var vals []Value
			for {
				m := item.FindStringSubmatch(rest)
				if m == nil {
					break
				}
				id, _ := strconv.Atoi(m[1])
				vals = append(vals, Value{ID: id, Name: m[2]})
				rest = strings.TrimLeft(rest[len(m[0]):], " ")
			}
			if len(vals) == 0 {
				return nil, fmt.Errorf("appendixa: %s: no values", name)
			}
			for k, v := range vals {
				if v.ID != k {
					return nil, fmt.Errorf("appendixa: %s: value %d has id %d, want consecutive ids from 0", name, k, v.ID)
				}
			}
			out[name] = vals
			p = rest
		}
	}
	return out, nil
}
