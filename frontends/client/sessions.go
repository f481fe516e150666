package client

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strconv"

	"github.com/albedo-agent/albedo/albedo/wire"
)

// Sessions lists every session, most recently updated first.
func (c *Client) Sessions(ctx context.Context) ([]wire.Session, error) {
	var out []wire.Session
	if _, err := c.do(ctx, http.MethodGet, "/sessions", nil, &out, nil); err != nil {
		return nil, fmt.Errorf("list sessions: %w", err)
	}
	return out, nil
}

// CreateSession makes a session in workspace on the named provider (the
// active one when empty).
func (c *Client) CreateSession(ctx context.Context, workspace, provider string) (wire.Session, error) {
	var out wire.Session
	body := wire.CreateSession{Workspace: workspace, Provider: provider}
	if _, err := c.do(ctx, http.MethodPost, "/sessions", body, &out, nil); err != nil {
		return wire.Session{}, fmt.Errorf("create session in %s: %w", workspace, err)
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

// Session returns a session with its last tail events (none when tail is
// 0, the daemon's default of 50 when tail is negative) and its glances.
func (c *Client) Session(ctx context.Context, id string, tail int) (wire.SessionDetail, error) {
	p := sessionPath(id)
	if tail >= 0 {
		p += "?tail=" + strconv.Itoa(tail)
	}
	var out wire.SessionDetail
	_, err := c.do(ctx, http.MethodGet, p, nil, &out, nil)
	if err != nil {
		return wire.SessionDetail{}, fmt.Errorf("get session %s: %w", id, err)
	}
	return out, nil
}

// Send gives a session a user message, with an optional image. An idle
// session starts a turn; a busy one queues the message for its next model
// request and queued is true.
func (c *Client) Send(ctx context.Context, id, text string, img *wire.Image) (queued bool, err error) {
	body := wire.Message{Content: &text, Image: img}
	var out wire.Sent
	if _, err := c.do(ctx, http.MethodPost, sessionPath(id, "events"), body, &out, nil); err != nil {
		return false, fmt.Errorf("send to session %s: %w", id, err)
	}
	return out.Queued, nil
}

// Status reports whether a session is running a turn.
func (c *Client) Status(ctx context.Context, id string) (running bool, err error) {
	var out wire.Status
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

// DropQueued removes a message still waiting in a session's queue (the
// QueueID of its queued event).
func (c *Client) DropQueued(ctx context.Context, id string, queueID int64) error {
	if _, err := c.do(ctx, http.MethodDelete, sessionPath(id, "queue", strconv.FormatInt(queueID, 10)), nil, nil, nil); err != nil {
		return fmt.Errorf("drop queued message %d of session %s: %w", queueID, id, err)
	}
	return nil
}

// SendQueued starts a turn on the messages waiting in an idle session's
// queue; started is false when a turn already runs (it takes them).
func (c *Client) SendQueued(ctx context.Context, id string) (started bool, err error) {
	var out wire.Status
	if _, err := c.do(ctx, http.MethodPost, sessionPath(id, "queue", "send"), struct{}{}, &out, nil); err != nil {
		return false, fmt.Errorf("send the queue of session %s: %w", id, err)
	}
	return out.Running, nil
}

// History returns a session's whole transcript.
func (c *Client) History(ctx context.Context, id string) ([]wire.HistoryItem, error) {
	var out wire.History
	if _, err := c.do(ctx, http.MethodGet, sessionPath(id, "history"), nil, &out, nil); err != nil {
		return nil, fmt.Errorf("get history of session %s: %w", id, err)
	}
	return out.Items, nil
}

// Tree returns up to limit checkpoints of a session after the checkpoint
// id after (0: from the start; limit 0: the daemon's default).
func (c *Client) Tree(ctx context.Context, id string, after int64, limit int) (wire.TreePage, error) {
	return getPage[wire.TreePage](ctx, c, id, "tree", after, limit)
}

// Fork makes a new session whose transcript is the session's up to the
// checkpoint (a tree item id).
func (c *Client) Fork(ctx context.Context, id string, checkpoint int64) (wire.Session, error) {
	var out wire.Session
	body := wire.Fork{Checkpoint: &checkpoint}
	if _, err := c.do(ctx, http.MethodPost, sessionPath(id, "fork"), body, &out, nil); err != nil {
		return wire.Session{}, fmt.Errorf("fork session %s at %d: %w", id, checkpoint, err)
	}
	return out, nil
}

// MoveWorkspace points an idle session at another workspace folder (an
// absolute path) and returns the session as it now is.
func (c *Client) MoveWorkspace(ctx context.Context, id, workspace string) (wire.Session, error) {
	var out wire.Moved
	body := wire.MoveWorkspace{Workspace: workspace}
	if _, err := c.do(ctx, http.MethodPost, sessionPath(id, "workspace"), body, &out, nil); err != nil {
		return wire.Session{}, fmt.Errorf("move session %s to %s: %w", id, workspace, err)
	}
	return out.Session, nil
}

// Config returns a session's configuration and its ETag.
func (c *Client) Config(ctx context.Context, id string) (wire.Config, error) {
	var out wire.Config
	h, err := c.do(ctx, http.MethodGet, sessionPath(id)+"?view=configuration", nil, &out, nil)
	if err != nil {
		return wire.Config{}, fmt.Errorf("get configuration of session %s: %w", id, err)
	}
	out.ETag = h.Get("ETag")
	return out, nil
}

// Rename gives a session a name: it reads the session's ETag and sends the
// change conditionally on it.
func (c *Client) Rename(ctx context.Context, id, name string) (wire.Config, error) {
	cur, err := c.Config(ctx, id)
	if err != nil {
		return wire.Config{}, err
	}
	var out wire.Config
	body := wire.ConfigPatch{Name: &name}
	h, err := c.do(ctx, http.MethodPatch, sessionPath(id)+"?view=configuration", body, &out, map[string]string{"If-Match": cur.ETag})
	if err != nil {
		return wire.Config{}, fmt.Errorf("rename session %s: %w", id, err)
	}
	out.ETag = h.Get("ETag")
	return out, nil
}
