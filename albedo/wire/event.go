package wire

import (
	"encoding/json"
	"fmt"
)

// Event types. User, message, thinking, tool_call, tool, error, turn,
// note and compaction events are durable: they stand for a transcript
// item and carry its Seq.
// Delta, queued, status, output and gap events exist only on a live
// stream.
const (
	EventUser     = "user"
	EventMessage  = "message"
	EventThinking = "thinking"
	EventToolCall = "tool_call"
	EventTool     = "tool"
	EventError    = "error"
	EventTurn     = "turn"
	// EventNote (durable) shows an output item albedo does not act on,
	// such as a search the provider ran itself: Name is its type, Text
	// what it did.
	EventNote = "note"
	// EventCompaction (durable) says the start of the conversation was
	// summarised for the model's next requests: Summary is the summary,
	// Items how many transcript items it stands in for, TokensBefore and
	// TokensAfter the estimated size of the request's input before and
	// after. The transcript itself is unchanged.
	EventCompaction = "compaction"
	// EventDelta carries a streamed fragment (Kind says of what).
	EventDelta = "delta"
	// EventQueued says a message was queued for the next model request.
	EventQueued = "queued"
	// EventUnqueued says the queued message QueueID was dropped.
	EventUnqueued = "unqueued"
	// EventStatus says whether the session is running a turn.
	EventStatus = "status"
	// EventOverflow is the last event of a stream whose reader fell too
	// far behind.
	EventOverflow = "overflow"
	// EventDeleted is the last event of a stream whose session was
	// deleted.
	EventDeleted = "deleted"
	// EventOutput carries what a running cell printed; Call names the
	// cell's tool call by its Seq.
	EventOutput = "output"
	// EventGap says that live events (deltas, output, status, queued) of a
	// turn another daemon sharing the store runs may be missing here, as
	// the daemon's word of them lapsed; durable events are all there. It
	// comes only on a stream of a daemon sharing a PostgreSQL store.
	EventGap = "gap"
)

// Delta kinds: what a delta event's fragment belongs to.
const (
	DeltaText      = "text"
	DeltaReasoning = "reasoning"
	DeltaToolCall  = "tool_call"
	// DeltaRetry is no part of the reply: the provider failed transiently
	// and is about to be asked again; Text says when and why.
	DeltaRetry = "retry"
)

// Turn marker statuses (Event.Status of a turn event).
const (
	TurnFinished    = "finished"
	TurnInterrupted = "interrupted"
	TurnFailed      = "failed"
)

// Event is one thing a session shows: a transcript item seen by a person,
// or a live signal. Durable events carry the Seq of their item.
type Event struct {
	Seq       int64      `json:"seq,omitempty"`
	Type      string     `json:"type"`
	Text      string     `json:"text,omitempty"`
	Timestamp int64      `json:"timestamp,omitempty"`
	Source    string     `json:"source,omitempty"`
	Image     *ImageMeta `json:"image,omitempty"`
	CallID    string     `json:"call_id,omitempty"`
	Name      string     `json:"name,omitempty"`
	Code      string     `json:"code,omitempty"`
	// Result is the cell's result as JSON text (tool events); see Cell.
	Result string `json:"result,omitempty"`
	Status string `json:"status,omitempty"`
	Trace  *Trace `json:"trace,omitempty"`
	// Kind is the delta kind of a delta event.
	Kind    string `json:"kind,omitempty"`
	Running *bool  `json:"running,omitempty"`
	Usage   *Usage `json:"usage,omitempty"`
	// Window, Used and Percent describe the session's context on a status
	// event after a reply: the model's window and how much of it is used,
	// in tokens; nil when unknown.
	Window  *int64   `json:"window,omitempty"`
	Used    *int64   `json:"used,omitempty"`
	Percent *float64 `json:"percent,omitempty"`
	// QueueID identifies the waiting message a queued event shows.
	QueueID int64 `json:"queue_id,omitempty"`
	// Refusal marks a message that is the model's refusal to answer.
	Refusal bool `json:"refusal,omitempty"`
	// Truncated marks a message or thinking cut where the model hit its
	// output limit.
	Truncated bool `json:"truncated,omitempty"`
	// Partial marks text that streamed before the reply failed.
	Partial bool `json:"partial,omitempty"`
	// Notice says in words why a message is cut, e.g.
	// "answer cut: the model hit its output limit".
	Notice string `json:"notice,omitempty"`
	// Phase is "commentary" for a message written on the way to the answer.
	Phase string `json:"phase,omitempty"`
	// Call is the Seq of the tool call whose running cell printed the text
	// of an output event.
	Call int64 `json:"call,omitempty"`
	// Summary, Items, TokensBefore and TokensAfter describe a compaction
	// event (see EventCompaction); tokens are estimated as bytes/4.
	Summary      string `json:"summary,omitempty"`
	Items        int    `json:"items,omitempty"`
	TokensBefore int64  `json:"tokens_before,omitempty"`
	TokensAfter  int64  `json:"tokens_after,omitempty"`
}

