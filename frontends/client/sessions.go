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
	return call[[]wire.Session](ctx, c, http.MethodGet, "/sessions", nil, "list sessions")
}

// CreateSession makes a session in workspace on the named provider (the
// active one when empty).
func (c *Client) CreateSession(ctx context.Context, workspace, provider string) (wire.Session, error) {
	body := wire.CreateSession{Workspace: workspace, Provider: provider}
	return call[wire.Session](ctx, c, http.MethodPost, "/sessions", body, "create session in %s", workspace)
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
	return call[wire.SessionDetail](ctx, c, http.MethodGet, p, nil, "get session %s", id)
}

// Send gives a session a user message, with an optional image. An idle
// session starts a turn; a busy one queues the message for its next model
// request and queued is true.
func (c *Client) Send(ctx context.Context, id, text string, img *wire.Image) (queued bool, err error) {
	out, err := call[wire.Sent](ctx, c, http.MethodPost, sessionPath(id, "events"), wire.Message{Content: &text, Image: img}, "send to session %s", id)
	return out.Queued, err
}

// Status reports whether a session is running a turn.
func (c *Client) Status(ctx context.Context, id string) (running bool, err error) {
	out, err := call[wire.Status](ctx, c, http.MethodGet, sessionPath(id, "status"), nil, "get status of session %s", id)
	return out.Running, err
}

// Interrupt stops a session's running turn; it returns once the turn has
// ended. Interrupting an idle session does nothing.
func (c *Client) Interrupt(ctx context.Context, id string) error {
	_, err := call[wire.Status](ctx, c, http.MethodPost, sessionPath(id, "interrupt"), struct{}{}, "interrupt session %s", id)
	return err
}

// DropQueued removes a message still waiting in a session's queue (the
// QueueID of its queued event).
func (c *Client) DropQueued(ctx context.Context, id string, queueID int64) error {
	p := sessionPath(id, "queue", strconv.FormatInt(queueID, 10))
	_, err := call[wire.Deleted](ctx, c, http.MethodDelete, p, nil, "drop queued message %d of session %s", queueID, id)
	return err
}

// SendQueued starts a turn on the messages waiting in an idle session's
// queue; started is false when a turn already runs (it takes them).
func (c *Client) SendQueued(ctx context.Context, id string) (started bool, err error) {
	out, err := call[wire.Status](ctx, c, http.MethodPost, sessionPath(id, "queue", "send"), struct{}{}, "send the queue of session %s", id)
	return out.Running, err
}

// History returns a session's whole transcript.
func (c *Client) History(ctx context.Context, id string) ([]wire.HistoryItem, error) {
	out, err := call[wire.History](ctx, c, http.MethodGet, sessionPath(id, "history"), nil, "get history of session %s", id)
	return out.Items, err
}

// Tree returns up to limit checkpoints of a session after the checkpoint
// id after (0: from the start; limit 0: the daemon's default).
func (c *Client) Tree(ctx context.Context, id string, after int64, limit int) (wire.TreePage, error) {
	return getPage[wire.TreePage](ctx, c, id, "tree", after, limit)
}

// Fork makes a new session whose transcript is the session's up to the
// checkpoint (a tree item id).
func (c *Client) Fork(ctx context.Context, id string, checkpoint int64) (wire.Session, error) {
	body := wire.Fork{Checkpoint: &checkpoint}
	return call[wire.Session](ctx, c, http.MethodPost, sessionPath(id, "fork"), body, "fork session %s at %d", id, checkpoint)
}

// Rewind puts back the files an idle session's steps changed after a
// checkpoint, or with DryRun answers the plan only.
func (c *Client) Rewind(ctx context.Context, id string, r wire.Rewind) (wire.Rewound, error) {
	return call[wire.Rewound](ctx, c, http.MethodPost, sessionPath(id, "rewind"), r, "rewind session %s", id)
}

// Diff compares the files of a session at two checkpoints (nil: the
// daemon's default).
func (c *Client) Diff(ctx context.Context, id string, r wire.DiffRange) (wire.Diff, error) {
	q := url.Values{}
	if r.From != nil {
		q.Set("from", strconv.FormatInt(*r.From, 10))
	}
	if r.To != nil {
		q.Set("to", strconv.FormatInt(*r.To, 10))
	}
	p := sessionPath(id, "diff")
	if len(q) > 0 {
		p += "?" + q.Encode()
	}
	return call[wire.Diff](ctx, c, http.MethodGet, p, nil, "compare checkpoints of session %s", id)
}

// Checkpoints lists a session's steps with the snapshots around them.
func (c *Client) Checkpoints(ctx context.Context, id string) (wire.Checkpoints, error) {
	return call[wire.Checkpoints](ctx, c, http.MethodGet, sessionPath(id, "checkpoints"), nil, "list checkpoints of session %s", id)
}

// MoveWorkspace points an idle session at another workspace folder (an
// absolute path) and returns the session as it now is.
func (c *Client) MoveWorkspace(ctx context.Context, id, workspace string) (wire.Session, error) {
	body := wire.MoveWorkspace{Workspace: workspace}
	out, err := call[wire.Moved](ctx, c, http.MethodPost, sessionPath(id, "workspace"), body, "move session %s to %s", id, workspace)
	return out.Session, err
}

// Config returns a session's configuration and its ETag.
func (c *Client) Config(ctx context.Context, id string) (wire.Config, error) {
	var out wire.Config
	h, err := c.do(ctx, http.MethodGet, configPath(id), nil, &out, nil)
	if err != nil {
		return wire.Config{}, fmt.Errorf("get configuration of session %s: %w", id, err)
	}
	out.ETag = h.Get("ETag")
	return out, nil
}

// configPath is the API path of a session's configuration.
func configPath(id string) string { return sessionPath(id) + "?view=configuration" }

// configure changes a session's configuration at the revision it reads
// (If-Match), and returns the configuration with its new ETag.
func (c *Client) configure(ctx context.Context, id string, patch any) (wire.Config, error) {
	cur, err := c.Config(ctx, id)
	if err != nil {
		return wire.Config{}, err
	}
	var out wire.Config
	h, err := c.do(ctx, http.MethodPatch, configPath(id), patch, &out, ifMatch(cur.ETag))
	if err != nil {
		return wire.Config{}, err
	}
	out.ETag = h.Get("ETag")
	return out, nil
}

// Rename gives a session a name: it reads the session's ETag and sends the
// change conditionally on it.
func (c *Client) Rename(ctx context.Context, id, name string) (wire.Config, error) {
	out, err := c.configure(ctx, id, wire.ConfigPatch{Name: &name})
	if err != nil {
		return wire.Config{}, fmt.Errorf("rename session %s: %w", id, err)
	}
	return out, nil
}
