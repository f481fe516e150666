package openai

import (
	"errors"
	"net/http"
	"strings"
	"sync"

	"github.com/albedo-agent/albedo/albedo"
)

// includeRefusals remembers the providers (by name and base URL) that
// refused a Responses request for its "include" parameter. Its zero value
// is empty and ready.
type includeRefusals struct{ seen sync.Map }

func includeKey(ep albedo.Endpoint) string { return ep.Provider + "\x00" + ep.BaseURL }

// refused reports whether ep's provider refused "include" before.
func (r *includeRefusals) refused(ep albedo.Endpoint) bool {
	_, ok := r.seen.Load(includeKey(ep))
	return ok
}

// remember records that ep's provider refuses "include".
func (r *includeRefusals) remember(ep albedo.Endpoint) { r.seen.Store(includeKey(ep), true) }

// refusesInclude reports whether err is a provider's refusal of a request
// body that asked for "include" (asked): a 400 or 422 answer whose message names
// the parameter or what it asked for.
func refusesInclude(err error, asked bool) bool {
	var e *albedo.Error
	if !errors.As(err, &e) || !asked {
		return false
	}
	status, _ := e.Details["status"].(int)
	if status != http.StatusBadRequest && status != http.StatusUnprocessableEntity {
		return false
	}
	msg := strings.ToLower(e.Message)
	return strings.Contains(msg, "include") || strings.Contains(msg, "encrypted_content")
}
