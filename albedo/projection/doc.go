// Package projection turns a session's transcript into the input of a model
// request: the "messages" of Chat Completions or the "input" of Responses.
//
// It is pure: items in, JSON out. Items made under the request's protocol
// replay their Raw; the rest are built from their neutral fields. Every
// tool call reaches the provider paired with its output, and a compacted
// session sends its summary in place of the history it stands in for. The
// package also measures what a projection would weigh, for the context
// size a session shows.
package projection
