// Package configfile keeps albedo's provider configuration in a JSON file,
// config.json under ALBEDO_HOME:
//
//	{"active": "alpha", "providers": {"alpha": {"baseUrl": "https://…/v1",
//	  "apiKey": "…", "model": "…", "protocol": "responses"}}}
//
// where protocol is "responses" or "chat_completions". File implements
// albedo.ConfigSource.
//
// # Reading
//
// People and tests rewrite the file at any moment, so Load reads it afresh
// on every call instead of trusting a modification time that may not change
// between two quick writes of the same size. That costs about 40µs on a
// small file (a stat alone is about 4µs), next to model requests of a
// second or more per turn. A file caught half-written, blank or cut short,
// is read again every 10ms for up to 100ms before its fault is reported.
// Faults are *albedo.Error values with code albedo.EConfig whose message
// names the file and the line and column of the fault (columns count
// characters), also given in Details. A missing or blank file is an empty
// configuration, not an error, as is an "active" naming no provider.
//
// # Writing
//
// SetActiveModel and SaveProvider read, change and rewrite the file. Every
// member they do not set survives, in its place, whatever albedo knows of
// it; the file is rewritten with two-space indentation. The new contents
// go to a temporary file in the same directory, which is synced and then
// renamed over config.json with mode 0600, so that a reader sees the old
// file or the new one, never a mix. Writes through one File are
// serialized; writers in other processes are not coordinated with.
package configfile
