package sqlite

import (
	"context"
	"testing"

	"github.com/albedo-agent/albedo/albedo"
)

// TestCommitWritesAVentWithItsNoteOrNothing: a vent written through Commit
// lands together with the rest of the change, and a stale one stops all of
// it.
func TestCommitWritesAVentWithItsNoteOrNothing(t *testing.T) {
	ctx := context.Background()
	s := openStore(t, testPath(t))
	sess := newSession("s1")
	mustCommit(t, s, albedo.Commit{Session: &sess})
	v, err := s.InsertVent(ctx, albedo.Vent{Topic: "bug", Message: "m", Status: albedo.VentOpen, SessionID: "s1"})
	if err != nil {
		t.Fatal(err)
	}
	note := albedo.Queued{Text: "answers: fixed"}

	stale := v
	stale.Reply, stale.Revision = "too late", v.Revision+1
	_, err = s.Commit(ctx, albedo.Commit{SessionID: "s1", Enqueue: []albedo.Queued{note}, Vent: &stale})
	wantCode(t, err, albedo.EStale)
	if q, _ := s.Queued(ctx, "s1"); len(q) != 0 {
		t.Fatalf("a stale vent let its note through: %v", q)
	}

	v.Reply, v.Status = "fixed", albedo.VentAcknowledged
	done := mustCommit(t, s, albedo.Commit{SessionID: "s1", Enqueue: []albedo.Queued{note}, Vent: &v})
	if done.Vent == nil || done.Vent.Revision != v.Revision+1 || done.Vent.Reply != "fixed" {
		t.Fatalf("committed vent = %+v", done.Vent)
	}
	if q, _ := s.Queued(ctx, "s1"); len(q) != 1 || q[0].Text != note.Text {
		t.Fatalf("queue = %v, want the note", q)
	}
	stored, err := s.Vent(ctx, v.ID)
	if err != nil || stored.Reply != "fixed" || stored.Status != albedo.VentAcknowledged {
		t.Fatalf("stored vent = %+v, %v", stored, err)
	}
}
