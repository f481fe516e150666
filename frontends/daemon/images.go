package daemon

import (
	"net/http"
	"strconv"

	"github.com/albedo-agent/albedo/albedo"
	"github.com/gin-gonic/gin"
)

// shownImage answers image n of a session's item: a message's image, or
// one a cell showed. Its content type is the one its data's header names
// (PNG, JPEG, GIF or WebP, nothing a browser runs), and the security
// headers keep the browser from guessing another. An item does not
// change once stored, so the browser may keep the image.
func (a *api) shownImage(c *gin.Context) {
	id := c.Param("id")
	seq, errSeq := strconv.ParseInt(c.Param("seq"), 10, 64)
	n, errN := strconv.Atoi(c.Param("n"))
	if errSeq != nil || errN != nil {
		fail(c, albedo.Errorf(albedo.ENotFound, "session %s has no image %q at item %q", id, c.Param("n"), c.Param("seq")))
		return
	}
	data, kind, err := a.app.ShownImage(c.Request.Context(), id, seq, n)
	if err != nil {
		fail(c, err)
		return
	}
	c.Header("Cache-Control", "private, max-age=86400, immutable")
	c.Header("Content-Disposition", "inline")
	c.Data(http.StatusOK, kind, data)
}
