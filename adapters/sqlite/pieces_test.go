package sqlite

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/albedo-agent/albedo/albedo"
)

// longValues are values longer than a piece: each must read back byte for
// byte, whatever falls on a piece's edge.
var longValues = []struct{ name, value string }{
	{"ascii, just over a piece", strings.Repeat("y", pieceSize+1)},
	{"multibyte on every edge", strings.Repeat("é✓\U0001F600", 2*pieceSize/9+1)},
	{"many pieces", strings.Repeat("a line of an answer\n", 5*pieceSize/40+7)},
	{"nul and invalid utf-8", strings.Repeat("\x00\xff\xe2\x82", pieceSize/4+1)},
}

// longColumn is a column of items that can grow with what a model or a
// tool sends.
type longColumn struct {
	name  string
	field field
	// everyValue runs the column with every one of longValues, not only
	// with the first two of them: the cuts are the same for every column,
	// the way back from the pieces is not.
	everyValue bool
	// item returns an item that holds v in the column.
	item func(v string) albedo.Item
	// stored returns what the column of it holds: the value, or for a
	// cell's result and trace their JSON.
	stored func(it albedo.Item) string
	// read returns what an item read by q holds of the column, and
	// whether q reads it at all.
	read func(it albedo.Item, q albedo.ItemQuery) (string, bool)
}

// resultJSON returns the JSON of the cell result of it, as stored or as
// read.
func resultJSON(it albedo.Item) string {
	if it.Result == nil {
		return it.ResultJSON
	}
	b, _ := json.Marshal(it.Result)
	return string(b)
}

// traceJSON returns the JSON of the trace of the cell result of it.
func traceJSON(it albedo.Item) string {
	if it.Result == nil {
		return it.TraceJSON
	}
	b, _ := json.Marshal(it.Result.Trace)
	return string(b)
}

