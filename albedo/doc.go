// Package albedo is the domain of the albedo coding-agent daemon.
//
// It holds sessions, their transcripts and the events derived from them, the
// projection of a transcript into each OpenAI protocol, the vent ledger, and
// the turn engine that drives a session from a user message through model
// requests and Python cells to an answer. Everything outside the process
// (storage, model providers, the Python kernel, configuration, time) is
// reached through the ports declared in ports.go; the packages under
// adapters/ implement them and the packages under frontends/ wire them
// together. This package imports nothing else from the repository but its
// own subpackage wire, the API's contract: the domain's events, traces and
// error codes are the API's, defined there once.
package albedo
