package engine_test

import (
	"errors"
	"fmt"
	"log/slog"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/albedo-agent/albedo/albedo"
	"github.com/albedo-agent/albedo/albedo/engine"
	"github.com/albedo-agent/albedo/fixtures/fakes"
)

// testLeaseTTL is the lease time of these tests: the service renews four
// times per TTL, so a lost lease is noticed within a quarter of it.
const testLeaseTTL = 2 * time.Second

// leasedRig returns a rig whose services share the store with other
// processes through table, as owner.
func leasedRig(t *testing.T, owner string, reply func(albedo.ModelRequest) fakes.Reply) (*rig, *fakes.LeaseTable) {
	t.Helper()
	r := newRig(t, reply)
	table := fakes.NewLeaseTable(testLeaseTTL, r.store)
	r.tune = func(o *engine.Options) {
		o.Store = table.Fence(r.store)
		o.Leases = table.Owner(owner)
	}
	r.svc = r.newService()
	return r, table
}

func TestATurnHoldsTheSessionsLeaseUntilItEnds(t *testing.T) {
	r, table := leasedRig(t, "a", script(fakes.Text("done"), fakes.Python("1")))
	gate := r.kernel.BlockUntilCancelled()
	sess := r.session(respProvider)
	r.send(sess.ID, "go")
	waitFor(t, "the cell to start", func() bool { return len(r.kernel.Cells()) == 1 })
	if lease, ok := table.Holder(sess.ID); !ok || lease.Owner != "a" {
		t.Fatalf("holder while the turn runs = %+v, %v; want a", lease, ok)
	}
	gate.Open()
	r.waitIdle(sess.ID)
	if lease, ok := table.Holder(sess.ID); ok {
		t.Fatalf("the lease %+v outlived the turn", lease)
	}
	r.wantNoErrors(sess.ID, "after a leased turn")
}

func TestALostLeaseStopsTheTurnAndItsKernelAndWritesNothingMore(t *testing.T) {
	r, table := leasedRig(t, "a", script(fakes.Text("done"), fakes.Python("while True: pass")))
	r.kernel.BlockUntilCancelled()
	sess := r.session(respProvider)
	r.send(sess.ID, "go")
	waitFor(t, "the cell to start", func() bool { return len(r.kernel.Cells()) == 1 })
	before := r.history(sess.ID)

	table.Steal(sess.ID, "b")
	r.waitIdle(sess.ID)

	after := r.history(sess.ID)
	if len(after) != len(before) {
		t.Fatalf("the service wrote %v after losing its lease", kinds(after[len(before):]))
	}
	if got := r.get(sess.ID); got.Stage != albedo.StageRunning {
		t.Errorf("stage = %s; the session must stay running for its new owner", got.Stage)
	}
	waitFor(t, "the kernel to stop", func() bool {
		for _, id := range r.kernel.Stops() {
			if id == sess.ID {
				return true
			}
		}
		return false
	})
}

