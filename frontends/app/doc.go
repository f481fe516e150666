// Package app is albedo's application layer: what every route of the API
// answers, composed once over the domain service and returned as the
// API's own values (albedo/wire). The daemon's handlers decode a request,
// call one method here and encode what it returns; an embedded albedo calls
// the same methods in process. Defaults, paging cursors, id parsing and the
// session detail live here and nowhere else, so the two cannot drift
// apart.
package app
