package wire

import (
	"slices"
	"testing"
)

func TestATraceListsEachFileOnceInOrder(t *testing.T) {
	trace := &Trace{
		Activities: []Activity{{"read", "b.go"}, {"write", "c.go"}, {"read", "a.go"}, {"read", "b.go"}},
		Changes:    []Change{{"c.go", "modified"}, {"d.go", "created"}, {"c.go", "modified"}},
	}
	for _, tc := range []struct {
		name      string
		trace     *Trace
		read, chg []string
		summary   string
	}{
		{"repeated files", trace, []string{"b.go", "a.go"}, []string{"c.go", "d.go"}, "read b.go, a.go · ~c.go +d.go"},
		{"no trace", nil, nil, nil, ""},
		{"an empty trace", &Trace{}, nil, nil, ""},
	} {
		if got := tc.trace.Read(); !slices.Equal(got, tc.read) {
			t.Errorf("%s: read %q; want %q", tc.name, got, tc.read)
		}
		if got := tc.trace.Changed(); !slices.Equal(got, tc.chg) {
			t.Errorf("%s: changed %q; want %q", tc.name, got, tc.chg)
		}
		if got := tc.trace.Summary(""); got != tc.summary {
			t.Errorf("%s: summary %q; want %q", tc.name, got, tc.summary)
		}
	}
}
