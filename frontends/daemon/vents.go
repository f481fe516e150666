package daemon

import (
	"github.com/albedo-agent/albedo/frontends/wire"
	"net/http"
	"strconv"

	"github.com/albedo-agent/albedo/albedo"
	"github.com/gin-gonic/gin"
)

// ventResource wraps a vent the way the extension API returns it.
func ventResource(v albedo.Vent) gin.H { return gin.H{"value": wire.Vent(v)} }

func (a *api) listVents(c *gin.Context) {
	limit, err := queryInt(c, "limit", 0)
	if err != nil {
		fail(c, err)
		return
	}
	before, err := queryInt(c, "cursor", 0)
	if err != nil {
		fail(c, err)
		return
	}
	vents, next, err := a.svc.VentPage(c.Request.Context(), before, int(limit))
	if err != nil {
		fail(c, err)
		return
	}
	body := gin.H{}
	if next > 0 {
		body["next"] = strconv.FormatInt(next, 10)
	}
	items := make([]gin.H, len(vents))
	for i, v := range vents {
		items[i] = ventResource(v)
	}
	body["items"] = items
	c.JSON(http.StatusOK, body)
}

func ventParam(c *gin.Context) (int64, bool) {
	id, err := strconv.ParseInt(c.Param("vent"), 10, 64)
	if err != nil || id <= 0 {
		fail(c, albedo.Errorf(albedo.ENotFound, "no vent %q", c.Param("vent")))
		return 0, false
	}
	return id, true
}

func (a *api) getVent(c *gin.Context) {
	id, ok := ventParam(c)
	if !ok {
		return
	}
	v, err := a.svc.Vent(c.Request.Context(), id)
	if err != nil {
		fail(c, err)
		return
	}
	c.Header("ETag", wire.ETag(v.Revision))
	c.JSON(http.StatusOK, ventResource(v))
}

func (a *api) patchVent(c *gin.Context) {
	id, ok := ventParam(c)
	if !ok {
		return
	}
	var body struct {
		Reply  *string `json:"reply"`
		Status *string `json:"status"`
	}
	if !bind(c, &body) {
		return
	}
	if body.Reply == nil && body.Status == nil {
		invalid(c, `nothing to change: send {"reply": ...} or {"status": ...}`)
		return
	}
	rev, ok := revision(c)
	if !ok {
		return
	}
	patch := albedo.VentPatch{Reply: body.Reply}
	if body.Status != nil {
		status := albedo.VentStatus(*body.Status)
		patch.Status = &status
	}
	v, state, err := a.svc.PatchVent(c.Request.Context(), id, rev, patch)
	if err != nil {
		fail(c, err)
		return
	}
	c.Header("ETag", wire.ETag(v.Revision))
	c.JSON(http.StatusOK, gin.H{"notification": gin.H{"state": state}, "resource": ventResource(v)})
}

func (a *api) deleteVent(c *gin.Context) {
	id, ok := ventParam(c)
	if !ok {
		return
	}
	rev, ok := revision(c)
	if !ok {
		return
	}
	if err := a.svc.DeleteVent(c.Request.Context(), id, rev); err != nil {
		fail(c, err)
		return
	}
	c.JSON(http.StatusOK, gin.H{"deleted": strconv.FormatInt(id, 10)})
}
