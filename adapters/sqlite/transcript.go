package sqlite

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/albedo-agent/albedo/albedo"
	"github.com/uptrace/bun"
)

// Items returns a session's transcript items with Seq > after in ascending
// order, at most limit of them (limit <= 0: all). A missing session is
// ENotFound.
func (s *Store) Items(ctx context.Context, sessionID string, after int64, limit int) ([]albedo.Item, error) {
	return s.ItemPage(ctx, sessionID, albedo.ItemQuery{After: after, Limit: limit, Images: true})
}

// ItemPage returns the items of a session's transcript that q selects, in
// ascending order. A missing session is ENotFound.
func (s *Store) ItemPage(ctx context.Context, sessionID string, q albedo.ItemQuery) ([]albedo.Item, error) {
	var items []albedo.Item
	// One read transaction, so that the images and the existence check
	// see the same snapshot as the items.
	err := runInTx(ctx, s.read, func(ctx context.Context, tx bun.Tx) error {
		var err error
		items, err = selectItems(ctx, tx, sessionID, q)
		if err != nil || len(items) > 0 {
			return err
		}
		// Items cascade with their session, so only an empty answer needs
		// to tell a missing session from an empty page.
		ok, err := sessionExists(ctx, tx.Tx, sessionID)
		if err != nil {
			return err
		}
		if !ok {
			return sessionNotFound(sessionID)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("read items of session %s: %w", sessionID, err)
	}
	return items, nil
}

// maxPrealloc caps how many items selectItems allocates room for up front.
const maxPrealloc = 1 << 16

// selectItems reads a page of a session's transcript, with the images q
// asks for.
func selectItems(ctx context.Context, tx bun.Tx, sessionID string, q albedo.ItemQuery) ([]albedo.Item, error) {
	size, err := pageSize(ctx, tx, sessionID, q)
	if err != nil {
		return nil, err
	}
	if q.SeqOnly {
		return selectSeqs(ctx, tx, sessionID, q, size)
	}
	columns := itemColumns
	switch {
	case q.NoResults:
		columns = itemColumnsNoResults
	case q.Display:
		columns = itemColumnsDisplay
	}
	query, args := itemRange(columns, sessionID, q)
	rows, err := tx.Tx.QueryContext(ctx, query, args...)
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
		row, err := sc.scan(rows)
		if err != nil {
			return nil, fmt.Errorf("scan item after %d: %w", lastSeq(items), err)
		}
		if row.hasImage {
			imaged = append(imaged, row.item.Seq)
		}
		items = append(items, row.item)
		if err := sc.finish(&items[len(items)-1]); err != nil {
			return nil, fmt.Errorf("item %d: %w", row.item.Seq, err)
		}
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	rows.Close()
	if q.Newest {
		slices.Reverse(items)
		slices.Reverse(imaged)
	}
	if len(imaged) == 0 {
		return items, nil
	}
	if err := attachImages(ctx, tx, sessionID, items, imaged, q.Images); err != nil {
		return nil, err
	}
	return items, nil
}

// selectSeqs reads the Seq and Kind of the items of a page, in
// ascending order, and nothing else of them.
func selectSeqs(ctx context.Context, tx bun.Tx, sessionID string, q albedo.ItemQuery, size int) ([]albedo.Item, error) {
	query, args := itemRange("seq, kind", sessionID, q)
	rows, err := tx.Tx.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	items := make([]albedo.Item, 0, size)
	for rows.Next() {
		var it albedo.Item
		if err := rows.Scan(&it.Seq, &it.Kind); err != nil {
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
// arguments. The values are bound as parameters: bun would splice them
// into the SQL text, which cannot carry every string.
func itemRange(columns, sessionID string, q albedo.ItemQuery) (string, []any) {
	query := "SELECT " + columns + " FROM items WHERE session_id = ? AND seq > ?"
	args := []any{sessionID, q.After}
	if q.Before > 0 {
		query += " AND seq < ?"
		args = append(args, q.Before)
	}
	if q.Newest {
		query += " ORDER BY seq DESC"
	} else {
		query += " ORDER BY seq"
	}
	if q.Limit > 0 {
		query += " LIMIT ?"
		args = append(args, q.Limit)
	}
	return query, args
}

// pageSize returns how many items a page of q holds at most. Seqs run 1,
// 2, 3, ... without gaps, so the last one bounds it; sizing the slice once
// spares copying a large transcript as it grows.
func pageSize(ctx context.Context, tx bun.Tx, sessionID string, q albedo.ItemQuery) (int, error) {
	if q.Limit > 0 && q.Limit <= maxPrealloc {
		return q.Limit, nil
	}
	last, err := lastItemSeq(ctx, tx, sessionID)
	if err != nil {
		return 0, err
	}
	if q.Before > 0 {
		last = min(last, q.Before-1)
	}
	return int(min(max(last-q.After, 0), maxPrealloc)), nil
}

// attachImages reads the images of the items whose seqs are listed, their
// data only when withData, and sets them on items (ascending by seq).
func attachImages(ctx context.Context, tx bun.Tx, sessionID string, items []albedo.Item, imaged []int64, withData bool) error {
	columns := "seq, image_mime, image_width, image_height, image_bytes"
	if withData {
		columns += ", image_data"
	}
	images, err := selectImages(ctx, tx, columns, sessionID, imaged)
	if err != nil {
		return fmt.Errorf("select images: %w", err)
	}
	for i := range images {
		im := &images[i]
		at, ok := slices.BinarySearchFunc(items, im.Seq, func(it albedo.Item, seq int64) int { return cmp.Compare(it.Seq, seq) })
		if ok {
			items[at].Image = im.image()
		}
	}
	return nil
}

// lastSeq returns the Seq of the last of items, or 0.
func lastSeq(items []albedo.Item) int64 {
	if len(items) == 0 {
		return 0
	}
	return items[len(items)-1].Seq
}

// appendItems appends items to the session's transcript, numbering them
// after its last item, and returns them with Seq assigned.
func appendItems(ctx context.Context, tx bun.Tx, sessionID string, items []albedo.Item) ([]albedo.Item, error) {
	last, err := lastItemSeq(ctx, tx, sessionID)
	if err != nil {
		return nil, err
	}
	stmt, err := tx.Tx.PrepareContext(ctx, insertItem)
	if err != nil {
		return nil, fmt.Errorf("prepare item insert: %w", err)
	}
	defer stmt.Close()
	out := make([]albedo.Item, len(items))
	for i, it := range items {
		it.Seq = last + int64(i) + 1
		args, err := itemArgs(sessionID, &it)
		if err != nil {
			return nil, fmt.Errorf("insert item %d of session %s: %w", it.Seq, sessionID, err)
		}
		if _, err := stmt.ExecContext(ctx, args...); err != nil {
			return nil, fmt.Errorf("insert item %d of session %s: %w", it.Seq, sessionID, err)
		}
		out[i] = it
	}
	return out, nil
}

// lastItemSeq returns the Seq of the session's last item, 0 when it has
// none.
func lastItemSeq(ctx context.Context, tx bun.Tx, sessionID string) (int64, error) {
	var last int64
	err := tx.Tx.QueryRowContext(ctx, "SELECT COALESCE(MAX(seq), 0) FROM items WHERE session_id = ?", sessionID).Scan(&last)
	if err != nil {
		return 0, fmt.Errorf("find last item of session %s: %w", sessionID, err)
	}
	return last, nil
}

// selectImages reads columns (seq, the image's metadata, maybe its data, in the order of itemImage's fields) of the
// session's items numbered seqs.
func selectImages(ctx context.Context, tx bun.Tx, columns, sessionID string, seqs []int64) ([]itemImage, error) {
	args := make([]any, 0, len(seqs)+1)
	args = append(args, sessionID)
	for _, seq := range seqs {
		args = append(args, seq)
	}
	rows, err := tx.Tx.QueryContext(ctx, "SELECT "+columns+" FROM items WHERE session_id = ? AND seq IN ("+placeholders(len(seqs))+")", args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		return nil, err
	}
	var images []itemImage
	for rows.Next() {
		var im itemImage
		dest := []any{&im.Seq, &im.ImageMime, &im.ImageWidth, &im.ImageHeight, &im.ImageBytes, &im.ImageData}
		if err := rows.Scan(dest[:len(cols)]...); err != nil {
			return nil, err
		}
		images = append(images, im)
	}
	return images, rows.Err()
}

// placeholders returns n parameter markers separated by commas.
func placeholders(n int) string {
	return strings.TrimSuffix(strings.Repeat("?, ", n), ", ")
}
