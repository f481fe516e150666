package engine_test

import (
	"context"
	"testing"

	"github.com/albedo-agent/albedo/adapters/localfs"
	"github.com/albedo-agent/albedo/albedo"
	"github.com/albedo-agent/albedo/albedo/engine"
	"github.com/albedo-agent/albedo/fixtures/fakes"
)

// A turn reads its session's row once per step: a message that starts a
// turn reads it to check the session and queue the message, the turn
// once before its first request, and once between a cell and the request
// that carries its output.
func TestATurnReadsTheSessionRowOncePerStep(t *testing.T) {
	r := newRig(t, script(fakes.Text("unused")))
	store := fakes.NewCountingStore(r.store)
	var atRequest []int64
	asked := make(chan struct{})
	r.provider = fakes.NewProvider(func(albedo.ModelRequest) fakes.Reply {
		atRequest = append(atRequest, store.SessionReads())
		if len(atRequest) == 1 {
			return fakes.Python("print(1)")
		}
		close(asked)
		return fakes.Text("done")
	})
	r.svc = engine.New(engine.Options{Workspaces: localfs.Workspaces{}, Store: store, Provider: r.provider, Kernel: r.kernel, Config: r.config, Clock: r.clock})
	svc := r.svc
	t.Cleanup(func() { _ = svc.Close(context.Background()) })
	sess := r.session("")
	before := store.SessionReads()
	r.send(sess.ID, "go")
	<-asked // nothing but the turn reads the session until then
	if err := r.svc.Wait(r.ctx, sess.ID); err != nil {
		t.Fatal(err)
	}
	if len(atRequest) != 2 {
		t.Fatalf("%d requests, want 2", len(atRequest))
	}
	if got, want := atRequest[0]-before, int64(3); got != want {
		t.Errorf("%d reads of the session before the first request, want %d", got, want)
	}
	if got, want := atRequest[1]-atRequest[0], int64(1); got != want {
		t.Errorf("%d reads of the session between the cell and the next request, want %d", got, want)
	}
}
