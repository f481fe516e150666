// Package compaction is albedo's compaction policy, pure and without
// state: how a transcript divides into units (a user message and what
// answers it), the fingerprint that guards a cut, the summary message that
// stands in for the evicted units, and the rendering of evicted history
// into summary requests. The engine decides when to compact and keeps the
// state through the Store port.
package compaction
