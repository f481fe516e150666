package sqlite

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/albedo-agent/albedo/albedo"
)

// newVent returns a vent as the domain files it.
func newVent(message string) albedo.Vent {
	return albedo.Vent{
		Topic:      "harness",
		Title:      "job stalled",
		Message:    message,
		Suggestion: "report the blocked job",
		Status:     albedo.VentOpen,
		SessionID:  "s0",
		Workspace:  "/work/s0",
		// The filing session's title when it filed the vent.
		SessionTitle: "fix the flaky job",
	}
}

func TestVentsInsertedFromOutside(t *testing.T) {
	path := testPath(t)
	s := openStore(t, path)
	before := time.Now().Add(-time.Second)
	raw := rawDB(t, path)
	exec(t, raw,
		`INSERT INTO paperclips(topic,message,cwd,session) VALUES('bug','ghost vent','/w','no-such-session')`,
		`INSERT INTO paperclips(topic,message,cwd) VALUES('bug','sessionless vent','/w')`,
	)
	vents, err := s.Vents(context.Background(), 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(vents) != 2 {
		t.Fatalf("%d vents, want 2", len(vents))
	}
	for i, want := range []albedo.Vent{
		{ID: 2, Topic: "bug", Message: "sessionless vent", Workspace: "/w"},
		{ID: 1, Topic: "bug", Message: "ghost vent", Workspace: "/w", SessionID: "no-such-session"},
	} {
		got := vents[i]
		if got.CreatedAt.Before(before) || got.CreatedAt.After(time.Now()) || !got.UpdatedAt.Equal(got.CreatedAt) {
			t.Errorf("vent %d times %v, %v; want the insert's", got.ID, got.CreatedAt, got.UpdatedAt)
		}
		want.Status = albedo.VentOpen
		want.Revision = 1
		want.CreatedAt, want.UpdatedAt = got.CreatedAt, got.UpdatedAt
		if got != want {
			t.Errorf("vent\n got %+v\nwant %+v", got, want)
		}
	}
	// A reply to a vent with no filing session keeps the session NULL.
	v := vents[0]
	v.Reply, v.Status = "for nobody", albedo.VentAcknowledged
	if _, err := s.UpdateVent(context.Background(), v); err != nil {
		t.Fatal(err)
	}
	var nulls int
	if err := raw.QueryRow("SELECT count(*) FROM paperclips WHERE session IS NULL").Scan(&nulls); err != nil || nulls != 1 {
		t.Errorf("%d vents with a NULL session (%v), want 1", nulls, err)
	}
}

func TestInsertVent(t *testing.T) {
	s := openStore(t, testPath(t))
	ctx := context.Background()
	in := newVent("a background job stopped responding")
	in.ID, in.Revision = 99, 42 // the store assigns these
	before := time.Now().Add(-time.Millisecond)
	got, err := s.InsertVent(ctx, in)
	if err != nil {
		t.Fatal(err)
	}
	if got.ID != 1 || got.Revision != 1 || got.CreatedAt.Before(before) || !got.UpdatedAt.Equal(got.CreatedAt) {
		t.Errorf("inserted vent %+v; want id 1, revision 1, times now", got)
	}
	want := in
	want.ID, want.Revision, want.CreatedAt, want.UpdatedAt = got.ID, 1, got.CreatedAt, got.UpdatedAt
	if got != want {
		t.Errorf("InsertVent\n got %+v\nwant %+v", got, want)
	}
	stored, err := s.Vent(ctx, got.ID)
	if err != nil || stored != got {
		t.Errorf("Vent = %+v, %v\nwant %+v", stored, err, got)
	}
	_, err = s.Vent(ctx, 12345)
	wantCode(t, err, albedo.ENotFound)

	untitled := newVent("no title")
	untitled.Title, untitled.Status, untitled.SessionID = "", "", ""
	got, err = s.InsertVent(ctx, untitled)
	if err != nil {
		t.Fatal(err)
	}
	if got.Title != "" || got.Status != albedo.VentOpen || got.SessionID != "" {
		t.Errorf("untitled vent %+v; want no title, open, no session", got)
	}
}

func TestVentsPaging(t *testing.T) {
	s := openStore(t, testPath(t))
	ctx := context.Background()
	for i := 0; i < 5; i++ {
		if _, err := s.InsertVent(ctx, newVent("v")); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct {
		before int64
		limit  int
		want   string
	}{
		{0, 0, "5 4 3 2 1"},
		{0, 2, "5 4"},
		{4, 2, "3 2"},
		{2, 10, "1"},
		{1, 10, ""},
		{-1, -1, "5 4 3 2 1"},
	}
	for _, tc := range tests {
		vents, err := s.Vents(ctx, tc.before, tc.limit)
		if err != nil {
			t.Fatal(err)
		}
		var ids []int64
		for _, v := range vents {
			ids = append(ids, v.ID)
		}
		if join(ids) != tc.want {
			t.Errorf("Vents(before %d, limit %d) = %q, want %q", tc.before, tc.limit, join(ids), tc.want)
		}
	}
}

func TestUpdateVent(t *testing.T) {
	s := openStore(t, testPath(t))
	ctx := context.Background()
	v, err := s.InsertVent(ctx, newVent("m"))
	if err != nil {
		t.Fatal(err)
	}
	time.Sleep(2 * time.Millisecond)
	change := v
	change.Status = albedo.VentResolved
	change.Resolution = "fixed"
	change.ResolvingSessionID = "s9"
	change.Reply = "thanks"
	change.Title = "new title"
	change.CreatedAt = time.UnixMilli(1) // the store keeps its own times
	got, err := s.UpdateVent(ctx, change)
	if err != nil {
		t.Fatal(err)
	}
	want := change
	want.Revision = v.Revision + 1
	want.CreatedAt = v.CreatedAt
	want.UpdatedAt = got.UpdatedAt
	if got != want || !got.UpdatedAt.After(v.UpdatedAt) {
		t.Errorf("UpdateVent\n got %+v\nwant %+v, updated after %v", got, want, v.UpdatedAt)
	}
	if stored, err := s.Vent(ctx, v.ID); err != nil || stored != got {
		t.Errorf("Vent after update = %+v, %v\nwant %+v", stored, err, got)
	}

	tests := []struct {
		name string
		vent albedo.Vent
		code string
	}{
		{"stale revision", v, albedo.EStale},
		{"future revision", func() albedo.Vent { x := v; x.Revision = 10; return x }(), albedo.EStale},
		{"missing vent", func() albedo.Vent { x := v; x.ID = 777; return x }(), albedo.ENotFound},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := s.UpdateVent(ctx, tc.vent)
			wantCode(t, err, tc.code)
		})
	}
}

