// Package albedo is the domain of the albedo coding-agent daemon: its types
// and its ports.
//
// It holds sessions, their transcripts and the events derived from them, the
// projection of a transcript into each OpenAI protocol, compaction policy,
// the vent ledger, and the ports (ports.go) through which everything outside
// the process is reached: storage, model providers, the Python kernel,
// configuration, time. The turn engine that drives a session lives in the
// subpackage engine; the packages under adapters/ implement the ports and
// the packages under frontends/ wire them together. This package imports
// nothing else from the repository but its own subpackage wire, the API's
// contract: the domain's events, traces and error codes are the API's,
// defined there once.
package albedo
