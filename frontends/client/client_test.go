package client

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"reflect"
	"testing"

	"github.com/albedo-agent/albedo/albedo/wire"
	"github.com/albedo-agent/albedo/frontends/home"
)

// TestRequests checks that each call sends the request the API expects and
// decodes the answer.
func TestRequests(t *testing.T) {
	forEachTransport(t, func(t *testing.T, client func(home.Connection) *Client) {
		ctx := context.Background()
		tests := []struct {
			name string
			// answer is the fake daemon's JSON answer (status 200).
			answer any
			etag   string
			call   func(c *Client) (any, error)
			// want lists the requests in order: "METHOD path?query".
			want     []string
			wantBody map[string]any
			wantOut  any
		}{
			{
				name:    "sessions",
				answer:  []map[string]any{{"id": "s1", "workspace": "/w", "title": "t"}},
				call:    func(c *Client) (any, error) { return c.Sessions(ctx) },
				want:    []string{"GET /sessions"},
				wantOut: []wire.Session{{ID: "s1", Workspace: "/w", Title: "t"}},
			},
			{
				name:     "create session",
				answer:   map[string]any{"id": "s1", "provider": "p"},
				call:     func(c *Client) (any, error) { return c.CreateSession(ctx, "/w", "p") },
				want:     []string{"POST /sessions"},
				wantBody: map[string]any{"workspace": "/w", "provider": "p"},
				wantOut:  wire.Session{ID: "s1", Provider: "p"},
			},
			{
				name: "session with tail",
				answer: map[string]any{
					"session": map[string]any{"id": "s1"}, "running": true,
					"events":  []map[string]any{{"type": "user", "seq": 1, "text": "hi"}},
					"glances": []map[string]any{{"extension": "model", "model": "m"}},
				},
				call: func(c *Client) (any, error) { return c.Session(ctx, "s1", 0) },
				want: []string{"GET /sessions/s1?tail=0"},
				wantOut: wire.SessionDetail{
					Session: wire.Session{ID: "s1"}, Running: true,
					Events:  []wire.Event{{Type: "user", Seq: 1, Text: "hi"}},
					Glances: []wire.Glance{{"extension": "model", "model": "m"}},
				},
			},
			{
				name:     "send",
				answer:   map[string]any{"queued": true},
				call:     func(c *Client) (any, error) { return c.Send(ctx, "s1", "hello", nil) },
				want:     []string{"POST /sessions/s1/events"},
				wantBody: map[string]any{"content": "hello"},
				wantOut:  true,
			},
			{
				name:   "send with image",
				answer: map[string]any{"queued": false},
				call: func(c *Client) (any, error) {
					return c.Send(ctx, "s1", "look", &wire.Image{MimeType: "image/png", Data: "AAAA", Width: 1, Height: 2, Bytes: 3})
				},
				want: []string{"POST /sessions/s1/events"},
				wantBody: map[string]any{"content": "look", "image": map[string]any{
					"mimeType": "image/png", "data": "AAAA", "width": 1.0, "height": 2.0, "bytes": 3.0,
				}},
				wantOut: false,
			},
			{
				name:    "status",
				answer:  map[string]any{"running": true},
				call:    func(c *Client) (any, error) { return c.Status(ctx, "s1") },
				want:    []string{"GET /sessions/s1/status"},
				wantOut: true,
			},
			{
				name:   "interrupt",
				answer: map[string]any{"running": false},
				call:   func(c *Client) (any, error) { return nil, c.Interrupt(ctx, "s1") },
				want:   []string{"POST /sessions/s1/interrupt"},
			},
			{
				name: "history",
				answer: map[string]any{"items": []map[string]any{{
					"seq": 3, "kind": "tool_result", "call_id": "c", "tool": map[string]any{"name": "python"},
					"content": []map[string]any{{"kind": "json", "field": "result", "value": "{}"}},
				}}},
				call: func(c *Client) (any, error) { return c.History(ctx, "s1") },
				want: []string{"GET /sessions/s1/history"},
				wantOut: []wire.HistoryItem{{
					Seq: 3, Kind: "tool_result", CallID: "c", Tool: &wire.ToolRef{Name: "python"},
					Content: []wire.ContentPart{{Kind: "json", Field: "result", Value: "{}"}},
				}},
			},
			{
				name:    "tree",
				answer:  map[string]any{"items": []map[string]any{{"id": 4, "type": "assistant", "preview": "call python"}}, "hasMore": true},
				call:    func(c *Client) (any, error) { return c.Tree(ctx, "s1", 3, 10) },
				want:    []string{"GET /sessions/s1/tree?after=3&limit=10"},
				wantOut: wire.TreePage{Items: []wire.TreeItem{{ID: 4, Type: "assistant", Preview: "call python"}}, HasMore: true},
			},
			{
				name:    "tree from the start, default page",
				answer:  map[string]any{"items": []map[string]any{}, "hasMore": false},
				call:    func(c *Client) (any, error) { return c.Tree(ctx, "s1", 0, 0) },
				want:    []string{"GET /sessions/s1/tree"},
				wantOut: wire.TreePage{Items: []wire.TreeItem{}},
			},
			{
				name:    "requests after a cursor",
				answer:  map[string]any{"rows": []map[string]any{{"id": 8, "kind": "turn", "outcome": "ok"}}, "next": nil},
				call:    func(c *Client) (any, error) { return c.Requests(ctx, "s1", 7, 2) },
				want:    []string{"GET /sessions/s1/requests?after=7&limit=2"},
				wantOut: wire.RequestPage{Rows: []wire.RequestRow{{ID: 8, Kind: "turn", Outcome: "ok"}}},
			},
			{
				name:     "fork",
				answer:   map[string]any{"id": "s2", "parent_id": "s1", "checkpoint": 4},
				call:     func(c *Client) (any, error) { return c.Fork(ctx, "s1", 4) },
				want:     []string{"POST /sessions/s1/fork"},
				wantBody: map[string]any{"checkpoint": 4.0},
				wantOut:  wire.Session{ID: "s2", ParentID: "s1", Checkpoint: 4},
			},
			{
				name:     "move workspace",
				answer:   map[string]any{"workspace": "/new", "session": map[string]any{"id": "s1", "workspace": "/new"}},
				call:     func(c *Client) (any, error) { return c.MoveWorkspace(ctx, "s1", "/new") },
				want:     []string{"POST /sessions/s1/workspace"},
				wantBody: map[string]any{"workspace": "/new"},
				wantOut:  wire.Session{ID: "s1", Workspace: "/new"},
			},
			{
				name:     "command",
				answer:   map[string]any{"result": map[string]any{"ok": true}},
				call:     func(c *Client) (any, error) { return c.Command(ctx, "s1", "/x", map[string]int{"n": 1}) },
				want:     []string{"POST /sessions/s1/commands"},
				wantBody: map[string]any{"name": "/x", "args": map[string]any{"n": 1.0}},
				wantOut:  json.RawMessage(`{"ok":true}`),
			},
			{
				name:     "switch model",
				answer:   map[string]any{"result": map[string]any{"provider": "p", "model": "m", "protocol": "responses", "effort": nil}},
				call:     func(c *Client) (any, error) { return c.SwitchModel(ctx, "s1", "p", "m") },
				want:     []string{"POST /sessions/s1/commands"},
				wantBody: map[string]any{"name": "/model", "args": map[string]any{"provider": "p", "model": "m"}},
				wantOut:  wire.ModelChoice{Provider: "p", Model: "m", Protocol: "responses"},
			},
			{
				name:    "config",
				answer:  map[string]any{"id": "s1", "name": "n"},
				etag:    `"7"`,
				call:    func(c *Client) (any, error) { return c.Config(ctx, "s1") },
				want:    []string{"GET /sessions/s1?view=configuration"},
				wantOut: wire.Config{ID: "s1", Name: "n", ETag: `"7"`},
			},
			{
				name:     "rename",
				answer:   map[string]any{"id": "s1", "name": "n"},
				etag:     `"7"`,
				call:     func(c *Client) (any, error) { return c.Rename(ctx, "s1", "n") },
				want:     []string{"GET /sessions/s1?view=configuration", "PATCH /sessions/s1?view=configuration If-Match:\"7\""},
				wantBody: map[string]any{"name": "n"},
				wantOut:  wire.Config{ID: "s1", Name: "n", ETag: `"7"`},
			},
			{
				name:    "vents",
				answer:  map[string]any{"items": []map[string]any{{"value": map[string]any{"id": "2", "status": "open"}}}, "next": "2"},
				call:    func(c *Client) (any, error) { return c.Vents(ctx, 1, "5") },
				want:    []string{"GET /extensions/paperclips/items?cursor=5&limit=1"},
				wantOut: wire.VentPage{Items: []wire.Vent{{ID: "2", Status: "open"}}, Next: "2"},
			},
			{
				name:    "vent",
				answer:  map[string]any{"value": map[string]any{"id": "2", "session_id": "s1"}},
				etag:    `"9"`,
				call:    func(c *Client) (any, error) { return c.Vent(ctx, "2") },
				want:    []string{"GET /extensions/paperclips/items/2"},
				wantOut: wire.Vent{ID: "2", SessionID: ptr("s1"), Revision: 9},
			},
			{
				name:     "reply to a vent",
				answer:   map[string]any{"value": map[string]any{"id": "2"}, "notification": map[string]any{"state": "queued"}, "resource": map[string]any{"value": map[string]any{"id": "2", "reply": "ok"}}},
				etag:     `"9"`,
				call:     func(c *Client) (any, error) { return c.ReplyVent(ctx, "2", "ok") },
				want:     []string{"GET /extensions/paperclips/items/2", "PATCH /extensions/paperclips/items/2 If-Match:\"9\""},
				wantBody: map[string]any{"reply": "ok"},
				wantOut:  wire.VentReply{State: "queued", Vent: wire.Vent{ID: "2", Reply: "ok"}},
			},
			{
				name:     "dismiss a vent",
				answer:   map[string]any{"value": map[string]any{"id": "2"}, "resource": map[string]any{"value": map[string]any{"id": "2", "status": "dismissed"}}},
				etag:     `"9"`,
				call:     func(c *Client) (any, error) { return c.DismissVent(ctx, "2") },
				want:     []string{"GET /extensions/paperclips/items/2", "PATCH /extensions/paperclips/items/2 If-Match:\"9\""},
				wantBody: map[string]any{"status": "dismissed"},
				wantOut:  wire.Vent{ID: "2", Status: "dismissed"},
			},
			{
				name:   "delete a vent",
				answer: map[string]any{"value": map[string]any{"id": "2"}},
				etag:   `"9"`,
				call:   func(c *Client) (any, error) { return nil, c.DeleteVent(ctx, "2") },
				want:   []string{"GET /extensions/paperclips/items/2", "DELETE /extensions/paperclips/items/2 If-Match:\"9\""},
			},
			{
				name:   "shutdown",
				answer: map[string]any{"ok": true},
				call:   func(c *Client) (any, error) { return nil, c.Shutdown(ctx) },
				want:   []string{"POST /shutdown"},
			},
			{
				name:    "health",
				answer:  map[string]any{"ok": true, "version": 2, "capabilities": []string{"a"}},
				call:    func(c *Client) (any, error) { return c.Health(ctx) },
				want:    []string{"GET /health"},
				wantOut: wire.Health{OK: true, Version: 2, Capabilities: []string{"a"}},
			},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				c, f := newFakeOf(t, client, func(w http.ResponseWriter, r *http.Request) {
					if tt.etag != "" {
						w.Header().Set("ETag", tt.etag)
					}
					reply(w, http.StatusOK, tt.answer)
				})
				out, err := tt.call(c)
				if err != nil {
					t.Fatalf("call: %v", err)
				}
				reqs := f.requests()
				var got []string
				for _, r := range reqs {
					s := r.Method + " " + r.Path
					if r.Query != "" {
						s += "?" + r.Query
					}
					if r.IfMatch != "" {
						s += " If-Match:" + r.IfMatch
					}
					got = append(got, s)
					if r.Auth != "Bearer tok" {
						t.Errorf("%s: Authorization = %q", s, r.Auth)
					}
				}
				if !reflect.DeepEqual(got, tt.want) {
					t.Errorf("requests = %q, want %q", got, tt.want)
				}
				if tt.wantBody != nil && !reflect.DeepEqual(reqs[len(reqs)-1].Body, tt.wantBody) {
					t.Errorf("body = %v, want %v", reqs[len(reqs)-1].Body, tt.wantBody)
				}
				if tt.wantOut != nil && !reflect.DeepEqual(out, tt.wantOut) {
					t.Errorf("result = %#v, want %#v", out, tt.wantOut)
				}
			})
		}
	})
}

