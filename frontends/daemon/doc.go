// Package daemon is albedo's local HTTP daemon: it wires the SQLite store,
// the HTTP model providers and the Python kernel into the domain service,
// serves the local API with gin on 127.0.0.1, and manages its own lifecycle
// (the lock that keeps one daemon per home, daemon.json, daemon.log, the
// parent process watch, and a clean shutdown).
package daemon
