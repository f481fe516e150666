package projection

import "github.com/albedo-agent/albedo/albedo"

// MeasureContext computes the size of a session's context: the size of
// its last turn request (the provider's input tokens when it sent them,
// else the estimate of the request's body) plus the estimate of the
// conversational items appended to transcript since that request, as
// they would be sent in protocol. last is nil when there was no request.
func MeasureContext(last *albedo.RequestRow, transcript []albedo.Item, protocol albedo.Protocol) albedo.ContextSize {
	if last == nil {
		return albedo.ContextSize{}
	}
	used, source := albedo.EstimateTokens(last.Bytes), albedo.UsedFromEstimate
	if last.Usage.InputTokens != nil {
		used, source = *last.Usage.InputTokens, albedo.UsedFromProvider
	}
	var since []albedo.Item
	seen := 0
	for _, it := range transcript {
		if !it.Kind.Conversational() {
			continue
		}
		if seen >= last.Items {
			since = append(since, it)
		}
		seen++
	}
	used += albedo.EstimateTokens(projectedSize(since, protocol))
	return albedo.ContextSize{Used: &used, Source: source}
}

// projectedSize returns the bytes Project(items, protocol) makes, each
// message followed by one separator byte.
func projectedSize(items []albedo.Item, protocol albedo.Protocol) int64 {
	var size int64
	for _, raw := range Project(items, protocol) {
		size += int64(len(raw)) + 1
	}
	return size
}