func ptr(s string) *string { return &s }

// TestErrors checks that an error answer becomes an *Error that keeps the
// daemon's code, message and details, wrapped with what was being done.
func TestErrors(t *testing.T) {
	forEachTransport(t, func(t *testing.T, client func(home.Connection) *Client) {
		c, _ := newFakeOf(t, client, func(w http.ResponseWriter, r *http.Request) {
			reply(w, http.StatusConflict, map[string]any{"error": "workspace /old is missing", "code": "workspace_missing", "workspace": "/old"})
		})
		_, err := c.Send(context.Background(), "s1", "hi", nil)
		var e *Error
		if !errors.As(err, &e) {
			t.Fatalf("err = %v, want an *Error", err)
		}
		if e.Status != http.StatusConflict || e.Code != "workspace_missing" || e.Body["workspace"] != "/old" {
			t.Errorf("error = %+v", e)
		}
		if wire.ErrorCode(err) != "workspace_missing" {
			t.Errorf("ErrorCode = %q", wire.ErrorCode(err))
		}
		if want := "send to session s1: workspace /old is missing (409 workspace_missing)"; err.Error() != want {
			t.Errorf("message = %q, want %q", err.Error(), want)
		}
		if wire.ErrorCode(errors.New("other")) != "" {
			t.Error("ErrorCode of a plain error is not empty")
		}
	})
}

