package albedo_test

import (
	"testing"

	"github.com/albedo-agent/albedo/albedo"
)

func TestAWorkspaceMapPutsStoredWorkspacesInTheirFoldersHere(t *testing.T) {
	m, err := albedo.ParseWorkspaceMap("/home/ann/src=/srv/ann:/home/ann/src/big=/data/big/:/=/never")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct{ stored, local string }{
		{"/home/ann/src/x", "/srv/ann/x"},
		{"/home/ann/src", "/srv/ann"},
		{"/home/ann/src/x/deep/er", "/srv/ann/x/deep/er"},
		{"/home/ann/src/big/y", "/data/big/y"},             // the longest folder wins
		{"/home/ann/srcother", "/never/home/ann/srcother"}, // a prefix of a name is no folder
		{"/tmp/x", "/never/tmp/x"},
	}
	for _, tt := range tests {
		if got := m.Local(tt.stored); got != tt.local {
			t.Errorf("Local(%s) = %s; want %s", tt.stored, got, tt.local)
		}
	}
	if got := albedo.WorkspaceMap(nil).Local("/home/ann/src/x"); got != "/home/ann/src/x" {
		t.Errorf("no map moved a workspace to %s", got)
	}
}

func TestParseWorkspaceMapRefusesWhatItCannotMap(t *testing.T) {
	tests := []struct {
		text string
		want int
		ok   bool
	}{
		{"", 0, true},
		{"/a=/b", 1, true},
		{"/a=/b::/c=/d:", 2, true},
		{"/a", 0, false},
		{"a=/b", 0, false},
		{"/a=b", 0, false},
		{"/a=/b:/a/=/c", 0, false},
	}
	for _, tt := range tests {
		m, err := albedo.ParseWorkspaceMap(tt.text)
		if (err == nil) != tt.ok || len(m) != tt.want {
			t.Errorf("ParseWorkspaceMap(%q) = %v, %v; want %d entries, ok %v", tt.text, m, err, tt.want, tt.ok)
		}
	}
}
