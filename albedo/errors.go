package albedo

import (
	"errors"
	"fmt"

	"github.com/albedo-agent/albedo/albedo/wire"
)

// Application error codes: the API's, under the domain's names (EInvalid
// is wire.CodeInvalid, and so on; wire documents each). Frontends map each
// code to a transport status in exactly one place; the domain never speaks
// HTTP.
const (
	EInvalid           = wire.CodeInvalid
	ENotFound          = wire.CodeNotFound
	EConflict          = wire.CodeConflict
	EBusy              = wire.CodeBusy
	EUnauthorized      = wire.CodeUnauthorized
	EForbidden         = wire.CodeForbidden
	EInternal          = wire.CodeInternal
	EWorkspaceMissing  = wire.CodeWorkspaceMissing
	EWorkspaceRejected = wire.CodeWorkspaceRejected
	EImageMismatch     = wire.CodeImageMismatch
	ENoProvider        = wire.CodeNoProvider
	EConfig            = wire.CodeConfig
	EStale             = wire.CodeStale
	ERevisionRequired  = wire.CodeRevisionRequired
	EProvider          = wire.CodeProvider
	ETooLarge          = wire.CodeTooLarge
	EStoreUnavailable  = wire.CodeStoreUnavailable
	ELeaseLost         = wire.CodeLeaseLost
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

// ErrorCode returns the error's code, which makes it a wire.CodedError.
func (e *Error) ErrorCode() string { return e.Code }

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
