package embedded

import (
	"context"

	"github.com/albedo-agent/albedo/albedo/wire"
)

// Requests returns up to limit rows (50 when 0, at most 200) of a
// session's request ledger after the cursor after (0: from the first).
func (a *Albedo) Requests(ctx context.Context, id string, after int64, limit int) (wire.RequestPage, error) {
	page, err := a.app.Requests(ctx, id, after, limit)
	return page, failed(err, "get requests of session %s", id)
}

// Context returns how full a session's model context is: the model's
// window, the size of what the next request carries, the instruction
// files sent, and what is wrong with the window or the catalog.
func (a *Albedo) Context(ctx context.Context, id string) (wire.Context, error) {
	rep, err := a.app.Context(ctx, id)
	return rep, failed(err, "get context of session %s", id)
}
