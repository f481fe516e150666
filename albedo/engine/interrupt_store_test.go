package engine_test

import (
	"context"
	"testing"
	"time"

	"github.com/albedo-agent/albedo/adapters/localfs"
	"github.com/albedo-agent/albedo/albedo"
	"github.com/albedo-agent/albedo/albedo/engine"
	"github.com/albedo-agent/albedo/fixtures/fakes"
)

// An interrupt is the user's way out: it returns while the store keeps a
// commit of the turn waiting, and the turn ends, interrupted, once the
// store lets the commit through.
func TestAnInterruptReturnsWhileTheStoreHoldsACommit(t *testing.T) {
	tests := []struct {
		name string
		// hold arranges for the store to hold the commits that follow at
		// the named moment of the turn.
		hold func(r *rig, store *fakes.HeldStore, g *fakes.Gate)
	}{
		{"during a model reply", func(r *rig, store *fakes.HeldStore, g *fakes.Gate) {
			r.provider = fakes.NewProvider(func(albedo.ModelRequest) fakes.Reply {
				store.Hold(g)
				return fakes.Text("an answer the store keeps waiting")
			})
		}},
		{"during a cell's result", func(r *rig, store *fakes.HeldStore, g *fakes.Gate) {
			r.provider = fakes.NewProvider(script(fakes.Text("done"), fakes.Python("print(1)")))
			r.kernel.SetResult(func(int, albedo.Cell) (albedo.CellResult, error) {
				store.Hold(g)
				return albedo.CellResult{Status: albedo.CellOK, Output: "1\n"}, nil
			})
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := newRig(t, script(fakes.Text("unused")))
			store := fakes.NewHeldStore(r.store)
			held := fakes.NewGate()
			tc.hold(r, store, held)
			r.svc = engine.New(engine.Options{Workspaces: localfs.Workspaces{}, Store: store, Provider: r.provider, Kernel: r.kernel, Config: r.config, Clock: r.clock})
			svc := r.svc
			t.Cleanup(func() { _ = svc.Close(context.Background()) })
			t.Cleanup(held.Open) // before the service closes
			sess := r.session("")
			r.send(sess.ID, "go")
			<-held.Entered()

			returned := make(chan error, 1)
			go func() { returned <- r.svc.Interrupt(r.ctx, sess.ID) }()
			select {
			case err := <-returned:
				if err != nil {
					t.Fatalf("interrupt: %v", err)
				}
			case <-time.After(waitLimit):
				held.Open()
				t.Fatal("the interrupt waited for the held commit")
			}

			store.Hold(nil)
			held.Open()
			r.waitIdle(sess.ID)
			items := r.history(sess.ID)
			if last := items[len(items)-1]; last.Kind != albedo.KindTurn || last.Text != albedo.TurnInterrupted {
				t.Errorf("last item = %+v, want the interrupted marker", last)
			}
			checkPaired(t, items)
			if got := r.get(sess.ID).Stage; got != albedo.StageIdle {
				t.Errorf("stage = %q, want idle", got)
			}
		})
	}
}
