package daemon

import (
	"net/http"
	"net/url"

	"github.com/albedo-agent/albedo/albedo"
	"github.com/albedo-agent/albedo/albedo/wire"
	"github.com/albedo-agent/albedo/frontends/web"
	"github.com/gin-gonic/gin"
)

// maxRenderTexts bounds the texts one POST /web/render renders.
const maxRenderTexts = 500

// webRoot sends a browser on to the page.
func (a *api) webRoot(c *gin.Context) {
	c.Redirect(http.StatusSeeOther, "/web/")
}

// webPage answers the page to a browser logged in, and how to log in to
// any other.
func (a *api) webPage(c *gin.Context) {
	c.Header("Cache-Control", "no-store")
	if a.loggedIn(c) {
		a.webFile(c, http.StatusOK, "app.html")
		return
	}
	a.webFile(c, http.StatusUnauthorized, "login.html")
}

// webAsset answers a file of the page.
func (a *api) webAsset(c *gin.Context) {
	c.Header("Cache-Control", "no-cache")
	a.webFile(c, http.StatusOK, c.Param("file"))
}

// webFile answers the embedded file name with status.
func (a *api) webFile(c *gin.Context, status int, name string) {
	data, kind, ok := web.Asset(name)
	if !ok {
		fail(c, albedo.Errorf(albedo.ENotFound, "the web page has no file %q", name))
		return
	}
	c.Data(status, kind, data)
}

// webLogin trades a ticket for a login cookie, then sends the browser on
// to the page, the ticket gone from its address. A ticket used before,
// expired or never issued gets how to log in.
func (a *api) webLogin(c *gin.Context) {
	c.Header("Cache-Control", "no-store")
	cookie, expires, ok, err := a.logins.Redeem(c.Query("ticket"))
	if err != nil {
		fail(c, err)
		return
	}
	if !ok {
		a.webFile(c, http.StatusUnauthorized, "login.html")
		return
	}
	http.SetCookie(c.Writer, &http.Cookie{
		Name: a.cookieName(), Value: cookie, Path: "/", Expires: expires, MaxAge: int(web.CookieLife.Seconds()),
		HttpOnly: true, SameSite: http.SameSiteStrictMode, Secure: c.Request.TLS != nil,
	})
	c.Redirect(http.StatusSeeOther, "/web/")
}

// webTicket issues a one-time login ticket.
func (a *api) webTicket(c *gin.Context) {
	ticket, expires, err := a.logins.Ticket()
	if err != nil {
		fail(c, err)
		return
	}
	c.Header("Cache-Control", "no-store")
	c.JSON(http.StatusCreated, wire.WebTicket{Ticket: ticket, Path: "/web/login?ticket=" + url.QueryEscape(ticket), ExpiresAt: expires.UnixMilli()})
}

// webRevoke ends every browser's login.
func (a *api) webRevoke(c *gin.Context) {
	if err := a.logins.Revoke(); err != nil {
		fail(c, err)
		return
	}
	c.JSON(http.StatusOK, wire.OK{OK: true})
}

// webLogout ends this browser's login: its cookie goes.
func (a *api) webLogout(c *gin.Context) {
	http.SetCookie(c.Writer, &http.Cookie{Name: a.cookieName(), Value: "", Path: "/", MaxAge: -1, HttpOnly: true, SameSite: http.SameSiteStrictMode})
	c.JSON(http.StatusOK, wire.OK{OK: true})
}

// webRender renders answers to HTML.
func (a *api) webRender(c *gin.Context) {
	var req wire.RenderRequest
	if !bind(c, &req) {
		return
	}
	if len(req.Texts) > maxRenderTexts {
		invalid(c, "render at most %d texts at once, not %d", maxRenderTexts, len(req.Texts))
		return
	}
	out := wire.Rendered{HTML: make([]string, len(req.Texts))}
	for i, text := range req.Texts {
		html, err := a.markup.Render(text)
		if err != nil {
			fail(c, err)
			return
		}
		out.HTML[i] = html
	}
	c.JSON(http.StatusOK, out)
}
