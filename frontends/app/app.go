package app

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/albedo-agent/albedo/albedo"
	"github.com/albedo-agent/albedo/albedo/engine"
	"github.com/albedo-agent/albedo/albedo/wire"
)

// Defaults a request gets when it names no value.
const (
	// DefaultTail is how many events a session detail holds.
	DefaultTail = 50
	// DefaultTreeLimit is how many checkpoints a tree page holds.
	DefaultTreeLimit = 100
)

// App answers the API's requests over one domain service. Its methods are
// safe for concurrent use.
type App struct {
	svc *engine.Service
	// mcp shows the MCP servers in a session's glances; nil for none.
	mcp MCPServers
}

// New returns the application layer over svc; mcp, when not nil, adds
// the glance of a session's MCP servers.
func New(svc *engine.Service, mcp MCPServers) *App { return &App{svc: svc, mcp: mcp} }

// Service returns the domain service underneath.
func (a *App) Service() *engine.Service { return a.svc }

// WholeNumber reads a query value: def when q is empty, else a number of
// zero or more, or an invalid error naming the parameter.
func WholeNumber(name, q string, def int64) (int64, error) {
	if q == "" {
		return def, nil
	}
	n, err := strconv.ParseInt(q, 10, 64)
	if err != nil || n < 0 {
		return 0, albedo.Errorf(albedo.EInvalid, "%s must be a whole number, not %q", name, q)
	}
	return n, nil
}

// Revision reads the revision an If-Match header names ("3", "\"3\"" or
// W/"3"): a revision-required error when it is empty, a stale one when it
// names no revision albedo gave out.
func Revision(ifMatch string) (int64, error) {
	if strings.TrimSpace(ifMatch) == "" {
		return 0, albedo.Errorf(albedo.ERevisionRequired, "this change needs an If-Match header with the current ETag")
	}
	rev, ok := wire.ParseETag(ifMatch)
	if !ok {
		return 0, albedo.Errorf(albedo.EStale, "If-Match %q is not a revision albedo gave out", ifMatch)
	}
	return rev, nil
}

// Sessions lists every session, most recently updated first.
func (a *App) Sessions(ctx context.Context) ([]wire.Session, error) {
	list, err := a.svc.Sessions(ctx)
	return shown(list, err, sessions)
}

// CreateSession makes a session as POST /sessions asks.
func (a *App) CreateSession(ctx context.Context, req wire.CreateSession) (wire.Session, error) {
	s, err := a.svc.CreateSession(ctx, req.Workspace, req.Provider)
	return shown(s, err, session)
}

// Session returns a session with its last tail events (DefaultTail when
// tail is negative), whether it runs a turn, and its glances.
func (a *App) Session(ctx context.Context, id string, tail int) (wire.SessionDetail, error) {
	if tail < 0 {
		tail = DefaultTail
	}
	s, err := a.svc.Session(ctx, id)
	if err != nil {
		return wire.SessionDetail{}, err
	}
	events, err := a.svc.Tail(ctx, id, tail)
	if err != nil {
		return wire.SessionDetail{}, err
	}
	running, err := a.svc.Running(ctx, id)
	if err != nil {
		return wire.SessionDetail{}, err
	}
	glances, err := a.svc.Glances(ctx, id)
	if err != nil {
		return wire.SessionDetail{}, err
	}
	if g, ok := a.mcpGlance(ctx, s.Workspace); ok {
		glances = append(glances, g)
	}
	return wire.SessionDetail{Session: session(s), ID: s.ID, Title: s.Title, Running: running, Events: events, Glances: glances}, nil
}

// Config returns a session's editable configuration and its ETag.
func (a *App) Config(ctx context.Context, id string) (wire.Config, error) {
	s, err := a.svc.Session(ctx, id)
	return shown(s, err, config)
}

// Send gives a session a user message with an optional image.
func (a *App) Send(ctx context.Context, id, text string, img *wire.Image) (wire.Sent, error) {
	msg := albedo.Message{Text: text}
	if img != nil {
		msg.Image = &albedo.ImageInput{MimeType: img.MimeType, Data: img.Data, Width: img.Width, Height: img.Height, Bytes: img.Bytes}
	}
	queued, err := a.svc.Send(ctx, id, msg)
	return wire.Sent{Queued: queued && err == nil}, err
}

// Status reports whether a session runs a turn.
func (a *App) Status(ctx context.Context, id string) (wire.Status, error) {
	running, err := a.svc.Running(ctx, id)
	return wire.Status{Running: running && err == nil}, err
}

// Interrupt stops a session's running turn and returns once it ended, or
// at once, still running, when the store keeps the turn's write waiting.
func (a *App) Interrupt(ctx context.Context, id string) (wire.Status, error) {
	if err := a.svc.Interrupt(ctx, id); err != nil {
		return wire.Status{}, err
	}
	return a.Status(ctx, id)
}

// SendQueued starts a turn on the messages waiting in an idle session's
// queue, and says whether the session runs one now.
func (a *App) SendQueued(ctx context.Context, id string) (wire.Status, error) {
	_, err := a.svc.SendQueued(ctx, id)
	return wire.Status{Running: err == nil}, err
}

// History returns a session's whole transcript.
func (a *App) History(ctx context.Context, id string) (wire.History, error) {
	items, err := a.svc.History(ctx, id)
	if err != nil {
		return wire.History{}, err
	}
	return wire.History{Items: history(items)}, nil
}

