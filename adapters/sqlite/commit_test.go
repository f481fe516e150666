package sqlite

import (
	"context"
	"testing"
	"time"

	"github.com/albedo-agent/albedo/albedo"
)

func TestCommitSessionRoundTrip(t *testing.T) {
	path := testPath(t)
	s := openStore(t, path)
	ctx := context.Background()
	sess := newSession("round")
	mustCommit(t, s, albedo.Commit{Session: &sess})

	changed := sess
	changed.Workspace = "/moved"
	changed.Provider = "alpha"
	changed.Model = "alpha-model"
	changed.Protocol = albedo.ProtocolChatCompletions
	changed.Effort = "high"
	changed.Title = "a title"
	changed.Name = "named"
	changed.Stage = albedo.StageRunning
	changed.ParentID = "parent"
	changed.Checkpoint = 7
	changed.KernelUsed = true
	changed.Revision = 9
	changed.UpdatedAt = time.UnixMilli(1_800_000_000_456)

	for _, want := range []albedo.Session{sess, changed} {
		mustCommit(t, s, albedo.Commit{Session: &want})
		got, err := s.Session(ctx, want.ID)
		if err != nil {
			t.Fatal(err)
		}
		if got != want {
			t.Errorf("Session\n got %+v\nwant %+v", got, want)
		}
	}
	var cwd string
	if err := rawDB(t, path).QueryRow("SELECT cwd FROM sessions WHERE id=?", "round").Scan(&cwd); err != nil || cwd != "/moved" {
		t.Errorf("cwd = %q, %v; want /moved", cwd, err)
	}
}

