package daemon

import "github.com/albedo-agent/albedo/albedo/wire"

// webRoutes are the web page's routes: the page and its files (open to
// any request whose Host and Origin pass), the ticket exchange, and what
// only the page asks of the daemon.
func webRoutes() []route {
	return []route{
		{method: "GET", path: "/", handle: (*api).webRoot, summary: "Sends a browser on to the web page", access: openAccess, status: 303},
		{method: "GET", path: "/web/", handle: (*api).webPage, summary: "The web page with a login cookie; without one, how to log in (401)", access: openAccess, media: "text/html", status: 200},
		{method: "GET", path: "/web/assets/{file}", handle: (*api).webAsset, summary: "A file of the web page (script, style)", access: openAccess, media: "text/plain", status: 200},
		{method: "GET", path: "/web/login", handle: (*api).webLogin, summary: "Trade a one-time ticket for a login cookie and go on to the page without it in the address", query: []string{"ticket"}, access: openAccess, status: 303},
		{method: "POST", path: "/web/tickets", handle: (*api).webTicket, summary: "A one-time, short-lived ticket that logs a browser in (bearer token only)", status: 201, answer: wire.WebTicket{}},
		{method: "POST", path: "/web/revoke", handle: (*api).webRevoke, summary: "End every browser's login (bearer token only)", status: 200, answer: wire.OK{}},
		{method: "POST", path: "/web/logout", handle: (*api).webLogout, summary: "End this browser's login", access: pageAccess, status: 200, answer: wire.OK{}},
		{method: "POST", path: "/web/render", handle: (*api).webRender, summary: "Answers rendered to HTML by the console's rules, raw HTML shown as text", access: pageAccess, body: wire.RenderRequest{}, status: 200, answer: wire.Rendered{}},
	}
}