// Tree returns up to limit checkpoints of a session with ids above after:
// DefaultTreeLimit when limit is negative, as many as the domain allows
// (1,000) when it is 0.
func (a *App) Tree(ctx context.Context, id string, after int64, limit int) (wire.TreePage, error) {
	if limit < 0 {
		limit = DefaultTreeLimit
	}
	nodes, more, err := a.svc.Tree(ctx, id, after, limit)
	if err != nil {
		return wire.TreePage{}, err
	}
	return tree(nodes, more), nil
}

// Fork makes a session whose transcript is the session's up to and
// including the checkpoint.
func (a *App) Fork(ctx context.Context, id string, checkpoint int64) (wire.Session, error) {
	s, err := a.svc.Fork(ctx, id, checkpoint)
	return shown(s, err, session)
}

// MoveWorkspace points an idle session at another workspace folder.
func (a *App) MoveWorkspace(ctx context.Context, id, workspace string) (wire.Moved, error) {
	s, err := a.svc.MoveWorkspace(ctx, id, workspace)
	if err != nil {
		return wire.Moved{}, err
	}
	return wire.Moved{Workspace: s.Workspace, Session: session(s)}, nil
}

// Command runs a slash command on a session and returns its result as
// JSON.
func (a *App) Command(ctx context.Context, id string, req wire.Command) (wire.CommandResult, error) {
	result, err := a.svc.RunCommand(ctx, id, req.Name, req.Args)
	if err != nil {
		return wire.CommandResult{}, err
	}
	out, err := commandResult(result)
	if err != nil {
		return wire.CommandResult{}, fmt.Errorf("encode the result of %s: %w", req.Name, err)
	}
	return wire.CommandResult{Result: out}, nil
}

// SwitchModel rebinds an idle session to a provider (its own when empty)
// and model, as /model does.
func (a *App) SwitchModel(ctx context.Context, id, provider, model string) (wire.ModelChoice, error) {
	if _, err := a.svc.Session(ctx, id); err != nil {
		return wire.ModelChoice{}, err
	}
	c, err := a.svc.SwitchModel(ctx, id, provider, model, nil)
	return shown(c, err, modelChoice)
}

// FindSessions returns the sessions f selects, most recently updated
// first, and the cursor of the next page ("" on the last). An archived
// value other than "", "false", "true" or "all", or a negative limit, is
// EInvalid.
func (a *App) FindSessions(ctx context.Context, f wire.SessionFilter) ([]wire.Session, string, error) {
	filter := engine.SessionFilter{Query: f.Query, Workspace: f.Workspace, Limit: f.Limit, Cursor: f.Cursor}
	switch f.Archived {
	case "", "false":
	case "true":
		filter.Archived = engine.ArchivedOnly
	case "all":
		filter.Archived = engine.ArchivedAll
	default:
		return nil, "", albedo.Errorf(albedo.EInvalid, "archived must be true, false or all, not %q", f.Archived)
	}
	if f.Limit < 0 {
		return nil, "", albedo.Errorf(albedo.EInvalid, "limit must be a whole number, not %d", f.Limit)
	}
	list, next, err := a.svc.FindSessions(ctx, filter)
	if err != nil {
		return nil, "", err
	}
	return sessions(list), next, nil
}

// SetArchived archives a session or brings it back, at the revision it
// reads: a concurrent change makes it EStale.
func (a *App) SetArchived(ctx context.Context, id string, archived bool) (wire.Config, error) {
	s, err := a.svc.Session(ctx, id)
	if err != nil {
		return wire.Config{}, err
	}
	return a.Configure(ctx, id, s.Revision, wire.ConfigPatch{Archived: &archived})
}

// DeleteSession removes a session and everything kept for it but the
// vents it filed.
func (a *App) DeleteSession(ctx context.Context, id string) (wire.Deleted, error) {
	if err := a.svc.DeleteSession(ctx, id); err != nil {
		return wire.Deleted{}, err
	}
	return wire.Deleted{Deleted: id}, nil
}

// Configure renames or archives a session if revision is still its
// revision.
func (a *App) Configure(ctx context.Context, id string, revision int64, req wire.ConfigPatch) (wire.Config, error) {
	s, err := a.svc.Configure(ctx, id, revision, albedo.Configuration{Name: req.Name, Archived: req.Archived})
	return shown(s, err, config)
}

// HistoryPage returns one page of a session's history.
func (a *App) HistoryPage(ctx context.Context, id string, q albedo.HistoryQuery) (wire.History, error) {
	page, err := a.svc.HistoryPage(ctx, id, q)
	if err != nil {
		return wire.History{}, err
	}
	return wire.History{Items: history(page.Items), Next: nonZero(page.Next), Before: nonZero(page.Before)}, nil
}

// ScanHistory yields a session's whole history page by page, as the store
// reads it; an unknown session fails before the first page.
func (a *App) ScanHistory(ctx context.Context, id string, page func([]wire.HistoryItem) error) error {
	if _, err := a.svc.Session(ctx, id); err != nil {
		return err
	}
	return a.svc.ScanItems(ctx, id, 0, 0, func(items []albedo.Item) error { return page(history(items)) })
}

// nonZero is nil for 0.
func nonZero(n int64) *int64 {
	if n == 0 {
		return nil
	}
	return &n
}
