package wire

// WebTicket is the answer of POST /web/tickets: a one-time ticket that
// logs a browser into the web page.
type WebTicket struct {
	// Ticket is good once, until ExpiresAt.
	Ticket string `json:"ticket"`
	// Path is the address, on the daemon, that redeems the ticket
	// (/web/login?ticket=...).
	Path string `json:"path"`
	// ExpiresAt is when the ticket stops being good, in Unix
	// milliseconds.
	ExpiresAt int64 `json:"expires_at"`
}

// RenderRequest is the body of POST /web/render: answers in markdown.
type RenderRequest struct {
	Texts []string `json:"texts"`
}

// Rendered is the answer of POST /web/render: each text's HTML, in the
// order of the request.
type Rendered struct {
	HTML []string `json:"html"`
}
