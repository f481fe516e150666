// Package web is albedo's web page: the files the daemon serves for it
// (embedded in the binary, hand-written modules and CSS, no build step),
// the security headers every answer carries, and how a browser logs in
// without ever holding the daemon's bearer token: a one-time, short-lived
// ticket that the command line asks for with the token and the page trades
// for a signed HttpOnly, SameSite=Strict cookie, revocable all at once.
// The daemon wires it into its routes (frontends/daemon).
package web
