package albedo

// Compaction strategies: what made a session compact.
const (
	// CompactForced: the provider said the request did not fit its context.
	CompactForced = "forced"
	// CompactManual: someone ran /compact.
	CompactManual = "manual"
	// CompactAuto: the next request reached the trigger share of the
	// context window.
	CompactAuto = "auto"
)

// Compaction is a session's compaction state: a summary that stands in
// for the start of its transcript in model requests. The transcript itself
// never changes. The cut is counted in user messages, so that it means the
// same in both protocols and after a restart, and the fingerprint of those
// messages guards it: a state whose fingerprint no longer matches the
// transcript is discarded rather than sent.
type Compaction struct {
	SessionID string
	// Summary is the model's summary of the evicted history.
	Summary string
	// Users is how many user messages (and so units) the summary stands
	// in for, from the start of the transcript.
	Users int
	// Fingerprint identifies those user messages (see Fingerprint).
	Fingerprint string
	// Items is how many transcript items the summary stands in for.
	Items int
	// Strategy is CompactForced or CompactManual.
	Strategy string
	// At is the Unix time in milliseconds when the summary was made.
	At int64
}
