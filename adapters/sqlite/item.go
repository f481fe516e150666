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
const insertItem = `INSERT INTO items (session_id, seq, kind, timestamp,
	image_mime, image_width, image_height, image_bytes, text, source, notes,
	call_id, tool_name, arguments, protocol, result, trace, raw, image_data, flags,
	text_size)
	VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`

// itemColumns is the select list that itemScanner reads. Transcripts are read
// whole and often, so the list is shaped for the driver, whose cost is
// per column value: empty text reads as NULL, which takes one call instead
// of three, and an image's columns are read separately, for the few items
// that have one.
const itemColumns = `seq, kind, timestamp, image_mime IS NOT NULL,
	nullif(text, ''), nullif(source, ''), notes, nullif(call_id, ''),
	nullif(tool_name, ''), nullif(arguments, ''), nullif(protocol, ''),
	result, trace, raw, flags, text_size`

// itemColumnsNoResults is itemColumns without the cell results.
const itemColumnsNoResults = `seq, kind, timestamp, image_mime IS NOT NULL,
	nullif(text, ''), nullif(source, ''), notes, nullif(call_id, ''),
	nullif(tool_name, ''), nullif(arguments, ''), nullif(protocol, ''),
	NULL, NULL, raw, flags, text_size`

// itemColumnsDisplay is itemColumns for a read for display: a tool output
// with a result has no text (the result holds it), results are passed on
// as stored, and no model item's native JSON is read (an item albedo made
// itself, with no protocol, keeps its raw).
const itemColumnsDisplay = `seq, kind, timestamp, image_mime IS NOT NULL,
	CASE WHEN kind = 'tool_output' AND result IS NOT NULL THEN NULL ELSE nullif(text, '') END,
	nullif(source, ''), notes, nullif(call_id, ''),
	nullif(tool_name, ''), nullif(arguments, ''), nullif(protocol, ''),
	result, trace, CASE WHEN protocol = '' THEN raw END, flags,
	CASE WHEN kind = 'tool_output' AND result IS NOT NULL THEN 0 ELSE text_size END`

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
	text, textSize := it.Text, int64(0)
	if inPieces(it.Text) {
		text, textSize = "", int64(len(it.Text))
	}
	return []any{
		sessionID, it.Seq, string(it.Kind), it.Timestamp,
		img.mime, img.width, img.height, img.bytes,
		text, it.Source, notes, it.CallID, it.ToolName, it.Arguments,
		string(it.Protocol), result, trace, textArg(string(it.Raw)), img.data, int64(it.Flags),
		textSize,
	}, nil
}

// itemScanner reads rows of itemColumns, reusing its buffers.
type itemScanner struct {
	cols [16]any
	ptrs [16]any
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

// scan reads one row. It reports whether the item has an image and the
// size of a text kept in pieces (0 when the text is in the row), which the
// caller reads separately.
func (sc *itemScanner) scan(rows *sql.Rows) (albedo.Item, bool, int64, error) {
	cols := &sc.cols
	if err := rows.Scan(sc.ptrs[:]...); err != nil {
		return albedo.Item{}, false, 0, err
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
		Flags:     albedo.ItemFlags(asInt(cols[14])),
	}
	var err error
	if it.Notes, err = parseNotes(asString(cols[6])); err != nil {
		return albedo.Item{}, false, 0, err
	}
	if result := asString(cols[11]); result != "" && sc.display {
		it.ResultJSON, it.TraceJSON = result, asString(cols[12])
	} else if result != "" {
		it.Result = new(albedo.CellResult)
		if err := json.Unmarshal([]byte(result), it.Result); err != nil {
			return albedo.Item{}, false, 0, fmt.Errorf("decode cell result: %w", err)
		}
		if trace := asString(cols[12]); trace != "" {
			if err := json.Unmarshal([]byte(trace), &it.Result.Trace); err != nil {
				return albedo.Item{}, false, 0, fmt.Errorf("decode cell trace: %w", err)
			}
		}
	}
	if raw := asString(cols[13]); raw != "" {
		it.Raw = json.RawMessage(raw)
	}
	return it, asInt(cols[3]) != 0, asInt(cols[15]), nil
}
