package console

import (
	"testing"

	"github.com/albedo-agent/albedo/albedo/wire"
)

func TestSessionLabelNamesTheFilerAsItWasWhenItFiled(t *testing.T) {
	sessions := map[string]wire.Session{
		"s1": {ID: "s1", Title: "current title"},
		"s2": {ID: "s2", Title: "current title", Name: "grumpy"},
	}
	tests := []struct {
		name                   string
		id, sessionName, filed string
		sessions               map[string]wire.Session
		want                   string
	}{
		{"no filing session", "", "", "", sessions, "an unknown session"},
		{"the title at filing, the same as now", "s1", "", "current title", sessions, "“current title” (s1)"},
		{"the title at filing, changed since", "s1", "", "title then", sessions, "“title then” (s1, now “current title”)"},
		{"no title kept: the current one", "s1", "", "", sessions, "“current title” (s1)"},
		{"a named session", "s2", "grumpy", "current title", sessions, "grumpy “current title” (s2)"},
		{"a name known only from the listing", "s2", "", "title then", sessions, "grumpy “title then” (s2, now “current title”)"},
		{"a session gone, its title kept", "s9", "", "title then", sessions, "“title then” (s9, gone)"},
		{"a session gone, nothing kept", "s9", "", "", sessions, "s9 (gone)"},
		{"sessions not loaded", "s9", "", "", nil, "s9"},
		{"sessions not loaded, the title kept", "s9", "", "title then", nil, "“title then” (s9)"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := sessionLabel(tc.id, tc.sessionName, tc.filed, tc.sessions); got != tc.want {
				t.Errorf("sessionLabel = %q, want %q", got, tc.want)
			}
		})
	}
}
