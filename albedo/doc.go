// Package albedo is the domain of the albedo coding-agent daemon: its types
// and its ports, the contract a newcomer reads first.
//
// It holds sessions, their transcripts and the events derived from them,
// the vent ledger, usage, errors, and the ports (ports.go) through which
// everything outside the process is reached: storage, model providers, the
// Python kernel, workspaces, configuration, time. The packages that run
// the domain sit beneath this folder and import it, never the other way:
//
//   - engine: the turn engine (Service) that drives a session from a user
//     message through model requests and Python cells to an answer;
//   - projection: a transcript as the input of a Chat Completions or
//     Responses request;
//   - compaction: compaction policy (units, the fingerprint of a cut,
//     the summary message, the rendering of evicted history).
//
// The packages under adapters/ implement the ports and the packages under
// frontends/ wire them together. This package imports nothing else from
// the repository but its own subpackage wire, the API's contract: the
// domain's events, traces and error codes are the API's, defined there
// once.
package albedo
