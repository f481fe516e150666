package postgres

import (
	"context"
	"database/sql"
	"fmt"
	"slices"
	"strings"

	"github.com/albedo-agent/albedo/albedo"
)

// Items returns a session's transcript items with Seq > after in ascending
// order, at most limit of them (limit <= 0: all). A missing session is
// ENotFound.
func (s *Store) Items(ctx context.Context, sessionID string, after int64, limit int) ([]albedo.Item, error) {
	return s.ItemPage(ctx, sessionID, albedo.ItemQuery{After: after, Limit: limit, Images: true})
}

// ItemPage returns the items of a session's transcript that q selects, in
// ascending order. A missing session is ENotFound. The page is one
// statement, so it reads one snapshot of the transcript.
func (s *Store) ItemPage(ctx context.Context, sessionID string, q albedo.ItemQuery) ([]albedo.Item, error) {
	items, err := selectItems(ctx, s.sqlDB(), sessionID, q)
	if err == nil && len(items) == 0 {
		// Items cascade with their session, so only an empty answer needs
		// to tell a missing session from an empty page.
		var ok bool
		if ok, err = sessionExists(ctx, s.sqlDB(), sessionID); err == nil && !ok {
			return nil, sessionNotFound(sessionID)
		}
	}
	if err != nil {
		return nil, fmt.Errorf("read items of session %s: %w", sessionID, unavailable(err))
	}
	return items, nil
}

// maxPrealloc caps how many items selectItems allocates room for up front.
const maxPrealloc = 1 << 12

// selectItems reads a page of a session's transcript.
func selectItems(ctx context.Context, db *sql.DB, sessionID string, q albedo.ItemQuery) ([]albedo.Item, error) {
	columns := itemColumns(q)
	if q.SeqOnly {
		columns = "seq, kind"
	}
	query, args := itemRange(columns, sessionID, q)
	rows, err := db.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	items := make([]albedo.Item, 0, min(max(q.Limit, 0), maxPrealloc))
	sc := &itemScanner{display: q.Display && !q.NoResults}
	for rows.Next() {
		var it albedo.Item
		if q.SeqOnly {
			var kind string
			err = rows.Scan(&it.Seq, &kind)
			it.Kind = albedo.ItemKind(kind)
		} else {
			it, err = sc.scan(rows)
		}
		if err != nil {
			return nil, fmt.Errorf("scan item after %d: %w", lastSeq(items), err)
		}
		items = append(items, it)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	if q.Newest {
		slices.Reverse(items)
	}
	return items, nil
}

// itemRange returns the query of columns of the items of a page, and its
// arguments.
func itemRange(columns, sessionID string, q albedo.ItemQuery) (string, []any) {
	query := "SELECT " + columns + " FROM items WHERE session_id = $1 AND seq > $2"
	args := []any{bin(sessionID), q.After}
	if q.Before > 0 {
		args = append(args, q.Before)
		query += fmt.Sprintf(" AND seq < $%d", len(args))
	}
	if q.Newest {
		query += " ORDER BY seq DESC"
	} else {
		query += " ORDER BY seq"
	}
	if q.Limit > 0 {
		args = append(args, q.Limit)
		query += fmt.Sprintf(" LIMIT $%d", len(args))
	}
	return query, args
}

// lastSeq returns the Seq of the last of items, or 0.
func lastSeq(items []albedo.Item) int64 {
	if len(items) == 0 {
		return 0
	}
	return items[len(items)-1].Seq
}

// maxItemsPerStatement bounds how many items one INSERT writes, so that
// its parameters stay far below PostgreSQL's limit of 65,535.
const maxItemsPerStatement = 1000

// appendItems appends items to the session's transcript, numbering them
// after its last item, and returns them with Seq assigned. Each statement
// numbers its items itself, after the last one stored, so that a commit of
// items alone is one statement and one round trip. A missing session fails
// with a foreign key violation (see missingSession).
func appendItems(ctx context.Context, db rowQuerier, sessionID string, items []albedo.Item) ([]albedo.Item, error) {
	out := make([]albedo.Item, 0, len(items))
	for len(items) > 0 {
		n := min(len(items), maxItemsPerStatement)
		query, args, err := insertItems(sessionID, items[:n])
		if err != nil {
			return nil, err
		}
		var first int64
		if err := db.QueryRowContext(ctx, query, args...).Scan(&first); err != nil {
			return nil, fmt.Errorf("insert items of session %s: %w", sessionID, err)
		}
		for i, it := range items[:n] {
			it.Seq = first + int64(i)
			out = append(out, it)
		}
		items = items[n:]
	}
	return out, nil
}

// insertItems returns the statement that appends items to the session's
// transcript and answers the Seq of the first, and its arguments.
func insertItems(sessionID string, items []albedo.Item) (string, []any, error) {
	var b strings.Builder
	b.WriteString(`WITH last AS (SELECT COALESCE(MAX(seq), 0) AS n FROM items WHERE session_id = $1),
	added AS (INSERT INTO items (session_id, seq, ` + itemValueColumns + `)
	SELECT $1, last.n + v.ord, v.` + strings.ReplaceAll(strings.ReplaceAll(itemValueColumns, "\n\t", " "), ", ", ", v.") + `
	FROM last, (VALUES `)
	args := make([]any, 1, 1+len(items)*len(itemValueTypes))
	args[0] = bin(sessionID)
	for i := range items {
		values, err := itemValues(i+1, &items[i])
		if err != nil {
			return "", nil, fmt.Errorf("item %d of the commit to session %s: %w", i+1, sessionID, err)
		}
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteByte('(')
		for j, v := range values {
			args = append(args, v)
			if j > 0 {
				b.WriteString(", ")
			}
			fmt.Fprintf(&b, "$%d::%s", len(args), itemValueTypes[j])
		}
		b.WriteByte(')')
	}
	b.WriteString(`) AS v (ord, ` + itemValueColumns + `) RETURNING seq)
	SELECT MIN(seq) FROM added`)
	return b.String(), args, nil
}
