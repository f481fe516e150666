package albedo

import (
	"errors"
	"fmt"
)

// Application error codes. Frontends map each code to a transport status in
// exactly one place; the domain never speaks HTTP.
const (
	// EInvalid: the request is malformed or breaks a rule of the domain.
	EInvalid = "invalid"
	// ENotFound: the named thing does not exist.
	ENotFound = "not_found"
	// EConflict: the request is well formed but clashes with current state.
	EConflict = "conflict"
	// EBusy: the session is running a turn and cannot take this change now.
	EBusy = "busy"
	// EUnauthorized: the caller did not prove who it is.
	EUnauthorized = "unauthorized"
	// EForbidden: the caller may not do this at all.
	EForbidden = "forbidden"
	// EInternal: something failed inside albedo.
	EInternal = "internal"
	// EWorkspaceMissing: the session's workspace folder no longer exists.
	EWorkspaceMissing = "workspace_missing"
	// EWorkspaceRejected: a proposed workspace cannot be used.
	EWorkspaceRejected = "workspace_rejected"
	// EImageMismatch: an image's declared metadata disagrees with its data.
	EImageMismatch = "image_mismatch"
	// ENoProvider: no model provider is configured yet.
	ENoProvider = "no_provider"
	// EConfig: the configuration file cannot be used.
	EConfig = "config_invalid"
	// EStale: a conditional write named a revision that is no longer current.
	EStale = "precondition_failed"
	// ERevisionRequired: a conditional write named no revision.
	ERevisionRequired = "precondition_required"
	// EProvider: the model provider failed or refused the request.
	EProvider = "provider_error"
)

// Error is an application error: a code for programs, a message for people,
// and optional details that frontends include in their error bodies.
type Error struct {
	Code    string
	Message string
	Details map[string]any
}

// Error returns the human-readable message.
func (e *Error) Error() string { return e.Message }

// Errorf returns an *Error with the given code and a formatted message.
func Errorf(code, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// ErrorCode returns the code of the first *Error in err's chain, EInternal
// for any other non-nil error, and "" for nil.
func ErrorCode(err error) string {
	if err == nil {
		return ""
	}
	var e *Error
	if errors.As(err, &e) {
		return e.Code
	}
	return EInternal
}

// ErrorMessage returns the message of the first *Error in err's chain, or a
// generic message for internal errors so that no detail leaks.
func ErrorMessage(err error) string {
	if err == nil {
		return ""
	}
	var e *Error
	if errors.As(err, &e) {
		return e.Message
	}
	return "internal error"
}

// ErrorDetails returns the details of the first *Error in err's chain.
func ErrorDetails(err error) map[string]any {
	var e *Error
	if errors.As(err, &e) {
		return e.Details
	}
	return nil
}
