package albedo

// CommandResult is the outcome of a slash command: the one field that
// names the command is set.
type CommandResult struct {
	// Model is the outcome of /model.
	Model *ModelChoice
	// Compact is the outcome of /compact.
	Compact *CompactResult
	// Skill is the outcome of /skill.
	Skill *SkillStarted
}

// SkillStarted is the result of /skill: the skill whose body went with
// the user's message, and whether that message waits for the running
// turn.
type SkillStarted struct {
	Skill  Skill
	Queued bool
}

// ModelChoice is the result of /model.
type ModelChoice struct {
	Provider string
	Model    string
	Protocol Protocol
	// Effort is nil unless a reasoning effort is set.
	Effort *string
}
