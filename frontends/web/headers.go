package web

import "net/http"

// ContentSecurityPolicy is the policy every answer of the daemon carries:
// scripts and styles from the daemon's own files only (no inline script,
// no eval), requests and images to and from the daemon only (a pasted
// picture is read as data, never shown from a data: or blob: URL), no
// plugins, no forms posted anywhere, no base URL, and no framing by any
// page.
const ContentSecurityPolicy = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; " +
	"connect-src 'self'; manifest-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

// SetSecurityHeaders sets the headers that keep a page of the daemon
// apart from every other: the policy above, no sniffing of content
// types, no Referer sent anywhere, no framing (for browsers that predate
// frame-ancestors), and no isolation holes for other origins.
func SetSecurityHeaders(h http.Header) {
	h.Set("Content-Security-Policy", ContentSecurityPolicy)
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Referrer-Policy", "no-referrer")
	h.Set("X-Frame-Options", "DENY")
	h.Set("Cross-Origin-Opener-Policy", "same-origin")
	h.Set("Cross-Origin-Resource-Policy", "same-origin")
}
