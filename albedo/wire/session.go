package wire

import "time"

// Session is a session as the API shows it.
type Session struct {
	ID        string `json:"id"`
	Workspace string `json:"workspace"`
	Provider  string `json:"provider"`
	Model     string `json:"model"`
	Protocol  string `json:"protocol"`
	// Effort is the reasoning effort, nil unless one is set.
	Effort *string `json:"effort"`
	Title  string  `json:"title"`
	Name   string  `json:"name"`
	Stage  string  `json:"stage"`
	// ParentID and Checkpoint say what a fork was made from.
	ParentID   string `json:"parent_id,omitempty"`
	Checkpoint int64  `json:"checkpoint,omitempty"`
	// Revision increases with every change of the session.
	Revision int64 `json:"revision"`
	// Archived sessions are left out of the default listing.
	Archived  bool  `json:"archived"`
	CreatedAt int64 `json:"created_at"`
	UpdatedAt int64 `json:"updated_at"`
	// Usage sums the session's successful model requests.
	Usage UsageTotals `json:"usage"`
	// Node names the daemon running the session's turn where several
	// share a PostgreSQL store; absent when none runs it.
	Node string `json:"node,omitempty"`
}

// Updated returns when the session last changed.
func (s Session) Updated() time.Time { return time.UnixMilli(s.UpdatedAt) }

// Glance is one item an extension contributes to a session's sidebar;
// "extension" names the extension.
type Glance map[string]any

// Extension returns the name of the extension the glance comes from.
func (g Glance) Extension() string {
	s, _ := g["extension"].(string)
	return s
}

// SessionDetail is a session with its latest events, as GET /sessions/{id}
// answers. The fields are in the order the daemon writes them.
type SessionDetail struct {
	// Events are the session's last events, oldest first.
	Events  []Event  `json:"events"`
	Glances []Glance `json:"glances"`
	// ID and Title repeat the session's, for clients that read only them.
	ID      string  `json:"id"`
	Running bool    `json:"running"`
	Session Session `json:"session"`
	Title   string  `json:"title"`
}

// Config is the editable configuration of a session, as GET
// /sessions/{id}?view=configuration answers.
type Config struct {
	ID        string `json:"id"`
	Name      string `json:"name"`
	Title     string `json:"title"`
	Workspace string `json:"workspace"`
	Provider  string `json:"provider"`
	Model     string `json:"model"`
	Protocol  string `json:"protocol"`
	Archived  bool   `json:"archived"`
	// Revision increases with every change of the session.
	Revision int64 `json:"revision"`
	// ETag is the revision a conditional change names (If-Match); the
	// daemon sends it as a header.
	ETag string `json:"-"`
}

// Image is a picture attached to a message: base64 Data and what the
// sender declares of it (albedo checks the declaration).
type Image struct {
	MimeType string `json:"mimeType"`
	Data     string `json:"data"`
	Width    int    `json:"width"`
	Height   int    `json:"height"`
	Bytes    int    `json:"bytes"`
}

// HistoryItem is one transcript item as GET /sessions/{id}/history shows
// it. Kind is user, reasoning, assistant, tool_call, tool_result,
// tool_image (an image a cell showed, after its tool_result), error,
// turn, note or compaction (with Summary, Items, TokensBefore and
// TokensAfter as its event has them).
type HistoryItem struct {
	Seq       int64         `json:"seq"`
	Kind      string        `json:"kind"`
	Text      string        `json:"text,omitempty"`
	Source    string        `json:"source,omitempty"`
	Image     *ImageMeta    `json:"image,omitempty"`
	CallID    string        `json:"call_id,omitempty"`
	Tool      *ToolRef      `json:"tool,omitempty"`
	Arguments string        `json:"arguments,omitempty"`
	Content   []ContentPart `json:"content,omitempty"`
	Protocol  string        `json:"protocol,omitempty"`
	Timestamp int64         `json:"timestamp"`
	// Summary, Items, TokensBefore and TokensAfter describe a compaction
	// item (see EventCompaction).
	Summary      string `json:"summary,omitempty"`
	Items        int    `json:"items,omitempty"`
	TokensBefore int64  `json:"tokens_before,omitempty"`
	TokensAfter  int64  `json:"tokens_after,omitempty"`
}

// ToolRef names the tool of a call or result.
type ToolRef struct {
	Name string `json:"name"`
}

// ContentPart is one part of a tool result: JSON text (Kind "json", with
// Field and Value) or plain text (Kind "text").
type ContentPart struct {
	Kind  string `json:"kind"`
	Field string `json:"field,omitempty"`
	Value string `json:"value,omitempty"`
	Text  string `json:"text,omitempty"`
}

// History is the answer of GET /sessions/{id}/history: the whole history
// or one page of it.
type History struct {
	Items []HistoryItem `json:"items"`
	// Next is the seq to pass as after for the following page, null when
	// no item follows.
	Next *int64 `json:"next"`
	// Before is the seq of the oldest item returned, to pass as before to
	// page backwards; null when the page is empty.
	Before *int64 `json:"before"`
}

// TreeItem is one checkpoint of a transcript: an item a fork can start
// from. Type is user, assistant or tool.
type TreeItem struct {
	ID      int64  `json:"id"`
	Type    string `json:"type"`
	Preview string `json:"preview"`
}

// TreePage is one page of a session's checkpoints, the answer of GET
// /sessions/{id}/tree.
type TreePage struct {
	Items   []TreeItem `json:"items"`
	HasMore bool       `json:"hasMore"`
}

// CompactResult is the result of /compact: whether a compaction started,
// and why not when it did not.
type CompactResult struct {
	Started bool   `json:"started"`
	Reason  string `json:"reason,omitempty"`
}

// SkillStarted is the result of /skill: the skill whose instructions
// went with the message, and whether the message waits for the running
// turn.
type SkillStarted struct {
	Skill  string `json:"skill"`
	Source string `json:"source"`
	Queued bool   `json:"queued"`
}

// ModelChoice is what a session is bound to after /model.
type ModelChoice struct {
	Provider string `json:"provider"`
	Model    string `json:"model"`
	Protocol string `json:"protocol"`
	// Effort is nil unless a reasoning effort is set.
	Effort *string `json:"effort"`
}
