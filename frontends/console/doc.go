// Package console is albedo's terminal user interface: a client of the
// daemon like any other. It lists sessions, shows one session's transcript
// as it streams (the model's text, its thinking, each Python cell with its
// output), sends messages and slash commands, and triages the vent ledger.
//
// The transcript model (events to display blocks, in transcript.go) and
// its layout (blocks to wrapped lines, in render.go) are plain data with no
// terminal in sight, so they are tested directly; TranscriptView draws only
// the lines that are visible.
package console
