// Package wire is the contract of albedo's API: the request and answer
// bodies of every route, the events of a session's stream, the error codes
// of error bodies, and the Agent interface that both the daemon's HTTP
// client (frontends/client) and an embedded albedo (frontends/embedded)
// satisfy.
//
// The daemon encodes these types and nothing else; the client decodes into
// them; the domain's events, traces and error codes are these very types,
// so there is one definition of each shape. The package imports only the
// standard library, so that a program which talks to a daemon links
// neither the domain's adapters nor their databases.
package wire
