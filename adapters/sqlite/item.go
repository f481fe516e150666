package sqlite

import (
	"database/sql"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/albedo-agent/albedo/albedo"
	"github.com/uptrace/bun"
)

// insertItem adds one item. It binds its arguments as parameters rather
// than formatting them into the statement, so that images travel as blobs.
const insertItem = `INSERT INTO items (session_id, seq, kind, timestamp, flags,
	text_size, arguments_size, result_size, trace_size, raw_size, image_size,
	image_mime, image_width, image_height, image_bytes, source, call_id,
	tool_name, protocol, notes, text, arguments, result, trace, raw, image_data)
	VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`

// itemColumns is the select list that itemScanner reads. Transcripts are read
// whole and often, so the list is shaped for the driver, whose cost is
// per column value: empty text reads as NULL, which takes one call instead
// of three, and an image's columns are read separately, for the few items
// that have one. The sizes of the values kept in pieces come last, in one
// column (pieceSizesOf).
const itemColumns = itemHead + `nullif(text, ''), nullif(arguments, ''), result, trace, raw, ` +
	pieceSizesOf + `text_size, arguments_size, result_size, trace_size, raw_size) END`

// pieceSizesOf starts the column of the sizes of the values kept in
// pieces; the five sizes follow, in piecedFields order, then ") END". The
// column is NULL when the item has none, as nearly every item, which the
// driver reads in one call rather than five; else the sizes separated by
// spaces. The sizes a select list gives may be expressions: a read that
// leaves a value out gives 0 for its size.
const pieceSizesOf = `CASE WHEN text_size + arguments_size + result_size + trace_size + raw_size > 0 THEN printf('%d %d %d %d %d', `

// itemHead is the start of every select list: the small columns.
const itemHead = `seq, kind, timestamp, image_mime IS NOT NULL,
	nullif(source, ''), notes, nullif(call_id, ''), nullif(tool_name, ''),
	nullif(protocol, ''), flags, `

// itemColumnsNoResults is itemColumns without the cell results.
const itemColumnsNoResults = itemHead + `nullif(text, ''), nullif(arguments, ''), NULL, NULL, raw, ` +
	pieceSizesOf + `text_size, arguments_size, 0, 0, raw_size) END`

// itemColumnsDisplay is itemColumns for a read for display: a tool output
// with a result has no text (the result holds it), results are passed on
// as stored, and no model item's native JSON is read (an item albedo made
// itself, with no protocol, keeps its raw). What is left out is not read
// from the pieces either.
const itemColumnsDisplay = itemHead + `CASE WHEN kind = 'tool_output' AND result IS NOT NULL THEN NULL ELSE nullif(text, '') END,
	nullif(arguments, ''), result, trace, CASE WHEN protocol = '' THEN raw END, ` +
	pieceSizesOf + `CASE WHEN kind = 'tool_output' AND result IS NOT NULL THEN 0 ELSE text_size END,
	arguments_size, result_size, trace_size, CASE WHEN protocol = '' THEN raw_size ELSE 0 END) END`

// itemImage is the image of one item.
type itemImage struct {
	bun.BaseModel `bun:"table:items,alias:i"`

	Seq int64 `bun:"seq"`
	imageColumns
	// ImageSize is the size of data kept in pieces, 0 when ImageData
	// holds it.
	ImageSize int64 `bun:"image_size"`
}

