package sqlite

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/albedo-agent/albedo/albedo"
	"github.com/uptrace/bun"
)

// legacySchema is the sessions table albedo wrote before schema versions.
const legacySchema = `CREATE TABLE sessions(id TEXT PRIMARY KEY,cwd TEXT NOT NULL,
	model TEXT NOT NULL,protocol TEXT NOT NULL,stage TEXT NOT NULL DEFAULT 'idle')`

// userVersion reads the schema version of the database at path.
func userVersion(t *testing.T, path string) int {
	t.Helper()
	var v int
	if err := rawDB(t, path).QueryRow("PRAGMA user_version").Scan(&v); err != nil {
		t.Fatalf("read user_version: %v", err)
	}
	return v
}

func TestOpenCreatesSchema(t *testing.T) {
	path := testPath(t)
	s := openStore(t, path)
	if v := userVersion(t, path); v != SchemaVersion {
		t.Errorf("user_version = %d, want %d", v, SchemaVersion)
	}
	var mode string
	if err := rawDB(t, path).QueryRow("PRAGMA journal_mode").Scan(&mode); err != nil || mode != "wal" {
		t.Errorf("journal_mode = %q (%v), want wal", mode, err)
	}
	for _, table := range []string{"sessions", "items", "queue", "paperclips"} {
		var n int
		err := rawDB(t, path).QueryRow("SELECT count(*) FROM " + table).Scan(&n)
		if err != nil || n != 0 {
			t.Errorf("table %s: %d rows, %v; want 0 rows", table, n, err)
		}
	}
	sessions, err := s.Sessions(context.Background())
	if err != nil || len(sessions) != 0 {
		t.Errorf("Sessions = %v, %v; want none", sessions, err)
	}
}

func TestConnectionPragmas(t *testing.T) {
	s := openStore(t, testPath(t))
	ctx := context.Background()
	common := map[string]string{
		"busy_timeout": fmt.Sprint(busyTimeout),
		"foreign_keys": "1",
		"synchronous":  "1", // NORMAL
		"journal_mode": "wal",
	}
	tests := []struct {
		name  string
		db    *bun.DB
		conns int
		own   map[string]string
	}{
		{"write", s.write, 1, map[string]string{"query_only": "0"}},
		{"read", s.read, readConns, map[string]string{
			"query_only": "1",
			"cache_size": fmt.Sprint(-readCacheKiB),
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			// Holding every connection of the pool at once makes each a
			// different one.
			conns := make([]bun.Conn, tc.conns)
			for i := range conns {
				c, err := tc.db.Conn(ctx)
				if err != nil {
					t.Fatalf("conn %d: %v", i, err)
				}
				defer c.Close()
				conns[i] = c
			}
			for i, c := range conns {
				for _, pragmas := range []map[string]string{common, tc.own} {
					for pragma, want := range pragmas {
						var got string
						if err := c.QueryRowContext(ctx, "PRAGMA "+pragma).Scan(&got); err != nil {
							t.Fatalf("conn %d PRAGMA %s: %v", i, pragma, err)
						}
						if got != want {
							t.Errorf("conn %d PRAGMA %s = %s, want %s", i, pragma, got, want)
						}
					}
				}
			}
		})
	}
}

