package openai

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"unicode/utf8"

	"github.com/albedo-agent/albedo/albedo"
)

// CodeProviderError is the albedo error code of every failure this package
// reports: the provider refused, failed, went silent or could not be
// reached.
const CodeProviderError = albedo.EProvider

// maxMessage caps the provider's own words quoted in an error message.
const maxMessage = 500

// errIdle is the cancellation cause of a request whose provider went silent.
var errIdle = errors.New("provider went silent")

// failure returns a provider error about ep. The message never contains
// ep's API key, whatever the provider or the network said; words of the
// provider go through quote first, so that no cut leaves part of the key.
func failure(ep albedo.Endpoint, details map[string]any, format string, args ...any) *albedo.Error {
	msg := redact(ep, who(ep)+" "+fmt.Sprintf(format, args...))
	if details == nil {
		details = map[string]any{}
	}
	if ep.Provider != "" {
		details["provider"] = ep.Provider
	}
	return &albedo.Error{Code: CodeProviderError, Message: msg, Details: details}
}

// who names the provider of ep for messages.
func who(ep albedo.Endpoint) string {
	if ep.Provider == "" {
		return "provider"
	}
	return fmt.Sprintf("provider %q", ep.Provider)
}

// statusFailure describes a non-2xx answer: its status and what the
// provider said in body.
func statusFailure(ep albedo.Endpoint, status int, body []byte) *albedo.Error {
	details := map[string]any{"status": status}
	text := http.StatusText(status)
	if text == "" {
		text = "status"
	}
	said := quote(ep, providerMessage(body))
	if said == "" {
		return failure(ep, details, "answered %d %s", status, text)
	}
	return failure(ep, details, "answered %d %s: %s", status, text, said)
}

// apiError is the error object OpenAI-compatible providers send, in an
// error body or in a stream event.
type apiError struct {
	Message string `json:"message"`
	Type    string `json:"type"`
	Code    any    `json:"code"`
}

// text renders the error for a message: the provider's message, or its code
// or type when it sent no message.
func (e *apiError) text() string {
	if e == nil {
		return ""
	}
	if e.Message != "" {
		return e.Message
	}
	if e.Code != nil {
		return fmt.Sprint(e.Code)
	}
	return e.Type
}

// providerMessage extracts the provider's message from an error body: the
// "error.message" of a JSON body, a JSON "error" or "message" string, or
// else the body's text with its runs of white space collapsed.
func providerMessage(body []byte) string {
	var v struct {
		Error   json.RawMessage `json:"error"`
		Message string          `json:"message"`
	}
	if json.Unmarshal(body, &v) == nil {
		var obj apiError
		var s string
		switch {
		case json.Unmarshal(v.Error, &obj) == nil && obj.text() != "":
			return obj.text()
		case json.Unmarshal(v.Error, &s) == nil && s != "":
			return s
		case v.Message != "":
			return v.Message
		}
	}
	return strings.Join(strings.Fields(string(body)), " ")
}

// quote prepares the provider's own words s for a message about ep: its
// API key redacted, then cut to maxMessage bytes. Redacting first keeps a
// cut through the key from leaving its beginning in the message.
func quote(ep albedo.Endpoint, s string) string {
	return truncate(redact(ep, s))
}

// redact replaces ep's API key in s.
func redact(ep albedo.Endpoint, s string) string {
	if ep.APIKey == "" {
		return s
	}
	return strings.ReplaceAll(s, ep.APIKey, "[redacted]")
}

// truncate caps s at maxMessage bytes on a character boundary.
func truncate(s string) string {
	s = strings.TrimSpace(s)
	if len(s) <= maxMessage {
		return s
	}
	cut := maxMessage
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}
