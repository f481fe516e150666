package daemon

import (
	"context"
	"net/http"
	"slices"
	"strconv"
	"testing"

	"github.com/albedo-agent/albedo/albedo"
)

func TestRequestsPagesAndRefusesBadInput(t *testing.T) {
	srv, svc := newTestAPI(t)
	ctx := context.Background()
	s, err := svc.CreateSession(ctx, t.TempDir(), "")
	if err != nil {
		t.Fatal(err)
	}
	for range 3 {
		if _, err := svc.Send(ctx, s.ID, albedo.Message{Text: "hi"}); err != nil {
			t.Fatal(err)
		}
		for {
			running, _ := svc.Running(ctx, s.ID)
			if !running {
				break
			}
		}
	}
	auth := map[string]string{"Authorization": "Bearer " + testToken}
	base := "/sessions/" + s.ID + "/requests"

	var seen []float64
	path := base + "?limit=2"
	for pages := 0; ; pages++ {
		code, body := call(t, srv, http.MethodGet, path, "", auth)
		if code != http.StatusOK {
			t.Fatalf("GET %s = %d %v", path, code, body)
		}
		rows, _ := body["rows"].([]any)
		for _, r := range rows {
			row := r.(map[string]any)
			seen = append(seen, row["id"].(float64))
			for _, key := range []string{"id", "kind", "provider", "model", "protocol", "started", "finished", "outcome", "status", "error", "input_tokens", "cached_input_tokens", "output_tokens", "reasoning_tokens", "items", "bytes"} {
				if _, ok := row[key]; !ok {
					t.Errorf("row lacks %q: %v", key, row)
				}
			}
		}
		next, ok := body["next"]
		if !ok {
			t.Fatalf("page without next: %v", body)
		}
		if next == nil {
			break
		}
		path = base + "?limit=2&after=" + formatCursor(next.(float64))
		if pages > 3 {
			t.Fatal("pages never end")
		}
	}
	if len(seen) != 3 || !slices.IsSorted(seen) {
		t.Errorf("ids = %v, want 3 in order", seen)
	}

	for _, bad := range []string{"?limit=201", "?limit=0", "?limit=x", "?after=-1", "?after=x"} {
		if code, body := call(t, srv, http.MethodGet, base+bad, "", auth); code != http.StatusBadRequest || body["code"] != albedo.EInvalid {
			t.Errorf("GET requests%s = %d %v, want 400", bad, code, body)
		}
	}
	if code, _ := call(t, srv, http.MethodGet, base+"?limit=200", "", auth); code != http.StatusOK {
		t.Errorf("limit=200 = %d", code)
	}
	if code, _ := call(t, srv, http.MethodGet, "/sessions/nope/requests", "", auth); code != http.StatusNotFound {
		t.Errorf("requests of no session = %d", code)
	}

	code, body := call(t, srv, http.MethodGet, "/sessions/"+s.ID+"/context", "", auth)
	if code != http.StatusOK {
		t.Fatalf("context = %d %v", code, body)
	}
	for _, key := range []string{"window", "window_source", "used", "used_source", "percent", "instructions", "problems", "compaction"} {
		if _, ok := body[key]; !ok {
			t.Errorf("context lacks %q: %v", key, body)
		}
	}
	if body["window"] != nil || body["used_source"] != "estimate" || body["used"] == nil {
		t.Errorf("context = %v: no window is known, and the fake sends no usage", body)
	}
	if c, _ := body["compaction"].(map[string]any); c["state"] != "none" || c["summarised_items"] != 0.0 || c["at"] != nil || len(c) != 3 {
		t.Errorf("compaction of a session that never compacted = %v", body["compaction"])
	}
}

func formatCursor(f float64) string { return strconv.FormatInt(int64(f), 10) }
