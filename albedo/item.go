package albedo

import (
	"encoding/json"

	"github.com/albedo-agent/albedo/albedo/wire"
)

// ItemKind names what a transcript item is.
type ItemKind string

// Transcript item kinds. The first five are the conversation the model sees;
// errors and turn markers are shown to people only.
const (
	KindUser       ItemKind = "user"
	KindReasoning  ItemKind = "reasoning"
	KindAssistant  ItemKind = "assistant"
	KindToolCall   ItemKind = "tool_call"
	KindToolOutput ItemKind = "tool_output"
	// KindToolImage is an image a cell showed (show_image): it follows its
	// tool output and names the same call.
	KindToolImage ItemKind = "tool_image"
	KindError     ItemKind = "error"
	KindTurn      ItemKind = "turn"
	// KindNote is an output item of the model that albedo does not act on,
	// such as a search the provider ran itself: Text describes it,
	// ToolName is its type and Raw holds it. It is shown, not sent back.
	KindNote ItemKind = "note"
)

// Conversational reports whether items of this kind are sent to the model.
func (k ItemKind) Conversational() bool {
	switch k {
	case KindUser, KindReasoning, KindAssistant, KindToolCall, KindToolOutput, KindToolImage:
		return true
	}
	return false
}

// Turn marker texts (Item.Text of a KindTurn item).
const (
	TurnFinished    = wire.TurnFinished
	TurnInterrupted = wire.TurnInterrupted
	TurnFailed      = wire.TurnFailed
)

// Item is one entry of a session's transcript. Neutral fields describe it
// for every protocol; Raw keeps the provider-native JSON it came from so that
// a provider of the same protocol gets it back unchanged.
type Item struct {
	// Seq numbers the items of one session from 1; it is the tree id and the
	// checkpoint a fork names.
	Seq  int64
	Kind ItemKind
	// Text is the user's or assistant's text, the reasoning summary, the
	// tool output sent to the model, or the error or marker text.
	Text string
	// Source says where a user item came from when it was not typed by the
	// user ("daemon restart", "paperclips"); such items reach the model as
	// system notes.
	Source string
	// Notes are further system notes appended to a user item for the model.
	Notes []string
	Image *Image
	// CallID, ToolName and Arguments describe a tool call; CallID also pairs
	// an output with its call.
	CallID    string
	ToolName  string
	Arguments string
	// Result is the structured outcome of a cell (tool outputs only).
	Result *CellResult
	// ResultJSON and TraceJSON are a cell's result and its trace as JSON,
	// set instead of Result by a read for display (ItemQuery.Display);
	// TraceJSON may be empty for a result with no trace.
	ResultJSON, TraceJSON string
	// Protocol is the protocol of the provider that produced the item, empty
	// for items albedo made itself.
	Protocol Protocol
	// Raw is the provider-native JSON of a model item, replayed to a
	// provider of the same protocol. Chat Completions items carry none:
	// the native form of an answer or reasoning is its text, that of a
	// tool call its id, name and arguments, which the projection writes
	// from those fields, so a long answer or call is not kept twice. A
	// Responses item's Raw is the output item as received, less its id.
	Raw json.RawMessage
	// Flags say what albedo knows of a model item beyond its text.
	Flags ItemFlags
	// Timestamp is the Unix time in milliseconds when the item happened.
	Timestamp int64
}

// ItemFlags mark a model item (assistant text or reasoning) that is not a
// plain, whole answer, or whose Raw leaves its text out. They combine.
type ItemFlags uint8

// Item flags.
const (
	// FlagRefusal marks assistant text that is the model's refusal.
	FlagRefusal ItemFlags = 1 << iota
	// FlagTruncated marks text that stops where the model hit its output
	// limit.
	FlagTruncated
	// FlagPartial marks text that streamed before the reply failed: what
	// arrived, kept so that it is not lost.
	FlagPartial
	// FlagCommentary marks assistant text the model wrote on its way to the
	// final answer (the Responses "commentary" phase).
	FlagCommentary
	// FlagRawWithoutText marks a Responses item stored by an earlier
	// version whose Raw holds its long text, or a call's arguments, as an
	// empty string; the projection puts the text back.
	FlagRawWithoutText
)

// Notices shown beside a cut answer.
const (
	TruncatedNotice = "answer cut: the model hit its output limit"
	PartialNotice   = "answer cut: the reply failed before it was finished"
)

// Image is a picture attached to a user message.
type Image struct {
	MimeType string
	Width    int
	Height   int
	// Bytes is the size of Data.
	Bytes int
	Data  []byte
}

// CellStatus is how a Python cell ended.
type CellStatus string

// Cell outcomes.
const (
	CellOK          CellStatus = "ok"
	CellError       CellStatus = "error"
	CellInterrupted CellStatus = "interrupted"
	CellTimeout     CellStatus = "timeout"
)

// CellResult is what a Python cell produced. Its JSON is the API's
// (wire.CellResult): the tool output the model reads and the result a
// tool event shows; Shown, Trace and Fresh are not part of it.
type CellResult struct {
	Status CellStatus
	// Output is the captured stdout and stderr, capped.
	Output string
	// Value is the repr of the cell's final expression, if any.
	Value string
	// Error is the traceback or reason when Status is not ok.
	Error string
	// Notes tell the model about the kernel, such as a reset of its globals.
	Notes []string
	// DurationMS is how long the cell ran, in milliseconds.
	DurationMS int64
	// Images describes the images the cell showed (show_image); their data
	// travel in Shown and, once recorded, in KindToolImage items.
	Images []ImageMeta
	// Shown are the images the cell showed, at most MaxCellImages.
	Shown []*Image
	Trace Trace
	// Fresh says the cell ran in a kernel started after an earlier kernel
	// of the session was gone, so the globals of earlier cells are not
	// there. The kernel only reports it; the domain decides whether the
	// model must be told (see runCall).
	Fresh bool
}

// MarshalJSON writes the result in the API's form (wire.CellResult).
func (r CellResult) MarshalJSON() ([]byte, error) {
	return json.Marshal(wire.CellResult{
		Status: string(r.Status), Output: r.Output, Value: r.Value, Error: r.Error,
		Notes: r.Notes, DurationMS: r.DurationMS, Images: r.Images,
	})
}

// UnmarshalJSON reads a result written in the API's form; Shown, Trace
// and Fresh are left as they were.
func (r *CellResult) UnmarshalJSON(b []byte) error {
	var w wire.CellResult
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	r.Status, r.Output, r.Value, r.Error = CellStatus(w.Status), w.Output, w.Value, w.Error
	r.Notes, r.DurationMS, r.Images = w.Notes, w.DurationMS, w.Images
	return nil
}

// Trace records the files a cell touched; it is the API's (wire.Trace).
type Trace = wire.Trace

// Activity is one file a cell opened.
type Activity = wire.Activity

// Change is one file a cell created, modified or deleted.
type Change = wire.Change
