package albedo

import "github.com/albedo-agent/albedo/albedo/wire"

// Tokens returns a count for a Usage field.
func Tokens(n int64) *int64 { return &n }

// UsageTotals sums the usage of a session's successful requests; a count
// a provider did not send adds nothing. It is the API's (wire.UsageTotals),
// which UsageTotals.Add fills from a request's Usage.
type UsageTotals = wire.UsageTotals
