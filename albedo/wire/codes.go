package wire

// Error codes: the "code" of an error body, and what ErrorCode returns.
// The domain raises them (albedo.EInvalid is CodeInvalid); the daemon maps
// each to an HTTP status in one place.
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
	// CodeStale: a conditional change named a revision that is no longer
	// current.
	CodeStale = "precondition_failed"
	// CodeRevisionRequired: a conditional change named no revision.
	CodeRevisionRequired = "precondition_required"
	// CodeProvider: the model provider failed or refused the request.
	CodeProvider = "provider_error"
	// CodeMethodNotAllowed: the route exists with another method.
	CodeMethodNotAllowed = "method_not_allowed"
	// CodeTooLarge: the request body is larger than albedo takes.
	CodeTooLarge = "too_large"
	// CodeStoreUnavailable: the store cannot take the change now (its disk
	// is full, another program holds its lock, it is read-only); nothing
	// of the change was stored, and the same change may succeed later.
	CodeStoreUnavailable = "store_unavailable"
	// CodeLeaseLost: the daemon no longer holds the session's lease
	// (another daemon sharing the store took over its turn); nothing of
	// the change was stored.
	CodeLeaseLost = "lease_lost"
)
