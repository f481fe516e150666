package postgres

import (
	"database/sql"
	"encoding/json"
	"fmt"

	"github.com/albedo-agent/albedo/albedo"
)

// itemValueTypes are the types of the values itemValues returns, in
// order, as the columns of the VALUES list that appendItems inserts from:
// its first column is the item's place in the commit (1, 2, ...).
var itemValueTypes = [...]string{"bigint", "bytea", "bigint", "bigint", "bytea", "integer", "integer",
	"integer", "bytea", "bytea", "bytea", "bytea", "bytea", "bytea", "bytea", "bytea", "bytea", "bytea", "bytea"}

// itemValueColumns names the values of itemValues after the first.
const itemValueColumns = `kind, timestamp, flags, image_mime, image_width, image_height, image_bytes,
	source, call_id, tool_name, protocol, notes, text, arguments, result, trace, raw, image_data`

// itemValues returns the values that store it, the ord-th item of a
// commit, in itemValueTypes order.
func itemValues(ord int, it *albedo.Item) ([]any, error) {
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
		result, trace = r, t
	}
	if len(it.Raw) > 0 {
		raw = []byte(it.Raw)
	}
	img := imageArgs(it.Image)
	return []any{
		int64(ord), bin(string(it.Kind)), it.Timestamp, int64(it.Flags),
		img.mime, img.width, img.height, img.bytes, bin(it.Source), bin(it.CallID),
		bin(it.ToolName), bin(string(it.Protocol)), notes, bin(it.Text), bin(it.Arguments),
		result, trace, raw, img.data,
	}, nil
}

// The select list of a page of items: the small columns, then the values
// a query may leave out (NULL), each chosen by itemColumns.
const (
	itemHead = `seq, kind, timestamp, flags, image_mime, image_width, image_height,
	image_bytes, source, notes, call_id, tool_name, protocol, arguments, `
	// A tool output with a result read for display has no text: the
	// result holds it.
	textAll     = `text`
	textDisplay = `CASE WHEN kind = 'tool_output'::bytea AND result IS NOT NULL THEN NULL ELSE text END`
	// A model item read for display has no native JSON; one albedo made
	// itself (no protocol) keeps it.
	rawAll     = `raw`
	rawDisplay = `CASE WHEN protocol = ''::bytea THEN raw END`
)

// itemColumns returns the select list of a page that q asks for.
func itemColumns(q albedo.ItemQuery) string {
	text, raw, results, image := textAll, rawAll, `result, trace`, `NULL`
	switch {
	case q.NoResults:
		results = `NULL, NULL`
	case q.Display:
		text, raw = textDisplay, rawDisplay
	}
	if q.Images {
		image = `image_data`
	}
	return itemHead + text + `, ` + results + `, ` + raw + `, ` + image
}

// itemScanner reads rows of itemColumns, reusing its buffers.
type itemScanner struct {
	// display keeps results as their stored JSON.
	display bool

	text, notes, result, trace, raw, mime, image   []byte
	kind, source, callID, toolName, protocol, args string
	width, height, size                            int
}

// scan reads one row into an item.
func (sc *itemScanner) scan(rows *sql.Rows) (albedo.Item, error) {
	var it albedo.Item
	var flags int64
	sc.text, sc.notes, sc.result, sc.trace, sc.raw, sc.mime, sc.image = nil, nil, nil, nil, nil, nil, nil
	err := rows.Scan(&it.Seq, &sc.kind, &it.Timestamp, &flags, &sc.mime, &sc.width, &sc.height,
		&sc.size, &sc.source, &sc.notes, &sc.callID, &sc.toolName, &sc.protocol, &sc.args,
		&sc.text, &sc.result, &sc.trace, &sc.raw, &sc.image)
	if err != nil {
		return albedo.Item{}, err
	}
	it.Kind, it.Flags = albedo.ItemKind(sc.kind), albedo.ItemFlags(flags)
	it.Source, it.CallID, it.ToolName = sc.source, sc.callID, sc.toolName
	it.Protocol, it.Arguments, it.Text = albedo.Protocol(sc.protocol), sc.args, string(sc.text)
	if it.Notes, err = parseNotes(sc.notes); err != nil {
		return albedo.Item{}, fmt.Errorf("item %d: %w", it.Seq, err)
	}
	if len(sc.raw) > 0 {
		it.Raw = json.RawMessage(sc.raw)
	}
	if sc.mime != nil {
		it.Image = &albedo.Image{MimeType: string(sc.mime), Width: sc.width, Height: sc.height, Bytes: sc.size, Data: sc.image}
	}
	if sc.result == nil {
		return it, nil
	}
	if sc.display {
		it.ResultJSON, it.TraceJSON = string(sc.result), string(sc.trace)
		return it, nil
	}
	it.Result = new(albedo.CellResult)
	if err := json.Unmarshal(sc.result, it.Result); err != nil {
		return albedo.Item{}, fmt.Errorf("item %d: decode cell result: %w", it.Seq, err)
	}
	if len(sc.trace) > 0 {
		if err := json.Unmarshal(sc.trace, &it.Result.Trace); err != nil {
			return albedo.Item{}, fmt.Errorf("item %d: decode cell trace: %w", it.Seq, err)
		}
	}
	return it, nil
}
