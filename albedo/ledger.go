package albedo

import "time"

// RequestKind says why albedo asked the model.
type RequestKind string

// Request kinds.
const (
	// RequestTurn is a request of a turn: the transcript and its tools.
	RequestTurn RequestKind = "turn"
	// RequestSummary is a request that summarises a transcript.
	RequestSummary RequestKind = "summary"
)

// Outcome is how one attempt at a model request ended.
type Outcome string

// Attempt outcomes.
const (
	OutcomeOK          Outcome = "ok"
	OutcomeError       Outcome = "error"
	OutcomeInterrupted Outcome = "interrupted"
)

// Attempt is one sending of a model request, as the provider reports it
// once it ended.
type Attempt struct {
	Started, Finished time.Time
	Outcome           Outcome
	// Status is the HTTP status of the answer, 0 when no answer came.
	Status int
	// Error is what went wrong in the provider's words, never its key.
	Error string
	// Usage is the reply's usage; empty unless Outcome is OutcomeOK.
	Usage Usage
	// Bytes is the exact size of the request body.
	Bytes int64
}

// RequestRow is one durable row of a session's request ledger: one
// attempt at a model request, retries included.
type RequestRow struct {
	// ID increases with every row of the store.
	ID        int64
	SessionID string
	Kind      RequestKind
	Provider  string
	Model     string
	Protocol  Protocol
	// Started and Finished are Unix milliseconds.
	Started, Finished int64
	Outcome           Outcome
	// Status is the HTTP status of the answer, nil when none came.
	Status *int
	// Error is the provider's message; empty when there was none.
	Error string
	Usage Usage
	// Items is how many stored transcript items the request carried.
	Items int
	// Bytes is the exact size of the request body.
	Bytes int64
}

// MaxRequestPage caps how many ledger rows one page holds.
const MaxRequestPage = 200

// DefaultRequestPage is the size of a ledger page when none is asked for.
const DefaultRequestPage = 50

// RequestPage is one page of a session's ledger, oldest first. Next is the
// cursor of the following page, nil when nothing follows.
type RequestPage struct {
	Rows []RequestRow
	Next *int64
}
