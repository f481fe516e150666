package sqlite

import (
	"bytes"
	"context"
	"database/sql"
	"fmt"
	"strings"
	"unicode/utf8"
)

// pieceSize is the size past which an item's column is kept in pieces of
// about this size in item_pieces. SQLite copies a bound value and builds
// the row in its own memory; pieces keep that to a few of them at a time,
// however long the value.
const pieceSize = 1 << 20

// A field is a column of items whose value may be kept in pieces: the
// pieces' field column names it, and its size column on the items row is
// the value's length (0 when the value is in the row).
type field string

// The columns of items that can grow with what a model or a tool sends.
const (
	fieldText      field = "text"
	fieldArguments field = "arguments"
	fieldResult    field = "result"
	fieldTrace     field = "trace"
	fieldRaw       field = "raw"
	fieldImage     field = "image"
)

// inPieces reports whether a value of n bytes is stored in pieces.
func inPieces(n int) bool { return n > pieceSize }

// insertPiece adds one piece of a column of an item.
const insertPiece = `INSERT INTO item_pieces (session_id, seq, field, piece, data) VALUES (?, ?, ?, ?, ?)`

// selectPieces reads the pieces of one column of an item, in order.
const selectPieces = `SELECT data FROM item_pieces WHERE session_id = ? AND seq = ? AND field = ? ORDER BY piece`

// longValue is a value of a column of an item that is stored in pieces.
// Exactly one of s and b is set.
type longValue struct {
	field field
	s     string
	b     []byte
}

// insertPieces writes the pieces of value v of item seq. Pieces end on a
// character boundary where the value is valid UTF-8; their concatenation
// is the value, byte for byte. Only one piece is bound at a time, as text
// (a piece of bytes is copied into a string of its own to be bound).
func insertPieces(ctx context.Context, stmt *sql.Stmt, sessionID string, seq int64, v longValue) error {
	if v.b != nil {
		return insertPiecesOf(ctx, stmt, sessionID, seq, v.field, v.b)
	}
	return insertPiecesOf(ctx, stmt, sessionID, seq, v.field, v.s)
}

// insertPiecesOf is insertPieces for a value held as a string or as bytes.
func insertPiecesOf[T string | []byte](ctx context.Context, stmt *sql.Stmt, sessionID string, seq int64, f field, value T) error {
	for n := 0; len(value) > 0; n++ {
		cut := pieceEnd(value)
		if _, err := stmt.ExecContext(ctx, sessionID, seq, string(f), n, string(value[:cut])); err != nil {
			return fmt.Errorf("insert piece %d of the %s of item %d: %w", n, f, seq, err)
		}
		value = value[cut:]
	}
	return nil
}

// pieceEnd returns where the first piece of value ends: after pieceSize
// bytes, moved back to the start of a character when that is near.
func pieceEnd[T string | []byte](value T) int {
	if len(value) <= pieceSize {
		return len(value)
	}
	cut := pieceSize
	for back := 0; back < utf8.UTFMax-1 && !utf8.RuneStart(value[cut]); back++ {
		cut--
	}
	if !utf8.RuneStart(value[cut]) {
		cut = pieceSize
	}
	return cut
}

// pieced is a column of an item whose value is kept in pieces: the item's
// index in the page read, the column and the value's size.
type pieced struct {
	at    int
	field field
	size  int64
}

// pieceReader reads values kept in pieces, each into a buffer of its exact
// size, a piece at a time.
type pieceReader struct {
	stmt      *sql.Stmt
	sessionID string
	piece     sql.RawBytes
}

// newPieceReader prepares the reads of a session's pieces in tx. Close
// releases the statement.
func newPieceReader(ctx context.Context, tx *sql.Tx, sessionID string) (*pieceReader, error) {
	stmt, err := tx.PrepareContext(ctx, selectPieces)
	if err != nil {
		return nil, fmt.Errorf("prepare the read of pieces: %w", err)
	}
	return &pieceReader{stmt: stmt, sessionID: sessionID}, nil
}

// Close releases the reader's statement.
func (r *pieceReader) Close() error { return r.stmt.Close() }

// sink is where a value read in pieces is assembled: a *strings.Builder
// for a string, a *bytes.Buffer for bytes.
type sink interface {
	Grow(n int)
	Write(p []byte) (int, error)
	Len() int
}

// read appends the value of column f of item seq, size bytes long, to
// into, which it first grows by size. Pieces that do not add up to size
// are an error: the value would not be the one written.
func (r *pieceReader) read(ctx context.Context, seq int64, f field, size int64, into sink) error {
	rows, err := r.stmt.QueryContext(ctx, r.sessionID, seq, string(f))
	if err != nil {
		return fmt.Errorf("select the pieces of the %s of item %d: %w", f, seq, err)
	}
	defer rows.Close()
	into.Grow(int(size))
	start := into.Len()
	for rows.Next() {
		if err := rows.Scan(&r.piece); err != nil {
			return fmt.Errorf("scan a piece of the %s of item %d: %w", f, seq, err)
		}
		if int64(into.Len()-start+len(r.piece)) > size {
			return fmt.Errorf("the pieces of the %s of item %d hold more than its %d bytes", f, seq, size)
		}
		into.Write(r.piece)
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("read the pieces of the %s of item %d: %w", f, seq, err)
	}
	if n := into.Len() - start; int64(n) != size {
		return fmt.Errorf("the pieces of the %s of item %d hold %d bytes, want %d", f, seq, n, size)
	}
	return nil
}

// readString returns the value of column f of item seq as a string.
func (r *pieceReader) readString(ctx context.Context, seq int64, f field, size int64) (string, error) {
	var b strings.Builder
	if err := r.read(ctx, seq, f, size, &b); err != nil {
		return "", err
	}
	return b.String(), nil
}

// readBytes returns the value of column f of item seq as bytes.
func (r *pieceReader) readBytes(ctx context.Context, seq int64, f field, size int64) ([]byte, error) {
	var b bytes.Buffer
	if err := r.read(ctx, seq, f, size, &b); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}