func TestCommitStampsZeroTimes(t *testing.T) {
	s := openStore(t, testPath(t))
	sess := newSession("stamped")
	sess.CreatedAt, sess.UpdatedAt = time.Time{}, time.Time{}
	before := time.Now().Add(-time.Millisecond)
	mustCommit(t, s, albedo.Commit{Session: &sess})
	got, err := s.Session(context.Background(), sess.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got.CreatedAt.Before(before) || got.UpdatedAt.Before(before) {
		t.Errorf("times %v, %v; want now", got.CreatedAt, got.UpdatedAt)
	}
}

func TestSessionsOrder(t *testing.T) {
	s := openStore(t, testPath(t))
	for _, c := range []struct {
		id      string
		updated int64
	}{
		{"b", 2000}, {"old", 1000}, {"a", 2000}, {"new", 3000},
	} {
		sess := newSession(c.id)
		sess.UpdatedAt = time.UnixMilli(c.updated)
		mustCommit(t, s, albedo.Commit{Session: &sess})
	}
	sessions, err := s.Sessions(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, sess := range sessions {
		ids = append(ids, sess.ID)
	}
	if want := "new a b old"; join(ids) != want {
		t.Errorf("order %q, want %q", join(ids), want)
	}
}

func TestCommitAssignsSeq(t *testing.T) {
	s := openStore(t, testPath(t))
	createSessions(t, s, "s", 2)
	commits := []struct {
		session string
		items   int
		want    []int64
	}{
		{"s0", 1, []int64{1}},
		{"s0", 3, []int64{2, 3, 4}},
		{"s1", 2, []int64{1, 2}},
		{"s0", 2, []int64{5, 6}},
		{"s1", 1, []int64{3}},
	}
	for i, c := range commits {
		items := make([]albedo.Item, c.items)
		for j := range items {
			items[j] = textItem("x")
		}
		done := mustCommit(t, s, albedo.Commit{SessionID: c.session, Items: items})
		var got []int64
		for _, it := range done.Items {
			got = append(got, it.Seq)
		}
		if join(got) != join(c.want) {
			t.Errorf("commit %d: seqs %v, want %v", i, got, c.want)
		}
		if items[0].Seq != 0 {
			t.Errorf("commit %d: the caller's items were changed", i)
		}
	}
	stored, err := s.Items(context.Background(), "s0", 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	for i, it := range stored {
		if it.Seq != int64(i+1) {
			t.Fatalf("stored seqs not 1..n: item %d has seq %d", i, it.Seq)
		}
	}
}

func TestCommitIsAtomic(t *testing.T) {
	ctx := context.Background()
	tests := []struct {
		name string
		// change is made against a store holding session "kept" titled
		// "before", with one item and one queued message.
		change func(kept albedo.Session) albedo.Commit
		code   string
	}{
		{
			name: "items for a missing session after a session update",
			change: func(kept albedo.Session) albedo.Commit {
				kept.Title = "after"
				return albedo.Commit{
					Session:   &kept,
					SessionID: "ghost",
					Items:     []albedo.Item{textItem("lost")},
					Enqueue:   []albedo.Queued{{Text: "lost"}},
				}
			},
			code: albedo.ENotFound,
		},
		{
			name: "a new session with items for a missing one",
			change: func(albedo.Session) albedo.Commit {
				fresh := newSession("fresh")
				return albedo.Commit{
					Session:   &fresh,
					SessionID: "ghost",
					Items:     []albedo.Item{textItem("lost")},
				}
			},
			code: albedo.ENotFound,
		},
		{
			name: "enqueue fails after the items landed",
			change: func(kept albedo.Session) albedo.Commit {
				kept.Title = "after"
				return albedo.Commit{
					Session: &kept,
					Items:   []albedo.Item{textItem("lost"), textItem("lost too")},
					Enqueue: []albedo.Queued{{Text: "fine"}, {Text: "boom"}},
					Dequeue: []int64{1},
				}
			},
			code: albedo.EInternal,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			path := testPath(t)
			s := openStore(t, path)
			kept := newSession("kept")
			kept.Title = "before"
			mustCommit(t, s, albedo.Commit{
				Session: &kept,
				Items:   []albedo.Item{textItem("kept")},
				Enqueue: []albedo.Queued{{Text: "kept"}},
			})
			// A failure inside the transaction, after earlier statements
			// of the same commit have run.
			exec(t, rawDB(t, path), `CREATE TRIGGER fail_boom BEFORE INSERT ON queue
				WHEN NEW.text = 'boom' BEGIN SELECT RAISE(ABORT, 'boom'); END`)

			_, err := s.Commit(ctx, tc.change(kept))
			wantCode(t, err, tc.code)

			got, err := s.Session(ctx, "kept")
			if err != nil || got != kept {
				t.Errorf("session after a failed commit = %+v, %v; want %+v", got, err, kept)
			}
			for _, id := range []string{"fresh", "ghost"} {
				_, err := s.Session(ctx, id)
				wantCode(t, err, albedo.ENotFound)
			}
			items, err := s.Items(ctx, "kept", 0, 0)
			if err != nil || len(items) != 1 || items[0].Text != "kept" {
				t.Errorf("items after a failed commit = %+v, %v; want the one kept", items, err)
			}
			queued, err := s.Queued(ctx, "kept")
			if err != nil || len(queued) != 1 || queued[0].Text != "kept" {
				t.Errorf("queue after a failed commit = %+v, %v; want the one kept", queued, err)
			}
			// The store still commits afterwards.
			done := mustCommit(t, s, albedo.Commit{SessionID: "kept", Items: []albedo.Item{textItem("next")}})
			if done.Items[0].Seq != 2 {
				t.Errorf("seq after a failed commit = %d, want 2", done.Items[0].Seq)
			}
		})
	}
}

func TestCommitErrors(t *testing.T) {
	s := openStore(t, testPath(t))
	createSessions(t, s, "s", 1)
	ctx := context.Background()
	noID := newSession("")
	tests := []struct {
		name   string
		change albedo.Commit
		code   string
	}{
		{"items naming no session", albedo.Commit{Items: []albedo.Item{textItem("x")}}, albedo.EInvalid},
		{"a session without an id", albedo.Commit{Session: &noID}, albedo.EInvalid},
		{"items for a missing session", albedo.Commit{SessionID: "ghost", Items: []albedo.Item{textItem("x")}}, albedo.ENotFound},
		{"enqueue for a missing session", albedo.Commit{SessionID: "ghost", Enqueue: []albedo.Queued{{Text: "x"}}}, albedo.ENotFound},
		{"nothing at all", albedo.Commit{}, ""},
		{"dequeue of nothing queued", albedo.Commit{SessionID: "s0", Dequeue: []int64{42}}, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := s.Commit(ctx, tc.change)
			wantCode(t, err, tc.code)
		})
	}
}

func TestLookupsOfMissingSessions(t *testing.T) {
	s := openStore(t, testPath(t))
	createSessions(t, s, "s", 1)
	ctx := context.Background()
	tests := []struct {
		name string
		call func() error
		code string
	}{
		{"Session", func() error { _, err := s.Session(ctx, "ghost"); return err }, albedo.ENotFound},
		{"Items", func() error { _, err := s.Items(ctx, "ghost", 0, 0); return err }, albedo.ENotFound},
		{"Queued", func() error { _, err := s.Queued(ctx, "ghost"); return err }, albedo.ENotFound},
		{"Items of an empty session", func() error { _, err := s.Items(ctx, "s0", 0, 0); return err }, ""},
		{"Queued of an empty session", func() error { _, err := s.Queued(ctx, "s0"); return err }, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) { wantCode(t, tc.call(), tc.code) })
	}
}
