package openai

import (
	"context"
	"time"

	"github.com/albedo-agent/albedo/albedo"
)

// attempts reports each sending of one request as it ends: when it
// started and finished, the status of the answer, how it ended, what the
// provider said and, for a reply, its usage.
type attempts struct {
	report  func(albedo.Attempt)
	bytes   int64
	started time.Time
	// status is the HTTP status of the current attempt's answer, 0 while
	// none came.
	status int
	// open is true between begin and end.
	open bool
}

// begin starts an attempt.
func (a *attempts) begin() {
	a.started, a.status, a.open = time.Now(), 0, true
}

// end reports the current attempt, once: ok when err is nil, interrupted
// when ctx ended it, else an error with the provider's message.
func (a *attempts) end(ctx context.Context, usage albedo.Usage, err error) {
	if !a.open {
		return
	}
	a.open = false
	if a.report == nil {
		return
	}
	at := albedo.Attempt{
		Started: a.started, Finished: time.Now(), Status: a.status,
		Outcome: albedo.OutcomeOK, Usage: usage, Bytes: a.bytes,
	}
	switch {
	case ctx.Err() != nil:
		at.Outcome, at.Usage = albedo.OutcomeInterrupted, albedo.Usage{}
	case err != nil:
		at.Outcome, at.Error, at.Usage = albedo.OutcomeError, albedo.ErrorMessage(err), albedo.Usage{}
	}
	a.report(at)
}
