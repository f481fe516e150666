// Package embedded runs albedo inside a Go program, without a daemon.
//
// Open wires albedo's domain service to its ports and resumes the turns
// that were running when the home was last used. By default it keeps
// sessions in the home's SQLite database, reads model providers from the
// home's config.json, talks to them over HTTP and runs the model's Python
// in a local kernel, exactly as the daemon does; every one of those ports
// can be replaced through Options, for instance with an in-memory store or
// a provider of the program's own.
//
// *Albedo implements wire.Agent, as the HTTP client in frontends/client
// does, so a program written against the Agent interface moves between an
// embedded albedo and a remote daemon by changing one constructor. The
// types are the API's own (albedo/wire): sessions, events, history items
// and vents look the same whichever way they were obtained. Its methods
// call the application layer (frontends/app) that answers the daemon's
// routes, so both compose every answer the same way. Service gives access
// to the domain service underneath for anything the API does not cover.
//
// A home's database is served by one process at a time: when Open uses
// it, Open takes the home's lock the way the daemon does, and so fails with
// ErrHomeInUse while a daemon serves the home. Talk to that daemon with
// frontends/client instead, or give the program a home of its own.
//
// This package pulls in neither the daemon's HTTP server nor the console.
package embedded
