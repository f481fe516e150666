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
	// Back to version 1, which had no leases, live batches nor spooled
	// cell output either.
	pgtest.Exec(t, url, "DROP TABLE leases", "DROP TABLE live_batches", "DROP TABLE cell_output", "UPDATE albedo_schema SET version = 1")
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
