package daemon

import (
	"crypto/subtle"
	"strings"

	"github.com/albedo-agent/albedo/albedo"
	"github.com/gin-gonic/gin"
)

// guard refuses requests from web pages (an Origin other than the daemon's
// own) and requests without the daemon's bearer token.
func (a *api) guard(c *gin.Context) {
	if origin := c.GetHeader("Origin"); origin != "" && !a.ownOrigin(origin) {
		fail(c, albedo.Errorf(albedo.EForbidden, "requests from %s are refused: albedo's API is for local programs, not web pages", origin))
		return
	}
	const prefix = "Bearer "
	header := c.GetHeader("Authorization")
	token, ok := strings.CutPrefix(header, prefix)
	if !ok || subtle.ConstantTimeCompare([]byte(token), []byte(a.token)) != 1 {
		c.Header("WWW-Authenticate", `Bearer realm="albedo"`)
		fail(c, albedo.Errorf(albedo.EUnauthorized, "missing or wrong token: send Authorization: Bearer <token from daemon.json>"))
		return
	}
	c.Next()
}

// ownOrigin reports whether origin is the daemon's own address.
func (a *api) ownOrigin(origin string) bool {
	for _, host := range []string{"127.0.0.1", "localhost", "[::1]"} {
		if origin == "http://"+host+":"+a.port {
			return true
		}
	}
	return false
}
