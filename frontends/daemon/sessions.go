package daemon

import (
	"context"
	"net/http"
	"strconv"

	"github.com/albedo-agent/albedo/albedo"
	"github.com/albedo-agent/albedo/albedo/engine"
	"github.com/albedo-agent/albedo/albedo/wire"
	"github.com/albedo-agent/albedo/frontends/app"
	"github.com/gin-gonic/gin"
)

// answer writes v with status, or the error.
func answer[T any](c *gin.Context, status int, v T, err error) {
	if err != nil {
		fail(c, err)
		return
	}
	c.JSON(status, v)
}

// sessionAnswer is the handler of a route that answers what f gives for
// the session its path names.
func sessionAnswer[T any](f func(*app.App, context.Context, string) (T, error)) func(*api, *gin.Context) {
	return func(a *api, c *gin.Context) {
		v, err := f(a.app, c.Request.Context(), c.Param("id"))
		answer(c, http.StatusOK, v, err)
	}
}

func (a *api) listSessions(c *gin.Context) {
	f := wire.SessionFilter{Query: c.Query("q"), Workspace: c.Query("workspace"), Archived: c.Query("archived"), Cursor: c.Query("cursor")}
	limit, err := app.WholeNumber("limit", c.Query("limit"), 0)
	if err != nil {
		fail(c, err)
		return
	}
	f.Limit = int(limit)
	list, next, err := a.app.FindSessions(c.Request.Context(), f)
	if err == nil && next != "" {
		c.Header("X-Next-Cursor", next)
	}
	answer(c, http.StatusOK, list, err)
}

func (a *api) createSession(c *gin.Context) {
	var body wire.CreateSession
	if !bind(c, &body) {
		return
	}
	s, err := a.app.CreateSession(c.Request.Context(), body)
	answer(c, http.StatusCreated, s, err)
}

func (a *api) getSession(c *gin.Context) {
	ctx, id := c.Request.Context(), c.Param("id")
	if c.Query("view") == "configuration" {
		cfg, err := a.app.Config(ctx, id)
		if err == nil {
			c.Header("ETag", cfg.ETag)
		}
		answer(c, http.StatusOK, cfg, err)
		return
	}
	tail, err := app.WholeNumber("tail", c.Query("tail"), -1)
	if err != nil {
		// A missing session is named before a bad query.
		if _, missing := a.app.Config(ctx, id); missing != nil {
			err = missing
		}
		fail(c, err)
		return
	}
	detail, err := a.app.Session(ctx, id, int(tail))
	answer(c, http.StatusOK, detail, err)
}

func (a *api) patchSession(c *gin.Context) {
	if c.Query("view") != "configuration" {
		invalid(c, "PATCH /sessions/{id} needs ?view=configuration")
		return
	}
	var body wire.ConfigPatch
	if !bind(c, &body) {
		return
	}
	if body.Name == nil && body.Archived == nil {
		invalid(c, `nothing to change: send {"name": ...} or {"archived": true|false}`)
		return
	}
	rev, err := app.Revision(c.GetHeader("If-Match"))
	if err != nil {
		fail(c, err)
		return
	}
	cfg, err := a.app.Configure(c.Request.Context(), c.Param("id"), rev, body)
	if err == nil {
		c.Header("ETag", cfg.ETag)
	}
	answer(c, http.StatusOK, cfg, err)
}

func (a *api) postEvent(c *gin.Context) {
	var body wire.Message
	if !bind(c, &body) {
		return
	}
	if body.Content == nil {
		invalid(c, `a message needs "content"`)
		return
	}
	sent, err := a.app.Send(c.Request.Context(), c.Param("id"), *body.Content, body.Image)
	answer(c, http.StatusAccepted, sent, err)
}

func (a *api) history(c *gin.Context) {
	var q albedo.HistoryQuery
	paged := false
	for _, name := range []string{"after", "before", "limit"} {
		n, err := app.WholeNumber(name, c.Query(name), 0)
		if err != nil {
			fail(c, err)
			return
		}
		paged = paged || c.Query(name) != ""
		switch name {
		case "after":
			q.After = n
		case "before":
			q.Before = n
		case "limit":
			q.Limit = int(min(n, engine.MaxHistoryPage))
		}
	}
	if !paged {
		a.wholeHistory(c)
		return
	}
	page, err := a.app.HistoryPage(c.Request.Context(), c.Param("id"), q)
	answer(c, http.StatusOK, page, err)
}

func (a *api) tree(c *gin.Context) {
	after, err := app.WholeNumber("after", c.Query("after"), 0)
	if err != nil {
		fail(c, err)
		return
	}
	limit, err := app.WholeNumber("limit", c.Query("limit"), -1)
	if err != nil {
		fail(c, err)
		return
	}
	page, err := a.app.Tree(c.Request.Context(), c.Param("id"), after, int(limit))
	answer(c, http.StatusOK, page, err)
}

func (a *api) fork(c *gin.Context) {
	var body wire.Fork
	if !bind(c, &body) {
		return
	}
	if body.Checkpoint == nil {
		invalid(c, `a fork needs "checkpoint": a tree item id`)
		return
	}
	s, err := a.app.Fork(c.Request.Context(), c.Param("id"), *body.Checkpoint)
	answer(c, http.StatusCreated, s, err)
}

func (a *api) diff(c *gin.Context) {
	var r wire.DiffRange
	for _, q := range []struct {
		name string
		seq  **int64
	}{{"from", &r.From}, {"to", &r.To}} {
		name, seq := q.name, q.seq
		v, ok := c.GetQuery(name)
		if !ok {
			continue
		}
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil || n < 0 {
			invalid(c, "%s must be a transcript item id (0 for the start), not %q", name, v)
			return
		}
		*seq = &n
	}
	d, err := a.app.Diff(c.Request.Context(), c.Param("id"), r)
	answer(c, http.StatusOK, d, err)
}

func (a *api) rewind(c *gin.Context) {
	var body wire.Rewind
	if !bind(c, &body) {
		return
	}
	r, err := a.app.Rewind(c.Request.Context(), c.Param("id"), body)
	answer(c, http.StatusOK, r, err)
}

func (a *api) dropQueued(c *gin.Context) {
	qid, err := strconv.ParseInt(c.Param("queue"), 10, 64)
	if err != nil || qid <= 0 {
		invalid(c, "the queued message id must be a positive number, not %q", c.Param("queue"))
		return
	}
	err = a.app.Service().DropQueued(c.Request.Context(), c.Param("id"), qid)
	answer(c, http.StatusOK, wire.Deleted{Deleted: c.Param("queue")}, err)
}

func (a *api) moveWorkspace(c *gin.Context) {
	var body wire.MoveWorkspace
	if !bind(c, &body) {
		return
	}
	m, err := a.app.MoveWorkspace(c.Request.Context(), c.Param("id"), body.Workspace)
	answer(c, http.StatusOK, m, err)
}

func (a *api) command(c *gin.Context) {
	var body wire.Command
	if !bind(c, &body) {
		return
	}
	r, err := a.app.Command(c.Request.Context(), c.Param("id"), body)
	answer(c, http.StatusOK, r, err)
}
