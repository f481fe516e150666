package daemon

import (
	"net/http"

	"github.com/albedo-agent/albedo/albedo/wire"
	"github.com/albedo-agent/albedo/frontends/app"
	"github.com/gin-gonic/gin"
)

func (a *api) listVents(c *gin.Context) {
	limit, err := app.WholeNumber("limit", c.Query("limit"), 0)
	if err != nil {
		fail(c, err)
		return
	}
	list, err := a.app.Vents(c.Request.Context(), int(limit), c.Query("cursor"))
	answer(c, http.StatusOK, list, err)
}

// ventParam reads the vent id of the path; when it names no vent it
// writes the error itself and reports false.
func ventParam(c *gin.Context) (int64, bool) {
	id, err := app.VentID(c.Param("vent"))
	if err != nil {
		fail(c, err)
		return 0, false
	}
	return id, true
}

func (a *api) getVent(c *gin.Context) {
	id, ok := ventParam(c)
	if !ok {
		return
	}
	v, err := a.app.Vent(c.Request.Context(), id)
	if err == nil {
		c.Header("ETag", wire.ETag(v.Value.Revision))
	}
	answer(c, http.StatusOK, v, err)
}

func (a *api) patchVent(c *gin.Context) {
	id, ok := ventParam(c)
	if !ok {
		return
	}
	var body wire.VentPatch
	if !bind(c, &body) {
		return
	}
	if body.Reply == nil && body.Status == nil {
		invalid(c, `nothing to change: send {"reply": ...} or {"status": ...}`)
		return
	}
	rev, err := app.Revision(c.GetHeader("If-Match"))
	if err != nil {
		fail(c, err)
		return
	}
	p, err := a.app.PatchVent(c.Request.Context(), id, rev, body)
	if err == nil {
		c.Header("ETag", wire.ETag(p.Resource.Value.Revision))
	}
	answer(c, http.StatusOK, p, err)
}

func (a *api) deleteVent(c *gin.Context) {
	id, ok := ventParam(c)
	if !ok {
		return
	}
	rev, err := app.Revision(c.GetHeader("If-Match"))
	if err != nil {
		fail(c, err)
		return
	}
	d, err := a.app.DeleteVent(c.Request.Context(), id, rev)
	answer(c, http.StatusOK, d, err)
}
