// Package spool keeps the output of running Python cells in files, so that
// an albedo restarted after a crash finds what an interrupted cell had
// printed. It implements albedo.OutputSpool.
//
// A cell's files are in the session's folder DIR/SESSION: its first
// Limit/2 bytes go to CALL.head; the rest go to numbered files CALL.tail-N
// of Limit/4 bytes each, of which only the last two are kept, so a cell
// never holds more than Limit bytes however much it prints. A cell has no
// folder of its own: making and removing one per cell costs a millisecond
// on some file systems, its files tens of microseconds. Read joins what is kept, with a
// line "[... N bytes cut ...]" where bytes were dropped. Writes are not
// synced: they survive the death of the process, not of the machine.
package spool
