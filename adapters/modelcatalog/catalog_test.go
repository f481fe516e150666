package modelcatalog

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

const sample = `{"openai": {"id": "openai", "api": "https://api.openai.com/v1", "models": {
	"gpt-5": {"id": "gpt-5", "limit": {"context": 400000, "output": 128000}, "modalities": {"input": ["text", "image"], "output": ["text"]}}}},
	"bare": {"models": {"m": {"limit": {"context": 8192}}}}}`

func TestFileReadsTheCatalog(t *testing.T) {
	path := filepath.Join(t.TempDir(), "models.json")
	f := NewFile(path)
	if cat := f.Catalog(context.Background()); len(cat.Providers) != 0 || len(cat.Problems) != 0 {
		t.Errorf("missing file = %+v, want an empty catalog", cat)
	}
	if err := os.WriteFile(path, []byte(sample), 0o600); err != nil {
		t.Fatal(err)
	}
	cat := f.Catalog(context.Background())
	m := cat.Providers["openai"].Models["gpt-5"]
	if cat.Providers["openai"].API != "https://api.openai.com/v1" || m.Context != 400000 || m.Output != 128000 || len(m.Input) != 2 || cat.Providers["bare"].Models["m"].Context != 8192 {
		t.Errorf("catalog = %+v", cat)
	}
	if err := os.WriteFile(path, []byte(`{"openai": `), 0o600); err != nil {
		t.Fatal(err)
	}
	later := time.Now().Add(time.Minute)
	os.Chtimes(path, later, later)
	cat = f.Catalog(context.Background())
	if len(cat.Providers) != 0 || len(cat.Problems) != 1 || !strings.Contains(cat.Problems[0], "not JSON") || !strings.Contains(cat.Problems[0], path) {
		t.Errorf("broken file = %+v, want one problem naming it", cat)
	}
}

// catalogServer serves body with status and counts the requests.
func catalogServer(t *testing.T, status int, body string) (*httptest.Server, *atomic.Int64) {
	var hits atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		w.WriteHeader(status)
		w.Write([]byte(body))
	}))
	t.Cleanup(srv.Close)
	return srv, &hits
}

func TestRefresh(t *testing.T) {
	tests := []struct {
		name   string
		status int
		body   string
		old    string
		want   string
	}{
		{"replaces the file", http.StatusOK, sample, `{"old": {}}`, sample},
		{"creates a missing file", http.StatusOK, sample, "", sample},
		{"keeps the old copy on an error answer", http.StatusInternalServerError, sample, `{"old": {}}`, `{"old": {}}`},
		{"keeps the old copy when the answer is not a catalog", http.StatusOK, `<html>`, `{"old": {}}`, `{"old": {}}`},
		{"keeps no copy when there was none", http.StatusOK, `[1, 2]`, "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "models.json")
			if tt.old != "" {
				os.WriteFile(path, []byte(tt.old), 0o600)
			}
			srv, hits := catalogServer(t, tt.status, tt.body)
			r := &Refresher{Path: path, URL: srv.URL, Every: time.Hour}
			err := r.Refresh(context.Background())
			if (err != nil) != (tt.want != tt.body) {
				t.Errorf("refresh error = %v", err)
			}
			got, _ := os.ReadFile(path)
			if string(got) != tt.want || hits.Load() != 1 {
				t.Errorf("file = %q after %d requests, want %q", got, hits.Load(), tt.want)
			}
			entries, _ := os.ReadDir(dir)
			if len(entries) > 1 {
				t.Errorf("temporary files left: %v", entries)
			}
		})
	}
	t.Run("a failed fetch reaching nothing keeps the old copy", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "models.json")
		os.WriteFile(path, []byte(sample), 0o600)
		srv, _ := catalogServer(t, http.StatusOK, sample)
		srv.Close()
		if err := (&Refresher{Path: path, URL: srv.URL, Every: time.Hour}).Refresh(context.Background()); err == nil {
			t.Error("no error from a server that is gone")
		}
		if got, _ := os.ReadFile(path); string(got) != sample {
			t.Errorf("file = %q", got)
		}
	})
}

func TestRunFetchesAtStartOnlyWhenDue(t *testing.T) {
	t.Run("never with no interval", func(t *testing.T) {
		srv, hits := catalogServer(t, http.StatusOK, sample)
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan struct{})
		go func() {
			(&Refresher{Path: filepath.Join(t.TempDir(), "models.json"), URL: srv.URL}).Run(ctx)
			close(done)
		}()
		<-done // Run returns at once when it never fetches
		cancel()
		if hits.Load() != 0 {
			t.Errorf("%d requests, want none", hits.Load())
		}
	})
	t.Run("at start when the file is missing", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "models.json")
		srv, hits := catalogServer(t, http.StatusOK, sample)
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan struct{})
		go func() { (&Refresher{Path: path, URL: srv.URL, Every: time.Hour}).Run(ctx); close(done) }()
		deadline := time.Now().Add(20 * time.Second)
		for {
			if got, _ := os.ReadFile(path); string(got) == sample {
				break
			}
			if time.Now().After(deadline) {
				t.Fatal("the catalog was not fetched")
			}
			time.Sleep(time.Millisecond)
		}
		cancel()
		<-done
		if hits.Load() != 1 {
			t.Errorf("%d requests, want 1", hits.Load())
		}
	})
	t.Run("not at start when the file is fresh", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "models.json")
		os.WriteFile(path, []byte(sample), 0o600)
		r := &Refresher{Path: path, Every: time.Hour}
		if wait := r.firstWait(); wait <= 0 || wait > time.Hour {
			t.Errorf("first fetch in %v, want within the hour but not now", wait)
		}
		old := time.Now().Add(-2 * time.Hour)
		os.Chtimes(path, old, old)
		if wait := r.firstWait(); wait != 0 {
			t.Errorf("first fetch of a stale file in %v, want now", wait)
		}
	})
}