// itemArgs returns the arguments of insertItem for it, and the values
// too long for the row, which the caller writes in pieces: the row holds
// an empty string in their place and their sizes.
func itemArgs(sessionID string, it *albedo.Item) ([]any, []longValue, error) {
	notes, err := notesArg(it.Notes)
	if err != nil {
		return nil, nil, err
	}
	var long []longValue
	var sizes [5]int64
	// keepString and keepBytes return the row's value of the field of
	// size i (see piecedFields): '' when it goes in pieces.
	keepString := func(i int, v string) string {
		if !inPieces(len(v)) {
			return v
		}
		long = append(long, longValue{field: piecedFields[i], s: v})
		sizes[i] = int64(len(v))
		return ""
	}
	keepBytes := func(i int, v []byte) any {
		if !inPieces(len(v)) {
			return string(v)
		}
		long = append(long, longValue{field: piecedFields[i], b: v})
		sizes[i] = int64(len(v))
		return ""
	}
	var result, trace, raw any
	if it.Result != nil {
		r, err := json.Marshal(it.Result)
		if err != nil {
			return nil, nil, fmt.Errorf("encode cell result: %w", err)
		}
		t, err := json.Marshal(it.Result.Trace)
		if err != nil {
			return nil, nil, fmt.Errorf("encode cell trace: %w", err)
		}
		result, trace = keepBytes(2, r), keepBytes(3, t)
	}
	if len(it.Raw) > 0 {
		raw = keepBytes(4, it.Raw)
	}
	text := keepString(0, it.Text)
	arguments := keepString(1, it.Arguments)
	img, imageSize := imageArgs(it.Image), int64(0)
	if inPieces(len(img.data)) {
		long = append(long, longValue{field: fieldImage, b: img.data})
		img.data, imageSize = nil, int64(len(img.data))
	}
	return []any{
		sessionID, it.Seq, string(it.Kind), it.Timestamp, int64(it.Flags),
		sizes[0], sizes[1], sizes[2], sizes[3], sizes[4], imageSize,
		img.mime, img.width, img.height, img.bytes, it.Source, it.CallID,
		it.ToolName, string(it.Protocol), notes, text, arguments, result, trace, raw, img.data,
	}, long, nil
}

// scanColumns is how many columns itemScanner reads.
const scanColumns = 16

// The positions of the values that may be kept in pieces, and of their
// sizes, in a row itemScanner reads.
const (
	colText, colArguments, colResult, colTrace, colRaw = 10, 11, 12, 13, 14
	colSizes                                           = 15
)

// piecedFields are the fields in the order of their sizes in a row.
var piecedFields = [5]field{fieldText, fieldArguments, fieldResult, fieldTrace, fieldRaw}

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

// scanned is one row as itemScanner read it: the item, whether it has an
// image, and the sizes of its values kept in pieces (0: in the row), in
// piecedFields order. A cell result and trace in the row are left as
// JSON in ResultJSON and TraceJSON until finish.
type scanned struct {
	item     albedo.Item
	hasImage bool
	sizes    [5]int64
}

// pieced reports whether any value of the row is kept in pieces.
func (r *scanned) pieced() bool { return r.sizes != [5]int64{} }

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
		Text:       asString(cols[colText]),
		Arguments:  asString(cols[colArguments]),
		ResultJSON: asString(cols[colResult]),
		TraceJSON:  asString(cols[colTrace]),
	}
	var err error
	if it.Notes, err = parseNotes(asString(cols[5])); err != nil {
		return scanned{}, err
	}
	if raw := asString(cols[colRaw]); raw != "" {
		it.Raw = json.RawMessage(raw)
	}
	row := scanned{item: it, hasImage: asInt(cols[3]) != 0}
	if sizes := asString(cols[colSizes]); sizes != "" {
		if row.sizes, err = parseSizes(sizes); err != nil {
			return scanned{}, fmt.Errorf("item %d: %w", it.Seq, err)
		}
	}
	return row, nil
}

// parseSizes reads the column of the sizes of the values kept in pieces.
func parseSizes(col string) ([5]int64, error) {
	var sizes [5]int64
	fields := strings.Fields(col)
	if len(fields) != len(sizes) {
		return sizes, fmt.Errorf("read the sizes of the values in pieces: %q is not five sizes", col)
	}
	for i, f := range fields {
		n, err := strconv.ParseInt(f, 10, 64)
		if err != nil || n < 0 {
			return sizes, fmt.Errorf("read the sizes of the values in pieces: %q", col)
		}
		sizes[i] = n
	}
	return sizes, nil
}

// finish decodes the cell result of an item read whole (not for
// display) from the JSON scan left in ResultJSON and TraceJSON.
func (sc *itemScanner) finish(it *albedo.Item) error {
	if sc.display || it.ResultJSON == "" {
		return nil
	}
	return decodeResult(it, []byte(it.ResultJSON), []byte(it.TraceJSON))
}

// decodeResult sets it.Result from the JSON of a cell result and its
// trace, and clears ResultJSON and TraceJSON.
func decodeResult(it *albedo.Item, result, trace []byte) error {
	it.ResultJSON, it.TraceJSON = "", ""
	it.Result = new(albedo.CellResult)
	if err := json.Unmarshal(result, it.Result); err != nil {
		return fmt.Errorf("decode cell result: %w", err)
	}
	if len(trace) > 0 {
		if err := json.Unmarshal(trace, &it.Result.Trace); err != nil {
			return fmt.Errorf("decode cell trace: %w", err)
		}
	}
	return nil
}
