package client

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"time"
)

// Session is a session as the daemon shows it.
type Session struct {
	ID         string  `json:"id"`
	Workspace  string  `json:"workspace"`
	Provider   string  `json:"provider"`
	Model      string  `json:"model"`
	Protocol   string  `json:"protocol"`
	Effort     *string `json:"effort"`
	Title      string  `json:"title"`
	Name       string  `json:"name"`
	Stage      string  `json:"stage"`
	ParentID   string  `json:"parent_id,omitempty"`
	Checkpoint int64   `json:"checkpoint,omitempty"`
	Revision   int64   `json:"revision"`
	Archived   bool    `json:"archived"`
	CreatedAt  int64   `json:"created_at"`
	UpdatedAt  int64   `json:"updated_at"`
}

// Updated returns when the session last changed.
func (s Session) Updated() time.Time { return time.UnixMilli(s.UpdatedAt) }

// Sessions lists every session, most recently updated first.
func (c *Client) Sessions(ctx context.Context) ([]Session, error) {
	var out []Session
	if _, err := c.do(ctx, http.MethodGet, "/sessions", nil, &out, nil); err != nil {
		return nil, fmt.Errorf("list sessions: %w", err)
	}
	return out, nil
}

// CreateSession makes a session in workspace on the named provider (the
// active one when empty).
func (c *Client) CreateSession(ctx context.Context, workspace, provider string) (Session, error) {
	var out Session
	body := map[string]string{"workspace": workspace}
	if provider != "" {
		body["provider"] = provider
	}
	if _, err := c.do(ctx, http.MethodPost, "/sessions", body, &out, nil); err != nil {
		return Session{}, fmt.Errorf("create session in %s: %w", workspace, err)
	}
	return out, nil
}

// sessionPath returns the API path of a session, or of one of its resources.
func sessionPath(id string, rest ...string) string {
	p := "/sessions/" + url.PathEscape(id)
	for _, r := range rest {
		p += "/" + r
	}
	return p
}

// Glance is one item an extension contributes to a session's sidebar;
// "extension" names the extension.
type Glance map[string]any

// Extension returns the name of the extension the glance comes from.
func (g Glance) Extension() string {
	s, _ := g["extension"].(string)
	return s
}

// SessionDetail is a session with its latest events, as GET /sessions/{id}
// returns it.
type SessionDetail struct {
	Session Session  `json:"session"`
	Running bool     `json:"running"`
	Events  []Event  `json:"events"`
	Glances []Glance `json:"glances"`
}

// Session returns a session with its last tail events (none when tail is
// 0, the daemon's default of 50 when tail is negative) and its glances.
func (c *Client) Session(ctx context.Context, id string, tail int) (SessionDetail, error) {
	p := sessionPath(id)
	if tail >= 0 {
		p += "?tail=" + strconv.Itoa(tail)
	}
	var out SessionDetail
	_, err := c.do(ctx, http.MethodGet, p, nil, &out, nil)
	if err != nil {
		return SessionDetail{}, fmt.Errorf("get session %s: %w", id, err)
	}
	return out, nil
}

// Image is a picture attached to a message: base64 Data and what the
// sender declares of it (the daemon checks the declaration).
type Image struct {
	MimeType string `json:"mimeType"`
	Data     string `json:"data"`
	Width    int    `json:"width"`
	Height   int    `json:"height"`
	Bytes    int    `json:"bytes"`
}

// Send gives a session a user message, with an optional image. An idle
// session starts a turn; a busy one queues the message for its next model
// request and queued is true.
func (c *Client) Send(ctx context.Context, id, text string, img *Image) (queued bool, err error) {
	body := struct {
		Content string `json:"content"`
		Image   *Image `json:"image,omitempty"`
	}{text, img}
	var out struct {
		Queued bool `json:"queued"`
	}
	if _, err := c.do(ctx, http.MethodPost, sessionPath(id, "events"), body, &out, nil); err != nil {
		return false, fmt.Errorf("send to session %s: %w", id, err)
	}
	return out.Queued, nil
}

// Status reports whether a session is running a turn.
func (c *Client) Status(ctx context.Context, id string) (running bool, err error) {
	var out struct {
		Running bool `json:"running"`
	}
	if _, err := c.do(ctx, http.MethodGet, sessionPath(id, "status"), nil, &out, nil); err != nil {
		return false, fmt.Errorf("get status of session %s: %w", id, err)
	}
	return out.Running, nil
}

