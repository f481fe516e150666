package main

import (
	"strings"
	"testing"
	"time"

	"github.com/albedo-agent/albedo/albedo/wire"
)

func TestSessionsShowANodeColumnOnlyWhenASessionRunsOnANode(t *testing.T) {
	at := time.Date(2026, 1, 2, 3, 4, 5, 0, time.Local).UnixMilli()
	idle := wire.Session{ID: "s1", Stage: "idle", Provider: "p", Model: "m", Title: "idle one", Workspace: "/w1", UpdatedAt: at}
	running := wire.Session{ID: "s2", Stage: "running", Provider: "p", Model: "m", Title: "busy one", Workspace: "/w2", UpdatedAt: at, Node: "build-box"}
	tests := []struct {
		name     string
		sessions []wire.Session
		want     []string
	}{
		{"no session has a node", []wire.Session{idle}, []string{
			"ID  STATE  UPDATED              PROVIDER/MODEL  TITLE     WORKSPACE",
			"s1  idle   2026-01-02 03:04:05  p/m             idle one  /w1",
		}},
		{"one session runs on a node", []wire.Session{running, idle}, []string{
			"ID  STATE    NODE       UPDATED              PROVIDER/MODEL  TITLE     WORKSPACE",
			"s2  running  build-box  2026-01-02 03:04:05  p/m             busy one  /w2",
			"s1  idle     -          2026-01-02 03:04:05  p/m             idle one  /w1",
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out strings.Builder
			if err := writeSessions(&out, tt.sessions); err != nil {
				t.Fatal(err)
			}
			got := strings.Split(strings.TrimRight(out.String(), "\n"), "\n")
			for i := range got {
				got[i] = strings.TrimRight(got[i], " ")
			}
			if strings.Join(got, "\n") != strings.Join(tt.want, "\n") {
				t.Errorf("table:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(tt.want, "\n"))
			}
		})
	}
}
