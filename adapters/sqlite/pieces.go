package sqlite

import (
	"cmp"
	"context"
	"database/sql"
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/albedo-agent/albedo/albedo"
)

// textPieceSize is the size past which an item's text is kept in pieces of
// about this size in item_pieces. SQLite copies a bound value and builds
// the row in its own memory; pieces keep that to a few of them at a time,
// however long the text.
const textPieceSize = 1 << 20

// inPieces reports whether text is stored in pieces.
func inPieces(text string) bool { return len(text) > textPieceSize }

// insertPiece adds one piece of an item's text.
const insertPiece = `INSERT INTO item_pieces (session_id, seq, piece, text) VALUES (?, ?, ?, ?)`

// insertPieces writes the pieces of a long text of item seq. Pieces end
// on a character boundary where the text is valid UTF-8; their
// concatenation is the text, byte for byte.
func insertPieces(ctx context.Context, stmt *sql.Stmt, sessionID string, seq int64, text string) error {
	for n := 0; text != ""; n++ {
		cut := pieceEnd(text)
		if _, err := stmt.ExecContext(ctx, sessionID, seq, n, text[:cut]); err != nil {
			return fmt.Errorf("insert piece %d of the text of item %d: %w", n, seq, err)
		}
		text = text[cut:]
	}
	return nil
}

// pieceEnd returns where the first piece of text ends: after textPieceSize
// bytes, moved back to the start of a character when that is near.
func pieceEnd(text string) int {
	if len(text) <= textPieceSize {
		return len(text)
	}
	cut := textPieceSize
	for back := 0; back < utf8.UTFMax-1 && !utf8.RuneStart(text[cut]); back++ {
		cut--
	}
	if !utf8.RuneStart(text[cut]) {
		cut = textPieceSize
	}
	return cut
}

// piecedText is an item whose text is kept in pieces: its seq and the
// text's size.
type piecedText struct {
	seq  int64
	size int64
}

// attachPieces reads the texts kept in pieces of the listed items and sets
// them on items (ascending by seq). Each text is assembled in a buffer of
// its exact size, a piece at a time.
func attachPieces(ctx context.Context, tx *sql.Tx, sessionID string, items []albedo.Item, pieced []piecedText) error {
	args := make([]any, 0, len(pieced)+1)
	args = append(args, sessionID)
	for _, p := range pieced {
		args = append(args, p.seq)
	}
	rows, err := tx.QueryContext(ctx, "SELECT seq, text FROM item_pieces WHERE session_id = ? AND seq IN ("+
		placeholders(len(pieced))+") ORDER BY seq, piece", args...)
	if err != nil {
		return fmt.Errorf("select text pieces: %w", err)
	}
	defer rows.Close()
	var (
		text  strings.Builder
		at    = -1
		seq   int64
		piece sql.RawBytes
	)
	finish := func() {
		if at >= 0 {
			items[at].Text = text.String()
		}
	}
	for rows.Next() {
		var next int64
		if err := rows.Scan(&next, &piece); err != nil {
			return fmt.Errorf("scan text piece: %w", err)
		}
		if at < 0 || next != seq {
			finish()
			seq, at, text = next, -1, strings.Builder{}
			i, ok := slices.BinarySearchFunc(items, seq, func(it albedo.Item, seq int64) int { return cmp.Compare(it.Seq, seq) })
			if !ok {
				continue
			}
			at = i
			if j, ok := slices.BinarySearchFunc(pieced, seq, func(p piecedText, seq int64) int { return cmp.Compare(p.seq, seq) }); ok {
				text.Grow(int(pieced[j].size))
			}
		}
		if at >= 0 {
			text.Write(piece)
		}
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("read text pieces: %w", err)
	}
	finish()
	return nil
}
