package daemon

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/albedo-agent/albedo/albedo"
	"github.com/albedo-agent/albedo/fixtures/memstore"
)

// lockedStore is a store whose writes fail while locked is set, as they do
// while another program holds albedo.sqlite's lock.
type lockedStore struct {
	albedo.Store
	locked atomic.Bool
}

// Commit fails while the store is locked.
func (l *lockedStore) Commit(ctx context.Context, change albedo.Commit) (albedo.Committed, error) {
	if l.locked.Load() {
		return albedo.Committed{}, albedo.Errorf(albedo.EStoreUnavailable, "albedo.sqlite is locked by another program; nothing of the change was stored")
	}
	return l.Store.Commit(ctx, change)
}

// TestStoreFailureIs503 checks the answer to a write the store cannot take:
// 503 store_unavailable naming the cause, with Retry-After; once the cause
// is gone the same request succeeds and nothing committed before is lost.
func TestStoreFailureIs503(t *testing.T) {
	store := &lockedStore{Store: memstore.New()}
	srv, _ := newTestAPIOn(t, store)
	auth := map[string]string{"Authorization": "Bearer " + testToken}
	code, made := call(t, srv, http.MethodPost, "/sessions", `{"workspace":"`+jsonText(t.TempDir())+`"}`, auth)
	if code != http.StatusCreated && code != http.StatusOK {
		t.Fatalf("create session = %d %v", code, made)
	}
	id := made["id"].(string)

	store.locked.Store(true)
	req, _ := http.NewRequest(http.MethodPost, srv.URL+"/sessions/"+id+"/events", strings.NewReader(`{"content":"hello"}`))
	req.Header.Set("Authorization", "Bearer "+testToken)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	var body map[string]any
	_ = json.NewDecoder(resp.Body).Decode(&body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusServiceUnavailable || body["code"] != albedo.EStoreUnavailable ||
		!strings.Contains(body["error"].(string), "albedo.sqlite is locked by another program") || resp.Header.Get("Retry-After") == "" {
		t.Fatalf("locked store: %d %v Retry-After %q; want 503 %s naming the lock, with Retry-After", resp.StatusCode, body, resp.Header.Get("Retry-After"), albedo.EStoreUnavailable)
	}

	store.locked.Store(false)
	if code, body := call(t, srv, http.MethodPost, "/sessions/"+id+"/events", `{"content":"hello"}`, auth); code >= 300 {
		t.Fatalf("after the lock is gone: %d %v", code, body)
	}
	if code, _ := call(t, srv, http.MethodGet, "/sessions/"+id, "", auth); code != http.StatusOK {
		t.Errorf("the session is gone after the failure: %d", code)
	}
}

// jsonText escapes s for a JSON string.
func jsonText(s string) string {
	b, _ := json.Marshal(s)
	return string(b[1 : len(b)-1])
}
