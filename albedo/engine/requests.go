package engine

import (
	"cmp"
	"context"
	"errors"
	"strings"
	"time"

	"github.com/albedo-agent/albedo/albedo"
	"github.com/albedo-agent/albedo/albedo/compaction"
)

// Requests returns a page of a session's request ledger, oldest first:
// the rows after the cursor after (0: from the first), at most limit of
// them (0: DefaultRequestPage; more than MaxRequestPage is EInvalid).
func (s *Service) Requests(ctx context.Context, id string, after int64, limit int) (albedo.RequestPage, error) {
	if limit < 0 || limit > albedo.MaxRequestPage {
		return albedo.RequestPage{}, albedo.Errorf(albedo.EInvalid, "limit must be between 1 and %d, not %d", albedo.MaxRequestPage, limit)
	}
	limit = cmp.Or(limit, albedo.DefaultRequestPage)
	if after < 0 {
		return albedo.RequestPage{}, albedo.Errorf(albedo.EInvalid, "after must be a cursor albedo gave out, not %d", after)
	}
	if _, err := s.store.Session(ctx, id); err != nil {
		return albedo.RequestPage{}, err
	}
	rows, err := s.store.Requests(ctx, id, after, limit+1)
	if err != nil {
		return albedo.RequestPage{}, err
	}
	page := albedo.RequestPage{Rows: rows}
	if len(rows) > limit {
		page.Rows = rows[:limit]
		next := page.Rows[limit-1].ID
		page.Next = &next
	}
	return page, nil
}

// ledger records the attempts of one model request as rows of its
// session's request ledger. Writing a row never fails the request: a
// failure is logged.
type ledger struct {
	s    *Service
	id   string
	kind albedo.RequestKind
	ep   albedo.Endpoint
	// items is how many transcript items the request carries.
	items int
	// bytes estimates the body's size for a provider that reports no
	// attempt.
	bytes    int64
	started  time.Time
	attempts int
}

// newLedger prepares the rows of one request to ep.
func (s *Service) newLedger(id string, kind albedo.RequestKind, ep albedo.Endpoint, items int, req albedo.ModelRequest) *ledger {
	return &ledger{s: s, id: id, kind: kind, ep: ep, items: items, bytes: requestSize(req), started: s.clock.Now()}
}

// attempt records one attempt the provider reported.
func (l *ledger) attempt(a albedo.Attempt) {
	l.attempts++
	l.write(a)
}

// finish records the request's one attempt when the provider reported
// none, from how Stream returned.
func (l *ledger) finish(ctx context.Context, reply albedo.ModelReply, err error) {
	if l.attempts > 0 {
		return
	}
	a := albedo.Attempt{Started: l.started, Finished: l.s.clock.Now(), Outcome: albedo.OutcomeOK, Usage: reply.Usage, Bytes: l.bytes}
	switch {
	case ctx.Err() != nil || errors.Is(err, context.Canceled):
		a.Outcome, a.Usage = albedo.OutcomeInterrupted, albedo.Usage{}
	case err != nil:
		a.Outcome, a.Error, a.Usage = albedo.OutcomeError, albedo.ErrorMessage(err), albedo.Usage{}
		if st, ok := albedo.ErrorDetails(err)["status"].(int); ok {
			a.Status = st
		}
	default:
		a.Status = 200
	}
	l.write(a)
}

// write stores the row of a.
func (l *ledger) write(a albedo.Attempt) {
	row := albedo.RequestRow{
		SessionID: l.id, Kind: l.kind, Provider: l.ep.Provider, Model: l.ep.Model, Protocol: l.ep.Protocol,
		Started: a.Started.UnixMilli(), Finished: a.Finished.UnixMilli(), Outcome: a.Outcome,
		Error: redactKey(a.Error, l.ep.APIKey), Usage: a.Usage, Items: l.items, Bytes: a.Bytes,
	}
	if a.Status != 0 {
		st := a.Status
		row.Status = &st
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if _, err := l.s.store.AppendRequest(ctx, row); err != nil {
		l.s.log.Error("record a model request", "session", l.id, "err", err)
	}
}

// redactKey removes an API key from a message, whatever put it there.
func redactKey(msg, key string) string {
	if key == "" {
		return msg
	}
	return strings.ReplaceAll(msg, key, "[redacted]")
}

// requestSize estimates the size of a request's body from what it
// carries: its instructions and texts as JSON strings, its input as
// projected, and its tools.
func requestSize(req albedo.ModelRequest) int64 {
	n := compaction.JsonStringSize(req.Instructions)
	for _, raw := range req.Input {
		n += int64(len(raw)) + 1
	}
	for _, t := range req.Tools {
		n += compaction.JsonStringSize(t.Name) + compaction.JsonStringSize(t.Description) + int64(len(t.Parameters))
	}
	return n
}
