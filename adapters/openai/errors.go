package openai

import (
	"encoding/json"
	"errors"
	"fmt"
	"mime"
	"net/http"
	"strings"
	"syscall"
	"unicode"
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

// statusFailure describes a non-2xx answer to a request posted to url:
// its status, what the provider said in body, and the next step for the
// failures whose fix is known (see nextStep).
func statusFailure(ep albedo.Endpoint, url string, status int, header http.Header, body []byte) *albedo.Error {
	details := map[string]any{"status": status}
	if code := providerCode(body); code != "" {
		details["provider_code"] = code
	}
	text := http.StatusText(status)
	if text == "" {
		text = "status"
	}
	said := quote(ep, providerMessage(body))
	if page, ok := htmlPage(header, body); ok {
		said = page + " from " + url + ", not an OpenAI-compatible API"
	}
	msg := fmt.Sprintf("answered %d %s", status, text)
	if said != "" {
		msg += ": " + said
	}
	if step := nextStep(ep, url, status); step != "" {
		msg += " (" + step + ")"
	}
	return failure(ep, details, "%s", msg)
}

// nextStep says how to fix a failure with status, when that is known.
func nextStep(ep albedo.Endpoint, url string, status int) string {
	name := ep.Provider
	if name == "" {
		name = "NAME"
	}
	switch status {
	case http.StatusUnauthorized, http.StatusForbidden:
		return "update the key with: albedo login --name " + name
	case http.StatusNotFound:
		return "posted to " + url + ": check that the base URL ends in /v1, with: albedo login --name " + name + " --base-url URL"
	}
	return ""
}

// htmlPage reports whether an answer is an HTML page, and names it in one
// line: "an HTML page" and its title when it has one.
func htmlPage(header http.Header, body []byte) (string, bool) {
	typ, _, _ := mime.ParseMediaType(header.Get("Content-Type"))
	head := strings.ToLower(strings.TrimSpace(string(body[:min(len(body), 512)])))
	if typ != "text/html" && !strings.HasPrefix(head, "<!doctype html") && !strings.HasPrefix(head, "<html") {
		return "", false
	}
	page := "an HTML page"
	lower := strings.ToLower(string(body))
	if i := strings.Index(lower, "<title>"); i >= 0 {
		if j := strings.Index(lower[i:], "</title>"); j > 0 {
			if title := strings.Join(strings.Fields(string(body[i+len("<title>"):i+j])), " "); title != "" {
				page += fmt.Sprintf(" (%q)", truncateTo(title, 80))
			}
		}
	}
	return page, true
}

// truncateTo caps s at n bytes on a character boundary, marking the cut.
func truncateTo(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return validPrefix(s, n) + "…"
}

// unreachable describes a request to url that found no server.
func unreachable(ep albedo.Endpoint, url string, err error) *albedo.Error {
	if errors.Is(err, syscall.ECONNREFUSED) {
		return failure(ep, nil, "could not be reached at %s: connection refused: is the server running?", url)
	}
	return failure(ep, nil, "could not be reached at %s: %v", url, err)
}

// providerCode extracts the "error.code" string of an error body, such as
// OpenAI's "context_length_exceeded"; "" when there is none.
func providerCode(body []byte) string {
	var v struct {
		Error struct {
			Code any `json:"code"`
		} `json:"error"`
	}
	if json.Unmarshal(body, &v) != nil {
		return ""
	}
	code, _ := v.Error.Code.(string)
	return code
}

// codeDetails are the details of a failure carrying the provider's error
// code, nil when it sent none.
func codeDetails(code any) map[string]any {
	if c, ok := code.(string); ok && c != "" {
		return map[string]any{"provider_code": c}
	}
	return nil
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
	return truncateTo(strings.TrimSpace(redact(ep, s)), maxMessage)
}

// minRedacted is the length of the shortest key redacted. Shorter keys
// (local servers often take "x") are no secrets, and replacing them would
// destroy the message.
const minRedacted = 8

// redact replaces ep's API key in s wherever it stands as a token: not
// run together with letters, digits or the - and _ keys are made of.
func redact(ep albedo.Endpoint, s string) string {
	key := ep.APIKey
	if len(key) < minRedacted {
		return s
	}
	var b strings.Builder
	for {
		i := strings.Index(s, key)
		if i < 0 {
			b.WriteString(s)
			return b.String()
		}
		end := i + len(key)
		before, _ := utf8.DecodeLastRuneInString(s[:i])
		after, _ := utf8.DecodeRuneInString(s[end:])
		b.WriteString(s[:i])
		if i > 0 && keyRune(before) || end < len(s) && keyRune(after) {
			b.WriteString(key)
		} else {
			b.WriteString("[redacted]")
		}
		s = s[end:]
	}
}

// keyRune says whether r can be part of an API key.
func keyRune(r rune) bool {
	return r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r)
}
