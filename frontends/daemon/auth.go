package daemon

import (
	"crypto/subtle"
	"net/http"
	"strings"
	"time"

	"github.com/albedo-agent/albedo/albedo"
	"github.com/gin-gonic/gin"
)

// guard refuses, in this order and before a byte of the body is read: a
// Host that is not the daemon's own address (a web page that renamed its
// site to 127.0.0.1, DNS rebinding), requests from web pages (an Origin
// other than the daemon's own), and requests without the daemon's bearer
// token.
func (a *api) guard(c *gin.Context) {
	if !a.hosts.has(c.Request.Host) {
		refuse(c, albedo.Errorf(albedo.EForbidden, "requests for host %q are refused: albedo answers at 127.0.0.1:%s, localhost:%s and [::1]:%s only (ALBEDO_ALLOWED_HOSTS names others, such as a tunnel's)", c.Request.Host, a.port, a.port, a.port))
		return
	}
	if origin := c.GetHeader("Origin"); origin != "" && !a.ownOrigin(origin) {
		refuse(c, albedo.Errorf(albedo.EForbidden, "requests from %s are refused: albedo's API is for local programs, not web pages", origin))
		return
	}
	const prefix = "Bearer "
	header := c.GetHeader("Authorization")
	token, ok := strings.CutPrefix(header, prefix)
	if !ok || subtle.ConstantTimeCompare([]byte(token), []byte(a.token)) != 1 {
		c.Header("WWW-Authenticate", `Bearer realm="albedo"`)
		refuse(c, albedo.Errorf(albedo.EUnauthorized, "missing or wrong token: send Authorization: Bearer <token from daemon.json>"))
		return
	}
	trustConn(c.Request.Context())
	c.Next()
}

// refuse answers err and closes the connection: the body of a refused
// request is never read, not even to keep the connection for another.
func refuse(c *gin.Context, err error) {
	c.Header("Connection", "close")
	fail(c, err)
	// The answer is sent before the server would read up to 256 KiB of
	// what is left of the body; a read deadline already past ends that
	// read at once.
	_ = http.NewResponseController(c.Writer).SetReadDeadline(time.Unix(1, 0))
}

// ownOrigin reports whether origin is the daemon's own address.
func (a *api) ownOrigin(origin string) bool {
	for _, host := range loopbackNames() {
		if origin == "http://"+host+":"+a.port {
			return true
		}
	}
	return false
}

// loopbackNames returns the names the daemon's own address goes by.
func loopbackNames() [3]string { return [3]string{"127.0.0.1", "localhost", "[::1]"} }

// hostSet is the set of Host values the daemon answers, lower-cased.
type hostSet map[string]bool

// newHostSet holds the daemon's loopback names at port, and the extra
// hosts (host or host:port) a user allowed.
func newHostSet(port string, extra []string) hostSet {
	s := hostSet{}
	for _, name := range loopbackNames() {
		s[name+":"+port] = true
	}
	for _, h := range extra {
		if h = strings.ToLower(strings.TrimSpace(h)); h != "" {
			s[h] = true
		}
	}
	return s
}

// has reports whether host, a request's Host, is one of the set.
func (s hostSet) has(host string) bool {
	return host != "" && s[strings.ToLower(host)]
}
