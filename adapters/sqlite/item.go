package sqlite

import (
	"database/sql"
	"encoding/json"
	"fmt"

	"github.com/albedo-agent/albedo/albedo"
	"github.com/uptrace/bun"
)

// insertItem adds one item. It binds its arguments as parameters rather
// than formatting them into the statement, so that images travel as blobs.
const insertItem = `INSERT INTO items (session_id, seq, kind, timestamp, flags,
	image_mime, image_width, image_height, image_bytes, source, call_id,
	tool_name, protocol, notes, text, arguments, result, trace, raw, image_data)
	VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`

// itemColumns is the select list that itemScanner reads. Transcripts are read
// whole and often, so the list is shaped for the driver, whose cost is
// per column value: empty text reads as NULL, which takes one call instead
// of three, and an image's columns are read separately, for the few items
// that have one.
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
	var result, trace, raw any
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
	if len(it.Raw) > 0 {
		raw = string(it.Raw)
	}
	img := imageArgs(it.Image)
	return []any{
		sessionID, it.Seq, string(it.Kind), it.Timestamp, int64(it.Flags),
		img.mime, img.width, img.height, img.bytes, it.Source, it.CallID,
		it.ToolName, string(it.Protocol), notes, it.Text, it.Arguments, result, trace, raw, img.data,
	}, nil
}

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

// scanned is one row as itemScanner read it: the item, and whether it has
// an image. A cell result and trace are left as JSON in ResultJSON and
// TraceJSON until finish.
type scanned struct {
	item     albedo.Item
	hasImage bool
}

// scan reads one row.
func (sc *itemScanner) scan(rows *sql.Rows) (scanned, error) {
	cols := &sc.cols
	if err := rows.Scan(sc.ptrs[:]...); err != nil {
		return scanned{}, err
	}
	it := albedo.Item{
		Seq:        asInt(cols[0]),
		Kind:       albedo.ItemKind(asString(cols[1])),
		Timestamp:  asInt(cols[2]),
		Source:     asString(cols[4]),
		CallID:     asString(cols[6]),
		ToolName:   asString(cols[7]),
		Protocol:   albedo.Protocol(asString(cols[8])),
		Flags:      albedo.ItemFlags(asInt(cols[9])),
		Text:       asString(cols[10]),
		Arguments:  asString(cols[11]),
		ResultJSON: asString(cols[12]),
		TraceJSON:  asString(cols[13]),
	}
	var err error
	if it.Notes, err = parseNotes(asString(cols[5])); err != nil {
		return scanned{}, err
	}
	if raw := asString(cols[14]); raw != "" {
		it.Raw = json.RawMessage(raw)
	}
	return scanned{item: it, hasImage: asInt(cols[3]) != 0}, nil
}

// finish decodes the cell result of an item read whole (not for
// display) from the JSON scan left in ResultJSON and TraceJSON, and
// clears them.
func (sc *itemScanner) finish(it *albedo.Item) error {
	if sc.display || it.ResultJSON == "" {
		return nil
	}
	result, trace := it.ResultJSON, it.TraceJSON
	it.ResultJSON, it.TraceJSON = "", ""
	it.Result = new(albedo.CellResult)
	if err := json.Unmarshal([]byte(result), it.Result); err != nil {
		return fmt.Errorf("decode cell result: %w", err)
	}
	if trace != "" {
		if err := json.Unmarshal([]byte(trace), &it.Result.Trace); err != nil {
			return fmt.Errorf("decode cell trace: %w", err)
		}
	}
	return nil
}
