package mcp

import (
	"crypto/sha256"
	"encoding/hex"
	"regexp"
	"strings"
	"testing"
)

// validName is what every provider accepts as a function's name.
var validName = regexp.MustCompile(`^[A-Za-z0-9_-]{1,64}$`)

func TestToolNames(t *testing.T) {
	long := func(c string) string { return strings.Repeat(c, 40) }
	tests := []struct {
		name string
		refs []ToolRef
		want map[ToolRef]string
	}{
		{
			name: "a plain name is mcp_server_tool",
			refs: []ToolRef{{"github", "create_issue"}, {"fs", "read-file"}},
			want: map[ToolRef]string{{"github", "create_issue"}: "mcp_github_create_issue", {"fs", "read-file"}: "mcp_fs_read-file"},
		},
		{
			name: "a character providers refuse gets the hash, so a.b and a_b stay distinct",
			refs: []ToolRef{{"a.b", "x"}, {"a_b", "x"}},
			want: map[ToolRef]string{{"a.b", "x"}: "mcp_a_b_x_" + hash8("a.b/x"), {"a_b", "x"}: "mcp_a_b_x"},
		},
		{
			name: "a name past 64 characters is cut and keeps the hash",
			refs: []ToolRef{{long("s"), long("t")}},
			want: map[ToolRef]string{{long("s"), long("t")}: ("mcp_" + long("s") + "_" + long("t"))[:55] + "_" + hash8(long("s")+"/"+long("t"))},
		},
		{
			name: "two plain names that collide both get the hash",
			refs: []ToolRef{{"a", "b_c"}, {"a_b", "c"}},
			want: map[ToolRef]string{{"a", "b_c"}: "mcp_a_b_c_" + hash8("a/b_c"), {"a_b", "c"}: "mcp_a_b_c_" + hash8("a_b/c")},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := ToolNames(tt.refs)
			for ref, want := range tt.want {
				if got[ref] != want {
					t.Errorf("%s = %q; want %q", ref, got[ref], want)
				}
				if !validName.MatchString(got[ref]) {
					t.Errorf("%s = %q, which providers refuse", ref, got[ref])
				}
			}
			// The same tools in another order get the same names.
			reversed := make([]ToolRef, len(tt.refs))
			for i, r := range tt.refs {
				reversed[len(tt.refs)-1-i] = r
			}
			for ref, name := range ToolNames(reversed) {
				if got[ref] != name {
					t.Errorf("%s is %q in one order and %q in the other", ref, got[ref], name)
				}
			}
		})
	}
}

// hash8 is the short hash a shortened name ends with: the first eight
// hex digits of the SHA-256 of "server/tool".
func hash8(ref string) string {
	sum := sha256.Sum256([]byte(ref))
	return hex.EncodeToString(sum[:])[:8]
}

func TestShortenedNamesDifferByServerAndTool(t *testing.T) {
	a := hashedName(ToolRef{strings.Repeat("s", 40), strings.Repeat("t", 40) + "1"})
	b := hashedName(ToolRef{strings.Repeat("s", 40), strings.Repeat("t", 40) + "2"})
	if a == b || len(a) != MaxToolName {
		t.Errorf("names %q and %q; want two different names of 64 characters", a, b)
	}
}
