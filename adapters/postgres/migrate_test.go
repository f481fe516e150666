package postgres

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/albedo-agent/albedo/albedo"

	"github.com/albedo-agent/albedo/fixtures/pgtest"
)

// TestSchema checks that a new database gets the current schema, that
// opening it again changes nothing, and that a database written by a
// newer albedo is refused untouched.
func TestSchema(t *testing.T) {
	t.Parallel()
	url := pgtest.NewDatabase(t)
	s := openStore(t, url)
	sess := newSession("kept")
	mustCommit(t, s, albedo.Commit{Session: &sess})
	again := openStore(t, url)
	if _, err := again.Session(t.Context(), "kept"); err != nil {
		t.Fatalf("a session written before the store was opened again: %v", err)
	}

	newer := SchemaVersion + 1
	pgtest.Exec(t, url, fmt.Sprintf("UPDATE albedo_schema SET version = %d", newer))
	_, err := Open(t.Context(), url)
	var refused *NewerSchemaError
	if !errors.As(err, &refused) || refused.Version != newer || refused.Known != SchemaVersion {
		t.Fatalf("Open of a newer database = %v, want a *NewerSchemaError for schema %d", err, newer)
	}
	if strings.Contains(err.Error(), "password") || strings.Contains(err.Error(), passwordOf(t, url)) {
		t.Errorf("the refusal %q shows the password", err)
	}
	if _, err := s.Session(t.Context(), "kept"); err != nil {
		t.Errorf("the refused database lost its session: %v", err)
	}
}

// TestUpgradeFromVersion1FlagsARawWithoutItsText: version 1 told a
// Responses item whose Raw left its long text out by the Raw being the
// shorter; version 2 flags it, and only it.
func TestUpgradeFromVersion1FlagsARawWithoutItsText(t *testing.T) {
	t.Parallel()
	url := pgtest.NewDatabase(t)
	s := openStore(t, url)
	sess := newSession("old")
	long := strings.Repeat("é", 100)
	resp := albedo.ProtocolResponses
	mustCommit(t, s, albedo.Commit{Session: &sess, Items: []albedo.Item{
		{Kind: albedo.KindAssistant, Protocol: resp, Text: long, Raw: []byte(`{"content":[{"text":""}]}`), Flags: albedo.FlagTruncated},
		{Kind: albedo.KindToolCall, Protocol: resp, CallID: "c", ToolName: "python", Arguments: long, Raw: []byte(`{"arguments":""}`)},
		{Kind: albedo.KindAssistant, Protocol: resp, Text: "short", Raw: []byte(`{"content":[{"text":"short"}]}`)},
		{Kind: albedo.KindAssistant, Protocol: albedo.ProtocolChatCompletions, Text: long, Raw: []byte(`{}`)},
	}})
	// Back to version 1, which had no leases, live batches, spooled cell
	// output nor item counters either.
	pgtest.Exec(t, url, "DROP TABLE leases", "DROP TABLE live_batches", "DROP TABLE cell_output",
		"ALTER TABLE sessions DROP COLUMN last_seq", "UPDATE albedo_schema SET version = 1")
	items, err := openStore(t, url).Items(t.Context(), "old", 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	want := []albedo.ItemFlags{albedo.FlagTruncated | albedo.FlagRawWithoutText, albedo.FlagRawWithoutText, 0, 0}
	for i, it := range items {
		if it.Flags != want[i] {
			t.Errorf("item %d flags = %b, want %b", it.Seq, it.Flags, want[i])
		}
	}
}

// TestUpgradeFromVersion5StartsItemCountersAtTheLastItem: version 5
// numbered a session's items after its largest seq; version 6 draws them
// from a counter on the session's row, which the upgrade starts at that
// largest seq (0 for a session without items).
func TestUpgradeFromVersion5StartsItemCountersAtTheLastItem(t *testing.T) {
	t.Parallel()
	url := pgtest.NewDatabase(t)
	s := openStore(t, url)
	for id, n := range map[string]int{"long": 3, "short": 1, "empty": 0} {
		sess := newSession(id)
		items := make([]albedo.Item, n)
		for i := range items {
			items[i] = albedo.Item{Kind: albedo.KindUser, Text: "old"}
		}
		mustCommit(t, s, albedo.Commit{Session: &sess, Items: items})
	}
	pgtest.Exec(t, url, "ALTER TABLE sessions DROP COLUMN last_seq", "UPDATE albedo_schema SET version = 5")
	upgraded := openStore(t, url)
	for id, want := range map[string]int64{"long": 4, "short": 2, "empty": 1} {
		done := mustCommit(t, upgraded, albedo.Commit{SessionID: id, Items: []albedo.Item{{Kind: albedo.KindUser, Text: "new"}}})
		if got := done.Items[0].Seq; got != want {
			t.Errorf("session %s: the first item after the upgrade is numbered %d, want %d", id, got, want)
		}
	}
}