func TestAnOrphanedTurnIsTakenOverAsARestartResumesIt(t *testing.T) {
	r, table := leasedRig(t, "b", script(fakes.Text("checked, all fine")))
	now := time.UnixMilli(1_700_000_000_000)
	crashed := albedo.Session{ID: "crashed", Workspace: r.workspace, Provider: respProvider, Model: "resp-model",
		Protocol: albedo.ProtocolResponses, Title: "do it", Stage: albedo.StageRunning, KernelUsed: true, Revision: 3, CreatedAt: now, UpdatedAt: now}
	elsewhere := crashed
	elsewhere.ID, elsewhere.Workspace = "elsewhere", r.workspace+"/not-on-this-machine"
	args := `{"code":"append_to_marker()"}`
	for _, sess := range []albedo.Session{crashed, elsewhere} {
		if _, err := r.store.Commit(r.ctx, albedo.Commit{Session: &sess, Items: []albedo.Item{
			{Kind: albedo.KindUser, Text: "do it", Timestamp: now.UnixMilli()},
			{Kind: albedo.KindToolCall, CallID: "call-1", ToolName: "python", Arguments: args, Protocol: albedo.ProtocolResponses,
				Raw: fakes.NativeCall(albedo.ProtocolResponses, "call-1", "python", args), Timestamp: now.UnixMilli()},
		}}); err != nil {
			t.Fatal(err)
		}
		table.Steal(sess.ID, "a") // the daemon that dies
	}
	table.Expire(crashed.ID)
	table.Expire(elsewhere.ID)

	waitFor(t, "the turn to be taken over and finish", func() bool {
		items := r.history(crashed.ID)
		return len(items) > 0 && items[len(items)-1].Kind == albedo.KindTurn
	})
	if cells := r.kernel.Cells(); len(cells) != 0 {
		t.Fatalf("the cell cut by the other daemon's death ran again: %+v", cells)
	}
	items := r.history(crashed.ID)
	equalKinds(t, items, albedo.KindUser, albedo.KindToolCall, albedo.KindToolOutput, albedo.KindUser, albedo.KindAssistant, albedo.KindTurn)
	if out := items[2]; out.Result == nil || out.Result.Status != albedo.CellInterrupted {
		t.Errorf("the open call's output = %+v; want interrupted", out)
	}
	if note := items[3]; note.Source != albedo.RestartSource || note.Text != engine.RestartCellsNote {
		t.Errorf("restart note = %+v", note)
	}
	for i := 1; i < len(items); i++ {
		if items[i].Seq <= items[i-1].Seq {
			t.Fatalf("seqs do not increase: %d then %d", items[i-1].Seq, items[i].Seq)
		}
	}
	if got := r.get(elsewhere.ID); got.Stage != albedo.StageRunning || len(r.history(elsewhere.ID)) != 2 {
		t.Errorf("a session whose workspace is not on this machine was taken over: %+v", got)
	}
}

func TestAMessageToASessionAnotherProcessRunsIsQueuedForIt(t *testing.T) {
	r, table := leasedRig(t, "b", script(fakes.Text("done")))
	sess := r.session(respProvider)
	running := r.get(sess.ID)
	running.Stage = albedo.StageRunning
	if _, err := r.store.Commit(r.ctx, albedo.Commit{Session: &running}); err != nil {
		t.Fatal(err)
	}
	table.Steal(sess.ID, "a")

	if queued := r.send(sess.ID, "also this"); !queued {
		t.Fatal("the message started a turn beside the one another process runs")
	}
	if running, _ := r.svc.Running(r.ctx, sess.ID); running {
		t.Fatal("a turn runs here while another process holds the lease")
	}
	q, err := r.store.Queued(r.ctx, sess.ID)
	if err != nil || len(q) != 1 || q[0].Text != "also this" {
		t.Fatalf("queue = %+v, %v; want the message waiting for the running turn", q, err)
	}
	for _, it := range r.history(sess.ID) {
		if it.Source == albedo.RestartSource || strings.Contains(it.Text, "restarted") {
			t.Fatalf("a turn another process runs was resumed here: %+v", it)
		}
	}
}

func TestASessionNamesTheNodeWhoseLeaseRunsIt(t *testing.T) {
	r, table := leasedRig(t, "a", script(fakes.Text("done"), fakes.Python("1")))
	gate := r.kernel.BlockUntilCancelled()
	sess := r.session(respProvider)
	other := r.session(respProvider)
	shown := func(what string) (one albedo.Session, listed map[string]string) {
		t.Helper()
		one, err := r.svc.Session(r.ctx, sess.ID)
		if err != nil {
			t.Fatalf("Session %s: %v", what, err)
		}
		list, err := r.svc.Sessions(r.ctx)
		if err != nil {
			t.Fatalf("Sessions %s: %v", what, err)
		}
		listed = map[string]string{}
		for _, s := range list {
			listed[s.ID] = s.Node
		}
		return one, listed
	}
	if one, listed := shown("before the turn"); one.Node != "" || listed[sess.ID] != "" || len(r.svc.Leased()) != 0 {
		t.Fatalf("an idle session names node %q (listed %q), leased %v; want none", one.Node, listed[sess.ID], r.svc.Leased())
	}

	r.send(sess.ID, "go")
	waitFor(t, "the cell to start", func() bool { return len(r.kernel.Cells()) == 1 })
	one, listed := shown("while the turn runs")
	if one.Node != "a" || listed[sess.ID] != "a" || listed[other.ID] != "" {
		t.Errorf("while the turn runs: node %q, listed %v; want a for %s only", one.Node, listed, sess.ID)
	}
	if got := r.svc.Leased(); len(got) != 1 || got[0] != sess.ID {
		t.Errorf("Leased() = %v; want [%s]", got, sess.ID)
	}
	// Another process that takes the lease over is named instead, and
	// this one no longer counts the session as its own.
	table.Steal(sess.ID, "b")
	waitFor(t, "the turn to stop here", func() bool { return len(r.svc.Leased()) == 0 })
	if one, listed := shown("once b took over"); one.Node != "b" || listed[sess.ID] != "b" {
		t.Errorf("once b took over: node %q, listed %q; want b", one.Node, listed[sess.ID])
	}
	gate.Open()
	// An idle session names no node, even while a lease (one its daemon
	// is about to give up) still holds it.
	table.Steal(other.ID, "b")
	if _, listed := shown("with b's lease on the idle session"); listed[other.ID] != "" {
		t.Errorf("listed node of the idle session = %q; want none", listed[other.ID])
	}
}

