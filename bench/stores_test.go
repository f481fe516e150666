package bench

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/albedo-agent/albedo/adapters/localfs"
	"github.com/albedo-agent/albedo/adapters/postgres"
	"github.com/albedo-agent/albedo/adapters/sqlite"
	"github.com/albedo-agent/albedo/albedo"
	"github.com/albedo-agent/albedo/albedo/engine"
	"github.com/albedo-agent/albedo/fixtures/pgtest"
)

// stores are the stores the benchmarks below compare, each opened empty
// for one benchmark: SQLite in a temporary file, PostgreSQL in a database
// of its own on the server ALBEDO_TEST_POSTGRES_URL names (scripts/postgres.sh
// starts one on loopback; without it that half is skipped).
var stores = []struct {
	name string
	open func(b *testing.B) albedo.Store
}{
	{"sqlite", func(b *testing.B) albedo.Store {
		s, err := sqlite.Open(context.Background(), filepath.Join(b.TempDir(), "albedo.sqlite"))
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { s.Close() })
		return s
	}},
	{"postgresql", func(b *testing.B) albedo.Store {
		s, err := postgres.Open(context.Background(), pgtest.NewDatabase(b))
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { s.Close() })
		return s
	}},
}

// leasedStores are the PostgreSQL store as daemons sharing it use it: each
// turn under a lease, each commit fenced by it.
var leasedStores = []struct {
	name string
	open func(b *testing.B) (albedo.Store, albedo.Leases)
}{
	{"postgresql-leased", func(b *testing.B) (albedo.Store, albedo.Leases) {
		s, err := postgres.Open(context.Background(), pgtest.NewDatabase(b))
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { s.Close() })
		return s, s.Leases(postgres.NewOwner(), "bench", time.Minute)
	}},
}

// BenchmarkStores compares the stores on what a user waits for: a tool
// round of a turn (ms/tool-turn, as BenchmarkToolTurn), listing 1,000
// sessions, reading the last 200 items of a 10,000-item transcript (a
// ?tail=200 read) and reading that whole transcript.
func BenchmarkStores(b *testing.B) {
	toolTurn := func(b *testing.B, store albedo.Store, leases albedo.Leases) {
		ctx := context.Background()
		svc := engine.New(engine.Options{Workspaces: localfs.Workspaces{}, Store: store, Leases: leases, Provider: &instantProvider{}, Kernel: instantKernel{}, Config: config()})
		defer svc.Close(ctx)
		workspace := b.TempDir()
		for b.Loop() {
			sess, err := svc.CreateSession(ctx, workspace, "")
			if err != nil {
				b.Fatal(err)
			}
			if _, err := svc.Send(ctx, sess.ID, albedo.Message{Text: "go"}); err != nil {
				b.Fatal(err)
			}
			if err := svc.Wait(ctx, sess.ID); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(b.Elapsed().Seconds()*1000/float64(b.N*toolRounds), "ms/tool-turn")
	}
	for _, st := range leasedStores {
		b.Run("tool-turn/"+st.name, func(b *testing.B) {
			store, leases := st.open(b)
			toolTurn(b, store, leases)
		})
	}
	for _, st := range stores {
		b.Run("tool-turn/"+st.name, func(b *testing.B) { toolTurn(b, st.open(b), nil) })
		b.Run("sessions-1000/"+st.name, func(b *testing.B) {
			ctx := context.Background()
			s := st.open(b)
			for i := range 1000 {
				sess := albedo.Session{ID: fmt.Sprintf("session-%04d", i), Workspace: "/w", Provider: "p", Model: "m",
					Protocol: albedo.ProtocolResponses, Title: "a session", Stage: albedo.StageIdle, Revision: 1}
				if _, err := s.Commit(ctx, albedo.Commit{Session: &sess}); err != nil {
					b.Fatal(err)
				}
			}
			for b.Loop() {
				if list, err := s.Sessions(ctx); err != nil || len(list) != 1000 {
					b.Fatal(len(list), err)
				}
				if _, err := s.RequestTotals(ctx); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run("history/"+st.name, func(b *testing.B) {
			ctx := context.Background()
			s := st.open(b)
			sess := albedo.Session{ID: "long", Workspace: "/w", Provider: "p", Model: "m", Protocol: albedo.ProtocolResponses, Stage: albedo.StageIdle, Revision: 1}
			if _, err := s.Commit(ctx, albedo.Commit{Session: &sess}); err != nil {
				b.Fatal(err)
			}
			items := transcript(10_000)
			for i := 0; i < len(items); i += 500 {
				if _, err := s.Commit(ctx, albedo.Commit{SessionID: "long", Items: items[i:min(i+500, len(items))]}); err != nil {
					b.Fatal(err)
				}
			}
			b.Run("tail-200", func(b *testing.B) {
				for b.Loop() {
					if page, err := s.ItemPage(ctx, "long", albedo.ItemQuery{Limit: 200, Newest: true, Display: true}); err != nil || len(page) != 200 {
						b.Fatal(len(page), err)
					}
				}
			})
			b.Run("full-10000", func(b *testing.B) {
				for b.Loop() {
					if page, err := s.ItemPage(ctx, "long", albedo.ItemQuery{Display: true}); err != nil || len(page) != 10_000 {
						b.Fatal(len(page), err)
					}
				}
			})
		})
	}
}
