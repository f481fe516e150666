package albedo

import (
	"errors"
	"strings"
)

// contextFullMarkers are the words by which a provider says a request did
// not fit its context window, matched case-insensitively in its error
// (the HTTP error body or an error event of the stream): OpenAI's error
// code, OpenAI's and vLLM's messages, and llama.cpp's.
var contextFullMarkers = []string{
	"context_length_exceeded",
	"maximum context length",
	"maximum model length",
	"exceeds the available context size",
}

// ContextFull reports whether err is a provider error saying that the
// request was larger than the model's context window.
func ContextFull(err error) bool {
	var e *Error
	if err == nil || !errors.As(err, &e) || e.Code != EProvider {
		return false
	}
	text := strings.ToLower(e.Message)
	if code, ok := e.Details["provider_code"].(string); ok {
		text += " " + strings.ToLower(code)
	}
	for _, m := range contextFullMarkers {
		if strings.Contains(text, m) {
			return true
		}
	}
	return false
}
