package daemon

import (
	"net/http"

	"github.com/albedo-agent/albedo/albedo"
	"github.com/albedo-agent/albedo/frontends/app"
	"github.com/gin-gonic/gin"
)

// requests serves GET /sessions/{id}/requests?after=&limit=: a page of
// the session's request ledger.
func (a *api) requests(c *gin.Context) {
	after, err := app.WholeNumber("after", c.Query("after"), 0)
	if err != nil {
		fail(c, err)
		return
	}
	limit, err := app.WholeNumber("limit", c.Query("limit"), 0)
	if err != nil {
		fail(c, err)
		return
	}
	if c.Query("limit") != "" && limit == 0 {
		fail(c, albedo.Errorf(albedo.EInvalid, "limit must be between 1 and %d, not 0", albedo.MaxRequestPage))
		return
	}
	page, err := a.app.Requests(c.Request.Context(), c.Param("id"), after, int(min(limit, albedo.MaxRequestPage+1)))
	answer(c, http.StatusOK, page, err)
}
