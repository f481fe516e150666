package daemon

import (
	"net/http"
	"strconv"

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
		albedo.EImageMismatch, albedo.EConfig, albedo.ELeaseLost:
		return http.StatusConflict
	case albedo.EStale:
		return http.StatusPreconditionFailed
	case albedo.ERevisionRequired:
		return http.StatusPreconditionRequired
	case albedo.EProvider:
		return http.StatusBadGateway
	case wire.CodeMethodNotAllowed:
		return http.StatusMethodNotAllowed
	case albedo.ETooLarge:
		return http.StatusRequestEntityTooLarge
	case albedo.EStoreUnavailable:
		return http.StatusServiceUnavailable
	}
	return http.StatusInternalServerError
}

// retryStoreAfter is the Retry-After, in seconds, of a store_unavailable
// answer: long enough for a lock holder to finish or a disk to be freed.
const retryStoreAfter = 5

// fail writes err as {"error", "code", ...details} with its status.
func fail(c *gin.Context, err error) {
	code := albedo.ErrorCode(err)
	body := wire.ErrorBody{Error: albedo.ErrorMessage(err), Code: code, Details: albedo.ErrorDetails(err)}
	switch code {
	case albedo.EInternal:
		logger(c).Error("request failed", "method", c.Request.Method, "path", c.FullPath(), "err", err)
	case albedo.EStoreUnavailable:
		logger(c).Warn("request failed: store unavailable", "method", c.Request.Method, "path", c.FullPath(), "err", err)
		c.Header("Retry-After", strconv.Itoa(retryStoreAfter))
	}
	c.AbortWithStatusJSON(statusOf(code), body)
}

// invalid writes a 400 with a message.
func invalid(c *gin.Context, format string, args ...any) {
	fail(c, albedo.Errorf(albedo.EInvalid, format, args...))
}