// Interrupt stops a session's running turn; it returns once the turn has
// ended. Interrupting an idle session does nothing.
func (c *Client) Interrupt(ctx context.Context, id string) error {
	if _, err := c.do(ctx, http.MethodPost, sessionPath(id, "interrupt"), struct{}{}, nil, nil); err != nil {
		return fmt.Errorf("interrupt session %s: %w", id, err)
	}
	return nil
}

// HistoryItem is one transcript item as GET /sessions/{id}/history shows
// it. Kind is user, reasoning, assistant, tool_call, tool_result, error or
// turn.
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

// History returns a session's whole transcript.
func (c *Client) History(ctx context.Context, id string) ([]HistoryItem, error) {
	var out struct {
		Items []HistoryItem `json:"items"`
	}
	if _, err := c.do(ctx, http.MethodGet, sessionPath(id, "history"), nil, &out, nil); err != nil {
		return nil, fmt.Errorf("get history of session %s: %w", id, err)
	}
	return out.Items, nil
}

// TreeItem is one checkpoint of a transcript: an item a fork can start
// from. Type is user, assistant or tool.
type TreeItem struct {
	ID      int64  `json:"id"`
	Type    string `json:"type"`
	Preview string `json:"preview"`
}

// TreePage is one page of a session's checkpoints.
type TreePage struct {
	Items   []TreeItem `json:"items"`
	HasMore bool       `json:"hasMore"`
}

// Tree returns up to limit checkpoints of a session after the checkpoint
// id after (0: from the start; limit 0: the daemon's default).
func (c *Client) Tree(ctx context.Context, id string, after int64, limit int) (TreePage, error) {
	q := url.Values{}
	if after > 0 {
		q.Set("after", strconv.FormatInt(after, 10))
	}
	if limit > 0 {
		q.Set("limit", strconv.Itoa(limit))
	}
	p := sessionPath(id, "tree")
	if len(q) > 0 {
		p += "?" + q.Encode()
	}
	var out TreePage
	if _, err := c.do(ctx, http.MethodGet, p, nil, &out, nil); err != nil {
		return TreePage{}, fmt.Errorf("get tree of session %s: %w", id, err)
	}
	return out, nil
}

// Fork makes a new session whose transcript is the session's up to the
// checkpoint (a tree item id).
func (c *Client) Fork(ctx context.Context, id string, checkpoint int64) (Session, error) {
	var out Session
	body := map[string]int64{"checkpoint": checkpoint}
	if _, err := c.do(ctx, http.MethodPost, sessionPath(id, "fork"), body, &out, nil); err != nil {
		return Session{}, fmt.Errorf("fork session %s at %d: %w", id, checkpoint, err)
	}
	return out, nil
}

// MoveWorkspace points an idle session at another workspace folder (an
// absolute path) and returns the session as it now is.
func (c *Client) MoveWorkspace(ctx context.Context, id, workspace string) (Session, error) {
	var out struct {
		Session Session `json:"session"`
	}
	body := map[string]string{"workspace": workspace}
	if _, err := c.do(ctx, http.MethodPost, sessionPath(id, "workspace"), body, &out, nil); err != nil {
		return Session{}, fmt.Errorf("move session %s to %s: %w", id, workspace, err)
	}
	return out.Session, nil
}

// Config is the editable configuration of a session.
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
	// ETag is the revision a conditional change names (If-Match).
	ETag string `json:"-"`
}

// Config returns a session's configuration and its ETag.
func (c *Client) Config(ctx context.Context, id string) (Config, error) {
	var out Config
	h, err := c.do(ctx, http.MethodGet, sessionPath(id)+"?view=configuration", nil, &out, nil)
	if err != nil {
		return Config{}, fmt.Errorf("get configuration of session %s: %w", id, err)
	}
	out.ETag = h.Get("ETag")
	return out, nil
}

// Rename gives a session a name: it reads the session's ETag and sends the
// change conditionally on it.
func (c *Client) Rename(ctx context.Context, id, name string) (Config, error) {
	cur, err := c.Config(ctx, id)
	if err != nil {
		return Config{}, err
	}
	var out Config
	body := map[string]string{"name": name}
	h, err := c.do(ctx, http.MethodPatch, sessionPath(id)+"?view=configuration", body, &out, map[string]string{"If-Match": cur.ETag})
	if err != nil {
		return Config{}, fmt.Errorf("rename session %s: %w", id, err)
	}
	out.ETag = h.Get("ETag")
	return out, nil
}
