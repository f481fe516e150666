package client

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
)

// Event types, as the daemon names them. User, message, thinking,
// tool_call, tool, error and turn events are durable: they carry the Seq of
// a transcript item. Delta, queued and status events exist only on a live
// stream.
const (
	EventUser     = "user"
	EventMessage  = "message"
	EventThinking = "thinking"
	EventToolCall = "tool_call"
	EventTool     = "tool"
	EventError    = "error"
	EventTurn     = "turn"
	EventDelta    = "delta"
	EventQueued   = "queued"
	EventStatus   = "status"
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

// Event is one thing a session shows: a transcript item or a live signal.
// Its JSON is the daemon's, field for field.
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
	// QueueID identifies the waiting message a queued event shows.
	QueueID int64 `json:"queue_id,omitempty"`
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

// ImageMeta describes an attached image: never its data.
type ImageMeta struct {
	MimeType string `json:"mimeType"`
	Width    int    `json:"width"`
	Height   int    `json:"height"`
	Bytes    int    `json:"bytes"`
}

// Usage counts the tokens of one model request as its provider reported
// them; a nil field means the provider did not say.
type Usage struct {
	// InputTokens counts the whole prompt, cached tokens included.
	InputTokens *int64 `json:"input_tokens"`
	// CachedTokens is the part of InputTokens read from the prompt cache.
	CachedTokens *int64 `json:"cached_tokens"`
	// OutputTokens counts everything generated, reasoning included.
	OutputTokens *int64 `json:"output_tokens"`
	// ReasoningTokens is the part of OutputTokens spent on reasoning.
	ReasoningTokens *int64 `json:"reasoning_tokens"`
}

// Tokens returns n, or 0 when n is nil (not reported).
func Tokens(n *int64) int64 {
	if n == nil {
		return 0
	}
	return *n
}

// CellResult is what a Python cell produced.
type CellResult struct {
	// Status is ok, error, interrupted or timeout.
	Status string `json:"status"`
	// Output is the captured stdout and stderr.
	Output string `json:"output"`
	// Value is the repr of the cell's final expression, if any.
	Value string `json:"value,omitempty"`
	// Error is the traceback or reason when Status is not ok.
	Error string   `json:"error,omitempty"`
	Notes []string `json:"notes,omitempty"`
}

// Trace records the files a cell touched.
type Trace struct {
	Activities []Activity `json:"activities"`
	Changes    []Change   `json:"changes"`
}

// Activity is one file a cell opened: Kind is "read" or "write".
type Activity struct {
	Kind   string `json:"kind"`
	Target string `json:"target"`
}

// Change is one file a cell created, modified or deleted.
type Change struct {
	Path string `json:"path"`
	Kind string `json:"kind,omitempty"`
}

// Read returns the distinct files the cell read, in order.
func (t *Trace) Read() []string {
	if t == nil {
		return nil
	}
	var out []string
	seen := make(map[string]bool)
	for _, a := range t.Activities {
		if a.Kind == "read" && !seen[a.Target] {
			seen[a.Target] = true
			out = append(out, a.Target)
		}
	}
	return out
}

// Changed returns the distinct files the cell changed, in order.
func (t *Trace) Changed() []string {
	if t == nil {
		return nil
	}
	var out []string
	seen := make(map[string]bool)
	for _, c := range t.Changes {
		if !seen[c.Path] {
			seen[c.Path] = true
			out = append(out, c.Path)
		}
	}
	return out
}

// Summary says in one line which files the cell read and changed, or ""
// when it touched none. Paths under base (the workspace; "" for none) are
// shown relative to it.
func (t *Trace) Summary(base string) string {
	var parts []string
	if r := t.Read(); len(r) > 0 {
		parts = append(parts, "read "+strings.Join(relative(base, r), ", "))
	}
	if c := t.Changed(); len(c) > 0 {
		parts = append(parts, "changed "+strings.Join(relative(base, c), ", "))
	}
	return strings.Join(parts, " · ")
}

// relative rewrites paths under base relative to it.
func relative(base string, paths []string) []string {
	if base == "" {
		return paths
	}
	out := make([]string, len(paths))
	for i, p := range paths {
		out[i] = p
		if rel, err := filepath.Rel(base, p); err == nil && filepath.IsAbs(p) && rel != ".." && !strings.HasPrefix(rel, "../") {
			out[i] = rel
		}
	}
	return out
}
