package engine_test

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/albedo-agent/albedo/adapters/localfs"
	"github.com/albedo-agent/albedo/albedo"
	"github.com/albedo-agent/albedo/albedo/engine"
	"github.com/albedo-agent/albedo/fixtures/fakes"
)

// heldQueuedStore holds the first Queued call made after arm until
// release is closed.
type heldQueuedStore struct {
	albedo.Store
	armed   atomic.Bool
	entered chan struct{}
	release chan struct{}
}

func (s *heldQueuedStore) Queued(ctx context.Context, id string) ([]albedo.Queued, error) {
	if s.armed.CompareAndSwap(true, false) {
		close(s.entered)
		<-s.release
	}
	return s.Store.Queued(ctx, id)
}

// TestSubscribeReadsTheStoreOutsideTheHubLock: while a new subscriber's
// snapshot read is stuck in the store, a running turn still streams to the
// subscribers already there; once the read returns, the new subscriber
// gets its snapshot and nothing of it a second time.
func TestSubscribeReadsTheStoreOutsideTheHubLock(t *testing.T) {
	r := newRig(t, script(fakes.Text("done"), fakes.Python("print(1)").WithReasoning("plan")))
	store := &heldQueuedStore{Store: r.store, entered: make(chan struct{}), release: make(chan struct{})}
	svc := engine.New(engine.Options{Workspaces: localfs.Workspaces{}, Store: store, Provider: r.provider, Kernel: r.kernel, Config: r.config, Clock: r.clock})
	t.Cleanup(func() { svc.Close(context.Background()) })
	sess, err := svc.CreateSession(r.ctx, r.workspace, "")
	if err != nil {
		t.Fatal(err)
	}
	var released sync.Once
	release := func() { released.Do(func() { close(store.release) }) }
	t.Cleanup(release) // runs before the service closes
	first, err := svc.Subscribe(r.ctx, sess.ID)
	if err != nil {
		t.Fatal(err)
	}
	defer first.Close()

	store.armed.Store(true)
	type result struct {
		sub *engine.Subscription
		err error
	}
	late := make(chan result, 1)
	go func() {
		sub, err := svc.Subscribe(r.ctx, sess.ID)
		late <- result{sub, err}
	}()
	<-store.entered
	if _, err := svc.Send(r.ctx, sess.ID, albedo.Message{Text: "go"}); err != nil {
		t.Fatal(err)
	}
	// The whole turn reaches the first subscriber while the second one's
	// read is held.
	collectTurn(t, first.Events)
	release()
	got := <-late
	if got.err != nil {
		t.Fatal(got.err)
	}
	defer got.sub.Close()
	// What the held read missed reaches the late subscriber live, and
	// nothing reaches it twice.
	seen := map[int64]int{}
	for _, ev := range got.sub.Snapshot {
		seen[ev.Seq]++
	}
	for _, ev := range collectTurn(t, got.sub.Events) {
		if ev.Seq != 0 {
			seen[ev.Seq]++
		}
	}
	items := r.history(sess.ID)
	if len(items) == 0 {
		t.Fatal("the turn stored nothing")
	}
	for _, it := range items {
		if seen[it.Seq] != 1 {
			t.Errorf("item %d (%s) reached the late subscriber %d times, want once", it.Seq, it.Kind, seen[it.Seq])
		}
	}
}
