package postgres

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/albedo-agent/albedo/albedo"
)

// odd is text that PostgreSQL's text type cannot hold or that SQL could
// misread: NUL, invalid UTF-8, quotes, backslashes, placeholders.
const odd = "a\x00b \xff\xfe \xe2\x82 'q' \"d\" \\x00 \\\\ ? $1 %s \U0001F600"

// TestOddTextRoundTrips checks that every string column keeps odd text
// byte for byte, keys included.
func TestOddTextRoundTrips(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	ctx := t.Context()
	sess := newSession("id " + odd)
	sess.Workspace, sess.Title, sess.Name, sess.Provider, sess.Model, sess.Effort = "/w/"+odd, odd, odd, odd, odd, odd
	sess.ParentID, sess.Compacting = odd, odd
	item := albedo.Item{
		Kind: albedo.KindToolCall, Text: odd, Source: odd, Notes: []string{"note"}, CallID: odd, ToolName: odd,
		Arguments: odd, Protocol: albedo.ProtocolResponses, Raw: json.RawMessage(`{"a":"` + odd + `"}`),
		Image: &albedo.Image{MimeType: "image/png", Width: 1, Height: 2, Bytes: 3, Data: []byte(odd)},
	}
	queued := albedo.Queued{Text: odd, Source: odd}
	done := mustCommit(t, s, albedo.Commit{Session: &sess, Items: []albedo.Item{item}, Enqueue: []albedo.Queued{queued}})

	got, err := s.Session(ctx, sess.ID)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, sess) {
		t.Errorf("session read back as %+v, want %+v", got, sess)
	}
	items, err := s.Items(ctx, sess.ID, 0, 0)
	if err != nil || len(items) != 1 {
		t.Fatalf("Items = %v, %v", items, err)
	}
	if !reflect.DeepEqual(items[0], done.Items[0]) {
		t.Errorf("item read back as %+v, want %+v", items[0], done.Items[0])
	}
	q, err := s.Queued(ctx, sess.ID)
	if err != nil || len(q) != 1 || q[0].Text != odd || q[0].Source != odd {
		t.Errorf("queue read back as %+v, %v", q, err)
	}

	v, err := s.InsertVent(ctx, albedo.Vent{Topic: odd, Title: odd, Message: odd, Suggestion: odd, SessionID: sess.ID,
		Workspace: odd, Reply: odd, Resolution: odd, ResolvingSessionID: odd, SessionTitle: odd})
	if err != nil {
		t.Fatal(err)
	}
	gotVent, err := s.Vent(ctx, v.ID)
	if err != nil || !reflect.DeepEqual(gotVent, v) {
		t.Errorf("vent read back as %+v, %v; want %+v", gotVent, err, v)
	}

	row, err := s.AppendRequest(ctx, albedo.RequestRow{SessionID: sess.ID, Kind: albedo.RequestKind("turn"), Provider: odd,
		Model: odd, Outcome: albedo.OutcomeOK, Error: odd})
	if err != nil {
		t.Fatal(err)
	}
	rows, err := s.Requests(ctx, sess.ID, 0, 0)
	if err != nil || len(rows) != 1 || !reflect.DeepEqual(rows[0], row) {
		t.Errorf("ledger read back as %+v, %v; want %+v", rows, err, row)
	}

	c := albedo.Compaction{SessionID: sess.ID, Summary: odd, Fingerprint: odd, Strategy: albedo.CompactManual, Users: 1, Items: 2, At: 3}
	if err := s.SaveCompaction(ctx, c); err != nil {
		t.Fatal(err)
	}
	gotC, err := s.Compaction(ctx, sess.ID)
	if err != nil || gotC != c {
		t.Errorf("compaction read back as %+v, %v; want %+v", gotC, err, c)
	}
}

// TestSessionsOrderByBytes checks that sessions updated in the same
// millisecond are listed by id compared byte by byte, as SQLite compares
// text, whatever the database's collation.
func TestSessionsOrderByBytes(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	ids := []string{"b", "B", "a", "\xff", "ä", "A", "a\x00"}
	for _, id := range ids {
		sess := newSession(id)
		mustCommit(t, s, albedo.Commit{Session: &sess})
	}
	list, err := s.Sessions(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, sess := range list {
		got = append(got, sess.ID)
	}
	want := []string{"A", "B", "a", "a\x00", "b", "ä", "\xff"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("sessions listed as %q, want %q", got, want)
	}
}
