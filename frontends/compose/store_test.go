package compose

import (
	"bytes"
	"log/slog"
	"net/url"
	"strings"
	"testing"

	"github.com/albedo-agent/albedo/albedo"
	"github.com/albedo-agent/albedo/fixtures/fakes"
	"github.com/albedo-agent/albedo/fixtures/pgtest"
)

// TestStoreURLChoosesPostgreSQL checks that a store URL puts albedo's
// data in that PostgreSQL database rather than the home's SQLite file,
// says so in StoreKind, and logs the database without its password.
func TestStoreURLChoosesPostgreSQL(t *testing.T) {
	u := pgtest.NewDatabase(t)
	var log bytes.Buffer
	dir := t.TempDir()
	a, err := Assemble(t.Context(), Options{
		Home: dir, StoreURL: u, Logger: slog.New(slog.NewTextHandler(&log, nil)),
		Kernel: fakes.NewKernel(), Provider: fakes.NewProvider(func(albedo.ModelRequest) fakes.Reply { return fakes.Text("hi") }),
	})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Shutdown(t.Context())
	if a.StoreKind() != StorePostgreSQL {
		t.Errorf("StoreKind = %q, want %q", a.StoreKind(), StorePostgreSQL)
	}
	parsed, _ := url.Parse(u)
	password, _ := parsed.User.Password()
	if !strings.Contains(log.String(), "kind="+StorePostgreSQL) || password == "" || strings.Contains(log.String(), password) {
		t.Errorf("log %q: want the store's kind named and the password left out", log.String())
	}
	if _, err := a.store.Sessions(t.Context()); err != nil {
		t.Errorf("list sessions on PostgreSQL: %v", err)
	}
}

// TestDefaultStoreIsSQLite checks that without a store URL the home's
// SQLite file keeps albedo's data.
func TestDefaultStoreIsSQLite(t *testing.T) {
	a, err := Assemble(t.Context(), Options{Home: t.TempDir(), Kernel: fakes.NewKernel()})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Shutdown(t.Context())
	if a.StoreKind() != StoreSQLite {
		t.Errorf("StoreKind = %q, want %q", a.StoreKind(), StoreSQLite)
	}
}
