package sqlstore

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/albedo-agent/albedo/albedo"
)

// itemValueColumns names the values of itemValues after the first, the
// item's place in its commit.
const itemValueColumns = `kind, timestamp, flags, image_mime, image_width, image_height, image_bytes,
	source, call_id, tool_name, protocol, notes, text, arguments, result, trace, raw, image_data`

// itemValueTypes are the PostgreSQL types of itemValues, for a dialect
// whose VALUES list names them (Dialect.OneStatementAppend).
var itemValueTypes = [...]string{"bigint", "bytea", "bigint", "bigint", "bytea", "integer", "integer",
	"integer", "bytea", "bytea", "bytea", "bytea", "bytea", "bytea", "bytea", "bytea", "bytea", "bytea", "bytea"}

// itemValues returns the values that store it in itemValueTypes order: the
// first is its place in the commit (1, 2, ...), or its Seq where the
// statement does not number items itself.
func (s *Store) itemValues(ord int64, it *albedo.Item) ([]any, error) {
	notes, err := s.notesArg(it.Notes)
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
		result, trace = s.text(string(r)), s.text(string(t))
	}
	img := s.imageArgs(it.Image)
	return []any{
		ord, s.text(string(it.Kind)), it.Timestamp, int64(it.Flags),
		img.mime, img.width, img.height, img.bytes, s.text(it.Source), s.text(it.CallID),
		s.text(it.ToolName), s.text(string(it.Protocol)), notes, s.text(it.Text), s.text(it.Arguments),
		result, trace, s.nullText(string(it.Raw)), img.data,
	}, nil
}

// maxItemsPerStatement bounds how many items one INSERT writes, so that
// its parameters stay far below the databases' limits (SQLite's 32,766,
// PostgreSQL's 65,535).
const maxItemsPerStatement = 1000

// appendItems appends items to the session's transcript and returns them
// with Seq assigned: numbered in the statement (OneStatementAppend), from
// the counter on the session's row (last_seq), which the statement
// advances; else after the session's last item, q being the commit's
// transaction. A missing session fails with ENotFound (or a foreign key
// violation: see failed). A fence, given only with OneStatementAppend and
// at most maxItemsPerStatement items, is checked in the statement itself:
// no item lands and no number is drawn unless the lease holds
// (ELeaseLost). With notify (one statement only, and Dialect.Notify set)
// the statement notifies the commit too.
func (s *Store) appendItems(ctx context.Context, q querier, sessionID string, items []albedo.Item, fence *albedo.Lease, notify bool) ([]albedo.Item, error) {
	out := make([]albedo.Item, 0, len(items))
	var last int64
	if !s.d.OneStatementAppend {
		err := q.QueryRowContext(ctx, "SELECT COALESCE(MAX(seq), 0) FROM items WHERE session_id = $1", s.text(sessionID)).Scan(&last)
		if err != nil {
			return nil, fmt.Errorf("find last item of session %s: %w", sessionID, err)
		}
	}
	for len(items) > 0 {
		n := min(len(items), maxItemsPerStatement)
		query, args, err := s.insertItems(sessionID, last, items[:n], fence, notify)
		if err != nil {
			return nil, err
		}
		seqs, err := scanAll(ctx, q, func(row rowScanner) (int64, error) {
			var seq int64
			return seq, row.Scan(&seq)
		}, query, args...)
		if err == nil && fence != nil && len(seqs) == 0 {
			return nil, leaseLost(fence)
		}
		if err == nil && len(seqs) == 0 && s.d.OneStatementAppend {
			return nil, sessionNotFound(sessionID) // no row drew the numbers
		}
		if err == nil && len(seqs) != n {
			err = fmt.Errorf("%d items stored of %d", len(seqs), n)
		}
		if err != nil {
			return nil, fmt.Errorf("insert items of session %s: %w", sessionID, err)
		}
		first := slices.Min(seqs)
		for i, it := range items[:n] {
			it.Seq = first + int64(i)
			out = append(out, it)
		}
		last = first + int64(n) - 1
		items = items[n:]
	}
	return out, nil
}