// Durable reports whether the event stands for a stored transcript item.
func (e Event) Durable() bool { return e.Seq != 0 }

// Cell decodes the result of a tool event.
func (e Event) Cell() (CellResult, error) {
	var r CellResult
	if e.Result == "" {
		return CellResult{Status: e.Status}, nil
	}
	if err := json.Unmarshal([]byte(e.Result), &r); err != nil {
		return CellResult{Status: e.Status}, fmt.Errorf("decode result of call %s: %w", e.CallID, err)
	}
	return r, nil
}

// EventBatch is one data line of a session's stream: the first holds every
// durable event so far, each later one what happened next.
type EventBatch struct {
	Events []Event `json:"events"`
	// Before, in a snapshot tailed with ?tail=N, is the seq of its oldest
	// event, or null when it holds the session's first; absent elsewhere.
	Before *int64 `json:"before,omitempty"`
}

// ImageMeta describes an attached image: never its data.
type ImageMeta struct {
	MimeType string `json:"mimeType"`
	Width    int    `json:"width"`
	Height   int    `json:"height"`
	Bytes    int    `json:"bytes"`
}

// Usage counts the tokens of one model request as its provider reported
// them. A nil field means the provider did not say; zero means it said
// zero. Both protocols map onto the same four numbers:
//
//	InputTokens     prompt_tokens / input_tokens (cached ones included)
//	CachedTokens    prompt_tokens_details.cached_tokens (DeepSeek:
//	                prompt_cache_hit_tokens) / input_tokens_details.cached_tokens
//	OutputTokens    completion_tokens / output_tokens (reasoning included)
//	ReasoningTokens completion_tokens_details.reasoning_tokens /
//	                output_tokens_details.reasoning_tokens
type Usage struct {
	// InputTokens counts the whole prompt, cached tokens included.
	InputTokens *int64 `json:"input_tokens"`
	// CachedTokens is the part of InputTokens the provider read from its
	// prompt cache.
	CachedTokens *int64 `json:"cached_tokens"`
	// OutputTokens counts everything the model generated, reasoning
	// included.
	OutputTokens *int64 `json:"output_tokens"`
	// ReasoningTokens is the part of OutputTokens spent on reasoning.
	ReasoningTokens *int64 `json:"reasoning_tokens"`
}

// Reported reports whether the provider said anything about usage.
func (u Usage) Reported() bool {
	return u.InputTokens != nil || u.CachedTokens != nil || u.OutputTokens != nil || u.ReasoningTokens != nil
}

// Tokens returns n, or 0 when n is nil (not reported).
func Tokens(n *int64) int64 {
	if n == nil {
		return 0
	}
	return *n
}

// CellResult is what a Python cell produced, as a tool event's Result
// holds it and the model reads it. The domain's result (albedo.CellResult)
// is written and read in this form.
type CellResult struct {
	// Status is ok, error, interrupted or timeout.
	Status string `json:"status"`
	// Output is the captured stdout and stderr.
	Output string `json:"output"`
	// Value is the repr of the cell's final expression, if any.
	Value string `json:"value,omitempty"`
	// Error is the traceback or reason when Status is not ok.
	Error string `json:"error,omitempty"`
	// Notes tell the model about the kernel, such as a reset of its
	// globals.
	Notes []string `json:"notes,omitempty"`
	// DurationMS is how long the cell ran, in milliseconds.
	DurationMS int64 `json:"duration_ms"`
	// Images describes the images the cell showed (show_image).
	Images []ImageMeta `json:"images,omitempty"`
}
