package sqlite

import (
	"context"
	"strings"
	"testing"

	"github.com/albedo-agent/albedo/albedo"
)

// longTexts are texts longer than a piece: each must read back byte for
// byte, whatever falls on a piece's edge.
var longTexts = map[string]string{
	"ascii, just over a piece": strings.Repeat("y", pieceSize+1),
	"many pieces":              strings.Repeat("a line of an answer\n", 3*pieceSize/20+7),
	"multibyte on every edge":  strings.Repeat("é✓\U0001F600", pieceSize/3),
	"nul and invalid utf-8":    strings.Repeat("\x00\xff\xe2\x82", pieceSize/2+1),
}

// TestLongTextsAreStoredInPieces stores texts longer than a piece: the
// items row holds no text, the pieces hold all of it, and every read
// returns it whole, across a reopen, newest first or in pages, with or
// without results.
func TestLongTextsAreStoredInPieces(t *testing.T) {
	ctx := context.Background()
	for name, text := range longTexts {
		t.Run(name, func(t *testing.T) {
			path := testPath(t)
			s := openStore(t, path)
			sess := newSession("s1")
			mustCommit(t, s, albedo.Commit{Session: &sess})
			items := []albedo.Item{textItem("before"), {Kind: albedo.KindAssistant, Text: text, Protocol: albedo.ProtocolChatCompletions}, textItem("after")}
			mustCommit(t, s, albedo.Commit{SessionID: sess.ID, Items: items})

			db := rawDB(t, path)
			var inRow, size, pieces, total int64
			if err := db.QueryRow("SELECT length(text), text_size FROM items WHERE session_id = ? AND seq = 2", sess.ID).Scan(&inRow, &size); err != nil {
				t.Fatal(err)
			}
			if err := db.QueryRow("SELECT count(*), sum(length(CAST(data AS BLOB))) FROM item_pieces WHERE session_id = ? AND seq = 2 AND field = 'text'", sess.ID).Scan(&pieces, &total); err != nil {
				t.Fatal(err)
			}
			if inRow != 0 || size != int64(len(text)) || pieces < 2 || total != int64(len(text)) {
				t.Errorf("row text %d bytes, text_size %d, %d pieces of %d bytes; want 0, %d, at least 2, %d", inRow, size, pieces, total, len(text), len(text))
			}

			s = openStore(t, path)
			for _, q := range []albedo.ItemQuery{{}, {Newest: true, Limit: 2}, {After: 1, Limit: 1}, {NoResults: true}, {Before: 3}} {
				got, err := s.ItemPage(ctx, sess.ID, q)
				if err != nil {
					t.Fatal(err)
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
						if it.Text != text {
							t.Errorf("%+v: the long text reads back as %d bytes %q, want %d bytes %q", q, len(it.Text), short(it.Text), len(text), short(text))
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

// TestPieceEndsOnACharacter cuts before a character that straddles the
// piece size, and at the size when the text is not UTF-8 there.
func TestPieceEndsOnACharacter(t *testing.T) {
	tests := []struct {
		name string
		text string
		want int
	}{
		{"short", "abc", 3},
		{"ascii", strings.Repeat("a", pieceSize+5), pieceSize},
		{"a 4-byte character across the edge", strings.Repeat("a", pieceSize-2) + "\U0001F600" + "b", pieceSize - 2},
		{"a 2-byte character across the edge", strings.Repeat("a", pieceSize-1) + "é" + "b", pieceSize - 1},
		{"continuation bytes only", strings.Repeat("\x80", pieceSize+5), pieceSize},
	}
	for _, tt := range tests {
		if got := pieceEnd(tt.text); got != tt.want {
			t.Errorf("%s: pieceEnd = %d, want %d", tt.name, got, tt.want)
		}
	}
}
