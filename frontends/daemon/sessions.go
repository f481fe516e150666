package daemon

import (
	"encoding/json"
	"net/http"
	"strconv"

	"github.com/albedo-agent/albedo/albedo"
	"github.com/albedo-agent/albedo/frontends/wire"
	"github.com/gin-gonic/gin"
)

func (a *api) listSessions(c *gin.Context) {
	f := albedo.SessionFilter{Query: c.Query("q"), Workspace: c.Query("workspace"), Cursor: c.Query("cursor")}
	switch arch := c.Query("archived"); arch {
	case "", "false":
	case "true":
		f.Archived = albedo.ArchivedOnly
	case "all":
		f.Archived = albedo.ArchivedAll
	default:
		invalid(c, "archived must be true, false or all, not %q", arch)
		return
	}
	limit, err := queryInt(c, "limit", 0)
	if err != nil {
		fail(c, err)
		return
	}
	f.Limit = int(limit)
	sessions, next, err := a.svc.FindSessions(c.Request.Context(), f)
	if err != nil {
		fail(c, err)
		return
	}
	if next != "" {
		c.Header("X-Next-Cursor", next)
	}
	c.JSON(http.StatusOK, wire.Sessions(sessions))
}

func (a *api) deleteSession(c *gin.Context) {
	id := c.Param("id")
	if err := a.svc.DeleteSession(c.Request.Context(), id); err != nil {
		fail(c, err)
		return
	}
	c.JSON(http.StatusOK, gin.H{"deleted": id})
}

func (a *api) createSession(c *gin.Context) {
	var body struct {
		Workspace string `json:"workspace"`
		Provider  string `json:"provider"`
	}
	if !bind(c, &body) {
		return
	}
	s, err := a.svc.CreateSession(c.Request.Context(), body.Workspace, body.Provider)
	if err != nil {
		fail(c, err)
		return
	}
	c.JSON(http.StatusCreated, wire.Session(s))
}

func (a *api) getSession(c *gin.Context) {
	id := c.Param("id")
	s, err := a.svc.Session(c.Request.Context(), id)
	if err != nil {
		fail(c, err)
		return
	}
	if c.Query("view") == "configuration" {
		c.Header("ETag", wire.ETag(s.Revision))
		c.JSON(http.StatusOK, wire.Config(s))
		return
	}
	tail := 50
	if q := c.Query("tail"); q != "" {
		n, err := strconv.Atoi(q)
		if err != nil || n < 0 {
			invalid(c, "tail must be a whole number, not %q", q)
			return
		}
		tail = n
	}
	events, err := a.svc.Tail(c.Request.Context(), id, tail)
	if err != nil {
		fail(c, err)
		return
	}
	running, err := a.svc.Running(c.Request.Context(), id)
	if err != nil {
		fail(c, err)
		return
	}
	glances, err := a.svc.Glances(c.Request.Context(), id)
	if err != nil {
		fail(c, err)
		return
	}
	c.JSON(http.StatusOK, gin.H{"session": wire.Session(s), "id": s.ID, "title": s.Title, "running": running, "events": events, "glances": glances})
}

func (a *api) patchSession(c *gin.Context) {
	if c.Query("view") != "configuration" {
		invalid(c, "PATCH /sessions/{id} needs ?view=configuration")
		return
	}
	var body struct {
		Name     *string `json:"name"`
		Archived *bool   `json:"archived"`
	}
	if !bind(c, &body) {
		return
	}
	if body.Name == nil && body.Archived == nil {
		invalid(c, `nothing to change: send {"name": ...} or {"archived": true|false}`)
		return
	}
	rev, ok := revision(c)
	if !ok {
		return
	}
	s, err := a.svc.Configure(c.Request.Context(), c.Param("id"), rev, albedo.Configuration{Name: body.Name, Archived: body.Archived})
	if err != nil {
		fail(c, err)
		return
	}
	c.Header("ETag", wire.ETag(s.Revision))
	c.JSON(http.StatusOK, wire.Config(s))
}

// imageBody is an attached image as clients send it.
type imageBody struct {
	MimeType string `json:"mimeType"`
	Data     string `json:"data"`
	Width    int    `json:"width"`
	Height   int    `json:"height"`
	Bytes    int    `json:"bytes"`
}