func TestEventCellAndTrace(t *testing.T) {
	ev := wire.Event{Type: wire.EventTool, CallID: "c1", Status: "ok", Result: `{"status":"ok","output":"hi\n","value":"3"}`,
		Trace: &wire.Trace{
			Activities: []wire.Activity{{Kind: "read", Target: "a.txt"}, {Kind: "read", Target: "a.txt"}, {Kind: "write", Target: "b.txt"}},
			Changes:    []wire.Change{{Path: "b.txt", Kind: "created"}},
		}}
	cell, err := ev.Cell()
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(cell, wire.CellResult{Status: "ok", Output: "hi\n", Value: "3"}) {
		t.Errorf("cell = %+v", cell)
	}
	if got, want := ev.Trace.Summary(""), "read a.txt · +b.txt"; got != want {
		t.Errorf("summary = %q, want %q", got, want)
	}
	abs := &wire.Trace{Activities: []wire.Activity{{Kind: "read", Target: "/w/src/a.go"}, {Kind: "read", Target: "/etc/hosts"}}, Changes: []wire.Change{{Path: "/w/b.go"}}}
	if got, want := abs.Summary("/w"), "read src/a.go, /etc/hosts · b.go"; got != want {
		t.Errorf("summary in /w = %q, want %q", got, want)
	}
	kinds := &wire.Trace{Changes: []wire.Change{{Path: "/w/new.go", Kind: "created"}, {Path: "/w/b.go", Kind: "modified"}, {Path: "/w/old.go", Kind: "deleted"}, {Path: "/w/b.go", Kind: "modified"}}}
	if got, want := kinds.Summary("/w"), "+new.go ~b.go −old.go"; got != want {
		t.Errorf("summary of changes = %q, want %q", got, want)
	}
	if _, err := (wire.Event{Result: "{"}).Cell(); err == nil {
		t.Error("a broken result decoded")
	}
	var nilTrace *wire.Trace
	if nilTrace.Summary("") != "" {
		t.Error("nil trace has a summary")
	}
}
