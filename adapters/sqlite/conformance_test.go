package sqlite_test

import (
	"path/filepath"
	"testing"

	"github.com/albedo-agent/albedo/adapters/sqlite"
	"github.com/albedo-agent/albedo/albedo"
	"github.com/albedo-agent/albedo/fixtures/storetest"
)

// TestConformance runs the store suite against the SQLite store.
func TestConformance(t *testing.T) {
	storetest.Run(t, func(t *testing.T) albedo.Store {
		s, err := sqlite.Open(t.Context(), filepath.Join(t.TempDir(), "albedo.sqlite"))
		if err != nil {
			t.Fatal(err)
		}
		return s
	})
}
