package modelcatalog

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"time"

	"github.com/albedo-agent/albedo/internal/atomicfile"
)

// DefaultURL is where the catalog is fetched from when extensions.json
// names no URL.
const DefaultURL = "https://models.dev/api.json"

// maxCatalog caps the size of a fetched catalog.
const maxCatalog = 64 << 20

// Refresher replaces a catalog file from a URL.
type Refresher struct {
	// Path is the catalog file.
	Path string
	// URL is fetched; DefaultURL when empty.
	URL string
	// Every is the time between fetches; zero or less never fetches.
	Every time.Duration
	// HTTPClient fetches; nil means a client with a one-minute timeout.
	HTTPClient *http.Client
	// Logger receives failed fetches; nil discards.
	Logger *slog.Logger
}

// Run fetches the catalog at once when the file is missing or older than
// Every, then every Every, until ctx ends. It never fetches when Every is
// not positive. A failed fetch keeps the file as it was.
func (r *Refresher) Run(ctx context.Context) {
	if r.Every <= 0 {
		return
	}
	log := r.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	t := time.NewTimer(r.firstWait())
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		if err := r.Refresh(ctx); err != nil && ctx.Err() == nil {
			log.Warn("model catalog not refreshed; keeping the old copy", "err", err)
		}
		t.Reset(r.Every)
	}
}

// firstWait is how long Run waits before its first fetch: none when the
// file is missing or older than Every, else until it is.
func (r *Refresher) firstWait() time.Duration {
	info, err := os.Stat(r.Path)
	if err != nil {
		return 0
	}
	return max(r.Every-time.Since(info.ModTime()), 0)
}

// Refresh fetches the catalog once and, when it is a catalog, replaces the
// file with it atomically. On any failure the file is left as it was.
func (r *Refresher) Refresh(ctx context.Context) error {
	url := r.URL
	if url == "" {
		url = DefaultURL
	}
	client := r.HTTPClient
	if client == nil {
		client = &http.Client{Timeout: time.Minute}
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return fmt.Errorf("fetch the model catalog from %s: %w", url, err)
	}
	req.Header.Set("Accept", "application/json")
	resp, err := client.Do(req)
	if err != nil {
		return fmt.Errorf("fetch the model catalog from %s: %w", url, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("fetch the model catalog from %s: answered %s", url, resp.Status)
	}
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxCatalog+1))
	if err != nil {
		return fmt.Errorf("fetch the model catalog from %s: %w", url, err)
	}
	if len(data) > maxCatalog {
		return fmt.Errorf("fetch the model catalog from %s: larger than %d MiB", url, maxCatalog>>20)
	}
	if _, err := Parse(data); err != nil {
		return fmt.Errorf("fetch the model catalog from %s: %w", url, err)
	}
	return atomicfile.Write(r.Path, data, 0o600)
}
