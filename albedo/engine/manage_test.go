package engine_test

import (
	"slices"
	"testing"

	"github.com/albedo-agent/albedo/albedo"
	"github.com/albedo-agent/albedo/albedo/engine"
	"github.com/albedo-agent/albedo/fixtures/fakes"
)

func TestDeleteSession(t *testing.T) {
	r := newRig(t, script(fakes.Text("done")))
	sess := r.session("")
	r.turn(sess.ID, "hello")
	vent, err := r.svc.FileVent(r.ctx, sess.ID, albedo.NewVent{Topic: "bug", Message: "it broke"})
	if err != nil {
		t.Fatal(err)
	}
	fork, err := r.svc.Fork(r.ctx, sess.ID, 1)
	if err != nil {
		t.Fatal(err)
	}
	sub, err := r.svc.SubscribeFrom(r.ctx, sess.ID, albedo.SubscribeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer sub.Close()

	if err := r.svc.DeleteSession(r.ctx, sess.ID); err != nil {
		t.Fatal(err)
	}
	var last albedo.Event
	for ev := range sub.Events {
		last = ev
	}
	if last.Type != engine.EventDeleted {
		t.Errorf("an open stream ended with %+v, want deleted", last)
	}
	if got := r.kernel.Stops(); !slices.Contains(got, sess.ID) {
		t.Errorf("kernel stops = %v, want the deleted session's", got)
	}
	wantCode(t, r.svc.DeleteSession(r.ctx, sess.ID), albedo.ENotFound)
	_, err = r.svc.Session(r.ctx, sess.ID)
	wantCode(t, err, albedo.ENotFound)
	_, err = r.svc.SubscribeFrom(r.ctx, sess.ID, albedo.SubscribeOptions{})
	wantCode(t, err, albedo.ENotFound)
	_, err = r.svc.Send(r.ctx, sess.ID, albedo.Message{Text: "still there?"})
	wantCode(t, err, albedo.ENotFound)

	v, err := r.svc.Vent(r.ctx, vent.ID)
	if err != nil || v.SessionID != sess.ID {
		t.Errorf("vent = %+v, %v; want it kept with its session id", v, err)
	}
	_, state, err := r.svc.PatchVent(r.ctx, v.ID, v.Revision, albedo.VentPatch{Reply: ptr("thanks")})
	if err != nil || state != engine.NoteSessionGone {
		t.Errorf("reply state = %q, %v; want %q", state, err, engine.NoteSessionGone)
	}
	// The fork keeps working.
	r.turn(fork.ID, "go on")
	if h := r.history(fork.ID); h[len(h)-1].Text != albedo.TurnFinished {
		t.Errorf("the fork's turn ended with %+v", h[len(h)-1])
	}
	// A restarted service does not bring it back.
	again := r.newService()
	_, err = again.Session(r.ctx, sess.ID)
	wantCode(t, err, albedo.ENotFound)
}

func TestDeleteARunningSessionIsBusy(t *testing.T) {
	r := newRig(t, script(fakes.Text("done")))
	sess := r.session("")
	gate := fakes.NewGate()
	r.provider.SetGate(gate)
	r.send(sess.ID, "hello")
	<-gate.Entered()
	wantCode(t, r.svc.DeleteSession(r.ctx, sess.ID), albedo.EBusy)
	gate.Open()
	r.waitIdle(sess.ID)
	if err := r.svc.DeleteSession(r.ctx, sess.ID); err != nil {
		t.Errorf("delete once idle: %v", err)
	}
}

func TestArchiveAndFind(t *testing.T) {
	r := newRig(t, script(fakes.Text("done")))
	a := r.session("")
	r.turn(a.ID, "Fix the Parser")
	b := r.session("")
	r.turn(b.ID, "write docs")
	other := mkdir(t, r.workspace, "other")
	c, err := r.svc.CreateSession(r.ctx, other, "")
	if err != nil {
		t.Fatal(err)
	}
	cfg := r.get(b.ID)
	name := "Parser notes"
	if _, err := r.svc.Configure(r.ctx, b.ID, cfg.Revision, albedo.Configuration{Name: &name}); err != nil {
		t.Fatal(err)
	}
	yes := true
	_, err = r.svc.Configure(r.ctx, a.ID, 1, albedo.Configuration{Archived: &yes})
	wantCode(t, err, albedo.EStale)
	if _, err := r.svc.Configure(r.ctx, a.ID, r.get(a.ID).Revision, albedo.Configuration{Archived: &yes}); err != nil {
		t.Fatal(err)
	}
	ids := func(f engine.SessionFilter) []string {
		t.Helper()
		list, _, err := r.svc.FindSessions(r.ctx, f)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, s := range list {
			out = append(out, s.ID)
		}
		return out
	}
	tests := []struct {
		name string
		f    engine.SessionFilter
		want []string
	}{
		{"not archived", engine.SessionFilter{}, []string{b.ID, c.ID}},
		{"archived only", engine.SessionFilter{Archived: engine.ArchivedOnly}, []string{a.ID}},
		{"all, archiving last", engine.SessionFilter{Archived: engine.ArchivedAll}, []string{a.ID, b.ID, c.ID}},
		{"title, any case", engine.SessionFilter{Query: "PARSER", Archived: engine.ArchivedAll}, []string{a.ID, b.ID}},
		{"name", engine.SessionFilter{Query: "notes"}, []string{b.ID}},
		{"id prefix", engine.SessionFilter{Query: c.ID[:5]}, []string{c.ID}},
		{"workspace", engine.SessionFilter{Workspace: other}, []string{c.ID}},
		{"no match", engine.SessionFilter{Query: "zzz"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := ids(tt.f); !slices.Equal(got, tt.want) {
				t.Errorf("found %v, want %v", got, tt.want)
			}
		})
	}
	// Pages of one, following the cursor, list everything once in order.
	var paged []string
	f := engine.SessionFilter{Archived: engine.ArchivedAll, Limit: 1}
	for range 10 {
		list, next, err := r.svc.FindSessions(r.ctx, f)
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range list {
			paged = append(paged, s.ID)
		}
		if next == "" {
			break
		}
		f.Cursor = next
	}
	if want := ids(engine.SessionFilter{Archived: engine.ArchivedAll}); !slices.Equal(paged, want) {
		t.Errorf("paged %v, want %v", paged, want)
	}
	_, _, err = r.svc.FindSessions(r.ctx, engine.SessionFilter{Cursor: "nonsense"})
	wantCode(t, err, albedo.EInvalid)
}

// Output a crash left spooled for a session is removed with the session;
// another session's stays.
func TestDeleteSessionRemovesItsSpool(t *testing.T) {
	r := newRig(t, script(fakes.Text("done")))
	spool := newMemSpool()
	r.spoolService(spool, r.store)
	gone, kept := r.session(""), r.session("")
	for _, id := range []string{gone.ID, kept.ID} {
		if err := spool.Append(r.ctx, id, 3, "printed before the crash\n"); err != nil {
			t.Fatal(err)
		}
	}
	if err := r.svc.DeleteSession(r.ctx, gone.ID); err != nil {
		t.Fatal(err)
	}
	if spool.has(gone.ID, 3) {
		t.Error("the deleted session's spooled output is still kept")
	}
	if !spool.has(kept.ID, 3) {
		t.Error("another session's spooled output went with it")
	}
}
