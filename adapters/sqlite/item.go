package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"

	"github.com/albedo-agent/albedo/albedo"
	"github.com/uptrace/bun"
)

// insertItem adds one item. It binds its arguments as parameters rather
// than formatting them into the statement, so that images travel as blobs.
const insertItem = `INSERT INTO items (session_id, seq, kind, timestamp,
	image_mime, image_width, image_height, image_bytes, text, source, notes,
	call_id, tool_name, arguments, protocol, result, trace, raw, image_data)
	VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`

// itemColumns is the select list that scanItem reads. Transcripts are read
// whole and often, so the list is shaped for the driver, whose cost is
// per column value: empty text reads as NULL, which takes one call instead
// of three, and an image's columns are read separately, for the few items
// that have one.
const itemColumns = `seq, kind, timestamp, image_mime IS NOT NULL,
	nullif(text, ''), nullif(source, ''), notes, nullif(call_id, ''),
	nullif(tool_name, ''), nullif(arguments, ''), nullif(protocol, ''),
	result, trace, raw`

// itemImage is the image of one item.
type itemImage struct {
	bun.BaseModel `bun:"table:items,alias:i"`

	Seq int64 `bun:"seq"`
	imageColumns
}

// itemArgs returns the arguments of insertItem for it.
func itemArgs(sessionID string, it *albedo.Item) ([]any, error) {
	notes, err := notesArg(it.Notes)
	if err != nil {
		return nil, err
	}
	var result, trace any
	if it.Result != nil {
		r, err := json.Marshal(it.Result)
		if err != nil {
			return nil, fmt.Errorf("encode cell result: %w", err)
		}
		t, err := json.Marshal(it.Result.Trace)
		if err != nil {
			return nil, fmt.Errorf("encode cell trace: %w", err)
		}
		result, trace = string(r), string(t)
	}
	img := imageArgs(it.Image)
	return []any{
		sessionID, it.Seq, string(it.Kind), it.Timestamp,
		img.mime, img.width, img.height, img.bytes,
		it.Text, it.Source, notes, it.CallID, it.ToolName, it.Arguments,
		string(it.Protocol), result, trace, textArg(string(it.Raw)), img.data,
	}, nil
}

// itemScanner reads rows of itemColumns, reusing its buffers.
type itemScanner struct {
	cols [14]any
	ptrs [14]any
}

// newItemScanner returns a scanner for rows of itemColumns.
func newItemScanner() *itemScanner {
	sc := new(itemScanner)
	for i := range sc.cols {
		sc.ptrs[i] = &sc.cols[i]
	}
	return sc
}

// scan reads one row. It reports whether the item has an image, which the
// caller reads separately.
func (sc *itemScanner) scan(rows *sql.Rows) (albedo.Item, bool, error) {
	cols := &sc.cols
	if err := rows.Scan(sc.ptrs[:]...); err != nil {
		return albedo.Item{}, false, err
	}
	it := albedo.Item{
		Seq:       asInt(cols[0]),
		Kind:      albedo.ItemKind(asString(cols[1])),
		Timestamp: asInt(cols[2]),
		Text:      asString(cols[4]),
		Source:    asString(cols[5]),
		CallID:    asString(cols[7]),
		ToolName:  asString(cols[8]),
		Arguments: asString(cols[9]),
		Protocol:  albedo.Protocol(asString(cols[10])),
	}
	var err error
	if it.Notes, err = parseNotes(asString(cols[6])); err != nil {
		return albedo.Item{}, false, err
	}
	if result := asString(cols[11]); result != "" {
		it.Result = new(albedo.CellResult)
		if err := json.Unmarshal([]byte(result), it.Result); err != nil {
			return albedo.Item{}, false, fmt.Errorf("decode cell result: %w", err)
		}
		if trace := asString(cols[12]); trace != "" {
			if err := json.Unmarshal([]byte(trace), &it.Result.Trace); err != nil {
				return albedo.Item{}, false, fmt.Errorf("decode cell trace: %w", err)
			}
		}
	}
	if raw := asString(cols[13]); raw != "" {
		it.Raw = json.RawMessage(raw)
	}
	return it, asInt(cols[3]) != 0, nil
}

// Items returns a session's transcript items with Seq > after in ascending
// order, at most limit of them (limit <= 0: all). A missing session is
// ENotFound.
func (s *Store) Items(ctx context.Context, sessionID string, after int64, limit int) ([]albedo.Item, error) {
	var items []albedo.Item
	// One read transaction, so that the images and the existence check
	// see the same snapshot as the items.
	err := s.read.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		var err error
		items, err = selectItems(ctx, tx, sessionID, after, limit)
		if err != nil || len(items) > 0 {
			return err
		}
		// Items cascade with their session, so only an empty answer needs
		// to tell a missing session from an empty page.
		ok, err := sessionExists(ctx, tx, sessionID)
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

// selectItems reads a page of a session's transcript, images included.
func selectItems(ctx context.Context, tx bun.Tx, sessionID string, after int64, limit int) ([]albedo.Item, error) {
	// Seqs run 1, 2, 3, ... without gaps, so the last one bounds the size
	// of the page; sizing the slice once spares copying a large transcript
	// as it grows.
	last, err := lastItemSeq(ctx, tx, sessionID)
	if err != nil {
		return nil, err
	}
	size := max(last-after, 0)
	if limit > 0 {
		size = min(size, int64(limit))
	}
	q := tx.NewSelect().ColumnExpr(itemColumns).TableExpr("items").
		Where("session_id = ?", sessionID).Where("seq > ?", after).
		Order("seq")
	if limit > 0 {
		q = q.Limit(int64(limit))
	}
	rows, err := q.Rows(ctx)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var (
		items   = make([]albedo.Item, 0, size)
		imaged  []int64
		indexOf = map[int64]int{}
		sc      = newItemScanner()
	)
	for rows.Next() {
		it, hasImage, err := sc.scan(rows)
		if err != nil {
			return nil, fmt.Errorf("scan item after %d: %w", lastSeq(items), err)
		}
		if hasImage {
			imaged = append(imaged, it.Seq)
			indexOf[it.Seq] = len(items)
		}
		items = append(items, it)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	if len(imaged) == 0 {
		return items, nil
	}
	var images []itemImage
	err = tx.NewSelect().Model(&images).
		Where("session_id = ?", sessionID).Where("seq IN (?)", bun.In(imaged)).
		Scan(ctx)
	if err != nil {
		return nil, fmt.Errorf("select images: %w", err)
	}
	for i := range images {
		items[indexOf[images[i].Seq]].Image = images[i].image()
	}
	return items, nil
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
	err := tx.NewSelect().Table("items").ColumnExpr("COALESCE(MAX(seq), 0)").
		Where("session_id = ?", sessionID).Scan(ctx, &last)
	if err != nil {
		return 0, fmt.Errorf("find last item of session %s: %w", sessionID, err)
	}
	return last, nil
}