// reencoded returns JSON decoded and encoded again.
func reencoded(t *testing.T, s string) string {
	t.Helper()
	var v any
	if err := json.Unmarshal([]byte(s), &v); err != nil {
		t.Fatalf("decode %q: %v", short(s), err)
	}
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// longColumns lists every column that is kept in pieces when long, with
// what each kind of read returns of it.
var longColumns = []longColumn{
	{
		name: "text of an answer", field: fieldText,
		item: func(v string) albedo.Item {
			return albedo.Item{Kind: albedo.KindAssistant, Text: v, Protocol: albedo.ProtocolChatCompletions}
		},
		stored: func(it albedo.Item) string { return it.Text },
		read:   func(it albedo.Item, _ albedo.ItemQuery) (string, bool) { return it.Text, true },
	},
	{
		name: "text of a tool output", field: fieldText,
		item: func(v string) albedo.Item {
			return albedo.Item{Kind: albedo.KindToolOutput, CallID: "c", ToolName: "python", Text: v, Result: &albedo.CellResult{Status: albedo.CellOK}}
		},
		stored: func(it albedo.Item) string { return it.Text },
		read:   func(it albedo.Item, q albedo.ItemQuery) (string, bool) { return it.Text, !q.Display || q.NoResults },
	},
	{
		name: "arguments of a call", field: fieldArguments, everyValue: true,
		item: func(v string) albedo.Item {
			return albedo.Item{Kind: albedo.KindToolCall, CallID: "c", ToolName: "python", Arguments: v, Protocol: albedo.ProtocolResponses}
		},
		stored: func(it albedo.Item) string { return it.Arguments },
		read:   func(it albedo.Item, _ albedo.ItemQuery) (string, bool) { return it.Arguments, true },
	},
	{
		name: "raw of a model item", field: fieldRaw, everyValue: true,
		item: func(v string) albedo.Item {
			return albedo.Item{Kind: albedo.KindToolCall, CallID: "c", ToolName: "python", Arguments: "{}", Protocol: albedo.ProtocolResponses, Raw: json.RawMessage(v)}
		},
		stored: func(it albedo.Item) string { return string(it.Raw) },
		read: func(it albedo.Item, q albedo.ItemQuery) (string, bool) {
			return string(it.Raw), !q.Display || q.NoResults
		},
	},
	{
		name: "raw of an item albedo made", field: fieldRaw,
		item: func(v string) albedo.Item {
			return albedo.Item{Kind: albedo.KindNote, Text: "n", Raw: json.RawMessage(v)}
		},
		stored: func(it albedo.Item) string { return string(it.Raw) },
		read:   func(it albedo.Item, _ albedo.ItemQuery) (string, bool) { return string(it.Raw), true },
	},
	{
		name: "data of an image a cell showed", field: fieldImage,
		item: func(v string) albedo.Item {
			img := &albedo.Image{MimeType: "image/png", Width: 3, Height: 2, Bytes: len(v), Data: []byte(v)}
			return albedo.Item{Kind: albedo.KindToolImage, CallID: "c", ToolName: "python", Image: img}
		},
		stored: func(it albedo.Item) string { return string(it.Image.Data) },
		read: func(it albedo.Item, q albedo.ItemQuery) (string, bool) {
			if it.Image == nil || it.Image.MimeType != "image/png" || it.Image.Width != 3 || it.Image.Height != 2 {
				return "the image without its metadata", true
			}
			return string(it.Image.Data), q.Images
		},
	},
	{
		name: "output in a cell result", field: fieldResult, everyValue: true,
		item: func(v string) albedo.Item {
			return albedo.Item{Kind: albedo.KindToolOutput, CallID: "c", ToolName: "python", Text: "short", Result: &albedo.CellResult{Status: albedo.CellOK, Output: v}}
		},
		stored: resultJSON,
		read: func(it albedo.Item, q albedo.ItemQuery) (string, bool) {
			if q.Display && it.Result != nil {
				return "a decoded result in a read for display", true
			}
			return resultJSON(it), !q.NoResults
		},
	},
	{
		name: "files in a cell trace", field: fieldTrace,
		item: func(v string) albedo.Item {
			trace := albedo.Trace{Activities: []albedo.Activity{{Kind: "read", Target: v}}}
			return albedo.Item{Kind: albedo.KindToolOutput, CallID: "c", ToolName: "python", Text: "short", Result: &albedo.CellResult{Status: albedo.CellOK, Trace: trace}}
		},
		stored: traceJSON,
		read:   func(it albedo.Item, q albedo.ItemQuery) (string, bool) { return traceJSON(it), !q.NoResults },
	},
}

// pieceQueries are the reads a long value must survive: whole (without
// and with image data), newest first below a bound, paged, without
// results, and for display.
var pieceQueries = []albedo.ItemQuery{
	{}, {Images: true, Newest: true, Before: 3, Limit: 1}, {After: 1, Limit: 1}, {NoResults: true}, {Display: true, Newest: true, Limit: 2},
}

// TestLongValuesAreStoredInPieces stores values longer than a piece in
// every column that can grow: the items row holds ” in its place and its
// size, the pieces hold all of it, and every read returns it byte for
// byte across a reopen, except what a read leaves out, which comes empty.
// Deleting the session removes the pieces.
func TestLongValuesAreStoredInPieces(t *testing.T) {
	ctx := context.Background()
	for _, col := range longColumns {
		for i, v := range longValues {
			if i >= 2 && !col.everyValue {
				break
			}
			value := v.value
			t.Run(col.name+"/"+v.name, func(t *testing.T) {
				t.Parallel()
				path := testPath(t)
				s := openStore(t, path)
				sess := newSession("s1")
				mustCommit(t, s, albedo.Commit{Session: &sess})
				long := col.item(value)
				want := col.stored(long)
				items := []albedo.Item{textItem("before"), long, textItem("after")}
				mustCommit(t, s, albedo.Commit{SessionID: sess.ID, Items: items})

				db := rawDB(t, path)
				var inRow, size, pieces, total int64
				column, sizeColumn := string(col.field), string(col.field)+"_size"
				if col.field == fieldImage {
					column = "image_data"
				}
				// NULL or '': nothing of the value in the row.
				if err := db.QueryRow("SELECT coalesce(length(CAST("+column+" AS BLOB)), 0), "+sizeColumn+" FROM items WHERE session_id = ? AND seq = 2", sess.ID).
					Scan(&inRow, &size); err != nil {
					t.Fatal(err)
				}
				if err := db.QueryRow("SELECT count(*), coalesce(sum(length(CAST(data AS BLOB))), 0) FROM item_pieces WHERE session_id = ? AND seq = 2 AND field = ?", sess.ID, string(col.field)).
					Scan(&pieces, &total); err != nil {
					t.Fatal(err)
				}
				if inRow != 0 || size != int64(len(want)) || pieces < 2 || total != int64(len(want)) {
					t.Errorf("row %s %d bytes, size %d, %d pieces of %d bytes; want 0, %d, at least 2, %d",
						column, inRow, size, pieces, total, len(want), len(want))
				}

				s = openStore(t, path)
				for _, q := range pieceQueries {
					got, err := s.ItemPage(ctx, sess.ID, q)
					if err != nil {
						t.Fatalf("%+v: %v", q, err)
					}
					found := false
					for _, it := range got {
						switch it.Seq {
						case 1, 3:
							if it.Text != items[it.Seq-1].Text {
								t.Errorf("%+v: item %d text = %q", q, it.Seq, short(it.Text))
							}
						case 2:
							found = true
							v, reads := col.read(it, q)
							if !reads {
								if v != "" {
									t.Errorf("%+v: %s reads as %d bytes %q, want it left out", q, col.name, len(v), short(v))
								}
								continue
							}
							want := want
							if decoded := !q.Display && (col.field == fieldResult || col.field == fieldTrace); decoded {
								// A decoded result is compared by what it
								// holds: invalid UTF-8 was \ufffd in JSON.
								v, want = reencoded(t, v), reencoded(t, want)
							}
							if v != want {
								t.Errorf("%+v: %s reads back as %d bytes %q, want %d bytes %q", q, col.name, len(v), short(v), len(want), short(want))
							}
						}
					}
					if !found {
						t.Errorf("%+v: no item 2 among %d items", q, len(got))
					}
				}

				if err := s.DeleteSession(ctx, sess.ID); err != nil {
					t.Fatal(err)
				}
				if err := db.QueryRow("SELECT count(*) FROM item_pieces").Scan(&pieces); err != nil || pieces != 0 {
					t.Errorf("%d pieces left after the session was deleted (%v)", pieces, err)
				}
			})
		}
	}
}

// TestAReadForDisplayReadsNoPieceItLeavesOut removes the pieces of what a
// read for display leaves out (a model item's raw, a tool output's text):
// the read for display still succeeds, with every other value whole, while
// a whole read reports the pieces missing rather than return a short value.
func TestAReadForDisplayReadsNoPieceItLeavesOut(t *testing.T) {
	ctx := context.Background()
	path := testPath(t)
	s := openStore(t, path)
	sess := newSession("s1")
	mustCommit(t, s, albedo.Commit{Session: &sess})
	long := longValues[1].value
	call := albedo.Item{Kind: albedo.KindToolCall, CallID: "c", ToolName: "python", Arguments: long, Protocol: albedo.ProtocolResponses,
		Raw: json.RawMessage(`{"arguments":"` + long + `"}`)}
	output := albedo.Item{Kind: albedo.KindToolOutput, CallID: "c", ToolName: "python", Text: long, Result: &albedo.CellResult{Status: albedo.CellOK, Output: long}}
	mustCommit(t, s, albedo.Commit{SessionID: sess.ID, Items: []albedo.Item{call, output}})
	exec(t, rawDB(t, path), `DELETE FROM item_pieces WHERE (seq = 1 AND field = 'raw') OR (seq = 2 AND field = 'text')`)

	got, err := s.ItemPage(ctx, sess.ID, albedo.ItemQuery{Display: true})
	if err != nil || len(got) != 2 {
		t.Fatalf("ItemPage(Display) = %d items, %v", len(got), err)
	}
	if got[0].Arguments != long || len(got[0].Raw) != 0 || got[1].Text != "" || got[1].ResultJSON != resultJSON(output) {
		t.Errorf("read for display: arguments %d bytes, raw %d, output text %d, result %d; want %d, 0, 0, %d",
			len(got[0].Arguments), len(got[0].Raw), len(got[1].Text), len(got[1].ResultJSON), len(long), len(resultJSON(output)))
	}
	if _, err := s.ItemPage(ctx, sess.ID, albedo.ItemQuery{}); err == nil || !strings.Contains(err.Error(), "pieces of the raw of item 1 hold 0 bytes") {
		t.Errorf("a whole read with pieces missing: %v, want the missing pieces reported", err)
	}
}

// TestPieceEndsOnACharacter cuts before a character that straddles the
// piece size, and at the size when the value is not UTF-8 there, for
// strings and bytes alike.
func TestPieceEndsOnACharacter(t *testing.T) {
	tests := []struct {
		name  string
		value string
		want  int
	}{
		{"short", "abc", 3},
		{"ascii", strings.Repeat("a", pieceSize+5), pieceSize},
		{"a 4-byte character across the edge", strings.Repeat("a", pieceSize-2) + "\U0001F600" + "b", pieceSize - 2},
		{"a 2-byte character across the edge", strings.Repeat("a", pieceSize-1) + "é" + "b", pieceSize - 1},
		{"continuation bytes only", strings.Repeat("\x80", pieceSize+5), pieceSize},
	}
	for _, tt := range tests {
		if got := pieceEnd(tt.value); got != tt.want {
			t.Errorf("%s: pieceEnd(string) = %d, want %d", tt.name, got, tt.want)
		}
		if got := pieceEnd([]byte(tt.value)); got != tt.want {
			t.Errorf("%s: pieceEnd(bytes) = %d, want %d", tt.name, got, tt.want)
		}
	}
}
