package albedo

// CompactResult is the result of /compact: whether a compaction started,
// and why not when it did not.
type CompactResult struct {
	Started bool
	// Reason says why nothing started; empty when Started.
	Reason string
}
