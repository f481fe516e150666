package openai

import "github.com/albedo-agent/albedo/internal/sse"

// sseEvent is one event of a provider's stream.
type sseEvent = sse.Event

// done reports whether ev is the "[DONE]" sentinel that ends a Chat
// Completions stream.
func done(ev sseEvent) bool { return ev.Data == "[DONE]" }
