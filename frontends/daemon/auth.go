package daemon

import (
	"crypto/subtle"
	"mime"
	"net/http"
	"strings"
	"time"

	"github.com/albedo-agent/albedo/albedo"
	"github.com/albedo-agent/albedo/frontends/web"
	"github.com/gin-gonic/gin"
)

// guard refuses, in this order and before a byte of the body is read: a
// Host that is not the daemon's own address (a web page that renamed its
// site to 127.0.0.1, DNS rebinding), and requests from other web pages
// (an Origin other than the daemon's own). Every answer carries the web
// page's security headers.
func (a *api) guard(c *gin.Context) {
	web.SetSecurityHeaders(c.Writer.Header())
	if !a.hosts.has(c.Request.Host) {
		refuse(c, albedo.Errorf(albedo.EForbidden, "requests for host %q are refused: albedo answers at 127.0.0.1:%s, localhost:%s and [::1]:%s only (ALBEDO_ALLOWED_HOSTS names others, such as a tunnel's)", c.Request.Host, a.port, a.port, a.port))
		return
	}
	if origin := c.GetHeader("Origin"); origin != "" && !a.ownOrigin(origin) {
		refuse(c, albedo.Errorf(albedo.EForbidden, "requests from %s are refused: albedo's API is for local programs and its own web page, not other web pages", origin))
		return
	}
	c.Next()
}

// authorize returns the step that lets in the requests of a route of
// access acc: those with the daemon's bearer token, for pageAccess those
// with a valid login cookie too (a write then only from the page itself,
// with a JSON body: see pageWrite), and for openAccess any.
func (a *api) authorize(acc access) gin.HandlerFunc {
	return func(c *gin.Context) {
		switch {
		case acc == openAccess:
		case a.bearer(c):
		case acc == pageAccess && a.loggedIn(c):
			if err := pageWrite(c.Request); err != nil {
				refuse(c, err)
				return
			}
		default:
			c.Header("WWW-Authenticate", `Bearer realm="albedo"`)
			refuse(c, albedo.Errorf(albedo.EUnauthorized, "missing or wrong token: send Authorization: Bearer <token from daemon.json> (a browser logs in with 'albedo web')"))
			return
		}
		if acc != openAccess {
			trustConn(c.Request.Context())
		}
		c.Next()
	}
}

// bearer reports whether the request carries the daemon's token.
func (a *api) bearer(c *gin.Context) bool {
	token, ok := strings.CutPrefix(c.GetHeader("Authorization"), "Bearer ")
	return ok && subtle.ConstantTimeCompare([]byte(token), []byte(a.token)) == 1
}

// loggedIn reports whether the request carries a valid login cookie of
// the web page.
func (a *api) loggedIn(c *gin.Context) bool {
	cookie, err := c.Request.Cookie(a.cookieName())
	return err == nil && a.logins.Valid(cookie.Value)
}

// pageWrite refuses a write made with the login cookie unless it comes
// from the page itself and is JSON: its Origin is the address it is sent
// to (or the browser says Sec-Fetch-Site: same-origin without one), and
// its Content-Type is application/json, which no form of another site can
// send without the browser asking first. Reads pass.
func pageWrite(r *http.Request) error {
	switch r.Method {
	case http.MethodGet, http.MethodHead, http.MethodOptions:
		return nil
	}
	origin, site := r.Header.Get("Origin"), r.Header.Get("Sec-Fetch-Site")
	switch {
	case site != "" && site != "same-origin":
		return albedo.Errorf(albedo.EForbidden, "a %s write with the login cookie is refused: it comes from another site (Sec-Fetch-Site: %s)", site, site)
	case origin != "" && !strings.EqualFold(origin, "http://"+r.Host) && !strings.EqualFold(origin, "https://"+r.Host):
		return albedo.Errorf(albedo.EForbidden, "a write with the login cookie from %s is refused: only the page at %s may write", origin, r.Host)
	case origin == "" && site == "":
		return albedo.Errorf(albedo.EForbidden, "a write with the login cookie must say where it comes from (Origin or Sec-Fetch-Site)")
	}
	if media, _, err := mime.ParseMediaType(r.Header.Get("Content-Type")); err != nil || media != "application/json" {
		return albedo.Errorf(albedo.EForbidden, "a write with the login cookie must send a JSON body (Content-Type: application/json)")
	}
	return nil
}

// cookieName is the name of the login cookie: browsers share cookies
// between the ports of a host, so each daemon's port names its own.
func (a *api) cookieName() string { return "albedo-" + a.port }

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

// ownOrigin reports whether origin is one of the daemon's own
// addresses: its loopback names at its port, or a host the user allowed,
// over http or https.
func (a *api) ownOrigin(origin string) bool {
	host, ok := strings.CutPrefix(origin, "http://")
	if !ok {
		host, ok = strings.CutPrefix(origin, "https://")
	}
	return ok && a.hosts.has(host)
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
