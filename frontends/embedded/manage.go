package embedded

import (
	"context"
	"fmt"

	"github.com/albedo-agent/albedo/albedo/wire"
)

// FindSessions lists the sessions f matches, most recently updated first,
// and the cursor of the next page ("" on the last).
func (a *Albedo) FindSessions(ctx context.Context, f wire.SessionFilter) ([]wire.Session, string, error) {
	list, next, err := a.app.FindSessions(ctx, f)
	if err != nil {
		return nil, "", fmt.Errorf("find sessions: %w", err)
	}
	return list, next, nil
}

// SetArchived archives a session (true) or brings it back (false). Like
// the client, it changes the session at the revision it reads, so a
// concurrent change makes it fail with albedo.EStale.
func (a *Albedo) SetArchived(ctx context.Context, id string, archived bool) (wire.Config, error) {
	c, err := a.app.SetArchived(ctx, id, archived)
	return c, failed(err, "archive session %s", id)
}

// DeleteSession deletes an idle session and everything kept for it but
// the vents it filed; while it runs a turn the error's code is
// wire.CodeBusy.
func (a *Albedo) DeleteSession(ctx context.Context, id string) error {
	_, err := a.app.DeleteSession(ctx, id)
	return failed(err, "delete session %s", id)
}