func TestASessionNamesNoNodeWithoutLeases(t *testing.T) {
	r := newRig(t, script(fakes.Text("done")))
	sess := r.session(respProvider)
	r.send(sess.ID, "go")
	r.waitIdle(sess.ID)
	got, err := r.svc.Session(r.ctx, sess.ID)
	if err != nil || got.Node != "" || r.svc.Leased() != nil {
		t.Fatalf("Session = node %q, %v; Leased = %v; want no node without leases", got.Node, err, r.svc.Leased())
	}
}

func TestARunningSessionNoProcessCanTakeOverShowsItOrphaned(t *testing.T) {
	r, table := leasedRig(t, "b", script(fakes.Text("checked, all fine")))
	now := time.UnixMilli(1_700_000_000_000)
	away := r.workspace + "/moved-away"
	sess := albedo.Session{ID: "stranded", Workspace: away, Provider: respProvider, Model: "resp-model",
		Protocol: albedo.ProtocolResponses, Title: "do it", Stage: albedo.StageRunning, Revision: 3, CreatedAt: now, UpdatedAt: now}
	if _, err := r.store.Commit(r.ctx, albedo.Commit{Session: &sess, Items: []albedo.Item{
		{Kind: albedo.KindUser, Text: "do it", Timestamp: now.UnixMilli()},
	}}); err != nil {
		t.Fatal(err)
	}
	orphaned := func() albedo.Glance {
		t.Helper()
		glances, err := r.svc.Glances(r.ctx, sess.ID)
		if err != nil {
			t.Fatalf("Glances: %v", err)
		}
		for _, g := range glances {
			if g["extension"] == "orphaned" {
				return g
			}
		}
		return nil
	}
	table.Steal(sess.ID, "a") // the daemon that dies
	if g := orphaned(); g != nil {
		t.Fatalf("a session a live lease holds shows %v", g)
	}
	tests := []struct {
		expired time.Duration
		want    albedo.Glance
	}{
		{testLeaseTTL, nil}, // others may yet take it over
		{2*testLeaseTTL - time.Millisecond, nil},
		{2 * testLeaseTTL, albedo.Glance{"extension": "orphaned", "workspace": away, "last_node": "a", "expired_ms": float64(4000)}},
		{time.Minute, albedo.Glance{"extension": "orphaned", "workspace": away, "last_node": "a", "expired_ms": float64(60000)}},
	}
	for _, tt := range tests {
		table.ExpiredFor(sess.ID, tt.expired)
		if got := orphaned(); fmt.Sprint(got) != fmt.Sprint(tt.want) {
			t.Errorf("lease expired %v ago: glance %v; want %v", tt.expired, got, tt.want)
		}
	}
	// The workspace comes back: this process takes the turn over, and
	// the glance goes.
	if err := os.Mkdir(away, 0o755); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the turn to be taken over and finish", func() bool {
		items := r.history(sess.ID)
		return items[len(items)-1].Kind == albedo.KindTurn
	})
	if g := orphaned(); g != nil {
		t.Errorf("a session taken over still shows %v", g)
	}
}

