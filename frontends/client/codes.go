package client

import "github.com/albedo-agent/albedo/albedo/wire"

// The error codes of the API's error bodies, as Error.Code and ErrorCode
// give them: the API's (wire.CodeInvalid and the rest), which are the
// domain's too.
const (
	CodeInvalid           = wire.CodeInvalid
	CodeNotFound          = wire.CodeNotFound
	CodeConflict          = wire.CodeConflict
	CodeBusy              = wire.CodeBusy
	CodeUnauthorized      = wire.CodeUnauthorized
	CodeForbidden         = wire.CodeForbidden
	CodeInternal          = wire.CodeInternal
	CodeWorkspaceMissing  = wire.CodeWorkspaceMissing
	CodeWorkspaceRejected = wire.CodeWorkspaceRejected
	CodeImageMismatch     = wire.CodeImageMismatch
	CodeNoProvider        = wire.CodeNoProvider
	CodeConfig            = wire.CodeConfig
	CodeStale             = wire.CodeStale
	CodeRevisionRequired  = wire.CodeRevisionRequired
	CodeProvider          = wire.CodeProvider
	CodeTooLarge          = wire.CodeTooLarge
	CodeStoreUnavailable  = wire.CodeStoreUnavailable
)