func TestOpenUpgradesLegacy(t *testing.T) {
	path := testPath(t)
	legacy := rawDB(t, path)
	exec(t, legacy, legacySchema,
		`INSERT INTO sessions(id,cwd,model,protocol) VALUES('legacy-responses','/old/one','legacy-model','responses')`,
		`INSERT INTO sessions(id,cwd,model,protocol,stage) VALUES('legacy-chat','/old/two','legacy-model','chat_completions','running')`,
	)
	legacy.Close()

	before := time.Now().Add(-time.Second)
	want := map[string]albedo.Session{
		"legacy-responses": {ID: "legacy-responses", Workspace: "/old/one", Protocol: albedo.ProtocolResponses, Stage: albedo.StageIdle},
		"legacy-chat":      {ID: "legacy-chat", Workspace: "/old/two", Protocol: albedo.ProtocolChatCompletions, Stage: albedo.StageRunning},
	}
	var first []albedo.Session
	for open := 1; open <= 2; open++ {
		s, err := Open(context.Background(), path)
		if err != nil {
			t.Fatalf("open %d: %v", open, err)
		}
		sessions, err := s.Sessions(context.Background())
		if err != nil {
			t.Fatalf("open %d: Sessions: %v", open, err)
		}
		if len(sessions) != len(want) {
			t.Fatalf("open %d: %d sessions, want %d", open, len(sessions), len(want))
		}
		for _, got := range sessions {
			w := want[got.ID]
			w.Provider = albedo.LegacyProvider
			w.Title = albedo.DefaultTitle
			w.Model = "legacy-model"
			w.Revision = 1
			w.CreatedAt, w.UpdatedAt = got.CreatedAt, got.UpdatedAt
			if got != w {
				t.Errorf("open %d: session\n got %+v\nwant %+v", open, got, w)
			}
			if got.CreatedAt.Before(before) || got.CreatedAt.After(time.Now()) || !got.UpdatedAt.Equal(got.CreatedAt) {
				t.Errorf("open %d: session %s times %v, %v; want the upgrade's time", open, got.ID, got.CreatedAt, got.UpdatedAt)
			}
		}
		if open == 1 {
			first = sessions
		} else if fmt.Sprint(first) != fmt.Sprint(sessions) {
			t.Errorf("reopening changed the sessions:\n%v\n%v", first, sessions)
		}
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
		var cwd string
		if err := rawDB(t, path).QueryRow("SELECT cwd FROM sessions WHERE id=?", "legacy-chat").Scan(&cwd); err != nil || cwd != "/old/two" {
			t.Errorf("open %d: cwd = %q, %v; want /old/two", open, cwd, err)
		}
		if v := userVersion(t, path); v != SchemaVersion {
			t.Errorf("open %d: user_version = %d, want %d", open, v, SchemaVersion)
		}
	}

	// The upgraded sessions take items like any other.
	s := openStore(t, path)
	done := mustCommit(t, s, albedo.Commit{SessionID: "legacy-chat", Items: []albedo.Item{textItem("hello")}})
	if done.Items[0].Seq != 1 {
		t.Errorf("first item of an upgraded session has seq %d, want 1", done.Items[0].Seq)
	}
}

func TestOpenRefusesNewerSchema(t *testing.T) {
	newer := SchemaVersion + 1
	tests := []struct {
		name    string
		journal string
	}{
		{"rollback journal", "DELETE"},
		{"write-ahead log", "WAL"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			path := testPath(t)
			db := rawDB(t, path)
			exec(t, db,
				"PRAGMA journal_mode="+tc.journal,
				legacySchema,
				`INSERT INTO sessions(id,cwd,model,protocol) VALUES('future','/x','m','responses')`,
				fmt.Sprintf("PRAGMA user_version=%d", newer),
			)
			db.Close()
			before, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}

			s, err := Open(context.Background(), path)
			if err == nil {
				s.Close()
				t.Fatal("Open succeeded on a newer schema")
			}
			var refused *NewerSchemaError
			if !errors.As(err, &refused) || refused.Version != newer || refused.Known != SchemaVersion {
				t.Errorf("error %v (%T), want a NewerSchemaError for version %d", err, err, newer)
			}
			wantMsg := fmt.Sprintf("albedo.sqlite was written by a newer albedo (schema %d, this binary knows %d); refusing to modify it", newer, SchemaVersion)
			if err.Error() != wantMsg {
				t.Errorf("error %q, want %q", err, wantMsg)
			}
			after, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(before, after) {
				t.Error("the refused file changed")
			}
		})
	}
}

func TestReopenKeepsData(t *testing.T) {
	path := testPath(t)
	s, err := Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	sess := newSession("kept")
	mustCommit(t, s, albedo.Commit{Session: &sess, Items: []albedo.Item{textItem("one")}})
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	s = openStore(t, path)
	got, err := s.Session(context.Background(), "kept")
	if err != nil || got != sess {
		t.Fatalf("Session after reopen = %+v, %v; want %+v", got, err, sess)
	}
	done := mustCommit(t, s, albedo.Commit{SessionID: "kept", Items: []albedo.Item{textItem("two")}})
	if done.Items[0].Seq != 2 {
		t.Errorf("seq after reopen = %d, want 2", done.Items[0].Seq)
	}
}

