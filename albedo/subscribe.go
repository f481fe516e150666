package albedo

// SubscribeOptions choose where a subscription's snapshot starts.
type SubscribeOptions struct {
	// After resumes a stream: the snapshot holds only the durable events
	// with Seq > After (and the messages waiting now).
	After int64
	// Tail, when After is zero, bounds the snapshot to the last Tail
	// durable events; zero means all of them.
	Tail int
}
