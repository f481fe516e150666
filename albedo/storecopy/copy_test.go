package storecopy

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/albedo-agent/albedo/adapters/postgres"
	"github.com/albedo-agent/albedo/adapters/sqlite"
	"github.com/albedo-agent/albedo/albedo"
	"github.com/albedo-agent/albedo/fixtures/pgtest"
)

func openSQLite(t *testing.T) *sqlite.Store {
	t.Helper()
	s, err := sqlite.Open(t.Context(), filepath.Join(t.TempDir(), "albedo.sqlite"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func openPostgres(t *testing.T) *postgres.Store {
	t.Helper()
	url := pgtest.NewDatabase(t)
	s, err := postgres.Open(t.Context(), url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// fill writes a home's worth of records: a session with a tool turn (a
// call with odd text in its arguments and native JSON, a cell result and
// trace, an image), a fork of it, an archived session, queued messages, a
// compaction state, ledger rows and vents, one of them replied to.
func fill(t *testing.T, s Target) {
	t.Helper()
	ctx := t.Context()
	at := time.UnixMilli(1_780_000_000_123)
	sessions := []albedo.Session{
		{ID: "main", Workspace: "/w", Provider: "p", Model: "m", Protocol: albedo.ProtocolResponses, Title: "odd \x00 \xff title",
			Stage: albedo.StageIdle, Revision: 7, KernelUsed: true, CreatedAt: at, UpdatedAt: at.Add(time.Hour)},
		{ID: "fork", Workspace: "/w", Provider: "p", Model: "m", Protocol: albedo.ProtocolChatCompletions, Name: "a fork",
			Stage: albedo.StageIdle, ParentID: "main", Checkpoint: 2, Revision: 1, CreatedAt: at.Add(2 * time.Hour), UpdatedAt: at.Add(2 * time.Hour)},
		{ID: "old", Workspace: "/x", Provider: "p", Model: "m", Protocol: albedo.ProtocolResponses, Stage: albedo.StageIdle,
			Archived: true, Revision: 3, CreatedAt: at.Add(-time.Hour), UpdatedAt: at.Add(-time.Hour)},
	}
	queued := []albedo.Queued{{SessionID: "main", Text: "later", Source: "console", Timestamp: 5}, {SessionID: "main", Text: "and then", Notes: []string{"n"}, Timestamp: 6}}
	for i := range sessions {
		change := albedo.Commit{Session: &sessions[i]}
		if i == 0 {
			change.Enqueue = queued
		}
		if _, err := s.Commit(ctx, change); err != nil {
			t.Fatal(err)
		}
	}
	image := []byte("\x89PNG\r\n\x1a\n\x00 not really")
	turn := []albedo.Item{
		{Kind: albedo.KindUser, Text: "run it \x00 \xfe", Timestamp: 1},
		{Kind: albedo.KindToolCall, CallID: "c", ToolName: "python", Arguments: `{"code":"print(1)"}` + "\xff", Protocol: albedo.ProtocolResponses,
			Raw: json.RawMessage(`{"type":"function_call","call_id":"c"}`), Timestamp: 2},
		{Kind: albedo.KindToolOutput, CallID: "c", ToolName: "python", Text: "1\n",
			Result: &albedo.CellResult{Status: albedo.CellOK, Output: "1\n", DurationMS: 3,
				Trace: albedo.Trace{Activities: []albedo.Activity{{Kind: "read", Target: "/w/ü"}}}}, Timestamp: 3},
		{Kind: albedo.KindToolImage, CallID: "c", ToolName: "python", Image: &albedo.Image{MimeType: "image/png", Width: 1, Height: 1, Bytes: len(image), Data: image}, Timestamp: 4},
		{Kind: albedo.KindAssistant, Text: "done", Protocol: albedo.ProtocolResponses, Flags: albedo.FlagPartial, Timestamp: 5},
	}
	for range 30 { // more items than one batch
		if _, err := s.Commit(ctx, albedo.Commit{SessionID: "main", Items: turn}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := s.Commit(ctx, albedo.Commit{SessionID: "fork", Items: turn[:2]}); err != nil {
		t.Fatal(err)
	}
	if err := s.SaveCompaction(ctx, albedo.Compaction{SessionID: "main", Summary: "so far", Users: 2, Fingerprint: "f", Items: 40, Strategy: "summary", At: 9}); err != nil {
		t.Fatal(err)
	}
	ok := 200
	for _, row := range []albedo.RequestRow{
		{SessionID: "main", Kind: albedo.RequestTurn, Provider: "p", Model: "m", Outcome: albedo.OutcomeOK, Status: &ok, Started: 1, Finished: 2,
			Usage: albedo.Usage{InputTokens: albedo.Tokens(10), OutputTokens: albedo.Tokens(3)}, Items: 4, Bytes: 100},
		{SessionID: "fork", Kind: albedo.RequestTurn, Outcome: albedo.OutcomeError, Error: "overloaded"},
		{SessionID: "main", Kind: albedo.RequestSummary, Outcome: albedo.OutcomeOK, Usage: albedo.Usage{InputTokens: albedo.Tokens(5)}},
	} {
		if _, err := s.AppendRequest(ctx, row); err != nil {
			t.Fatal(err)
		}
	}
	for i, v := range []albedo.Vent{
		{Topic: "tools", Title: "slow", Message: "the tool is slow", SessionID: "main", Workspace: "/w"},
		{Topic: "docs", Title: "gone", Message: "deleted later"},
		{Topic: "docs", Title: "missing", Message: "no docs \x00", SessionID: "old"},
	} {
		stored, err := s.InsertVent(ctx, v)
		if err != nil {
			t.Fatal(err)
		}
		switch i {
		case 1:
			if err := s.DeleteVent(ctx, stored.ID, stored.Revision); err != nil {
				t.Fatal(err)
			}
		case 2:
			stored.Status, stored.Reply = albedo.VentResolved, "see the README"
			if _, err := s.UpdateVent(ctx, stored); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// TestCopyThereAndBack copies a filled SQLite store into PostgreSQL and
// that copy into a second SQLite store: each copy verifies, and the last
// holds what the first held.
func TestCopyThereAndBack(t *testing.T) {
	ctx := t.Context()
	first, pg, back := openSQLite(t), openPostgres(t), openSQLite(t)
	fill(t, first)
	sum, err := Copy(ctx, first, pg, io.Discard)
	if err != nil {
		t.Fatalf("copy to PostgreSQL: %v", err)
	}
	want := Summary{Sessions: 3, Items: 152, Requests: 3, Vents: 2}
	if sum != want {
		t.Errorf("copy to PostgreSQL = %+v, want %+v", sum, want)
	}
	if sum, err = Copy(ctx, pg, back, io.Discard); err != nil || sum != want {
		t.Fatalf("copy back = %+v, %v; want %+v", sum, err, want)
	}
	if _, err := Verify(ctx, first, back); err != nil {
		t.Errorf("the copy back differs from the first store: %v", err)
	}
	// The target numbers what it adds after the copied vents.
	v, err := pg.InsertVent(ctx, albedo.Vent{Topic: "new", Title: "new", Message: "after the copy"})
	if err != nil || v.ID != 4 {
		t.Errorf("a vent filed after the copy got id %d, %v; want 4", v.ID, err)
	}
}

// failing passes writes on to a Target until left reaches zero, then
// fails them all, as a copy cut by a crash or a lost connection.
type failing struct {
	Target
	left int
}

var errCut = errors.New("the copy was cut")

func (f *failing) write() error {
	if f.left == 0 {
		return errCut
	}
	f.left--
	return nil
}

func (f *failing) Commit(ctx context.Context, c albedo.Commit) (albedo.Committed, error) {
	if err := f.write(); err != nil {
		return albedo.Committed{}, err
	}
	return f.Target.Commit(ctx, c)
}

func (f *failing) AppendRequest(ctx context.Context, r albedo.RequestRow) (albedo.RequestRow, error) {
	if err := f.write(); err != nil {
		return albedo.RequestRow{}, err
	}
	return f.Target.AppendRequest(ctx, r)
}

func (f *failing) SaveCompaction(ctx context.Context, c albedo.Compaction) error {
	if err := f.write(); err != nil {
		return err
	}
	return f.Target.SaveCompaction(ctx, c)
}

func (f *failing) ImportVent(ctx context.Context, v albedo.Vent) error {
	if err := f.write(); err != nil {
		return err
	}
	return f.Target.ImportVent(ctx, v)
}

// TestAnInterruptedCopyResumes cuts a copy after every possible number
// of writes, then runs it again whole: it finishes, verified, with nothing
// written twice.
func TestAnInterruptedCopyResumes(t *testing.T) {
	ctx := t.Context()
	source := openSQLite(t)
	fill(t, source)
	for left := 0; ; left++ {
		target := openSQLite(t)
		_, err := Copy(ctx, source, &failing{Target: target, left: left}, io.Discard)
		if err == nil {
			break // no write left to cut
		}
		if !errors.Is(err, errCut) {
			t.Fatalf("cut after %d writes: %v", left, err)
		}
		sum, err := Copy(ctx, source, target, io.Discard)
		if err != nil {
			t.Fatalf("resumed after %d writes: %v", left, err)
		}
		if sum.Items != 152 || sum.Requests != 3 || sum.Vents != 2 {
			t.Fatalf("resumed after %d writes: %+v", left, sum)
		}
	}
}

// TestVerifyFindsADifference changes one byte of one copied item, and a
// copy into a store holding a session the source lacks is refused.
func TestVerifyFindsADifference(t *testing.T) {
	ctx := t.Context()
	source, target := openSQLite(t), openSQLite(t)
	fill(t, source)
	if _, err := Copy(ctx, source, target, io.Discard); err != nil {
		t.Fatal(err)
	}
	for _, change := range []albedo.Commit{
		{SessionID: "fork", Items: []albedo.Item{{Kind: albedo.KindUser, Text: "one more"}}},
		{Session: &albedo.Session{ID: "stranger", Workspace: "/s", Stage: albedo.StageIdle, Revision: 1}},
	} {
		other := openSQLite(t)
		if _, err := Copy(ctx, source, other, io.Discard); err != nil {
			t.Fatal(err)
		}
		if _, err := other.Commit(ctx, change); err != nil {
			t.Fatal(err)
		}
		if _, err := Verify(ctx, source, other); err == nil || !strings.Contains(err.Error(), "differs") {
			t.Errorf("after %+v, Verify = %v, want a difference", change, err)
		}
	}
	stranger := openSQLite(t)
	if _, err := stranger.Commit(ctx, albedo.Commit{Session: &albedo.Session{ID: "stranger", Workspace: "/s", Stage: albedo.StageIdle, Revision: 1}}); err != nil {
		t.Fatal(err)
	}
	_, err := Copy(ctx, source, stranger, io.Discard)
	if albedo.ErrorCode(err) != albedo.EInvalid || !strings.Contains(err.Error(), "stranger") {
		t.Errorf("a copy into a store holding another session = %v, want EInvalid naming it", err)
	}
}