func TestFailedUpgradeChangesNothing(t *testing.T) {
	path := testPath(t)
	db := rawDB(t, path)
	// A stray table in the way of migration 3 makes the upgrade fail after
	// migration 2 has rebuilt the sessions table.
	exec(t, db, legacySchema,
		`INSERT INTO sessions(id,cwd,model,protocol) VALUES('legacy','/old','m','responses')`,
		`CREATE TABLE items(x)`,
	)
	db.Close()
	if s, err := Open(context.Background(), path); err == nil {
		s.Close()
		t.Fatal("Open succeeded over a conflicting table")
	}
	if v := userVersion(t, path); v != 0 {
		t.Errorf("user_version = %d after a failed upgrade, want 0", v)
	}
	var columns int
	if err := rawDB(t, path).QueryRow(`SELECT count(*) FROM pragma_table_info('sessions')`).Scan(&columns); err != nil || columns != 5 {
		t.Errorf("sessions has %d columns (%v) after a failed upgrade, want the legacy 5", columns, err)
	}
}

func TestOpenPathsThatNeedEscaping(t *testing.T) {
	for _, dir := range []string{"with space", "question?mark", "hash#sign", "percent%41"} {
		t.Run(dir, func(t *testing.T) {
			parent := filepath.Join(t.TempDir(), dir)
			if err := os.Mkdir(parent, 0o700); err != nil {
				t.Fatal(err)
			}
			path := filepath.Join(parent, "albedo.sqlite")
			s := openStore(t, path)
			sess := newSession("s")
			mustCommit(t, s, albedo.Commit{Session: &sess})
			if _, err := os.Stat(path); err != nil {
				t.Errorf("the database is not at %s: %v", path, err)
			}
		})
	}
}

