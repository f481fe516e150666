package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/albedo-agent/albedo/albedo"
)

// seqsOf returns the seqs of items.
func seqsOf(items []albedo.Item) []int64 {
	out := make([]int64, len(items))
	for i, it := range items {
		out[i] = it.Seq
	}
	return out
}

func TestItemPageChoosesRanges(t *testing.T) {
	s := openStore(t, testPath(t))
	createSessions(t, s, "s", 1)
	var items []albedo.Item
	for i := range 10 {
		items = append(items, textItem(fmt.Sprint("item ", i+1)))
	}
	mustCommit(t, s, albedo.Commit{SessionID: "s0", Items: items})
	tests := []struct {
		name string
		q    albedo.ItemQuery
		want []int64
	}{
		{"everything", albedo.ItemQuery{}, []int64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}},
		{"after", albedo.ItemQuery{After: 7}, []int64{8, 9, 10}},
		{"before", albedo.ItemQuery{Before: 4}, []int64{1, 2, 3}},
		{"between", albedo.ItemQuery{After: 2, Before: 6}, []int64{3, 4, 5}},
		{"oldest of a range", albedo.ItemQuery{After: 2, Limit: 3}, []int64{3, 4, 5}},
		{"newest, ascending", albedo.ItemQuery{Limit: 3, Newest: true}, []int64{8, 9, 10}},
		{"newest below before", albedo.ItemQuery{Before: 6, Limit: 2, Newest: true}, []int64{4, 5}},
		{"newest of a short range", albedo.ItemQuery{Before: 3, Limit: 5, Newest: true}, []int64{1, 2}},
		{"past the end", albedo.ItemQuery{After: 10}, []int64{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := s.ItemPage(context.Background(), "s0", tt.q)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(seqsOf(got), tt.want) {
				t.Errorf("seqs = %v, want %v", seqsOf(got), tt.want)
			}
		})
	}
	_, err := s.ItemPage(context.Background(), "nope", albedo.ItemQuery{})
	wantCode(t, err, albedo.ENotFound)
}

func TestItemPageLoadsImageDataOnlyWhenAsked(t *testing.T) {
	s := openStore(t, testPath(t))
	createSessions(t, s, "s", 1)
	img := &albedo.Image{MimeType: "image/png", Width: 2, Height: 3, Bytes: 4, Data: []byte{1, 2, 3, 4}}
	it := textItem("look")
	it.Image = img
	mustCommit(t, s, albedo.Commit{SessionID: "s0", Items: []albedo.Item{textItem("before"), it}})
	for _, withData := range []bool{false, true} {
		got, err := s.ItemPage(context.Background(), "s0", albedo.ItemQuery{Images: withData})
		if err != nil {
			t.Fatal(err)
		}
		meta := got[1].Image
		if meta == nil || meta.MimeType != "image/png" || meta.Width != 2 || meta.Height != 3 || meta.Bytes != 4 {
			t.Fatalf("images %v: image = %+v, want its metadata", withData, meta)
		}
		if got := len(meta.Data); (got == 4) != withData {
			t.Errorf("images %v: %d bytes of data", withData, got)
		}
		if got[0].Image != nil {
			t.Errorf("an item without an image got %+v", got[0].Image)
		}
	}
}

