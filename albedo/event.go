package albedo

import (
	"encoding/json"
	"strings"

	"github.com/albedo-agent/albedo/albedo/wire"
)

// Event is what a client displays: a transcript item seen by a person, or a
// live signal. It is the API's event (wire.Event); durable events carry the
// Seq of their item.
type Event = wire.Event

// ImageMeta is what clients see of an image: never its data.
type ImageMeta = wire.ImageMeta

// Meta returns the image's metadata.
func (img *Image) Meta() *ImageMeta {
	if img == nil {
		return nil
	}
	return &ImageMeta{MimeType: img.MimeType, Width: img.Width, Height: img.Height, Bytes: img.Bytes}
}

// Displayed reports whether items of this kind have a display event.
func (k ItemKind) Displayed() bool { return k != KindToolImage }

// EventOf derives the display event of one item. code is the cell's code
// for a tool output (its call holds it).
func EventOf(it Item, code string) Event {
	ev := Event{Seq: it.Seq, Text: it.Text, Timestamp: it.Timestamp}
	switch it.Kind {
	case KindUser:
		ev.Type, ev.Source, ev.Image = wire.EventUser, it.Source, it.Image.Meta()
	case KindAssistant:
		ev.Type = wire.EventMessage
		showFlags(&ev, it.Flags)
	case KindReasoning:
		ev.Type = wire.EventThinking
		showFlags(&ev, it.Flags)
	case KindToolCall:
		ev.Type, ev.CallID, ev.Name, ev.Code, ev.Text = wire.EventToolCall, it.CallID, it.ToolName, CallCode(it), ""
	case KindToolOutput:
		ev.Type, ev.CallID, ev.Name, ev.Code, ev.Text = wire.EventTool, it.CallID, it.ToolName, code, ""
		var trace Trace
		if it.ResultJSON != "" {
			ev.Status, ev.Result, trace = resultStatus(it.ResultJSON), it.ResultJSON, decodeTrace(it.TraceJSON)
		} else {
			result := it.Result
			if result == nil {
				result = &CellResult{Status: CellInterrupted, Output: it.Text}
			}
			ev.Status = string(result.Status)
			ev.Result = string(MustJSON(result))
			trace = result.Trace
		}
		if trace.Activities == nil {
			trace.Activities = []Activity{}
		}
		if trace.Changes == nil {
			trace.Changes = []Change{}
		}
		ev.Trace = &trace
	case KindError:
		ev.Type = wire.EventError
	case KindTurn:
		ev.Type, ev.Status, ev.Text = wire.EventTurn, it.Text, ""
	case KindNote:
		ev.Type, ev.Name = wire.EventNote, it.ToolName
		showFlags(&ev, it.Flags)
	case KindCompaction:
		compactionEvent(&ev, it)
	}
	return ev
}

// CallCode returns the Python code of a python tool call, or its raw
// arguments when they are not the python tool's.
func CallCode(it Item) string {
	var args struct {
		Code *string `json:"code"`
	}
	if json.Unmarshal([]byte(it.Arguments), &args) == nil && args.Code != nil {
		return *args.Code
	}
	return it.Arguments
}

// Preview shortens text to one line of at most n runes.
func Preview(text string, n int) string {
	text = strings.TrimSpace(text)
	if i := strings.IndexByte(text, '\n'); i >= 0 {
		text = strings.TrimSpace(text[:i]) + " …"
	}
	r := []rune(text)
	if len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return text
}

// showFlags shows an item's flags on its event.
func showFlags(ev *Event, f ItemFlags) {
	ev.Refusal = f&FlagRefusal != 0
	ev.Truncated = f&FlagTruncated != 0
	ev.Partial = f&FlagPartial != 0
	switch {
	case ev.Truncated:
		ev.Notice = TruncatedNotice
	case ev.Partial:
		ev.Notice = PartialNotice
	}
	if f&FlagCommentary != 0 {
		ev.Phase = "commentary"
	}
}

// MustJSON marshals v, which holds only maps, slices, strings and values
// whose encoding cannot fail, to JSON.
func MustJSON(v any) json.RawMessage {
	b, err := json.Marshal(v)
	if err != nil {
		// Only maps, slices and strings are marshalled here.
		panic("albedo: marshal: " + err.Error())
	}
	return b
}