func TestUpgradeFromVersion3KeepsItems(t *testing.T) {
	path := testPath(t)
	db := rawDB(t, path)
	all := migrations()
	for _, stmts := range all[:3] {
		for _, stmt := range stmts {
			if _, err := db.Exec(stmt); err != nil {
				t.Fatalf("build a version 3 file: %v", err)
			}
		}
	}
	for _, stmt := range []string{
		`INSERT INTO sessions (id, cwd, model, protocol) VALUES ('old', '/w', 'm', 'responses')`,
		`INSERT INTO items (session_id, seq, kind, text, raw) VALUES ('old', 1, 'assistant', 'kept', '{"role":"assistant"}')`,
		`PRAGMA user_version = 3`,
	} {
		if _, err := db.Exec(stmt); err != nil {
			t.Fatalf("%s: %v", stmt, err)
		}
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	s := openStore(t, path)
	items, err := s.Items(context.Background(), "old", 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(items) != 1 || items[0].Text != "kept" || string(items[0].Raw) != `{"role":"assistant"}` || items[0].Flags != 0 {
		t.Fatalf("items after upgrade = %+v", items)
	}
	done := mustCommit(t, s, albedo.Commit{SessionID: "old", Items: []albedo.Item{{Kind: albedo.KindAssistant, Text: "cut", Flags: albedo.FlagTruncated}}})
	got, err := s.Items(context.Background(), "old", 1, 0)
	if err != nil || len(got) != 1 || got[0].Seq != done.Items[0].Seq || got[0].Flags != albedo.FlagTruncated {
		t.Fatalf("flagged item after upgrade = %+v, %v", got, err)
	}
}

// TestUpgradeFromVersion12FlagsARawWithoutItsText: version 12 told a
// Responses item whose Raw left its long text out by the Raw being the
// shorter; version 13 flags it, and only it.
func TestUpgradeFromVersion12FlagsARawWithoutItsText(t *testing.T) {
	path := testPath(t)
	db := rawDB(t, path)
	all := migrations()
	for _, stmts := range all[:12] {
		for _, stmt := range stmts {
			if _, err := db.Exec(stmt); err != nil {
				t.Fatalf("build a version 12 file: %v", err)
			}
		}
	}
	long := strings.Repeat("é", 100)
	for _, stmt := range []struct {
		sql  string
		args []any
	}{
		{`INSERT INTO sessions (id, cwd, model, protocol) VALUES ('old', '/w', 'm', 'responses')`, nil},
		{`INSERT INTO items (session_id, seq, kind, flags, protocol, text, arguments, raw) VALUES
			('old', 1, 'assistant', 2, 'responses', ?, '', '{"content":[{"text":""}]}'),
			('old', 2, 'tool_call', 0, 'responses', '', ?, '{"arguments":""}'),
			('old', 3, 'assistant', 0, 'responses', 'short', '', '{"content":[{"text":"short"}]}'),
			('old', 4, 'assistant', 0, 'chat_completions', ?, '', '{}')`, []any{long, long, long}},
		{`PRAGMA user_version = 12`, nil},
	} {
		if _, err := db.Exec(stmt.sql, stmt.args...); err != nil {
			t.Fatalf("%s: %v", stmt.sql, err)
		}
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	items, err := openStore(t, path).Items(context.Background(), "old", 0, 0)
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

func TestUpgradeFromVersion7KeepsVentsWithoutAFilingTitle(t *testing.T) {
	path := testPath(t)
	db := rawDB(t, path)
	all := migrations()
	for _, stmts := range all[:7] {
		for _, stmt := range stmts {
			if _, err := db.Exec(stmt); err != nil {
				t.Fatalf("build a version 7 file: %v", err)
			}
		}
	}
	for _, stmt := range []string{
		`INSERT INTO paperclips (topic, message, cwd, session) VALUES ('bug', 'filed before', '/w', 's0')`,
		`PRAGMA user_version = 7`,
	} {
		if _, err := db.Exec(stmt); err != nil {
			t.Fatalf("%s: %v", stmt, err)
		}
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	s := openStore(t, path)
	ctx := context.Background()
	old, err := s.Vent(ctx, 1)
	if err != nil || old.Message != "filed before" || old.SessionID != "s0" || old.SessionTitle != "" {
		t.Fatalf("vent after upgrade = %+v, %v; want it whole, without a filing title", old, err)
	}
	filed, err := s.InsertVent(ctx, albedo.Vent{Topic: "bug", Message: "filed after", SessionID: "s0", SessionTitle: "the title then"})
	if err != nil {
		t.Fatal(err)
	}
	if got, err := s.Vent(ctx, filed.ID); err != nil || got.SessionTitle != "the title then" {
		t.Errorf("vent filed after the upgrade = %+v, %v", got, err)
	}
}

// mib is a mebibyte, the size of the pieces versions 9 to 11 kept long
// values in.
const mib = 1 << 20

// TestUpgradeFromVersion10KeepsPiecedTexts upgrades a version 10 file that
// holds a text in pieces (as version 9 wrote them) and long arguments,
// result and raw stored whole: each reads back byte for byte, the pieces
// are gone, new long values are stored, and deleting the session leaves
// none of its rows.
func TestUpgradeFromVersion10KeepsPiecedTexts(t *testing.T) {
	path := testPath(t)
	db := rawDB(t, path)
	all := migrations()
	for _, stmts := range all[:10] {
		exec(t, db, stmts...)
	}
	long := strings.Repeat("é✓\U0001F600", 2*mib/9+1)
	cut := mib - 1 // on a character: 9 bytes a repeat
	whole := strings.Repeat("x\x00é", mib/2)
	result, err := json.Marshal(albedo.CellResult{Status: albedo.CellOK, Output: whole, DurationMS: 3})
	if err != nil {
		t.Fatal(err)
	}
	exec(t, db, `INSERT INTO sessions (id, cwd, model, protocol) VALUES ('old', '/w', 'm', 'responses')`)
	for _, row := range []struct {
		stmt string
		args []any
	}{
		{`INSERT INTO items (session_id, seq, kind, text, text_size, protocol, raw) VALUES ('old', 1, 'assistant', '', ?, 'responses', ?)`,
			[]any{len(long), `{"type":"message"}`}},
		{`INSERT INTO item_pieces (session_id, seq, piece, text) VALUES ('old', 1, 0, ?), ('old', 1, 1, ?)`, []any{long[:cut], long[cut:]}},
		{`INSERT INTO items (session_id, seq, kind, call_id, tool_name, arguments, protocol, raw) VALUES ('old', 2, 'tool_call', 'c', 'python', ?, 'responses', ?)`,
			[]any{whole, whole}},
		{`INSERT INTO items (session_id, seq, kind, call_id, tool_name, text, result, trace, flags) VALUES ('old', 3, 'tool_output', 'c', 'python', 'out', ?, '{}', 4)`,
			[]any{string(result)}},
		{`PRAGMA user_version = 10`, nil},
	} {
		if _, err := db.Exec(row.stmt, row.args...); err != nil {
			t.Fatalf("%s: %v", row.stmt, err)
		}
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}

	s := openStore(t, path)
	ctx := context.Background()
	if v := userVersion(t, path); v != SchemaVersion {
		t.Fatalf("user_version after the upgrade = %d, want %d", v, SchemaVersion)
	}
	items, err := s.Items(ctx, "old", 0, 0)
	if err != nil || len(items) != 3 {
		t.Fatalf("items after the upgrade = %d, %v", len(items), err)
	}
	if items[0].Text != long || string(items[0].Raw) != `{"type":"message"}` {
		t.Errorf("pieced text after the upgrade: %d bytes %q, raw %s", len(items[0].Text), short(items[0].Text), items[0].Raw)
	}
	if items[1].Arguments != whole || string(items[1].Raw) != whole || items[1].CallID != "c" {
		t.Errorf("whole arguments after the upgrade: %d bytes, raw %d bytes, call %q", len(items[1].Arguments), len(items[1].Raw), items[1].CallID)
	}
	if r := items[2].Result; r == nil || r.Output != whole || r.DurationMS != 3 || items[2].Flags != 4 || items[2].Text != "out" {
		t.Errorf("cell result after the upgrade = %+v", items[2])
	}
	if tables := tableNames(t, path); strings.Contains(tables, "item_pieces") {
		t.Errorf("tables after the upgrade: %s; want no item_pieces", tables)
	}

	added := albedo.Item{Kind: albedo.KindToolCall, CallID: "d", ToolName: "python", Arguments: long, Protocol: albedo.ProtocolResponses, Raw: json.RawMessage(long)}
	mustCommit(t, s, albedo.Commit{SessionID: "old", Items: []albedo.Item{added}})
	got, err := s.ItemPage(ctx, "old", albedo.ItemQuery{After: 3})
	if err != nil || len(got) != 1 || got[0].Arguments != long || string(got[0].Raw) != long {
		t.Errorf("long call added after the upgrade = %d items, %v", len(got), err)
	}
	if err := s.DeleteSession(ctx, "old"); err != nil {
		t.Fatal(err)
	}
	var n int
	if err := rawDB(t, path).QueryRow(`SELECT count(*) FROM items`).Scan(&n); err != nil || n != 0 {
		t.Errorf("%d items left after deleting the upgraded session (%v)", n, err)
	}
}

// tableNames lists the tables of the database at path.
func tableNames(t *testing.T, path string) string {
	t.Helper()
	var names string
	err := rawDB(t, path).QueryRow(`SELECT group_concat(name, ' ' ORDER BY name) FROM sqlite_schema WHERE type = 'table'`).Scan(&names)
	if err != nil {
		t.Fatal(err)
	}
	return names
}

// TestUpgradeFromVersion11FoldsPieces upgrades a version 11 file whose
// items keep values in pieces, in every column that had them, with NUL,
// invalid UTF-8 and characters cut between pieces: every value reads back
// byte for byte from its own row, and the pieces and their sizes are gone.
func TestUpgradeFromVersion11FoldsPieces(t *testing.T) {
	path := testPath(t)
	db := rawDB(t, path)
	all := migrations()
	for _, stmts := range all[:11] {
		exec(t, db, stmts...)
	}
	text := strings.Repeat("an answer\x00\xff\xe2\x82 é✓\U0001F600\n", mib/16)
	args := `{"code":"` + strings.Repeat("print('é')\\n", mib/12) + `"}`
	raw := `{"type":"function_call","arguments":"` + strings.Repeat("\x00\xff", mib/2) + `"}`
	trace := albedo.Trace{Activities: []albedo.Activity{{Kind: "read", Target: "/w/" + strings.Repeat("ü", mib/2+1)}}}
	result := albedo.CellResult{Status: albedo.CellOK, Output: strings.Repeat("out\x00\n", mib/5), DurationMS: 7}
	resultJSON, err := json.Marshal(result)
	if err != nil {
		t.Fatal(err)
	}
	traceJSON, err := json.Marshal(trace)
	if err != nil {
		t.Fatal(err)
	}
	image := strings.Repeat("\x89PNG\r\n\x1a\n\x00", mib/5)
	exec(t, db, `INSERT INTO sessions (id, cwd, model, protocol) VALUES ('old', '/w', 'm', 'responses')`)
	rows := []struct {
		stmt string
		args []any
	}{
		{`INSERT INTO items (session_id, seq, kind, text, text_size, protocol) VALUES ('old', 1, 'assistant', '', ?, 'chat_completions')`,
			[]any{len(text)}},
		{`INSERT INTO items (session_id, seq, kind, call_id, tool_name, arguments, arguments_size, raw, raw_size, protocol)
			VALUES ('old', 2, 'tool_call', 'c', 'python', '', ?, '', ?, 'responses')`, []any{len(args), len(raw)}},
		{`INSERT INTO items (session_id, seq, kind, call_id, tool_name, text, result, result_size, trace, trace_size)
			VALUES ('old', 3, 'tool_output', 'c', 'python', 'short', '', ?, '', ?)`, []any{len(resultJSON), len(traceJSON)}},
		{`INSERT INTO items (session_id, seq, kind, call_id, tool_name, image_mime, image_width, image_height, image_bytes, image_size)
			VALUES ('old', 4, 'tool_image', 'c', 'python', 'image/png', 640, 480, ?, ?)`, []any{len(image), len(image)}},
		{`INSERT INTO items (session_id, seq, kind, text) VALUES ('old', 5, 'user', 'kept whole')`, nil},
	}
	for _, p := range []struct {
		seq   int
		field string
		value string
	}{{1, "text", text}, {2, "arguments", args}, {2, "raw", raw}, {3, "result", string(resultJSON)}, {3, "trace", string(traceJSON)}, {4, "image", image}} {
		// Three pieces, the last inserted first: their order is the
		// piece number's, and the first cut falls inside a character.
		a, b := len(p.value)/3+1, 2*len(p.value)/3
		for _, piece := range []struct {
			n    int
			data string
		}{{2, p.value[b:]}, {0, p.value[:a]}, {1, p.value[a:b]}} {
			rows = append(rows, struct {
				stmt string
				args []any
			}{`INSERT INTO item_pieces (session_id, seq, field, piece, data) VALUES ('old', ?, ?, ?, ?)`, []any{p.seq, p.field, piece.n, piece.data}})
		}
	}
	rows = append(rows, struct {
		stmt string
		args []any
	}{`PRAGMA user_version = 11`, nil})
	for _, row := range rows {
		if _, err := db.Exec(row.stmt, row.args...); err != nil {
			t.Fatalf("%s: %v", row.stmt, err)
		}
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}

	s := openStore(t, path)
	if v := userVersion(t, path); v != SchemaVersion {
		t.Fatalf("user_version after the upgrade = %d, want %d", v, SchemaVersion)
	}
	items, err := s.Items(context.Background(), "old", 0, 0)
	if err != nil || len(items) != 5 {
		t.Fatalf("items after the upgrade = %d, %v", len(items), err)
	}
	for _, c := range []struct {
		name      string
		got, want string
	}{
		{"text", items[0].Text, text},
		{"arguments", items[1].Arguments, args},
		{"raw", string(items[1].Raw), raw},
		{"result output", resultOutput(items[2]), result.Output},
		{"trace", traceTarget(items[2]), trace.Activities[0].Target},
		{"image", imageData(items[3]), image},
		{"a short text", items[4].Text, "kept whole"},
	} {
		if c.got != c.want {
			t.Errorf("%s after the upgrade: %d bytes %q, want %d bytes %q", c.name, len(c.got), short(c.got), len(c.want), short(c.want))
		}
	}
	if im := items[3].Image; im == nil || im.MimeType != "image/png" || im.Width != 640 || im.Bytes != len(image) {
		t.Errorf("image after the upgrade = %+v", im)
	}
	var stored string
	if err := rawDB(t, path).QueryRow(`SELECT typeof(image_data) FROM items WHERE seq = 4`).Scan(&stored); err != nil || stored != "blob" {
		t.Errorf("image data stored as %q (%v), want a blob", stored, err)
	}
	if tables := tableNames(t, path); strings.Contains(tables, "item_pieces") {
		t.Errorf("tables after the upgrade: %s; want no item_pieces", tables)
	}
	var sizes int
	if err := rawDB(t, path).QueryRow(`SELECT count(*) FROM pragma_table_info('items') WHERE name LIKE '%\_size' ESCAPE '\'`).Scan(&sizes); err != nil || sizes != 0 {
		t.Errorf("items has %d size columns after the upgrade (%v), want none", sizes, err)
	}
}

// resultOutput returns the output of an item's cell result, "" without one.
func resultOutput(it albedo.Item) string {
	if it.Result == nil {
		return ""
	}
	return it.Result.Output
}

// traceTarget returns the target of the first activity of an item's cell
// trace, "" without one.
func traceTarget(it albedo.Item) string {
	if it.Result == nil || len(it.Result.Trace.Activities) == 0 {
		return ""
	}
	return it.Result.Trace.Activities[0].Target
}

// imageData returns the data of an item's image, "" without one.
func imageData(it albedo.Item) string {
	if it.Image == nil {
		return ""
	}
	return string(it.Image.Data)
}
