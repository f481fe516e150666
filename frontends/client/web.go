package client

import (
	"context"
	"fmt"
	"net/http"

	"github.com/albedo-agent/albedo/albedo/wire"
)

// WebTicket asks the daemon for a one-time ticket that logs a browser
// into the web page.
func (c *Client) WebTicket(ctx context.Context) (wire.WebTicket, error) {
	var t wire.WebTicket
	_, err := c.do(ctx, http.MethodPost, "/web/tickets", struct{}{}, &t, nil)
	return t, err
}

// WebURL returns the address that redeems ticket at the daemon the
// client last reached.
func (c *Client) WebURL(t wire.WebTicket) string {
	return fmt.Sprintf("http://127.0.0.1:%d%s", c.Connection().Port, t.Path)
}

// RevokeWebLogins ends every browser's login to the web page.
func (c *Client) RevokeWebLogins(ctx context.Context) error {
	_, err := c.do(ctx, http.MethodPost, "/web/revoke", struct{}{}, nil, nil)
	return err
}
