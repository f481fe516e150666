package bench

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/albedo-agent/albedo/adapters/localfs"
	"github.com/albedo-agent/albedo/adapters/postgres"
	"github.com/albedo-agent/albedo/albedo"
	"github.com/albedo-agent/albedo/albedo/engine"
	"github.com/albedo-agent/albedo/fixtures/pgtest"
)

// BenchmarkCommitToOtherStream measures, for two daemons sharing one
// PostgreSQL database, the delay from one's commit of an item (as its
// turn makes it) to the item's event on a stream of the other: the
// median and 99th percentile over the b.N commits (run it with
// -benchtime=1000x). It needs ALBEDO_TEST_POSTGRES_URL.
func BenchmarkCommitToOtherStream(b *testing.B) {
	ctx := context.Background()
	url := pgtest.NewDatabase(b)
	open := func() *postgres.Store {
		s, err := postgres.Open(ctx, url)
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { s.Close() })
		return s
	}
	owner, other := open(), open()
	svc := engine.New(engine.Options{Workspaces: localfs.Workspaces{}, Store: other, Changes: other,
		Provider: &instantProvider{}, Kernel: instantKernel{}, Config: config()})
	defer svc.Close(ctx)
	sess, err := svc.CreateSession(ctx, b.TempDir(), "")
	if err != nil {
		b.Fatal(err)
	}
	sub, err := svc.Subscribe(ctx, sess.ID)
	if err != nil {
		b.Fatal(err)
	}
	defer sub.Close()
	// The first commit tells when the other daemon listens.
	item := albedo.Item{Kind: albedo.KindAssistant, Text: "a reply of a few words", Timestamp: 1}
	for heard := false; !heard; {
		if _, err := owner.Commit(ctx, albedo.Commit{SessionID: sess.ID, Items: []albedo.Item{item}}); err != nil {
			b.Fatal(err)
		}
		select {
		case <-sub.Events:
			heard = true
		case <-time.After(100 * time.Millisecond):
		}
	}
	for len(sub.Events) > 0 {
		<-sub.Events
	}
	delays := make([]time.Duration, 0, b.N)
	for b.Loop() {
		start := time.Now()
		done, err := owner.Commit(ctx, albedo.Commit{SessionID: sess.ID, Items: []albedo.Item{item}})
		if err != nil {
			b.Fatal(err)
		}
		for ev := range sub.Events {
			if ev.Seq == done.Items[0].Seq {
				break
			}
		}
		delays = append(delays, time.Since(start))
	}
	slices.Sort(delays)
	ms := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
	b.ReportMetric(ms(delays[len(delays)/2]), "ms-median")
	b.ReportMetric(ms(delays[len(delays)*99/100]), "ms-p99")
}