func (a *api) postEvent(c *gin.Context) {
	var body struct {
		Content *string    `json:"content"`
		Image   *imageBody `json:"image"`
	}
	if !bind(c, &body) {
		return
	}
	if body.Content == nil {
		invalid(c, `a message needs "content"`)
		return
	}
	msg := albedo.Message{Text: *body.Content}
	if img := body.Image; img != nil {
		msg.Image = &albedo.ImageInput{MimeType: img.MimeType, Data: img.Data, Width: img.Width, Height: img.Height, Bytes: img.Bytes}
	}
	queued, err := a.svc.Send(c.Request.Context(), c.Param("id"), msg)
	if err != nil {
		fail(c, err)
		return
	}
	c.JSON(http.StatusAccepted, gin.H{"queued": queued})
}

func (a *api) status(c *gin.Context) {
	running, err := a.svc.Running(c.Request.Context(), c.Param("id"))
	if err != nil {
		fail(c, err)
		return
	}
	c.JSON(http.StatusOK, gin.H{"running": running})
}

func (a *api) history(c *gin.Context) {
	var q albedo.HistoryQuery
	paged := false
	for _, name := range []string{"after", "before", "limit"} {
		n, err := queryInt(c, name, 0)
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
			q.Limit = int(min(n, albedo.MaxHistoryPage))
		}
	}
	if !paged {
		a.wholeHistory(c)
		return
	}
	page, err := a.svc.HistoryPage(c.Request.Context(), c.Param("id"), q)
	if err != nil {
		fail(c, err)
		return
	}
	c.JSON(http.StatusOK, gin.H{"items": wire.History(page.Items), "next": nullable(page.Next), "before": nullable(page.Before)})
}

// nullable is nil for 0.
func nullable(n int64) any {
	if n == 0 {
		return nil
	}
	return n
}

func (a *api) tree(c *gin.Context) {
	after, err := queryInt(c, "after", 0)
	if err != nil {
		fail(c, err)
		return
	}
	limit, err := queryInt(c, "limit", 100)
	if err != nil {
		fail(c, err)
		return
	}
	nodes, more, err := a.svc.Tree(c.Request.Context(), c.Param("id"), after, int(limit))
	if err != nil {
		fail(c, err)
		return
	}
	c.JSON(http.StatusOK, gin.H{"items": nodes, "hasMore": more})
}

func queryInt(c *gin.Context, name string, def int64) (int64, error) {
	q := c.Query(name)
	if q == "" {
		return def, nil
	}
	n, err := strconv.ParseInt(q, 10, 64)
	if err != nil || n < 0 {
		return 0, albedo.Errorf(albedo.EInvalid, "%s must be a whole number, not %q", name, q)
	}
	return n, nil
}

func (a *api) fork(c *gin.Context) {
	var body struct {
		Checkpoint *int64 `json:"checkpoint"`
	}
	if !bind(c, &body) {
		return
	}
	if body.Checkpoint == nil {
		invalid(c, `a fork needs "checkpoint": a tree item id`)
		return
	}
	s, err := a.svc.Fork(c.Request.Context(), c.Param("id"), *body.Checkpoint)
	if err != nil {
		fail(c, err)
		return
	}
	c.JSON(http.StatusCreated, wire.Session(s))
}

func (a *api) interrupt(c *gin.Context) {
	if err := a.svc.Interrupt(c.Request.Context(), c.Param("id")); err != nil {
		fail(c, err)
		return
	}
	c.JSON(http.StatusOK, gin.H{"running": false})
}

func (a *api) moveWorkspace(c *gin.Context) {
	var body struct {
		Workspace string `json:"workspace"`
	}
	if !bind(c, &body) {
		return
	}
	s, err := a.svc.MoveWorkspace(c.Request.Context(), c.Param("id"), body.Workspace)
	if err != nil {
		fail(c, err)
		return
	}
	c.JSON(http.StatusOK, gin.H{"workspace": s.Workspace, "session": wire.Session(s)})
}

func (a *api) command(c *gin.Context) {
	var body struct {
		Name string          `json:"name"`
		Args json.RawMessage `json:"args"`
	}
	if !bind(c, &body) {
		return
	}
	if _, err := a.svc.Session(c.Request.Context(), c.Param("id")); err != nil {
		fail(c, err)
		return
	}
	result, err := a.svc.RunCommand(c.Request.Context(), c.Param("id"), body.Name, body.Args)
	if err != nil {
		fail(c, err)
		return
	}
	c.JSON(http.StatusOK, gin.H{"result": result})
}
