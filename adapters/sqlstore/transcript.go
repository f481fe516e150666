package sqlstore

import (
	"cmp"
	"context"
	"fmt"
	"slices"

	"github.com/albedo-agent/albedo/albedo"
)

// Items returns a session's transcript items with Seq > after in ascending
// order, at most limit of them (limit <= 0: all). A missing session is
// ENotFound.
func (s *Store) Items(ctx context.Context, sessionID string, after int64, limit int) ([]albedo.Item, error) {
	return s.ItemPage(ctx, sessionID, albedo.ItemQuery{After: after, Limit: limit, Images: true})
}

// ItemPage returns the items of a session's transcript that q selects, in
// ascending order. A missing session is ENotFound. Items never change once
// written, so the images read after their items are theirs.
func (s *Store) ItemPage(ctx context.Context, sessionID string, q albedo.ItemQuery) ([]albedo.Item, error) {
	items, err := s.selectItems(ctx, sessionID, q)
	if err == nil && len(items) == 0 {
		// Items cascade with their session, so only an empty answer needs
		// to tell a missing session from an empty page.
		var ok bool
		if ok, err = s.sessionExists(ctx, s.read.DB, sessionID); err == nil && !ok {
			return nil, sessionNotFound(sessionID)
		}
	}
	if err != nil {
		return nil, fmt.Errorf("read items of session %s: %w", sessionID, s.failed(err, ""))
	}
	return items, nil
}

// maxPrealloc caps how many items selectItems allocates room for up front.
const maxPrealloc = 1 << 16

// selectItems reads a page of a session's transcript, with the images q
// asks for.
func (s *Store) selectItems(ctx context.Context, sessionID string, q albedo.ItemQuery) ([]albedo.Item, error) {
	size, err := s.pageSize(ctx, sessionID, q)
	if err != nil {
		return nil, err
	}
	columns := itemColumns
	switch {
	case q.SeqOnly:
		columns = "seq, kind"
	case q.NoResults:
		columns = itemColumnsNoResults
	case q.Display:
		columns = itemColumnsDisplay
	}
	query, args := s.itemRange(columns, sessionID, q)
	rows, err := s.read.DB.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var (
		items  = make([]albedo.Item, 0, size)
		imaged []int64
		sc     = newItemScanner(q.Display && !q.NoResults)
	)
	for rows.Next() {
		var it albedo.Item
		hasImage := false
		if q.SeqOnly {
			err = rows.Scan(&it.Seq, &it.Kind)
		} else {
			it, hasImage, err = sc.scan(rows)
		}
		if err != nil {
			return nil, fmt.Errorf("scan item after %d: %w", lastSeq(items), err)
		}
		if hasImage {
			imaged = append(imaged, it.Seq)
		}
		items = append(items, it)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	rows.Close()
	if q.Newest {
		slices.Reverse(items)
	}
	if len(imaged) == 0 {
		return items, nil
	}
	if err := s.attachImages(ctx, sessionID, items, imaged, q.Images); err != nil {
		return nil, err
	}
	return items, nil
}

// itemRange returns the query of columns of the items of a page, and its
// arguments.
func (s *Store) itemRange(columns, sessionID string, q albedo.ItemQuery) (string, []any) {
	query := "SELECT " + columns + " FROM items WHERE session_id = $1 AND seq > $2"
	args := []any{s.text(sessionID), q.After}
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

// pageSize returns how many items a page of q holds at most. Seqs run 1,
// 2, 3, ... without gaps, so the last one bounds it; sizing the slice once
// spares copying a large transcript as it grows.
func (s *Store) pageSize(ctx context.Context, sessionID string, q albedo.ItemQuery) (int, error) {
	if q.Limit > 0 && q.Limit <= maxPrealloc {
		return q.Limit, nil
	}
	var last int64
	err := s.read.DB.QueryRowContext(ctx, "SELECT COALESCE(MAX(seq), 0) FROM items WHERE session_id = $1", s.text(sessionID)).Scan(&last)
	if err != nil {
		return 0, fmt.Errorf("find last item of session %s: %w", sessionID, err)
	}
	if q.Before > 0 {
		last = min(last, q.Before-1)
	}
	return int(min(max(last-q.After, 0), maxPrealloc)), nil
}

// attachImages reads the images of the items whose seqs are listed, their
// data only when withData, and sets them on items (ascending by seq).
func (s *Store) attachImages(ctx context.Context, sessionID string, items []albedo.Item, imaged []int64, withData bool) error {
	data := "NULL"
	if withData {
		data = "image_data"
	}
	args := make([]any, 0, len(imaged)+1)
	args = append(args, s.text(sessionID))
	for _, seq := range imaged {
		args = append(args, seq)
	}
	rows, err := s.read.DB.QueryContext(ctx, "SELECT seq, image_mime, image_width, image_height, image_bytes, "+data+
		" FROM items WHERE session_id = $1 AND seq IN ("+params(2, len(imaged))+")", args...)
	if err != nil {
		return fmt.Errorf("select images: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var (
			seq  int64
			mime string
			img  albedo.Image
		)
		if err := rows.Scan(&seq, &mime, &img.Width, &img.Height, &img.Bytes, &img.Data); err != nil {
			return fmt.Errorf("select images: %w", err)
		}
		img.MimeType = mime
		at, ok := slices.BinarySearchFunc(items, seq, func(it albedo.Item, seq int64) int { return cmp.Compare(it.Seq, seq) })
		if ok {
			items[at].Image = &img
		}
	}
	return rows.Err()
}

// lastSeq returns the Seq of the last of items, or 0.
func lastSeq(items []albedo.Item) int64 {
	if len(items) == 0 {
		return 0
	}
	return items[len(items)-1].Seq
}
