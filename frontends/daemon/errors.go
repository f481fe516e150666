package daemon

import (
	"net/http"

	"github.com/albedo-agent/albedo/albedo"
	"github.com/albedo-agent/albedo/albedo/wire"
	"github.com/gin-gonic/gin"
)

// statusOf maps application error codes to HTTP statuses. It is the only
// place that does.
func statusOf(code string) int {
	switch code {
	case albedo.EInvalid, albedo.ENoProvider:
		return http.StatusBadRequest
	case albedo.EUnauthorized:
		return http.StatusUnauthorized
	case albedo.EForbidden:
		return http.StatusForbidden
	case albedo.ENotFound:
		return http.StatusNotFound
	case albedo.EConflict, albedo.EBusy, albedo.EWorkspaceMissing, albedo.EWorkspaceRejected,
		albedo.EImageMismatch, albedo.EConfig:
		return http.StatusConflict
	case albedo.EStale:
		return http.StatusPreconditionFailed
	case albedo.ERevisionRequired:
		return http.StatusPreconditionRequired
	case albedo.EProvider:
		return http.StatusBadGateway
	case wire.CodeMethodNotAllowed:
		return http.StatusMethodNotAllowed
	}
	return http.StatusInternalServerError
}

// fail writes err as {"error", "code", ...details} with its status.
func fail(c *gin.Context, err error) {
	code := albedo.ErrorCode(err)
	body := wire.ErrorBody{Error: albedo.ErrorMessage(err), Code: code, Details: albedo.ErrorDetails(err)}
	if code == albedo.EInternal {
		logger(c).Error("request failed", "method", c.Request.Method, "path", c.FullPath(), "err", err)
	}
	c.AbortWithStatusJSON(statusOf(code), body)
}

// invalid writes a 400 with a message.
func invalid(c *gin.Context, format string, args ...any) {
	fail(c, albedo.Errorf(albedo.EInvalid, format, args...))
}