// insertItems returns the statement that appends items to the session's
// transcript and answers their Seqs, and its arguments. Numbered in the
// statement (OneStatementAppend), the items are a VALUES list, whose
// columns are column1, column2, ..., joined to the numbers the statement
// draws by advancing the session row's counter; a fence is a condition of
// that update, so that no number is drawn and no row inserted unless the
// lease holds; with notify the statement notifies the commit too. Else
// each row is numbered after last.
func (s *Store) insertItems(sessionID string, last int64, items []albedo.Item, fence *albedo.Lease, notify bool) (string, []any, error) {
	var b strings.Builder
	args := make([]any, 1, 5+len(items)*len(itemValueTypes))
	args[0] = s.text(sessionID)
	if s.d.OneStatementAppend {
		args = append(args, int64(len(items)))
		b.WriteString(`WITH last AS (UPDATE sessions SET last_seq = last_seq + $2::bigint WHERE id = $1`)
		if fence != nil {
			b.WriteString(` AND EXISTS (` + fmt.Sprintf(fenceSQL, 3, 4, 5) + `)`)
			args = append(args, s.fenceArgs(fence)...)
		}
		b.WriteString(` RETURNING last_seq - $2::bigint AS n),
	ins AS (`)
	}
	b.WriteString(`INSERT INTO items (session_id, seq, ` + itemValueColumns + `) `)
	if s.d.OneStatementAppend {
		b.WriteString(`SELECT $1, last.n + v.column1`)
		for j := 2; j <= len(itemValueTypes); j++ {
			fmt.Fprintf(&b, ", v.column%d", j)
		}
		b.WriteString(` FROM last, (`)
	}
	b.WriteString(`VALUES `)
	for i := range items {
		ord := int64(i + 1)
		if !s.d.OneStatementAppend {
			ord += last
		}
		values, err := s.itemValues(ord, &items[i])
		if err != nil {
			return "", nil, fmt.Errorf("item %d of the commit to session %s: %w", i+1, sessionID, err)
		}
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteByte('(')
		if !s.d.OneStatementAppend {
			b.WriteString("$1, ")
		}
		for j, v := range values {
			args = append(args, v)
			if j > 0 {
				b.WriteString(", ")
			}
			fmt.Fprintf(&b, "$%d", len(args))
			if s.d.OneStatementAppend {
				b.WriteString("::" + itemValueTypes[j])
			}
		}
		b.WriteByte(')')
	}
	if !s.d.OneStatementAppend {
		b.WriteString(` RETURNING seq`)
		return b.String(), args, nil
	}
	b.WriteString(`) AS v RETURNING seq)`)
	if notify {
		args = s.notifyItems(&b, args, sessionID)
	} else {
		b.WriteString(` SELECT seq FROM ins`)
	}
	return b.String(), args, nil
}

// itemColumns is the select list that itemScanner reads. Transcripts are
// read whole and often, so the list is shaped for SQLite's driver, whose
// cost is per column value: empty text reads as NULL, which takes one call
// instead of three, and an image's columns are read separately, for the
// few items that have one.
const itemColumns = itemHead + `nullif(text, ''), nullif(arguments, ''), result, trace, raw`

// itemHead is the start of every select list: the small columns.
const itemHead = `seq, kind, timestamp, image_mime IS NOT NULL,
	nullif(source, ''), notes, nullif(call_id, ''), nullif(tool_name, ''),
	nullif(protocol, ''), flags, `

// itemColumnsNoResults is itemColumns without the cell results.
const itemColumnsNoResults = itemHead + `nullif(text, ''), nullif(arguments, ''), NULL, NULL, raw`

// itemColumnsDisplay is itemColumns for a read for display: a tool output
// with a result has no text (the result holds it), results are passed on
// as stored, and no model item's native JSON is read (an item albedo made
// itself, with no protocol, keeps its raw).
const itemColumnsDisplay = itemHead + `CASE WHEN kind = 'tool_output' AND result IS NOT NULL THEN NULL ELSE nullif(text, '') END,
	nullif(arguments, ''), result, trace, CASE WHEN protocol = '' THEN raw END`

