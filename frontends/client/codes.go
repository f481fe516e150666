package client

// The error codes of the API's error bodies, as Error.Code and ErrorCode
// give them. They are the domain's codes (albedo.EInvalid and the rest),
// named here so that a program using only this package need not import the
// domain; a test keeps the two lists equal.
const (
	// CodeInvalid: the request is malformed or breaks a rule.
	CodeInvalid = "invalid"
	// CodeNotFound: the named thing does not exist.
	CodeNotFound = "not_found"
	// CodeConflict: the request clashes with the current state.
	CodeConflict = "conflict"
	// CodeBusy: the session is running a turn and cannot take this now.
	CodeBusy = "busy"
	// CodeUnauthorized: the token is missing or wrong.
	CodeUnauthorized = "unauthorized"
	// CodeForbidden: the request may not be made at all (a web page's).
	CodeForbidden = "forbidden"
	// CodeInternal: something failed inside albedo.
	CodeInternal = "internal"
	// CodeWorkspaceMissing: the session's workspace folder is gone.
	CodeWorkspaceMissing = "workspace_missing"
	// CodeWorkspaceRejected: a proposed workspace cannot be used.
	CodeWorkspaceRejected = "workspace_rejected"
	// CodeImageMismatch: an image's declared metadata disagrees with its data.
	CodeImageMismatch = "image_mismatch"
	// CodeNoProvider: no model provider is configured yet.
	CodeNoProvider = "no_provider"
	// CodeConfig: the configuration file cannot be used.
	CodeConfig = "config_invalid"
	// CodeStale: an If-Match named a revision that is no longer current.
	CodeStale = "precondition_failed"
	// CodeRevisionRequired: a conditional write named no revision.
	CodeRevisionRequired = "precondition_required"
	// CodeProvider: the model provider failed or refused the request.
	CodeProvider = "provider_error"
)