func TestAMappedWorkspaceIsTakenOverAndRunHereWhileTheStoreKeepsItsPath(t *testing.T) {
	r := newRig(t, script(fakes.Text("done here"), fakes.Python("write_here()")))
	table := fakes.NewLeaseTable(testLeaseTTL, r.store)
	laptop := "/home/ann/src/x" // no such folder on this machine
	r.tune = func(o *engine.Options) {
		o.Store = table.Fence(r.store)
		o.Leases = table.Owner("b")
		o.WorkspaceMap = albedo.WorkspaceMap{{From: laptop, To: r.workspace}}
	}
	now := time.UnixMilli(1_700_000_000_000)
	sess := albedo.Session{ID: "made-elsewhere", Workspace: laptop + "/sub", Provider: respProvider, Model: "resp-model",
		Protocol: albedo.ProtocolResponses, Title: "do it", Stage: albedo.StageRunning, Revision: 3, CreatedAt: now, UpdatedAt: now}
	if err := os.Mkdir(r.workspace+"/sub", 0o755); err != nil {
		t.Fatal(err)
	}
	if _, err := r.store.Commit(r.ctx, albedo.Commit{Session: &sess, Items: []albedo.Item{
		{Kind: albedo.KindUser, Text: "do it", Timestamp: now.UnixMilli()},
	}}); err != nil {
		t.Fatal(err)
	}
	table.Steal(sess.ID, "a") // the daemon that dies
	table.Expire(sess.ID)
	r.svc = r.newService()

	waitFor(t, "the turn to be taken over and finish", func() bool {
		items := r.history(sess.ID)
		return items[len(items)-1].Kind == albedo.KindTurn
	})
	cells := r.kernel.Cells()
	if len(cells) != 1 || cells[0].Workspace != r.workspace+"/sub" {
		t.Fatalf("cells ran in %+v; want one in the mapped folder %s/sub", cells, r.workspace)
	}
	if got := r.get(sess.ID); got.Workspace != r.workspace+"/sub" || got.Stage != albedo.StageIdle {
		t.Errorf("the service shows %s (%s); want the mapped folder, idle", got.Workspace, got.Stage)
	}
	stored, err := r.store.Session(r.ctx, sess.ID)
	if err != nil || stored.Workspace != laptop+"/sub" || stored.Stage != albedo.StageIdle {
		t.Errorf("stored workspace %s (%s), %v; want %s/sub kept, idle", stored.Workspace, stored.Stage, err, laptop)
	}
	// A move here stores the folder moved to.
	moved, err := r.svc.MoveWorkspace(r.ctx, sess.ID, r.workspace)
	if err != nil {
		t.Fatal(err)
	}
	if stored, _ := r.store.Session(r.ctx, sess.ID); stored.Workspace != r.workspace || moved.Workspace != r.workspace {
		t.Errorf("after a move: stored %s, shown %s; want %s", stored.Workspace, moved.Workspace, r.workspace)
	}
}

func TestAStoreOutageIsLoggedWhenItStartsOnceALeaseTimeAndWhenItEnds(t *testing.T) {
	r := newRig(t, script(fakes.Text("done")))
	table := fakes.NewLeaseTable(testLeaseTTL, r.store)
	var log syncBuffer
	r.tune = func(o *engine.Options) {
		o.Store = table.Fence(r.store)
		o.Leases = table.Owner("a")
		o.Logger = slog.New(slog.NewTextHandler(&log, nil))
	}
	r.svc = r.newService()
	const (
		failing = `msg="look for orphaned sessions"`
		still   = `msg="look for orphaned sessions still fails" failed_ticks=4 `
		again   = `msg="look for orphaned sessions works again"`
	)

	table.Down(errors.New("connection refused"))
	looks := table.OrphanLooks()
	waitFor(t, "a lease time of failed looks for orphaned sessions", func() bool { return strings.Contains(log.String(), still) })
	if n := table.OrphanLooks() - looks; n < 4 {
		t.Errorf("said it still fails after %d looks; want a lease time of them (4)", n)
	}
	if n := strings.Count(log.String(), failing); n != 1 {
		t.Fatalf("the failing look was logged %d times over a lease time; want once:\n%s", n, log.String())
	}

	table.Down(nil)
	waitFor(t, "the looks to be logged working again", func() bool { return strings.Contains(log.String(), again) })
	if n := strings.Count(log.String(), failing); n != 1 {
		t.Errorf("the failing look was logged %d times; want once:\n%s", n, log.String())
	}
}
