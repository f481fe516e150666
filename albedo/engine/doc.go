// Package engine is albedo's turn engine: the Service that drives a session
// from a user message through model requests and Python cells to an answer.
//
// It holds the turn, the queue of messages sent while a turn runs, recovery
// after a restart, forks, slash commands, the event hub and subscriptions,
// history pages, compaction runs, the kernel's warm-up and idle reaping,
// background jobs and host calls. It speaks the domain's types and reaches
// the outside world only through the ports of package albedo.
package engine
