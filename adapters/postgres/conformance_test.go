package postgres_test

import (
	"testing"

	"github.com/albedo-agent/albedo/adapters/postgres"
	"github.com/albedo-agent/albedo/albedo"
	"github.com/albedo-agent/albedo/fixtures/pgtest"
	"github.com/albedo-agent/albedo/fixtures/storetest"
)

// TestConformance runs the store suite against the PostgreSQL store, each
// test in a database of its own.
func TestConformance(t *testing.T) {
	storetest.Run(t, func(t *testing.T) albedo.Store {
		s, err := postgres.Open(t.Context(), pgtest.NewDatabase(t))
		if err != nil {
			t.Fatal(err)
		}
		return s
	})
}