func TestUpdateVentConcurrently(t *testing.T) {
	s := openStore(t, testPath(t))
	ctx := context.Background()
	for round := 0; round < 20; round++ {
		v, err := s.InsertVent(ctx, newVent("race"))
		if err != nil {
			t.Fatal(err)
		}
		const writers = 2
		errs := make([]error, writers)
		var wg sync.WaitGroup
		start := make(chan struct{})
		for i := range writers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				change := v
				change.Reply = "writer"
				<-start
				_, errs[i] = s.UpdateVent(ctx, change)
			}()
		}
		close(start)
		wg.Wait()
		var won, stale int
		for _, err := range errs {
			switch albedo.ErrorCode(err) {
			case "":
				won++
			case albedo.EStale:
				stale++
			default:
				t.Fatalf("round %d: unexpected error %v", round, err)
			}
		}
		if won != 1 || stale != 1 {
			t.Fatalf("round %d: %d won and %d stale, want one each", round, won, stale)
		}
		if got, err := s.Vent(ctx, v.ID); err != nil || got.Revision != 2 {
			t.Fatalf("round %d: revision %d (%v), want 2", round, got.Revision, err)
		}
	}
}

func TestDeleteVent(t *testing.T) {
	s := openStore(t, testPath(t))
	ctx := context.Background()
	v, err := s.InsertVent(ctx, newVent("m"))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name     string
		id       int64
		revision int64
		code     string
	}{
		{"stale revision", v.ID, v.Revision + 1, albedo.EStale},
		{"missing vent", 777, 1, albedo.ENotFound},
		{"current revision", v.ID, v.Revision, ""},
		{"already deleted", v.ID, v.Revision, albedo.ENotFound},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			wantCode(t, s.DeleteVent(ctx, tc.id, tc.revision), tc.code)
		})
	}
	_, err = s.Vent(ctx, v.ID)
	wantCode(t, err, albedo.ENotFound)
}