// sessionColumns lists every table and column of the schema that holds a
// session id, found by walking the schema: columns named session_id,
// session, or the id of sessions.
func sessionKeyed(t *testing.T, db *sql.DB) map[string]string {
	t.Helper()
	rows, err := db.Query(`SELECT m.name, c.name FROM sqlite_schema AS m JOIN pragma_table_info(m.name) AS c
		WHERE m.type = 'table' AND (c.name LIKE '%session%' OR (m.name = 'sessions' AND c.name = 'id'))`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	out := map[string]string{}
	for rows.Next() {
		var table, column string
		if err := rows.Scan(&table, &column); err != nil {
			t.Fatal(err)
		}
		out[table+"."+column] = column
	}
	return out
}

func TestDeleteSessionLeavesNoRowOfIt(t *testing.T) {
	path := testPath(t)
	s := openStore(t, path)
	ids := createSessions(t, s, "s", 2)
	img := &albedo.Image{MimeType: "image/png", Width: 1, Height: 1, Bytes: 1, Data: []byte{1}}
	for _, id := range ids {
		long := strings.Repeat("long ", mib/4)
		call := albedo.Item{Kind: albedo.KindToolCall, CallID: "c", ToolName: "python", Arguments: long, Protocol: albedo.ProtocolResponses, Raw: json.RawMessage(long)}
		output := albedo.Item{Kind: albedo.KindToolOutput, CallID: "c", ToolName: "python", Text: "out", Result: &albedo.CellResult{Status: albedo.CellOK, Output: long}}
		mustCommit(t, s, albedo.Commit{SessionID: id, Items: []albedo.Item{textItem("a"), textItem("b"), textItem(long), call, output},
			Enqueue: []albedo.Queued{{Text: "later", Image: img}}})
		if err := s.SaveCompaction(context.Background(), albedo.Compaction{SessionID: id, Summary: "s", Users: 1, Fingerprint: "f"}); err != nil {
			t.Fatal(err)
		}
		if _, err := s.AppendRequest(context.Background(), albedo.RequestRow{SessionID: id, Kind: albedo.RequestTurn, Outcome: albedo.OutcomeOK, Usage: albedo.Usage{InputTokens: albedo.Tokens(3)}}); err != nil {
			t.Fatal(err)
		}
	}
	vent, err := s.InsertVent(context.Background(), albedo.Vent{Topic: "bug", Message: "m", SessionID: ids[0]})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.DeleteSession(context.Background(), ids[0]); err != nil {
		t.Fatal(err)
	}
	db := rawDB(t, path)
	// Vents keep the id of the session that filed them (and its title,
	// which holds no id).
	keep := map[string]bool{"paperclips.session": true, "paperclips.resolving_session": true, "paperclips.session_title": true, "sessions.parent_id": true}
	for key, column := range sessionKeyed(t, db) {
		if keep[key] {
			continue
		}
		table := key[:len(key)-len(column)-1]
		for i, id := range ids {
			var n int
			if err := db.QueryRow(fmt.Sprintf("SELECT count(*) FROM %q WHERE %q = ?", table, column), id).Scan(&n); err != nil {
				t.Fatal(err)
			}
			if deleted := i == 0; deleted && n != 0 || !deleted && n == 0 {
				t.Errorf("%s holds %d rows of session %s (deleted: %v)", key, n, id, deleted)
			}
		}
	}
	if totals, err := s.RequestTotals(context.Background()); err != nil || len(totals) != 1 || totals[ids[1]].Requests != 1 {
		t.Errorf("usage sums after delete = %v, %v; want only the kept session's", totals, err)
	}
	if got, err := s.Vent(context.Background(), vent.ID); err != nil || got.SessionID != ids[0] {
		t.Errorf("vent after delete = %+v, %v; want it kept with its session id", got, err)
	}
	if _, err := s.Session(context.Background(), ids[0]); albedo.ErrorCode(err) != albedo.ENotFound {
		t.Errorf("Session after delete: %v", err)
	}
	if list, _ := s.Sessions(context.Background()); len(list) != 1 || list[0].ID != ids[1] {
		t.Errorf("Sessions after delete = %v", list)
	}
	wantCode(t, s.DeleteSession(context.Background(), ids[0]), albedo.ENotFound)
	// A store opened afresh does not bring it back.
	again := openStore(t, path)
	if _, err := again.Session(context.Background(), ids[0]); albedo.ErrorCode(err) != albedo.ENotFound {
		t.Errorf("Session after reopening: %v", err)
	}
}

func TestArchivedIsStored(t *testing.T) {
	path := testPath(t)
	s := openStore(t, path)
	sess := newSession("a")
	sess.Archived = true
	mustCommit(t, s, albedo.Commit{Session: &sess})
	again := openStore(t, path)
	got, err := again.Session(context.Background(), "a")
	if err != nil || !got.Archived {
		t.Errorf("reopened session = %+v, %v; want it archived", got, err)
	}
}

func TestItemPageCanLeaveResultsOut(t *testing.T) {
	s := openStore(t, testPath(t))
	createSessions(t, s, "s", 1)
	out := albedo.Item{Kind: albedo.KindToolOutput, CallID: "c", ToolName: "python", Text: "printed",
		Result: &albedo.CellResult{Status: albedo.CellOK, Output: "printed"}}
	mustCommit(t, s, albedo.Commit{SessionID: "s0", Items: []albedo.Item{out}})
	for _, without := range []bool{false, true} {
		got, err := s.ItemPage(context.Background(), "s0", albedo.ItemQuery{NoResults: without})
		if err != nil {
			t.Fatal(err)
		}
		if got[0].Text != "printed" || (got[0].Result == nil) != without {
			t.Errorf("NoResults %v: item = %+v", without, got[0])
		}
	}
}

func TestItemPageKeepsFlagsWithOrWithoutResults(t *testing.T) {
	s := openStore(t, testPath(t))
	createSessions(t, s, "s", 1)
	cut := albedo.Item{Kind: albedo.KindAssistant, Text: `{"`, Flags: albedo.FlagTruncated}
	mustCommit(t, s, albedo.Commit{SessionID: "s0", Items: []albedo.Item{cut}})
	for _, without := range []bool{false, true} {
		got, err := s.ItemPage(context.Background(), "s0", albedo.ItemQuery{NoResults: without})
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != 1 || got[0].Flags != albedo.FlagTruncated {
			t.Errorf("NoResults %v: items = %+v", without, got)
		}
	}
}
