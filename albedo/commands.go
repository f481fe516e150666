package albedo

// CommandResult is the outcome of a slash command: the one field that
// names the command is set.
type CommandResult struct {
	// Model is the outcome of /model.
	Model *ModelChoice
	// Compact is the outcome of /compact.
	Compact *CompactResult
}

// ModelChoice is the result of /model.
type ModelChoice struct {
	Provider string
	Model    string
	Protocol Protocol
	// Effort is nil unless a reasoning effort is set.
	Effort *string
}
