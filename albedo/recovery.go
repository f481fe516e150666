package albedo

// RestartSource marks the user message that tells the model albedo
// restarted in the middle of its turn.
const RestartSource = "daemon restart"