// scanColumns is how many columns itemScanner reads.
const scanColumns = 15

// itemScanner reads rows of itemColumns, reusing its buffers.
type itemScanner struct {
	cols [scanColumns]any
	ptrs [scanColumns]any
	// display keeps results as their stored JSON (itemColumnsDisplay).
	display bool
}

// newItemScanner returns a scanner for rows of itemColumns, or of
// itemColumnsDisplay when display is set.
func newItemScanner(display bool) *itemScanner {
	sc := &itemScanner{display: display}
	for i := range sc.cols {
		sc.ptrs[i] = &sc.cols[i]
	}
	return sc
}

// scan reads one row: the item, and whether it has an image.
func (sc *itemScanner) scan(rows *sql.Rows) (albedo.Item, bool, error) {
	cols := &sc.cols
	if err := rows.Scan(sc.ptrs[:]...); err != nil {
		return albedo.Item{}, false, err
	}
	it := albedo.Item{
		Seq:       asInt(cols[0]),
		Kind:      albedo.ItemKind(asString(cols[1])),
		Timestamp: asInt(cols[2]),
		Source:    asString(cols[4]),
		CallID:    asString(cols[6]),
		ToolName:  asString(cols[7]),
		Protocol:  albedo.Protocol(asString(cols[8])),
		Flags:     albedo.ItemFlags(asInt(cols[9])),
		Text:      asString(cols[10]),
		Arguments: asString(cols[11]),
	}
	var err error
	if it.Notes, err = parseNotes(asString(cols[5])); err != nil {
		return albedo.Item{}, false, fmt.Errorf("item %d: %w", it.Seq, err)
	}
	if raw := asString(cols[14]); raw != "" {
		it.Raw = json.RawMessage(raw)
	}
	hasImage := cols[3] == true || asInt(cols[3]) != 0
	result, trace := asString(cols[12]), asString(cols[13])
	if result == "" {
		return it, hasImage, nil
	}
	if sc.display {
		it.ResultJSON, it.TraceJSON = result, trace
		return it, hasImage, nil
	}
	it.Result = new(albedo.CellResult)
	if err := json.Unmarshal([]byte(result), it.Result); err != nil {
		return albedo.Item{}, false, fmt.Errorf("item %d: decode cell result: %w", it.Seq, err)
	}
	if trace != "" {
		if err := json.Unmarshal([]byte(trace), &it.Result.Trace); err != nil {
			return albedo.Item{}, false, fmt.Errorf("item %d: decode cell trace: %w", it.Seq, err)
		}
	}
	return it, hasImage, nil
}

// asString returns the text a column scanned into an any holds: "" for
// NULL.
func asString(v any) string {
	switch v := v.(type) {
	case string:
		return v
	case []byte:
		return string(v)
	}
	return ""
}

// asInt returns the integer a column scanned into an any holds: 0 for NULL.
func asInt(v any) int64 {
	n, _ := v.(int64)
	return n
}

// notesArg returns the JSON of notes for a nullable column: NULL when
// there are none.
func (s *Store) notesArg(notes []string) (any, error) {
	if len(notes) == 0 {
		return nil, nil
	}
	b, err := json.Marshal(notes)
	if err != nil {
		return nil, fmt.Errorf("encode notes: %w", err)
	}
	return s.text(string(b)), nil
}

// parseNotes decodes a notes column; "" is NULL.
func parseNotes(col string) ([]string, error) {
	if col == "" {
		return nil, nil
	}
	var notes []string
	if err := json.Unmarshal([]byte(col), &notes); err != nil {
		return nil, fmt.Errorf("decode notes: %w", err)
	}
	return notes, nil
}

// imageValues are the arguments for the image columns of an insert.
type imageValues struct {
	mime                 any // nil (NULL) without an image
	width, height, bytes int
	data                 []byte
}

// imageArgs returns the arguments that store img, which may be nil.
func (s *Store) imageArgs(img *albedo.Image) imageValues {
	if img == nil {
		return imageValues{}
	}
	return imageValues{s.text(img.MimeType), img.Width, img.Height, img.Bytes, img.Data}
}
