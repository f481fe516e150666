package engine_test

import (
	"errors"
	"slices"
	"testing"

	"github.com/albedo-agent/albedo/albedo"
	"github.com/albedo-agent/albedo/albedo/engine"
	"github.com/albedo-agent/albedo/fixtures/fakes"
)

func TestForkAtCallCheckpoint(t *testing.T) {
	r := newRig(t, script(fakes.Text("branch answer"), fakes.Python("make_files()"), fakes.Text("made them")))
	src := r.session(chatProvider)
	r.turn(src.ID, "make some files")
	srcItems := r.history(src.ID)
	equalKinds(t, srcItems, albedo.KindUser, albedo.KindToolCall, albedo.KindToolOutput, albedo.KindAssistant, albedo.KindTurn)
	srcSess := r.get(src.ID)
	call := srcItems[1]

	branch, err := r.svc.Fork(r.ctx, src.ID, call.Seq)
	if err != nil {
		t.Fatal(err)
	}
	if branch.ID == src.ID || branch.ParentID != src.ID || branch.Checkpoint != call.Seq {
		t.Errorf("branch ids = %q parent %q checkpoint %d", branch.ID, branch.ParentID, branch.Checkpoint)
	}
	if branch.Title != srcSess.Title || branch.Provider != srcSess.Provider || branch.Model != srcSess.Model ||
		branch.Protocol != srcSess.Protocol || branch.Workspace != srcSess.Workspace || branch.Stage != albedo.StageIdle {
		t.Errorf("branch = %+v, source = %+v", branch, srcSess)
	}
	if stored := r.get(branch.ID); stored.ParentID != src.ID || stored.Checkpoint != call.Seq {
		t.Errorf("stored branch = %+v", stored)
	}
	items := r.history(branch.ID)
	equalKinds(t, items, albedo.KindUser, albedo.KindToolCall, albedo.KindToolOutput)
	if items[0].Text != srcItems[0].Text || items[1].CallID != call.CallID || string(items[1].Raw) != string(call.Raw) {
		t.Errorf("branch prefix = %+v", items[:2])
	}
	if out := items[2]; out.CallID != call.CallID || out.Text != engine.BranchOutput {
		t.Errorf("branch output = %+v", out)
	}
	for i, it := range items {
		if it.Seq != int64(i+1) {
			t.Errorf("branch item %d has seq %d", i, it.Seq)
		}
	}
	if after := r.history(src.ID); !slices.EqualFunc(after, srcItems, func(a, b albedo.Item) bool { return a.Seq == b.Seq && a.Kind == b.Kind && a.Text == b.Text }) {
		t.Errorf("source changed by fork: %+v", after)
	}
	if got := r.get(src.ID); got.Revision != srcSess.Revision {
		t.Errorf("source revision %d -> %d", srcSess.Revision, got.Revision)
	}

	cellsBefore := len(r.kernel.Cells())
	r.turn(branch.ID, "now answer")
	reqs := r.provider.Requests()
	last := reqs[len(reqs)-1]
	if got := outputsIn(t, last.Input)[call.CallID]; got != engine.BranchOutput {
		t.Errorf("branch request carries output %q, want %q", got, engine.BranchOutput)
	}
	if got := lastUserText(t, last.Input); got != "now answer\n<system-note>"+albedo.KernelResetNote+"</system-note>" {
		t.Errorf("branch's first message = %q, want the kernel note (the branch has its own kernel)", got)
	}
	if n := len(r.kernel.Cells()); n != cellsBefore {
		t.Errorf("fork ran cells: %d -> %d", cellsBefore, n)
	}
	checkPaired(t, r.history(branch.ID))
}

func TestForkRefusals(t *testing.T) {
	r := newRig(t, script(fakes.Text("done")))
	src := r.session("")
	r.turn(src.ID, "hello")
	items := r.history(src.ID) // user, assistant, turn
	tests := []struct {
		name       string
		id         string
		checkpoint int64
		code       string
	}{
		{"unknown checkpoint", src.ID, 99, albedo.ENotFound},
		{"turn marker", src.ID, items[2].Seq, albedo.ENotFound},
		{"zero", src.ID, 0, albedo.EInvalid},
		{"negative", src.ID, -1, albedo.EInvalid},
		{"unknown session", "nope", 1, albedo.ENotFound},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := r.svc.Fork(r.ctx, tc.id, tc.checkpoint)
			wantCode(t, err, tc.code)
		})
	}
	sessions, _ := r.svc.Sessions(r.ctx)
	if len(sessions) != 1 {
		t.Errorf("refused forks made sessions: %+v", sessions)
	}
	if b, err := r.svc.Fork(r.ctx, src.ID, items[1].Seq); err != nil || len(r.history(b.ID)) != 2 {
		t.Errorf("fork at the answer = %v", err)
	}
}

func TestForkBusySession(t *testing.T) {
	r := newRig(t, script(fakes.Text("done"), fakes.Python("slow()")))
	gate := r.kernel.BlockUntilCancelled()
	src := r.session("")
	r.send(src.ID, "go")
	<-gate.Entered()
	items := r.history(src.ID)
	equalKinds(t, items, albedo.KindUser, albedo.KindToolCall)

	_, err := r.svc.Fork(r.ctx, src.ID, items[1].Seq)
	wantCode(t, err, albedo.EBusy)
	branch, err := r.svc.Fork(r.ctx, src.ID, items[0].Seq)
	if err != nil {
		t.Fatalf("fork of a busy session before the in-flight call: %v", err)
	}
	equalKinds(t, r.history(branch.ID), albedo.KindUser)

	gate.Open()
	r.waitIdle(src.ID)
	if _, err := r.svc.Fork(r.ctx, src.ID, items[1].Seq); err != nil {
		t.Fatalf("fork at the call once the turn ended: %v", err)
	}
}

func TestForkCopiesThePrefixEvents(t *testing.T) {
	replies := []fakes.Reply{fakes.Fail(errors.New("provider down")), fakes.Text("back")}
	r := newRig(t, func(albedo.ModelRequest) fakes.Reply {
		next := replies[0]
		replies = replies[1:]
		return next
	})
	sess := r.session("")
	for _, text := range []string{"first try", "second try"} {
		if _, err := r.svc.Send(r.ctx, sess.ID, albedo.Message{Text: text}); err != nil {
			t.Fatal(err)
		}
		if err := r.svc.Wait(r.ctx, sess.ID); err != nil {
			t.Fatal(err)
		}
	}
	types := func(items []albedo.Item) []string {
		var out []string
		for _, ev := range displayEvents(items) {
			out = append(out, ev.Type)
		}
		return out
	}
	if got := types(r.history(sess.ID)); !slices.Equal(got, []string{"user", "error", "turn", "user", "message", "turn"}) {
		t.Fatalf("source events %v", got)
	}
	branch, err := r.svc.Fork(r.ctx, sess.ID, 4)
	if err != nil {
		t.Fatal(err)
	}
	if got := types(r.history(branch.ID)); !slices.Equal(got, []string{"user", "error", "turn", "user"}) {
		t.Errorf("branch events %v, want the prefix's error and turn boundary too", got)
	}
}
